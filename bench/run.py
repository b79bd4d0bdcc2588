#!/usr/bin/python3
"""onnxcc against ONNX Runtime on a model zoo, in one run.

Usage: bench/run.py [--models resnet18,text_encoder|users|offpath|...] [--threads 1,2]
                    [--iters 50] [--rounds 5] [--out bench/RESULTS.md] [--build build]
                    [--profile-above 1.1]

For each model of the zoo (generated into bench/.work/ by the scripts of
test/models/ from fixed seeds, with PyTorch's outputs as the reference) this

  1. compiles it with `onnxcc bench --keep DIR` (onnxcc compile, then c++ -O2
     of the generated code with a timing harness; the compile time is both),
  2. for each thread count, runs the harness (DIR/run) and ONNX Runtime
     (bench/ort_bench.js in node: npm onnxruntime-node, every graph
     optimization on, the same number of intra-op threads) alternately, one
     fresh process each, --rounds times with --iters/--rounds timed runs after
     --warmup untimed ones, so that both see the same machine load,
  3. checks the outputs of the first round of both against PyTorch's, and
  4. prints a Markdown table and writes it to --out with the machine's CPU.

The columns: median and p90 (nearest rank) of all timed runs; onnxcc/ORT, the
ratio of the medians (below 1: onnxcc is faster), its geometric mean over
the models and the worst ratio (per thread count); the peak RSS of each process (VmHWM; node's includes V8, about
40 MiB); cold start, the median over the rounds of the time from
spawning the process to its first output line (after its first inference:
for ORT that includes loading the runtime and creating the session); GFLOP/s,
the model's FLOPs (2 per multiply-add of Conv/ConvTranspose/MatMul/Gemm, as
counted by `onnxcc bench`; also attention, RNNs, FFTs, pooling and reductions,
see compiler/Flops.h) over the median, and its share of the peak of the
cores used (one core's, measured by a probe of independent FMA chains,
times the threads; peak_flops_per_cycle gives the nominal figure the report
prints next to it); the compile time; and the largest
absolute difference of each output from PyTorch's (parity fails above --tol,
1e-4; for the quantized models from ONNX Runtime's unoptimized outputs, failing
above twice ORT's own optimized-vs-unoptimized difference). The exit status is 1 when a parity check fails or onnxcc could not
compile or run a model (the report is written all the same).

With --halide SCHEDULES (e.g. onnxcc,Mullapudi2016,Li2018,Adams2019) each
model is also compiled with `onnxcc bench --target halide` once per schedule
(onnxcc: the schedule the emitter writes; the others: Halide's autoscheduler
of that name, `--halide-autoscheduler`), and those harnesses take their turns
in the same rounds; a second table gives each schedule's median, the best
one's ratios to the cpp target and to ORT, and its parity.

Models slower than ORT by more than --profile-above (1.1) are then profiled
with `onnxcc bench --profile` on the same inputs, at the thread count where
they are slowest, and the report says where the time went: the slowest nodes
(their op after the graph passes, kernel or loops, time and share) and the
time by op type, with a Chrome trace of the runs in the work folder.

--models takes model names and groups: default (the CNNs and the text
encoder), users (what users deploy in 2026: BERT-base, a MiniLM-L6 sentence
embedder, ViT-B/16, Whisper-tiny's encoder, a GPT-2 small decode step with a
127-token cache), offpath (a mel-spectrogram front end, an opset-20 STFT+DFT
model, a GRU classifier, UNets with BatchNormalization and with
GroupNormalization, a classifier whose weights are Constant nodes), ml (the
classical-ML models) and all (default, users and offpath). The users and
offpath models come from test/models/make_user_models.py (a few minutes for
the large ones, once: bench/.work keeps them until that script changes).

The `tiny` model (examples/models/tiny_cnn.onnx, no PyTorch reference: onnxcc
is compared with ORT) makes a quick run for tests.
"""
import argparse
import datetime
import hashlib
import json
import math
import os
import platform
import shutil
import statistics
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# name -> (generator command relative to ROOT, or None for a bundled model)
ZOO = {
    "resnet18": ["test/models/make_torchvision_model.py", "resnet18"],
    "mobilenet_v2": ["test/models/make_torchvision_model.py", "mobilenet_v2"],
    "squeezenet1_1": ["test/models/make_torchvision_model.py", "squeezenet1_1"],
    "efficientnet_b0": ["test/models/make_torchvision_model.py", "efficientnet_b0"],
    # 4 layers, d=256, 4 heads, feed-forward 1024; dataset 0 is batch 1, sequence 64.
    "text_encoder": ["test/models/make_dynamic_model.py", "text-encoder"],
    "tiny": None,
    # Classical ML (test/ml): a 500-tree depth-8 random forest, a 300-round
    # XGBoost model and an RBF SVC (4 classes) on 32 features, and a
    # 10-class logistic regression on 256, batch 1 and 1000; sklearn's/
    # XGBoost's own predictions are the reference.
    "rf500_b1": ["test/ml/make_bench_model.py", "rf500", "1"],
    "rf500_b1000": ["test/ml/make_bench_model.py", "rf500", "1000"],
    "xgb300_b1": ["test/ml/make_bench_model.py", "xgb300", "1"],
    "xgb300_b1000": ["test/ml/make_bench_model.py", "xgb300", "1000"],
    "svc_b1": ["test/ml/make_bench_model.py", "svc", "1"],
    "svc_b1000": ["test/ml/make_bench_model.py", "svc", "1000"],
    "logreg_b1": ["test/ml/make_bench_model.py", "logreg", "1"],
    "logreg_b1000": ["test/ml/make_bench_model.py", "logreg", "1000"],
}
# What users deploy in 2026 and the models off the beaten path (see
# test/models/make_user_models.py for each architecture and shape).
USER_MODELS = ["bert_base", "minilm_l6", "vit_b16", "whisper_tiny_encoder", "gpt2_decode"]
OFFPATH_MODELS = ["melspec", "stft_dft", "gru_classifier", "unet_bn", "unet_groupnorm",
                  "const_weights_cnn"]
