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
  qdq-static    ONNX Runtime's quantize_static QDQ form: every activation
                read by a Conv, Gemm, Add, MaxPool, GlobalAveragePool or
                Flatten passes through QuantizeLinear -> DequantizeLinear
                (uint8, asymmetric, one pair per tensor, its range calibrated
                with ONNX Runtime on the float model's dataset input, as the
                MinMax calibrator does); Conv and Gemm weights are int8,
                symmetric, one scale per output channel, through
                DequantizeLinear; biases int32 with scale input_scale *
                weight_scale. Opset 13.

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
# int8 weights use 7 bits ([-63, 63]: the quantizers' reduce_range):
# ONNX Runtime's uint8 x int8 kernels on CPUs without VNNI
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


QDQ_READERS = ("Conv", "Gemm", "Add", "MaxPool", "GlobalAveragePool", "Flatten")


def activation_ranges(model, inputs, work):
    """min(0, min) and max(0, max) of every float tensor the QDQ readers
    read, from ONNX Runtime running the float model on `inputs`."""
    weights = float_initializers(model)
    names = []
    for node in model.graph.node:
        if node.op_type in QDQ_READERS:
            for i, name in enumerate(node.input):
                if name and name not in weights and name not in names and \
                        not (node.op_type in ("Conv", "Gemm") and i > 0):
                    names.append(name)
    probe = onnx.ModelProto()
    probe.CopyFrom(model)
    inferred = onnx.shape_inference.infer_shapes(probe)
    shapes = {v.name: [d.dim_value for d in v.type.tensor_type.shape.dim]
              for v in list(inferred.graph.value_info) + list(inferred.graph.input)}
    del probe.graph.output[:]
    for name in names:
        probe.graph.output.append(helper.make_tensor_value_info(name, TensorProto.FLOAT,
                                                                shapes[name]))
    path = os.path.join(work, "calibration.onnx")
    os.makedirs(work, exist_ok=True)
    onnx.save(probe, path)
    like = [np.zeros(shapes[n], np.float32) for n in names]
    values = run_ort(path, inputs, like, os.path.join(work, "calibration"), "all")
    return {n: (min(0.0, float(v.min())), max(0.0, float(v.max()))) for n, v in zip(names, values)}


def quantize_qdq_static(model, inputs, work):
    ranges = activation_ranges(model, inputs, work)
    weights = float_initializers(model)
    added, used, nodes = [], set(), []
    qdq = {}  # activation -> its dequantized name
    scales = {}

    def dequantized(name):
        if name not in qdq:
            lo, hi = ranges[name]
            scale = np.float32((hi - lo) / 255.0) if hi > lo else np.float32(1.0)
            zp = np.uint8(np.clip(np.rint(-lo / scale), 0, 255))
            scales[name] = float(scale)
            added.extend([numpy_helper.from_array(np.array(scale, np.float32), name + "_scale"),
                          numpy_helper.from_array(np.array(zp, np.uint8), name + "_zero_point")])
            nodes.append(helper.make_node("QuantizeLinear",
                                          [name, name + "_scale", name + "_zero_point"],
                                          [name + "_quantized"], name=name + "_QuantizeLinear"))
            nodes.append(helper.make_node("DequantizeLinear",
                                          [name + "_quantized", name + "_scale",
                                           name + "_zero_point"],
                                          [name + "_dequantized"],
                                          name=name + "_DequantizeLinear"))
            qdq[name] = name + "_dequantized"
        return qdq[name]

    for node in model.graph.node:
        if node.op_type not in QDQ_READERS:
            nodes.append(node)
            continue
        is_linear = node.op_type in ("Conv", "Gemm")
        for i, name in enumerate(node.input):
            if not name or (is_linear and i > 0) or name in weights:
                continue
            node.input[i] = dequantized(name)
        if is_linear and node.input[1] in weights:
            w = numpy_helper.to_array(weights[node.input[1]]).astype(np.float64)
            trans_b = any(a.name == "transB" and a.i for a in node.attribute)
            axis = 0 if node.op_type == "Conv" or trans_b else 1
            rows = w if axis == 0 else w.T
            w_scale = np.abs(rows.reshape(rows.shape[0], -1)).max(axis=1) / WEIGHT_QMAX
            w_scale[w_scale == 0] = 1.0
            w_scale = w_scale.astype(np.float32)
            shape = [-1 if d == axis else 1 for d in range(w.ndim)]
            wq = np.clip(np.rint(w / w_scale.astype(np.float64).reshape(shape)),
                         -WEIGHT_QMAX, WEIGHT_QMAX)
            b = node.input[1]
            added += [numpy_helper.from_array(wq.astype(np.int8), b + "_quantized"),
                      numpy_helper.from_array(w_scale, b + "_scale"),
                      numpy_helper.from_array(np.zeros(len(w_scale), np.int8), b + "_zero_point")]
            nodes.append(helper.make_node("DequantizeLinear",
                                          [b + "_quantized", b + "_scale", b + "_zero_point"],
                                          [b + "_dequantized"], axis=axis,
                                          name=b + "_DequantizeLinear"))
            used.add(b)
            node.input[1] = b + "_dequantized"
            if len(node.input) > 2 and node.input[2] in weights:
                bias_name = node.input[2]
                x_scale = np.float32(scales[node.input[0][:-len("_dequantized")]])
                b_scale = (x_scale * w_scale).astype(np.float32)
                bias = numpy_helper.to_array(weights[bias_name]).astype(np.float64)
                bq = np.rint(bias / b_scale.astype(np.float64)).astype(np.int32)
                added += [numpy_helper.from_array(bq, bias_name + "_quantized"),
                          numpy_helper.from_array(b_scale, bias_name + "_scale")]
                nodes.append(helper.make_node("DequantizeLinear",
                                              [bias_name + "_quantized", bias_name + "_scale"],
                                              [bias_name + "_dequantized"], axis=0,
                                              name=bias_name + "_DequantizeLinear"))
                used.add(bias_name)
                node.input[2] = bias_name + "_dequantized"
        nodes.append(node)
    del model.graph.node[:]
    model.graph.node.extend(nodes)
    replace_initializers(model, used - still_read(model, used), added)


MODES = {"dynamic-int8": quantize_dynamic, "int4-weight": quantize_int4_weights,
         "qdq-static": quantize_qdq_static}


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
    inputs, float_outputs = read_dataset(os.path.join(float_dir, "test_data_set_0"))
    if mode == "qdq-static":
        MODES[mode](model, inputs, os.path.join(outdir, "calibrate"))
    else:
        MODES[mode](model)
    path = os.path.join(outdir, "model.onnx")
    onnx.save(model, path)

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
    print("quantize.py: %s %s: %d quantized nodes; ONNX Runtime optimized vs not: %.3g" % (
        mode, base, sum(1 for n in model.graph.node
                        if n.op_type in ("MatMulInteger", "DequantizeLinear")), spread))


if __name__ == "__main__":
    main()
