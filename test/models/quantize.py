#!/usr/bin/python3
"""Quantizes a float ONNX model the way the common tools write quantized graphs,
and writes its dataset with ONNX Runtime's outputs as the reference.

Usage: /usr/bin/python3 test/models/quantize.py MODE BASE OUTDIR [--small]

BASE is a model of test/models/make_user_models.py (bert_base, gpt2_decode...)
or of test/models/make_torchvision_model.py (resnet18...); it is generated
into OUTDIR/float first. MODE is one of

  dynamic-int8  ONNX Runtime's quantize_dynamic form: every MatMul whose B is
                a float initializer becomes DynamicQuantizeLinear(A) (one per
                distinct A, shared by its readers) -> MatMulInteger(A_q,
                W_q, A_zp, W_zp) -> Cast(float) -> Mul(A_scale * W_scale).
                Weights int8 in 7 bits (reduce_range; see WEIGHT_QMAX),
                symmetric, one scale per column (zero points 0, one per
                column).
  int4-weight   weight-only int4 as the QDQ weight quantizers write it:
                every MatMul whose B is a float initializer [K, N] reads
                DequantizeLinear-21(W_q int4 [K, N], scale [K/32, N],
                axis 0, block_size 32): symmetric, one scale per block of 32
                rows of each column. The model moves to opset 21 (the Reduce
                ops' axes attributes become inputs, as opset 18 has them).

Writes OUTDIR/model.onnx and OUTDIR/test_data_set_0 with the float model's
inputs and ONNX Runtime's outputs on the quantized model with graph
optimizations disabled (npm onnxruntime-node, from $ONNXCC_ORT_DIR or
.deps/onnxruntime-node; scripts/setup.sh installs it). It also writes
OUTDIR/ort_tolerance.txt: the largest difference between ONNX Runtime's own
outputs with every optimization and with none, the yardstick for how far a
correct build of the quantized model may be from the reference (one value
quantized on either side of a rounding boundary changes a whole row).
ONNX Runtime's Python quantization tools are not installable here; this is
the project's own small quantizer, writing the same graph forms.
"""
import os
import shutil
import subprocess
import sys

import numpy as np
import onnx
from onnx import helper, numpy_helper, TensorProto

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
USER_MODELS = ("bert_base", "minilm_l6", "vit_b16", "whisper_tiny_encoder", "gpt2_decode")
TORCHVISION_MODELS = ("resnet18", "mobilenet_v2", "squeezenet1_1", "efficientnet_b0")
INT4_BLOCK = 32
# dynamic-int8 weights use 7 bits ([-63, 63]: quantize_dynamic's
# reduce_range): ONNX Runtime's uint8 x int8 kernel on CPUs without VNNI
# (this project's test machines) sums pairs of products in int16 with
# saturation (pmaddubsw), so full-range weights get wrong reference outputs
# there; with 7-bit weights every pair sum fits and its outputs are exact.
# onnxcc is exact at full range too (test/runtime/int8_kernels_test.cpp).
WEIGHT_QMAX = 63


def float_initializers(model):
    return {t.name: t for t in model.graph.initializer if t.data_type == TensorProto.FLOAT}


def quantizable_matmuls(model):
    """The indexes of the MatMul nodes whose B is a 2-D float initializer."""
    weights = float_initializers(model)
    return {i for i, n in enumerate(model.graph.node)
            if n.op_type == "MatMul" and n.domain in ("", "ai.onnx") and n.input[1] in weights
            and len(weights[n.input[1]].dims) == 2}


def replace_initializers(model, drop, add):
    keep = [t for t in model.graph.initializer if t.name not in drop]
    del model.graph.initializer[:]
    model.graph.initializer.extend(keep + add)


def still_read(model, names):
    read = {i for n in model.graph.node for i in n.input}
    read |= {o.name for o in model.graph.output}
    return {n for n in names if n in read}