for _name in USER_MODELS + OFFPATH_MODELS:
    ZOO[_name] = ["test/models/make_user_models.py", _name]
# Quantized models, written by the project's own quantizer
# (test/models/quantize.py: the graph forms of ONNX Runtime's quantize_dynamic
# and of the weight-only QDQ quantizers) from the float models above; their
# reference outputs are ONNX Runtime's on the quantized model.
QUANTIZED_MODELS = {
    "bert_base_int8": ["dynamic-int8", "bert_base"],
    "gpt2_decode_int4": ["int4-weight", "gpt2_decode"],
    "resnet18_qdq": ["qdq-static", "resnet18"],
}
for _name, _args in QUANTIZED_MODELS.items():
    ZOO[_name] = ["test/models/quantize.py"] + _args
DEFAULT_MODELS = "resnet18,mobilenet_v2,squeezenet1_1,efficientnet_b0,text_encoder"
# --models takes these names for their lists too.
MODEL_GROUPS = {
    "default": DEFAULT_MODELS.split(","),
    "users": USER_MODELS,
    "offpath": OFFPATH_MODELS,
    "quantized": list(QUANTIZED_MODELS),
    "ml": [m for m in ZOO if ZOO[m] and ZOO[m][0].startswith("test/ml/")],
}
MODEL_GROUPS["all"] = (MODEL_GROUPS["default"] + USER_MODELS + OFFPATH_MODELS +
                       list(QUANTIZED_MODELS))
# Models slower than ORT by more than this get a "where the time went" list.
SLOW_RATIO = 1.1
ORT_VERSION = "1.30.0"  # scripts/setup.sh installs this one
# --halide: onnxcc's own schedule, or one of Halide 14's autoschedulers.
HALIDE_SCHEDULES = ("onnxcc", "Mullapudi2016", "Li2018", "Adams2019")


class BenchError(Exception):
    pass


def log(message):
    print("bench: " + message, file=sys.stderr, flush=True)


def parse_args():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--models", default=DEFAULT_MODELS,
                   help="comma-separated, of: %s; or a group of them: %s (default: "
                        "default)" % (", ".join(ZOO), ", ".join(MODEL_GROUPS)))
    p.add_argument("--profile-above", type=float, default=SLOW_RATIO,
                   help="profile the models slower than ORT by more than this ratio with "
                        "`onnxcc bench --profile` and list where the time went (default %g; "
                        "0: never)" % SLOW_RATIO)
    p.add_argument("--threads", default="1,2", help="thread counts (default 1,2)")
    p.add_argument("--iters", type=int, default=50,
                   help="timed runs per model and thread count, each side (default 50)")
    p.add_argument("--rounds", type=int, default=5,
                   help="alternations of the two processes (default 5)")
    p.add_argument("--warmup", type=int, default=2,
                   help="untimed runs at the start of every process (default 2)")
    p.add_argument("--out", default=os.path.join(ROOT, "bench", "RESULTS.md"),
                   help="the Markdown report (default bench/RESULTS.md)")
    p.add_argument("--build", default=os.path.join(ROOT, "build"),
                   help="onnxcc's build folder (default build/)")
    p.add_argument("--onnxcc", help="the onnxcc binary (default BUILD/bin/onnxcc)")
    p.add_argument("--work", default=os.path.join(ROOT, "bench", ".work"),
                   help="models, builds and outputs (default bench/.work/)")
    p.add_argument("--ort-dir", default=os.environ.get("ONNXCC_ORT_DIR") or
                   os.path.join(ROOT, ".deps", "onnxruntime-node"),
                   help="where onnxruntime-node is installed (default .deps/onnxruntime-node)")
    p.add_argument("--cxx-flags", default="-O2", help="flags of the C++ build (default -O2)")
    p.add_argument("--tol", type=float, default=1e-4,
                   help="largest allowed absolute difference from the reference (default 1e-4)")
    p.add_argument("--halide", default="",
                   help="also the Halide target with these schedules, comma-separated: onnxcc "
                        "(the emitter's), Mullapudi2016, Li2018, Adams2019 (default none)")
    p.add_argument("--peak-gflops", type=float,
                   help="FP32 peak of one core in GFLOP/s (default: from /proc/cpuinfo)")
    args = p.parse_args()
    models = []
    for m in (m for m in args.models.split(",") if m):
        for name in MODEL_GROUPS.get(m, [m]):
            if name not in ZOO:
                p.error("unknown model '%s' (known: %s; groups: %s)" % (
                    name, ", ".join(ZOO), ", ".join(MODEL_GROUPS)))
            if name not in models:
                models.append(name)
    args.models = models
    try:
        args.threads = [int(t) for t in args.threads.split(",") if t]
    except ValueError:
        p.error("--threads takes numbers, e.g. 1,2")
    if not args.threads or min(args.threads) < 1:
        p.error("--threads needs counts of at least 1")
    if args.iters < 1 or args.rounds < 1 or args.warmup < 0:
        p.error("--iters and --rounds must be at least 1, --warmup at least 0")
    args.onnxcc = args.onnxcc or os.path.join(args.build, "bin", "onnxcc")
    args.halide = [h for h in args.halide.split(",") if h]
    for h in args.halide:
        if h not in HALIDE_SCHEDULES:
            p.error("unknown Halide schedule '%s' (known: %s)" % (h, ", ".join(HALIDE_SCHEDULES)))
    return args


# --- The machine ------------------------------------------------------------

def cpu_info():
    """Model name, flags, logical CPUs, vendor and the nominal MHz."""
    info = {"model": platform.processor() or "unknown", "flags": [], "cpus": os.cpu_count(),
            "vendor": "", "mhz": None}
    try:
        with open("/proc/cpuinfo") as f:
            text = f.read()
    except OSError:
        return info
    mhz = []
    for line in text.splitlines():
        key, _, value = line.partition(":")
        key, value = key.strip(), value.strip()
        if key == "model name":
            info["model"] = value
        elif key == "flags" and not info["flags"]:
            info["flags"] = value.split()
        elif key == "vendor_id":
            info["vendor"] = value
        elif key == "cpu MHz":
            try:
                mhz.append(float(value))
            except ValueError:
                pass
    info["mhz"] = max(mhz) if mhz else None
    return info


