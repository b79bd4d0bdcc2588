#!/usr/bin/python3
"""Quantized models whose every float operation is exact or rounded once the
same way in any order, with a NumPy reference, for bit-exact checks of the
integer and low-bit kernels.

Usage: /usr/bin/python3 test/models/make_quantized_exact.py NAME OUTDIR [--check-ort]

NAME is one of

  dynamic-full   x float32[8, 96] -> DynamicQuantizeLinear -> MatMulInteger
                 with constant int8 weights [96, 40] over the full range
                 (-128..127, per-column zero points) -> Cast -> Mul(x_scale *
                 w_scale), the w_scale powers of two. The integer product is
                 exact, its float value exact (|sum| < 2^24) and each output
                 rounded once: NumPy's float32 arithmetic gives the same bits.
                 Full-range weights take the kernel's int16 pairs format.
  dynamic-7bit   the same with 7-bit weights (-64..63): the pmaddubsw quads
                 format.
  int4-weight    x float32[1, 128] of small multiples of 1/4 -> MatMul with
                 DequantizeLinear-21 int4 weights [128, 48], blocks of 32 along
                 K, power-of-two scales, zero points per block: every product
                 and partial sum is a multiple of 2^-12 below 2^12, exact in
                 float32 whatever the order.

Writes OUTDIR/model.onnx and OUTDIR/test_data_set_0 (NumPy's outputs).
--check-ort also runs ONNX Runtime on it (graph optimizations disabled;
$ONNXCC_ORT_DIR as for quantize.py) and exits 1 unless its outputs are
bitwise NumPy's. (dynamic-full is not expected to pass that on CPUs without
VNNI, where ONNX Runtime's pmaddubsw saturates full-range pair sums.)
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper


def dynamic(outdir, weight_range):
    rng = np.random.default_rng(5)
    k, n = 96, 40
    lo, hi = weight_range
    w = rng.integers(lo, hi + 1, size=(k, n)).astype(np.int8)
    w_zp = rng.integers(-3, 4, size=n).astype(np.int8)
    if lo == -64:  # keep B - zero point within 7 bits
        w = np.clip(w.astype(np.int32) + w_zp, -64, 63).astype(np.int8)
    w_scale = np.exp2(rng.integers(-9, -5, size=n)).astype(np.float32)
    nodes = [
        helper.make_node("DynamicQuantizeLinear", ["x"], ["xq", "xs", "xz"]),
        helper.make_node("MatMulInteger", ["xq", "w", "xz", "w_zp"], ["acc"]),
        helper.make_node("Cast", ["acc"], ["accf"], to=TensorProto.FLOAT),
        helper.make_node("Mul", ["xs", "w_scale"], ["scales"]),
        helper.make_node("Mul", ["accf", "scales"], ["y"]),
    ]
    graph = helper.make_graph(
        nodes, "quantized_exact",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [8, k])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [8, n])],
        [numpy_helper.from_array(w, "w"), numpy_helper.from_array(w_zp, "w_zp"),
         numpy_helper.from_array(w_scale, "w_scale")])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    x = rng.uniform(-3, 5, size=(8, k)).astype(np.float32)

    # DynamicQuantizeLinear as ONNX defines it, in float32.
    f = np.float32
    x_min, x_max = min(f(0), x.min()), max(f(0), x.max())
    xs = f((x_max - x_min) / f(255))
    xz = np.uint8(np.clip(np.rint(-(x_min / xs)), 0, 255))
    xq = np.clip(np.rint(x / xs) + f(xz), 0, 255).astype(np.uint8)
    acc = (xq.astype(np.int64) - int(xz)) @ (w.astype(np.int64) - w_zp.astype(np.int64))
    assert np.abs(acc).max() < 2 ** 24
    y = acc.astype(np.float32) * (xs * w_scale)
    return model, x, y


def int4_weight(outdir):
    rng = np.random.default_rng(6)
    k, n, block = 128, 48, 32
    q = rng.integers(-8, 8, size=(k, n))
    zp = rng.integers(-2, 3, size=(k // block, n))
    scale = np.exp2(rng.integers(-6, -2, size=(k // block, n))).astype(np.float32)
    flat = (q.reshape(-1) & 0xF).astype(np.uint8)
    packed = TensorProto()
    packed.name, packed.data_type = "w_q", 22  # INT4
    packed.dims.extend([k, n])
    packed.raw_data = (flat[0::2] | (flat[1::2] << 4)).astype(np.uint8).tobytes()
    zpacked = TensorProto()
    zflat = (zp.reshape(-1) & 0xF).astype(np.uint8)
    zpacked.name, zpacked.data_type = "w_zp", 22
    zpacked.dims.extend([k // block, n])
    zpacked.raw_data = (zflat[0::2] | (zflat[1::2] << 4)).astype(np.uint8).tobytes()
    nodes = [
        helper.make_node("DequantizeLinear", ["w_q", "w_scale", "w_zp"], ["w"], axis=0,
                         block_size=block),
        helper.make_node("MatMul", ["x", "w"], ["y"]),
    ]
    graph = helper.make_graph(
        nodes, "int4_exact",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, k])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, n])],
        [packed, numpy_helper.from_array(scale, "w_scale"), zpacked])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 21)])
    model.ir_version = 10
    x = (rng.integers(-12, 13, size=(1, k)) / 4.0).astype(np.float32)
    w = (q - np.repeat(zp, block, axis=0)) * np.repeat(scale, block, axis=0).astype(np.float64)
    y = (x.astype(np.float64) @ w).astype(np.float32)  # exact in float32 too
    return model, x, y


MODELS = {
    "dynamic-full": lambda d: dynamic(d, (-128, 127)),
    "dynamic-7bit": lambda d: dynamic(d, (-64, 63)),
    "int4-weight": int4_weight,
}


def main():
    args = sys.argv[1:]
    check_ort = "--check-ort" in args
    args = [a for a in args if a != "--check-ort"]
    if len(args) != 2 or args[0] not in MODELS:
        sys.exit("usage: make_quantized_exact.py {%s} OUTDIR [--check-ort]" % "|".join(MODELS))
    name, outdir = args
    model, x, y = MODELS[name](outdir)
    folder = os.path.join(outdir, "test_data_set_0")
    os.makedirs(folder, exist_ok=True)
    onnx.save(model, os.path.join(outdir, "model.onnx"))
    for kind, arr, tensor_name in (("input", x, "x"), ("output", y, "y")):
        with open(os.path.join(folder, "%s_0.pb" % kind), "wb") as f:
            f.write(numpy_helper.from_array(arr, tensor_name).SerializeToString())
    if check_ort:
        sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
        from quantize import run_ort
        got = run_ort(os.path.join(outdir, "model.onnx"), [("x", x)], [y],
                      os.path.join(outdir, "ort"), "disabled")[0]
        differ = int(np.count_nonzero(got.view(np.uint32) != y.view(np.uint32)))
        print("ONNX Runtime vs NumPy: %d of %d values differ" % (differ, y.size))
        if differ:
            sys.exit(1)


if __name__ == "__main__":
    main()