def quantize_dynamic(model):
    weights = float_initializers(model)
    targets = quantizable_matmuls(model)
    nodes, added, used = [], [], set()
    dql = {}  # A -> (A_q, A_scale, A_zp): one DynamicQuantizeLinear per input
    for i, node in enumerate(model.graph.node):
        if i not in targets:
            nodes.append(node)
            continue
        a, b = node.input[0], node.input[1]
        w = numpy_helper.to_array(weights[b]).astype(np.float64)
        scale = np.abs(w).max(axis=0) / WEIGHT_QMAX
        scale[scale == 0] = 1.0
        q = np.clip(np.rint(w / scale), -WEIGHT_QMAX, WEIGHT_QMAX).astype(np.int8)
        base = node.name or b
        added += [numpy_helper.from_array(q, b + "_quantized"),
                  numpy_helper.from_array(scale.astype(np.float32), b + "_scale"),
                  numpy_helper.from_array(np.zeros(w.shape[1], np.int8), b + "_zero_point")]
        used.add(b)
        if a not in dql:
            names = (a + "_quantized", a + "_scale", a + "_zero_point")
            nodes.append(helper.make_node("DynamicQuantizeLinear", [a], list(names),
                                          name=a + "_QuantizeLinear"))
            dql[a] = names
        a_q, a_scale, a_zp = dql[a]
        out = node.output[0]
        nodes += [
            helper.make_node("MatMulInteger", [a_q, b + "_quantized", a_zp, b + "_zero_point"],
                             [out + "_int32"], name=base + "_quant"),
            helper.make_node("Cast", [out + "_int32"], [out + "_int32_cast"], to=TensorProto.FLOAT,
                             name=base + "_cast"),
            helper.make_node("Mul", [a_scale, b + "_scale"], [out + "_scales"],
                             name=base + "_scales_mul"),
            helper.make_node("Mul", [out + "_int32_cast", out + "_scales"], [out],
                             name=base + "_output_scale_mul"),
        ]
    del model.graph.node[:]
    model.graph.node.extend(nodes)
    replace_initializers(model, used - still_read(model, used), added)


REDUCE_OPS = ("ReduceMean", "ReduceMax", "ReduceMin", "ReduceProd", "ReduceL1", "ReduceL2",
              "ReduceLogSum", "ReduceLogSumExp", "ReduceSumSquare")


def upgrade_to_opset21(model):
    """The default-domain opset becomes 21. Between 14 and 21 only the Reduce
    ops (18: axes move from an attribute to an input) change in a way the
    exported graphs use; the others keep their meaning."""
    old = max(o.version for o in model.opset_import if o.domain in ("", "ai.onnx"))
    if old < 13:
        sys.exit("quantize.py: int4-weight needs a model of opset 13 or later, not %d" % old)
    for o in model.opset_import:
        if o.domain in ("", "ai.onnx"):
            o.version = 21
    added = []
    for node in model.graph.node:
        if node.op_type not in REDUCE_OPS or old >= 18:
            continue
        axes = [a for a in node.attribute if a.name == "axes"]
        if not axes:
            continue
        name = (node.name or node.output[0]) + "_axes"
        added.append(numpy_helper.from_array(np.array(list(axes[0].ints), np.int64), name))
        node.attribute.remove(axes[0])
        node.input.append(name)
    model.graph.initializer.extend(added)
    model.ir_version = max(model.ir_version, 10)


def pack_int4(values):
    """Signed int4 values, two per byte, the first in the low nibble."""
    flat = (values.reshape(-1).astype(np.int16) & 0xF).astype(np.uint8)
    if flat.size % 2:
        flat = np.append(flat, np.uint8(0))
    return (flat[0::2] | (flat[1::2] << 4)).astype(np.uint8).tobytes()