def peak_flops_per_cycle(cpu):
    """FP32 FLOPs one core can issue per cycle, from its vector extensions.

    Assumes two FMA pipes per core, as on every x86 server core of the last
    decade: AMD Zen 2-4 have two 256-bit FMA pipes (Zen 4 runs AVX-512 on
    them, so AVX-512 does not double the rate): 2 x 8 lanes x 2 = 32; Intel
    cores with AVX-512 are taken to have two 512-bit FMA units (64; parts with
    one have half that); AVX2+FMA without AVX-512: 32; AVX only: 16; SSE: 8.
    """
    flags = set(cpu["flags"])
    amd = cpu["vendor"] == "AuthenticAMD"
    if "avx512f" in flags and not amd:
        return 64, "AVX-512 with two 512-bit FMA units: 2 x 16 lanes x 2"
    if "avx2" in flags and "fma" in flags:
        what = "two 256-bit FMA pipes: 2 x 8 lanes x 2"
        if "avx512f" in flags:
            what += " (AMD: AVX-512 runs on the same pipes)"
        return 32, what
    if "avx" in flags:
        return 16, "AVX without FMA: 8-lane add + 8-lane multiply"
    return 8, "SSE: 4-lane add + 4-lane multiply"


PEAK_PROBE = r"""// FP32 peak of one core: independent FMA chains, no memory traffic.
#include <immintrin.h>
#include <chrono>
#include <cstdio>
#include <cstring>
#if defined(__AVX512F__)
typedef __m512 V;
#define LANES 16
#define FMA(a, b, c) _mm512_fmadd_ps(a, b, c)
#define SET(x) _mm512_set1_ps(x)
#define ISA "AVX-512"
#elif defined(__FMA__)
typedef __m256 V;
#define LANES 8
#define FMA(a, b, c) _mm256_fmadd_ps(a, b, c)
#define SET(x) _mm256_set1_ps(x)
#define ISA "AVX2 FMA"
#else
#error "no FMA"
#endif
// Twelve accumulators in named variables (an array may live in memory).
#define CHAINS(X) X(0) X(1) X(2) X(3) X(4) X(5) X(6) X(7) X(8) X(9) X(10) X(11)
int main(int argc, char **argv) {
  const long n = 20000000;
  const float seed = (float)argc;  // not a constant the compiler could fold
#define DECLARE(i) V acc##i = SET(seed * 0.001f * (i + 1));
  CHAINS(DECLARE)
  V a = SET(0.9999999f), b = SET(1e-7f);
  double best = 0;
  for (int rep = 0; rep < 5; ++rep) {
    auto start = std::chrono::steady_clock::now();
    for (long k = 0; k < n; ++k) {
#define STEP(i) acc##i = FMA(acc##i, a, b);
      CHAINS(STEP)
    }
    double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    double gflops = 2.0 * LANES * 12 * (double)n / s / 1e9;
    if (gflops > best)
      best = gflops;
  }
  float sum = 0, lanes[LANES];
#define SUM(i)                                                                                 \
  memcpy(lanes, &acc##i, sizeof(lanes));                                                       \
  for (int l = 0; l < LANES; ++l)                                                              \
    sum += lanes[l];
  CHAINS(SUM)
  printf("%s %.3f %g\n", ISA, best, (double)sum);
  return 0;
}
"""


def measure_peak(work):
    """(GFLOP/s, ISA) of one core running 12 independent FMA chains, built
    with -march=native: the clock the core actually runs at, which a VM's
    /proc/cpuinfo does not tell. None when it cannot be built or run."""
    source = os.path.join(work, "peak.cpp")
    binary = os.path.join(work, "peak")
    with open(source, "w") as f:
        f.write(PEAK_PROBE)
    cxx = (os.environ.get("CXX") or "c++").split()
    try:
        run_checked(cxx + ["-O2", "-march=native", source, "-o", binary], "the peak probe build")
        words = run_checked([binary], "the peak probe").stdout.split()
        return float(words[-2]), " ".join(words[:-2])
    except (BenchError, OSError, ValueError, IndexError):
        return None


# --- Processes ----------------------------------------------------------------

def run_checked(command, what, **kwargs):
    result = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            **kwargs)
    if result.returncode != 0:
        lines = [l for l in (result.stderr + result.stdout).splitlines() if l.strip()]
        raise BenchError("%s failed (exit status %d)%s" % (
            what, result.returncode, ": " + lines[-1].strip() if lines else ""))
    return result


def timed_process(command, what, env=None):
    """Runs `command`; returns its key=value lines and the seconds from the
    spawn to its first line of output."""
    start = time.perf_counter()
    proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=env)
    first = proc.stdout.readline()
    first_seconds = time.perf_counter() - start
    rest = proc.stdout.read()
    err = proc.stderr.read()
    proc.wait()
    if proc.returncode != 0:
        lines = [l for l in err.splitlines() if l.strip()]
        raise BenchError("%s failed (exit status %d)%s" % (
            what, proc.returncode, ": " + lines[-1].strip() if lines else ""))
    values = {}
    for line in (first + rest).splitlines():
        key, sep, value = line.partition("=")
        if sep:
            values[key.strip()] = value.strip()
    for key in ("first_output_ms", "times_ms", "peak_rss_kb"):
        if key not in values:
            raise BenchError("%s printed no %s" % (what, key))
    return {
        "times": [float(t) for t in values["times_ms"].split(",") if t],
        "rss_kb": int(values["peak_rss_kb"]),
        "cold_ms": first_seconds * 1000,
    }


# --- The zoo ------------------------------------------------------------------

def file_digest(paths):
    h = hashlib.sha256()
    for path in paths:
        with open(path, "rb") as f:
            h.update(f.read())
    return h.hexdigest()


def prepare_model(name, work):
    """The model file, its inputs (name, array) and the reference outputs
    (a list of arrays, or None)."""
    import numpy as np
    import onnx
    from onnx import numpy_helper

    folder = os.path.join(work, name)
    if ZOO[name] is None:
        model = os.path.join(ROOT, "examples", "models", "tiny_cnn.onnx")
        rng = np.random.default_rng(0)
        return model, [("input", rng.uniform(-1, 1, (1, 3, 8, 8)).astype(np.float32))], None

    script = os.path.join(ROOT, ZOO[name][0])
    model = os.path.join(folder, "model.onnx")
    dataset = os.path.join(folder, "test_data_set_0")
    stamp = os.path.join(folder, "stamp")
    scripts = [script]
    if name in QUANTIZED_MODELS:  # the float model comes from these
        scripts += [os.path.join(ROOT, "test", "models", f)
                    for f in ("make_user_models.py", "make_torchvision_model.py")]
    digest = file_digest(scripts) + " " + " ".join(ZOO[name][1:])
    fresh = os.path.exists(model) and os.path.exists(stamp) and open(stamp).read() == digest
    if not fresh:
        log("generating %s" % name)
        shutil.rmtree(folder, ignore_errors=True)
        os.makedirs(folder)
        run_checked([sys.executable, script] + ZOO[name][1:] + [folder],
                    "generating %s" % name)
        with open(stamp, "w") as f:
            f.write(digest)

    graph = onnx.load(model, load_external_data=False).graph
    initializers = {i.name for i in graph.initializer}
    names = [i.name for i in graph.input if i.name not in initializers]
    inputs, outputs = [], []
    for k, input_name in enumerate(names):
        tensor = onnx.load_tensor(os.path.join(dataset, "input_%d.pb" % k))
        inputs.append((input_name, numpy_helper.to_array(tensor)))
    k = 0
    while os.path.exists(os.path.join(dataset, "output_%d.pb" % k)):
        outputs.append(numpy_helper.to_array(onnx.load_tensor(
            os.path.join(dataset, "output_%d.pb" % k))))
        k += 1
    return model, inputs, outputs


def model_tolerance(args, name):
    """--tol, or for a quantized model twice ONNX Runtime's own difference
    between its optimized and unoptimized outputs (quantize.py writes it):
    a correct build may differ from the reference at least as much as ORT
    does, in another direction."""
    if name not in QUANTIZED_MODELS:
        return args.tol
    try:
        with open(os.path.join(args.work, name, "ort_tolerance.txt")) as f:
            return max(args.tol, 2 * float(f.read()))
    except (OSError, ValueError):
        return args.tol


def max_abs_diff(a, b):
    import numpy as np
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    if a.shape != b.shape:
        return math.inf
    return float(np.max(np.abs(a - b))) if a.size else 0.0


def read_outputs(folder, like):
    """The raw output_K.bin files of `folder`, shaped and typed like the
    arrays of `like`."""
    import numpy as np
    arrays = []
    for k, ref in enumerate(like):
        data = np.fromfile(os.path.join(folder, "output_%d.bin" % k), dtype=ref.dtype)
        if data.size != ref.size:
            raise BenchError("%s/output_%d.bin holds %d values, expected %d" % (
                folder, k, data.size, ref.size))
        arrays.append(data.reshape(ref.shape))
    return arrays


# --- One model ------------------------------------------------------------------

def percentile90(samples):
    ordered = sorted(samples)
    return ordered[max(math.ceil(0.9 * len(ordered)), 1) - 1]


def summarize(runs):
    times = [t for r in runs for t in r["times"]]
    return {
        "median": statistics.median(times),
        "p90": percentile90(times),
        "samples": len(times),
        "rss_mib": max(r["rss_kb"] for r in runs) / 1024,
        "cold_ms": statistics.median(r["cold_ms"] for r in runs),
    }


def compile_model(args, name, model, inputs, threads, schedule=None):
    """`onnxcc bench --keep` in a fresh folder: (harness path, bench JSON) or
    the one-line error. With `schedule`, the Halide target with that
    schedule (see HALIDE_SCHEDULES)."""
    side = "onnxcc" if schedule is None else "halide-" + schedule
    keep = os.path.join(args.work, name, "%s-t%d" % (side, threads))
    shutil.rmtree(keep, ignore_errors=True)
    json_path = keep + ".json"
    command = [args.onnxcc, "bench", model, "--keep", keep, "--iters", "1", "--warmup", "0",
               "--json", json_path, "--cxx-flags", args.cxx_flags]
    if schedule is not None:
        command += ["--target", "halide"]
        if schedule != "onnxcc":
            command += ["--halide-autoscheduler", schedule]
    if threads != 1:
        command += ["--threads", str(threads)]
    for input_name, array in inputs:
        command += ["--shape", "%s=%s" % (input_name, "x".join(str(d) for d in array.shape))]
    try:
        run_checked(command, "onnxcc bench")
    except BenchError as e:
        return None, str(e)
    with open(json_path) as f:
        return json.load(f), None


def profile_model(args, name, model, inputs, threads):
    """`onnxcc bench --profile` on the model's dataset inputs: its nodes by
    time (dicts of the bench JSON's "profile") and the trace's path, or the
    one-line error."""
    folder = os.path.join(args.work, name)
    keep = os.path.join(folder, "profile-t%d" % threads)
    json_path = keep + ".json"
    trace = keep + "-trace.json"
    command = [args.onnxcc, "bench", model, "--profile", "--keep", keep, "--json", json_path,
               "--trace", trace, "--iters", str(max(3, math.ceil(args.iters / args.rounds))),
               "--warmup", str(args.warmup), "--cxx-flags", args.cxx_flags]
    if threads != 1:
        command += ["--threads", str(threads)]
    for k, (input_name, array) in enumerate(inputs):
        command += ["--shape", "%s=%s" % (input_name, "x".join(str(d) for d in array.shape)),
                    "--input", os.path.join(folder, "input_%d.bin" % k)]
    try:
        run_checked(command, "onnxcc bench --profile")
    except BenchError as e:
        return None, str(e)
    with open(json_path) as f:
        return json.load(f)["profile"], trace