def quantize_int4_weights(model):
    weights = float_initializers(model)
    targets = {i for i in quantizable_matmuls(model)
               if weights[model.graph.node[i].input[1]].dims[0] % INT4_BLOCK == 0}
    upgrade_to_opset21(model)
    nodes, added, used = [], [], set()
    for i, node in enumerate(model.graph.node):
        if i not in targets:
            nodes.append(node)
            continue
        b = node.input[1]
        w = numpy_helper.to_array(weights[b]).astype(np.float64)
        k, n = w.shape
        blocks = w.reshape(k // INT4_BLOCK, INT4_BLOCK, n)
        scale = np.abs(blocks).max(axis=1) / 7.0
        scale[scale == 0] = 1.0
        scale = scale.astype(np.float32)
        q = np.clip(np.rint(blocks / scale.astype(np.float64)[:, None, :]), -8, 7)
        q = q.reshape(k, n).astype(np.int8)
        packed = TensorProto()
        packed.name = b + "_int4"
        packed.data_type = 22  # INT4 (onnx 1.12 has no name for it)
        packed.dims.extend([k, n])
        packed.raw_data = pack_int4(q)
        added += [packed, numpy_helper.from_array(scale, b + "_scale")]
        used.add(b)
        nodes.append(helper.make_node("DequantizeLinear", [b + "_int4", b + "_scale"],
                                      [b + "_dequantized"], axis=0, block_size=INT4_BLOCK,
                                      name=(node.name or b) + "_DequantizeLinear"))
        node.input[1] = b + "_dequantized"
        nodes.append(node)
    del model.graph.node[:]
    model.graph.node.extend(nodes)
    replace_initializers(model, used - still_read(model, used), added)


MODES = {"dynamic-int8": quantize_dynamic, "int4-weight": quantize_int4_weights}


def ort_dir():
    return os.environ.get("ONNXCC_ORT_DIR") or os.path.join(ROOT, ".deps", "onnxruntime-node")


def run_ort(model_path, inputs, like, work, optimization):
    """ONNX Runtime's outputs of `model_path` on `inputs` (name, array),
    shaped like `like`."""
    os.makedirs(work, exist_ok=True)
    command = ["node", os.path.join(ROOT, "bench", "ort_bench.js"), model_path, "--iters", "1",
               "--outputs", work, "--optimization", optimization]
    for k, (name, array) in enumerate(inputs):
        path = os.path.join(work, "input_%d.bin" % k)
        np.ascontiguousarray(array).tofile(path)
        command += ["--input", path, "--shape", "%s=%s" % (name, "x".join(map(str, array.shape)))]
    env = dict(os.environ, ONNXCC_ORT_DIR=ort_dir())
    result = subprocess.run(command, env=env, capture_output=True, text=True)
    if result.returncode != 0:
        sys.exit("quantize.py: ONNX Runtime failed on %s: %s" % (
            model_path, (result.stderr or result.stdout).strip().splitlines()[-1:]))
    return [np.fromfile(os.path.join(work, "output_%d.bin" % k), dtype=ref.dtype).reshape(ref.shape)
            for k, ref in enumerate(like)]


def read_dataset(folder):
    def read(kind):
        arrays, k = [], 0
        while os.path.exists(os.path.join(folder, "%s_%d.pb" % (kind, k))):
            tensor = onnx.load_tensor(os.path.join(folder, "%s_%d.pb" % (kind, k)))
            arrays.append((tensor.name, numpy_helper.to_array(tensor)))
            k += 1
        return arrays
    return read("input"), read("output")


def main():
    args = sys.argv[1:]
    small = "--small" in args
    args = [a for a in args if a != "--small"]
    if len(args) != 3 or args[0] not in MODES or args[1] not in USER_MODELS + TORCHVISION_MODELS:
        sys.exit("usage: quantize.py {%s} {%s} OUTDIR [--small]" % (
            "|".join(MODES), "|".join(USER_MODELS + TORCHVISION_MODELS)))
    mode, base, outdir = args
    float_dir = os.path.join(outdir, "float")
    shutil.rmtree(float_dir, ignore_errors=True)
    if base in USER_MODELS:
        script = [os.path.join(ROOT, "test", "models", "make_user_models.py"), base, float_dir]
        if small:
            script.append("--small")
    else:
        script = [os.path.join(ROOT, "test", "models", "make_torchvision_model.py"), base,
                  float_dir]
    subprocess.run([sys.executable] + script, check=True)

    model = onnx.load(os.path.join(float_dir, "model.onnx"))
    MODES[mode](model)
    path = os.path.join(outdir, "model.onnx")
    onnx.save(model, path)

    inputs, float_outputs = read_dataset(os.path.join(float_dir, "test_data_set_0"))
    like = [a for _, a in float_outputs]
    reference = run_ort(path, inputs, like, os.path.join(outdir, "ort-disabled"), "disabled")
    optimized = run_ort(path, inputs, like, os.path.join(outdir, "ort-all"), "all")
    spread = max(float(np.max(np.abs(r.astype(np.float64) - o.astype(np.float64))))
                 if r.size else 0.0 for r, o in zip(reference, optimized))
    folder = os.path.join(outdir, "test_data_set_0")
    os.makedirs(folder, exist_ok=True)
    for kind, pairs in (("input", inputs),
                        ("output", [(n, r) for (n, _), r in zip(float_outputs, reference)])):
        for k, (name, array) in enumerate(pairs):
            proto = numpy_helper.from_array(np.ascontiguousarray(array), name)
            with open(os.path.join(folder, "%s_%d.pb" % (kind, k)), "wb") as f:
                f.write(proto.SerializeToString())
    with open(os.path.join(outdir, "ort_tolerance.txt"), "w") as f:
        f.write("%.9g\n" % spread)
    shutil.rmtree(float_dir)
    print("quantize.py: %s %s: %d MatMuls; ONNX Runtime optimized vs not: %.3g" % (
        mode, base, sum(1 for n in model.graph.node
                        if n.op_type in ("MatMulInteger", "DequantizeLinear")), spread))


if __name__ == "__main__":
    main()