def bench_model(args, name):
    import numpy as np

    model, inputs, reference = prepare_model(name, args.work)
    folder = os.path.join(args.work, name)
    os.makedirs(folder, exist_ok=True)
    input_files = []
    for k, (_, array) in enumerate(inputs):
        path = os.path.join(folder, "input_%d.bin" % k)
        np.ascontiguousarray(array).tofile(path)
        input_files.append(path)
    shape_args = []
    for input_name, array in inputs:
        shape_args += ["--shape", "%s=%s" % (input_name, "x".join(str(d) for d in array.shape))]

    env = dict(os.environ, ONNXCC_ORT_DIR=args.ort_dir)
    per_round = max(1, math.ceil(args.iters / args.rounds))
    rows = []
    flops = None  # the same for every thread count: kept from a compile that worked
    for threads in args.threads:
        log("%s, %d thread%s: compiling" % (name, threads, "" if threads == 1 else "s"))
        info, compile_error = compile_model(args, name, model, inputs, threads)
        if info is not None:
            flops = info["flops"]
        # The Halide target, one harness per schedule.
        halide = {}
        for schedule in args.halide:
            log("%s, %d thread%s: compiling for Halide (%s schedule)" % (
                name, threads, "" if threads == 1 else "s", schedule))
            h_info, h_error = compile_model(args, name, model, inputs, threads, schedule)
            halide[schedule] = {"info": h_info, "error": h_error, "runs": []}
        onnxcc_runs, ort_runs = [], []
        out_dirs = {side: os.path.join(folder, "%s-out-t%d" % (side, threads))
                    for side in ["onnxcc", "ort"] + ["halide-" + h for h in halide]}
        for d in out_dirs.values():
            shutil.rmtree(d, ignore_errors=True)
            os.makedirs(d)
        log("%s, %d thread%s: %d rounds of %d runs each" % (
            name, threads, "" if threads == 1 else "s", args.rounds, per_round))
        for r in range(args.rounds):
            # Every side first once in a while: rotate the order each round.
            sides = ["onnxcc", "ort"] + ["halide-" + h for h in halide]
            sides = sides[r % len(sides):] + sides[:r % len(sides)]
            for side in sides:
                common = ["--iters", str(per_round), "--warmup", str(args.warmup)]
                if r == 0:
                    common += ["--outputs", out_dirs[side]]
                if side.startswith("halide-"):
                    h = halide[side[len("halide-"):]]
                    if h["info"] is None:
                        continue
                    command = [h["info"]["harness"]] + common
                    for path in input_files:
                        command += ["--input", path]
                    try:
                        h["runs"].append(timed_process(command, "the Halide harness"))
                    except BenchError as e:
                        h["info"], h["error"] = None, str(e)
                    continue
                if side == "onnxcc":
                    if info is None:
                        continue
                    command = [info["harness"]] + common
                    for path in input_files:
                        command += ["--input", path]
                    try:
                        onnxcc_runs.append(timed_process(command, "the onnxcc harness"))
                    except BenchError as e:
                        # A model that fails at run time is a row without
                        # onnxcc, not the end of the benchmark.
                        info, compile_error = None, str(e)
                else:
                    command = ["node", os.path.join(ROOT, "bench", "ort_bench.js"), model,
                               "--threads", str(threads)] + common + shape_args
                    for path in input_files:
                        command += ["--input", path]
                    ort_runs.append(timed_process(command, "ort_bench.js", env=env))

        row = {"model": name, "threads": threads, "compile_error": compile_error,
               "source": model, "inputs": inputs}
        row["ort"] = summarize(ort_runs)
        if info is not None:
            row["onnxcc"] = summarize(onnxcc_runs)
            row["compile_s"] = info["compile_s"] + (info["cxx_build_s"] or 0)
        row["flops"] = flops

        # Parity: against PyTorch when there is a reference, else onnxcc vs ORT.
        ort_out = read_outputs(out_dirs["ort"], reference) if reference else None
        onnxcc_out = None
        if info is not None:
            like = reference
            if like is None:
                # No reference (tiny): ORT's outputs, float32, give the sizes.
                like = [np.fromfile(os.path.join(out_dirs["ort"], f), dtype=np.float32)
                        for f in sorted(os.listdir(out_dirs["ort"]))]
            onnxcc_out = read_outputs(out_dirs["onnxcc"], like)
        row["tol"] = model_tolerance(args, name)
        if reference is not None:
            # The classical-ML models' reference is the estimator's predict;
            # the quantized models' ORT's outputs on the quantized graph.
            row["parity_ref"] = "sklearn/XGBoost" if ZOO[name][0].startswith("test/ml/") \
                else "ORT, no optimizations" if name in QUANTIZED_MODELS else "PyTorch"
            row["diff_onnxcc"] = (max(max_abs_diff(a, b) for a, b in zip(onnxcc_out, reference))
                                  if onnxcc_out is not None else None)
            row["diff_ort"] = max(max_abs_diff(a, b) for a, b in zip(ort_out, reference))
        else:
            row["parity_ref"] = "ORT"
            ort_out = read_outputs(out_dirs["ort"], onnxcc_out) if onnxcc_out else None
            row["diff_onnxcc"] = (max(max_abs_diff(a, b) for a, b in zip(onnxcc_out, ort_out))
                                  if onnxcc_out is not None else None)
            row["diff_ort"] = None
        # Each Halide schedule: its timings and its parity, as for onnxcc.
        row["halide"] = {}
        for schedule, h in halide.items():
            entry = {"error": h["error"]}
            if h["info"] is not None:
                entry["summary"] = summarize(h["runs"])
                entry["compile_s"] = h["info"]["compile_s"] + (h["info"]["cxx_build_s"] or 0)
                like = reference if reference is not None else onnxcc_out
                out = read_outputs(out_dirs["halide-" + schedule], like) if like else None
                against = reference if reference is not None else onnxcc_out
                entry["diff"] = (max(max_abs_diff(a, b) for a, b in zip(out, against))
                                 if out is not None and against is not None else None)
            row["halide"][schedule] = entry
        rows.append(row)
    return rows


# --- The report -------------------------------------------------------------------

def fmt_ms(value):
    if value is None:
        return "-"
    return "%.3g" % value if value < 10 else "%.1f" % value


def fmt_diff(value):
    return "-" if value is None else "%.1e" % value


def table(rows, tol):
    header = ("| model | threads | onnxcc median / p90 ms | ORT median / p90 ms | onnxcc/ORT "
              "| peak RSS MiB onnxcc / ORT | cold start ms onnxcc / ORT "
              "| GFLOP/s onnxcc / ORT (% of peak) | compile s | parity: max abs diff "
              "onnxcc / ORT |")
    lines = [header, "|" + "---|" * 10]
    for row in rows:
        ort, onx = row["ort"], row.get("onnxcc")
        peak = row["peak_gflops"]

        def gflops(side):
            if side is None or not row["flops"]:
                return "-"
            g = row["flops"] / (side["median"] * 1e6)
            return "%.3g (%.1f%%)" % (g, 100 * g / peak) if peak else "%.3g" % g
        if onx:
            ratio = "%.2f" % (onx["median"] / ort["median"])
            onnxcc_time = "%s / %s" % (fmt_ms(onx["median"]), fmt_ms(onx["p90"]))
            rss = "%.0f / %.0f" % (onx["rss_mib"], ort["rss_mib"])
            cold = "%s / %s" % (fmt_ms(onx["cold_ms"]), fmt_ms(ort["cold_ms"]))
            compile_s = "%.1f" % row["compile_s"]
        else:
            ratio = "n/a"
            onnxcc_time = "n/a"
            rss = "- / %.0f" % ort["rss_mib"]
            cold = "- / %s" % fmt_ms(ort["cold_ms"])
            compile_s = "-"
        diff = row["diff_onnxcc"]
        if diff is None:
            parity = "n/a"
            if row["diff_ort"] is not None:
                parity += " / %s (vs %s)" % (fmt_diff(row["diff_ort"]), row["parity_ref"])
        else:
            parity = "%s %s / %s (vs %s)" % ("ok" if diff <= row.get("tol", tol) else "FAIL",
                                             fmt_diff(diff),
                                             fmt_diff(row["diff_ort"]), row["parity_ref"])
        lines.append("| %s | %d | %s | %s / %s | %s | %s | %s | %s / %s | %s | %s |" % (
            row["model"], row["threads"], onnxcc_time, fmt_ms(ort["median"]), fmt_ms(ort["p90"]),
            ratio, rss, cold, gflops(onx), gflops(ort), compile_s, parity))
    return lines


def halide_table(rows, schedules, tol):
    """The Halide target beside cpp and ORT: each schedule's median, then the
    best schedule's ratios and parity."""
    header = ("| model | threads | cpp median ms | ORT median ms | " +
              " | ".join("Halide %s median / p90 ms" % h for h in schedules) +
              " | best Halide schedule | Halide/cpp | Halide/ORT | Halide compile s "
              "| parity: Halide max abs diff |")
    lines = [header, "|" + "---|" * (9 + len(schedules))]
    for row in rows:
        ort, onx = row["ort"], row.get("onnxcc")
        cells, best = [], None
        for h in schedules:
            entry = row["halide"].get(h, {})
            summary = entry.get("summary")
            if summary is None:
                cells.append("n/a")
                continue
            cells.append("%s / %s" % (fmt_ms(summary["median"]), fmt_ms(summary["p90"])))
            if best is None or summary["median"] < row["halide"][best]["summary"]["median"]:
                best = h
        if best is None:
            lines.append("| %s | %d | %s | %s | %s | - | n/a | n/a | - | n/a |" % (
                row["model"], row["threads"], fmt_ms(onx["median"]) if onx else "n/a",
                fmt_ms(ort["median"]), " | ".join(cells)))
            continue
        b = row["halide"][best]
        diff = b.get("diff")
        parity = "n/a" if diff is None else "%s %s (vs %s)" % (
            "ok" if diff <= tol else "FAIL", fmt_diff(diff),
            row["parity_ref"] if row["parity_ref"] != "ORT" else "cpp")
        lines.append("| %s | %d | %s | %s | %s | %s | %s | %.2f | %.1f | %s |" % (
            row["model"], row["threads"], fmt_ms(onx["median"]) if onx else "n/a",
            fmt_ms(ort["median"]), " | ".join(cells), best,
            "%.2f" % (b["summary"]["median"] / onx["median"]) if onx else "n/a",
            b["summary"]["median"] / ort["median"], b["compile_s"], parity))
    return lines


def halide_geomeans(rows, thread_counts):
    lines = []
    for threads in thread_counts:
        for what, side in (("cpp", "onnxcc"), ("ORT", "ort")):
            ratios = []
            for r in rows:
                timed = [e["summary"]["median"] for e in r.get("halide", {}).values()
                         if e.get("summary")]
                if r["threads"] == threads and timed and r.get(side):
                    ratios.append(min(timed) / r[side]["median"])
            if ratios:
                g = math.exp(sum(math.log(x) for x in ratios) / len(ratios))
                lines.append("- geometric mean Halide (best schedule)/%s at %d thread%s: "
                             "**%.2f** over %d model%s" % (
                                 what, threads, "" if threads == 1 else "s", g, len(ratios),
                                 "" if len(ratios) == 1 else "s"))
    return lines


def ratio(row):
    """onnxcc/ORT of the medians, or None where onnxcc did not run."""
    return row["onnxcc"]["median"] / row["ort"]["median"] if row.get("onnxcc") else None


def geomeans(rows, thread_counts):
    """Per thread count: the geometric mean of the ratios and the worst one
    (a mean hides the model a user brings that is slow)."""
    lines = []
    for threads in thread_counts:
        timed = [(ratio(r), r["model"]) for r in rows
                 if r["threads"] == threads and r.get("onnxcc")]
        ratios = [x for x, _ in timed]
        if ratios:
            g = math.exp(sum(math.log(x) for x in ratios) / len(ratios))
            worst, worst_model = max(timed)
            lines.append("- geometric mean onnxcc/ORT at %d thread%s: **%.2f** over %d model%s; "
                         "worst: **%.2f** (%s)" % (
                             threads, "" if threads == 1 else "s", g, len(ratios),
                             "" if len(ratios) == 1 else "s", worst, worst_model))
        else:
            lines.append("- geometric mean onnxcc/ORT at %d thread%s: n/a (onnxcc did not run)" % (
                threads, "" if threads == 1 else "s"))
    return lines


def where_time_went(args, rows):
    """For each model slower than ORT by more than --profile-above, at the
    thread count where it is slowest: its top nodes from `onnxcc bench
    --profile`, and the time by op type and path. Markdown lines."""
    if not args.profile_above:
        return []
    worst = {}
    for r in rows:
        x = ratio(r)
        if x is not None and x > args.profile_above and x > worst.get(r["model"], (0, None))[0]:
            worst[r["model"]] = (x, r)
    if not worst:
        return []
    lines = ["", "## Where the time went", "",
             "Models slower than ORT by more than %g, at the thread count where they are "
             "slowest: the nodes that take the most time in `onnxcc bench --profile` (the "
             "model compiled with per-node timestamps, run on the same inputs; a node is its "
             "op after the graph passes, which may hold several ONNX nodes), then the time "
             "by op type and path." % args.profile_above]
    for name, (x, row) in sorted(worst.items(), key=lambda item: -item[1][0]):
        threads = row["threads"]
        log("%s, %d thread%s: profiling" % (name, threads, "" if threads == 1 else "s"))
        nodes, trace = profile_model(args, name, row["source"], row["inputs"], threads)
        lines += ["", "### %s, %d thread%s: onnxcc/ORT %.2f" % (
            name, threads, "" if threads == 1 else "s", x), ""]
        if nodes is None:
            lines.append("- the profile failed: %s" % trace)
            continue
        lines += ["| ms/run | share | path | op | node |", "|---|---|---|---|---|"]
        for n in nodes[:8]:
            lines.append("| %.3f | %.1f%% | %s | %s | `%s` |" % (
                n["ms_per_run"], 100 * n["share"], n["path"], n["op_type"],
                n["node"].replace("|", "\\|").replace("`", "'")))
        by_kind = {}
        for n in nodes:
            key = "%s (%s)" % (n["op_type"], n["path"])
            count, share = by_kind.get(key, (0, 0.0))
            by_kind[key] = (count + 1, share + n["share"])
        top = sorted(by_kind.items(), key=lambda item: -item[1][1])[:6]
        lines.append("")
        lines.append("By op type: " + "; ".join(
            "%s x%d %.1f%%" % (key, count, 100 * share) for key, (count, share) in top) +
            ". Trace: `%s`." % os.path.relpath(trace, ROOT))
    return lines


def versions(args):
    def first_line(command):
        try:
            result = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                    text=True, cwd=ROOT)
        except OSError:
            return "?"
        out = result.stdout.strip()
        return out.splitlines()[0].strip() if result.returncode == 0 and out else "?"
    rev = first_line(["git", "rev-parse", "--short", "HEAD"])
    dirty = rev != "?" and subprocess.run(
        ["git", "status", "--porcelain", "--untracked-files=no"], stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL, text=True, cwd=ROOT).stdout.strip()
    if rev == "?":
        rev = "(not a git checkout)"
    ort = "?"
    try:
        with open(os.path.join(args.ort_dir, "node_modules", "onnxruntime-node",
                               "package.json")) as f:
            ort = json.load(f)["version"]
    except (OSError, ValueError, KeyError):
        pass
    try:
        import torch
        import torchvision
        torch_version = "%s, torchvision %s" % (torch.__version__, torchvision.__version__)
    except ImportError:
        torch_version = "not installed"
    cxx = os.environ.get("CXX") or "c++"
    return {
        "onnxcc": "%s%s (%s)" % (rev, " with local changes" if dirty else "", args.onnxcc),
        "cxx": "%s: %s" % (cxx, first_line(cxx.split() + ["--version"])),
        "ort": "onnxruntime-node %s, node %s" % (ort, first_line(["node", "--version"])),
        "torch": torch_version,
    }


def ensure_ort(args):
    package = os.path.join(args.ort_dir, "node_modules", "onnxruntime-node", "package.json")
    if shutil.which("node") is None or not os.path.exists(package):
        # scripts/setup.sh installs it (and nothing else when the Debian
        # packages are there).
        log("ONNX Runtime is not in %s: running scripts/setup.sh" % args.ort_dir)
        run_checked([os.path.join(ROOT, "scripts", "setup.sh")], "scripts/setup.sh",
                    env=dict(os.environ, ONNXCC_ORT_DIR=args.ort_dir))
    if shutil.which("node") is None or not os.path.exists(package):
        raise BenchError("no ONNX Runtime in %s after scripts/setup.sh" % args.ort_dir)


def main():
    args = parse_args()
    try:
        if not os.access(args.onnxcc, os.X_OK):
            raise BenchError("%s not found; build onnxcc first (scripts/build.sh) or give "
                             "--build/--onnxcc" % args.onnxcc)
        ensure_ort(args)
        os.makedirs(args.work, exist_ok=True)
        cpu = cpu_info()
        per_cycle, per_cycle_why = peak_flops_per_cycle(cpu)
        nominal = cpu["mhz"] / 1000 * per_cycle if cpu["mhz"] else None
        nominal_note = ("%.0f MHz (nominal, /proc/cpuinfo) x %d FP32 FLOPs/cycle (%s) = "
                        "%.1f GFLOP/s" % (cpu["mhz"], per_cycle, per_cycle_why, nominal)
                        if nominal else "no cpu MHz in /proc/cpuinfo")
        # The probe runs before and after the models; the better one counts
        # (another process may have shared the core during either).
        probes = [] if args.peak_gflops else [measure_peak(args.work)]
        load_before = os.getloadavg()
        started = datetime.datetime.now(datetime.timezone.utc)
        rows = []
        for name in args.models:
            rows += bench_model(args, name)
        load_after = os.getloadavg()
        if not args.peak_gflops:
            probes.append(measure_peak(args.work))
        probes = [p for p in probes if p]
        if args.peak_gflops:
            core_peak = args.peak_gflops
            peak_note = "%.1f GFLOP/s per core (given with --peak-gflops)" % core_peak
        elif probes:
            best = max(probes)
            core_peak = max(best[0], nominal or 0)
            peak_note = ("%.1f GFLOP/s per core: the best of a probe of 12 independent %s FMA "
                         "chains on one core before and after the models (%s GFLOP/s: the "
                         "clock the core runs at), and the figure from the spec, %s" % (
                             core_peak, best[1], " and ".join("%.1f" % p[0] for p in probes),
                             nominal_note))
        else:
            core_peak = nominal or 0
            peak_note = "%s per core (the peak probe could not be built)" % nominal_note
        for row in rows:
            row["peak_gflops"] = core_peak * row["threads"]
    except BenchError as e:
        print("bench: error: %s" % e, file=sys.stderr)
        return 1

    v = versions(args)
    lines = table(rows, args.tol)
    summary = geomeans(rows, args.threads)
    where = where_time_went(args, rows)
    notes = []
    for row in rows:
        if row["compile_error"]:
            notes.append("- %s, %d thread%s: onnxcc did not run: %s" % (
                row["model"], row["threads"], "" if row["threads"] == 1 else "s",
                row["compile_error"].replace("onnxcc bench failed (exit status 1): ", "")))
        for schedule, entry in row.get("halide", {}).items():
            if entry.get("error"):
                notes.append("- %s, %d thread%s: Halide (%s schedule) did not run: %s" % (
                    row["model"], row["threads"], "" if row["threads"] == 1 else "s", schedule,
                    entry["error"].replace("onnxcc bench failed (exit status 1): ", "")))
    halide_lines = []
    if args.halide:
        halide_lines = ["", "## The Halide target", "",
                        "`onnxcc bench --target halide` (Halide 14, built by its generator; "
                        "`onnxcc` is the schedule the emitter writes, the others Halide's "
                        "autoschedulers) in the same rounds as the table above.", ""] + \
            halide_table(rows, args.halide, args.tol) + [""] + halide_geomeans(rows, args.threads)
    print("\n".join(lines + [""] + summary + notes + halide_lines + where))

    per_round = max(1, math.ceil(args.iters / args.rounds))
    report = [
        "# onnxcc vs ONNX Runtime",
        "",
        "Written by `bench/run.py %s` on %s." % (
            " ".join(sys.argv[1:]), started.strftime("%Y-%m-%d %H:%M UTC")),
        "",
        "- CPU: %s, %s logical CPUs (vendor %s)" % (cpu["model"], cpu["cpus"], cpu["vendor"]),
        "- peak: %s; a row's peak is that times its threads" % peak_note,
        "- load average (1 min) before / after: %.2f / %.2f" % (load_before[0], load_after[0]),
        "- onnxcc %s; generated code built with %s %s" % (v["onnxcc"], v["cxx"], args.cxx_flags),
        "- ONNX Runtime: %s; CPU execution provider, graphOptimizationLevel all, intra-op "
        "threads = the row's threads, inter-op 1, sequential" % v["ort"],
        "- reference outputs: PyTorch %s (fixed seeds)" % v["torch"],
        "- method: per model and thread count, %d round(s) alternating a fresh onnxcc harness "
        "process and a fresh ORT process, each %d warm-up + %d timed runs (%d samples a side); "
        "median and p90 (nearest rank) of all samples; cold start: median over the rounds of "
        "spawn to first output line; peak RSS: largest VmHWM of the rounds; GFLOP/s: "
        "the FLOPs `onnxcc bench` counts (2 per multiply-add of Conv, MatMul, Gemm, "
        "attention, RNNs; FFTs; 1 per element of pooling and reductions) over the median; "
        "compile: "
        "`onnxcc compile` + the C++ build; parity: largest absolute output difference "
        "(fails above %g; quantized models: twice ORT's optimized-vs-unoptimized "
        "difference)" % (args.rounds, args.warmup, per_round, per_round * args.rounds,
                              args.tol),
        "",
    ] + lines + [""] + summary + notes + halide_lines + where + [
        "",
        "<details><summary>CPU flags</summary>",
        "",
        "```",
        " ".join(cpu["flags"]),
        "```",
        "</details>",
        "",
    ]
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    with open(args.out, "w") as f:
        f.write("\n".join(report))
    log("wrote %s" % args.out)
    failed = [r for r in rows
              if r["diff_onnxcc"] is not None and not r["diff_onnxcc"] <= r.get("tol", args.tol)]
    failed += [r for r in rows for e in r.get("halide", {}).values()
               if e.get("diff") is not None and not e["diff"] <= args.tol]
    if failed:
        log("parity FAILED for %s" % ", ".join("%s (%d threads)" % (r["model"], r["threads"])
                                               for r in failed))
    missing = [r for r in rows if r["compile_error"]]
    if missing:
        log("onnxcc did not run %s" % ", ".join("%s (%d threads)" % (r["model"], r["threads"])
                                                for r in missing))
    return 1 if failed or missing else 0


if __name__ == "__main__":
    sys.exit(main())
