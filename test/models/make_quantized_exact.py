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
  qdq-conv       two QDQ convolutions and a QDQ residual Add of power-of-two
                 scales (quantize_static's form): QLinearConv kernels on both
                 input layouts and the residual kernel (see qdq_conv).

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


def conv_ref(x, w, b, stride, pad):
    """Direct convolution in float64 (NCHW, OIHW, symmetric pads)."""
    n, c, h, wd = x.shape
    m, _, kh, kw = w.shape
    xp = np.pad(x, ((0, 0), (0, 0), (pad, pad), (pad, pad)))
    oh = (h + 2 * pad - kh) // stride + 1
    ow = (wd + 2 * pad - kw) // stride + 1
    y = np.zeros((n, m, oh, ow))
    for i in range(kh):
        for j in range(kw):
            patch = xp[:, :, i:i + stride * oh:stride, j:j + stride * ow:stride]
            y += np.einsum("nchw,mc->nmhw", patch, w[:, :, i, j])
    return y + b.reshape(1, m, 1, 1)


def quantize_ref(v, scale, zp, lo, hi):
    return np.clip(np.rint(v / scale) + zp, lo, hi)


def qdq_conv(outdir):
    """x float32[1, 5, 9, 9] -> QuantizeLinear (uint8) -> DequantizeLinear ->
    Conv A (5 -> 8 channels, 3x3, stride 2, pads 1; W int8 full range, per
    channel) -> Relu -> QuantizeLinear -> DequantizeLinear -> Conv B (8 -> 8,
    3x3, pads 1, no Relu: zero point 128) -> QuantizeLinear; then the QDQ
    residual Add(DequantizeLinear(A), DequantizeLinear(B)) -> Relu ->
    QuantizeLinear -> DequantizeLinear = y. Every scale a power of two and
    every value a small multiple of one: each product and sum is exact in
    float32, each quantization rounds once, so the float graph, the integer
    kernels and NumPy agree bit for bit (C = 5: the im2col path; C = 8: the
    channels-last path)."""
    rng = np.random.default_rng(7)
    f32 = np.float32
    xs, xz = f32(2.0 ** -3), np.uint8(128)
    a_s, a_z = f32(2.0 ** -1), np.uint8(0)
    b_s, b_z = f32(2.0 ** -1), np.uint8(128)
    y_s, y_z = f32(2.0 ** 0), np.uint8(0)
    wa = rng.integers(-128, 128, size=(8, 5, 3, 3))
    wa_s = np.exp2(rng.integers(-9, -6, size=8)).astype(f32)
    ba = rng.integers(-3000, 3000, size=8)
    wb = rng.integers(-128, 128, size=(8, 8, 3, 3))
    wb_s = np.exp2(rng.integers(-11, -8, size=8)).astype(f32)
    bb = rng.integers(-3000, 3000, size=8)
    inits = [
        numpy_helper.from_array(np.array(xs), "xs"), numpy_helper.from_array(np.array(xz), "xz"),
        numpy_helper.from_array(wa.astype(np.int8), "wa"), numpy_helper.from_array(wa_s, "wa_s"),
        numpy_helper.from_array(np.zeros(8, np.int8), "wa_z"),
        numpy_helper.from_array(ba.astype(np.int32), "ba"),
        numpy_helper.from_array((xs * wa_s).astype(f32), "ba_s"),
        numpy_helper.from_array(np.array(a_s), "a_s"), numpy_helper.from_array(np.array(a_z), "a_z"),
        numpy_helper.from_array(wb.astype(np.int8), "wb"), numpy_helper.from_array(wb_s, "wb_s"),
        numpy_helper.from_array(np.zeros(8, np.int8), "wb_z"),
        numpy_helper.from_array(bb.astype(np.int32), "bb"),
        numpy_helper.from_array((a_s * wb_s).astype(f32), "bb_s"),
        numpy_helper.from_array(np.array(b_s), "b_s"), numpy_helper.from_array(np.array(b_z), "b_z"),
        numpy_helper.from_array(np.array(y_s), "y_s"), numpy_helper.from_array(np.array(y_z), "y_z"),
    ]
    node = helper.make_node
    nodes = [
        node("QuantizeLinear", ["x", "xs", "xz"], ["xq"]),
        node("DequantizeLinear", ["xq", "xs", "xz"], ["xd"]),
        node("DequantizeLinear", ["wa", "wa_s", "wa_z"], ["wad"], axis=0),
        node("DequantizeLinear", ["ba", "ba_s"], ["bad"], axis=0),
        node("Conv", ["xd", "wad", "bad"], ["ca"], pads=[1, 1, 1, 1], strides=[2, 2]),
        node("Relu", ["ca"], ["ra"]),
        node("QuantizeLinear", ["ra", "a_s", "a_z"], ["aq"]),
        node("DequantizeLinear", ["aq", "a_s", "a_z"], ["ad"]),
        node("DequantizeLinear", ["wb", "wb_s", "wb_z"], ["wbd"], axis=0),
        node("DequantizeLinear", ["bb", "bb_s"], ["bbd"], axis=0),
        node("Conv", ["ad", "wbd", "bbd"], ["cb"], pads=[1, 1, 1, 1]),
        node("QuantizeLinear", ["cb", "b_s", "b_z"], ["bq"]),
        node("DequantizeLinear", ["bq", "b_s", "b_z"], ["bd"]),
        node("Add", ["ad", "bd"], ["s"]),
        node("Relu", ["s"], ["rs"]),
        node("QuantizeLinear", ["rs", "y_s", "y_z"], ["yq"]),
        node("DequantizeLinear", ["yq", "y_s", "y_z"], ["y"]),
    ]
    graph = helper.make_graph(
        nodes, "qdq_conv_exact",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 5, 9, 9])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 8, 5, 5])], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8
    x = (rng.integers(-90, 90, size=(1, 5, 9, 9)) / 8.0).astype(f32)
    xq = quantize_ref(x.astype(np.float64), 2.0 ** -3, 128, 0, 255)
    xd = (xq - 128) * 2.0 ** -3
    ca = conv_ref(xd, wa * wa_s.astype(np.float64).reshape(8, 1, 1, 1),
                  ba * (xs * wa_s).astype(np.float64), 2, 1)
    aq = quantize_ref(np.maximum(ca, 0), 2.0 ** -1, 0, 0, 255)
    ad = aq * 2.0 ** -1
    cb = conv_ref(ad, wb * wb_s.astype(np.float64).reshape(8, 1, 1, 1),
                  bb * (a_s * wb_s).astype(np.float64), 1, 1)
    bq = quantize_ref(cb, 2.0 ** -1, 128, 0, 255)
    bd = (bq - 128) * 2.0 ** -1
    yq = quantize_ref(np.maximum(ad + bd, 0), 1.0, 0, 0, 255)
    return model, x, yq.astype(np.float32)


MODELS = {
    "dynamic-full": lambda d: dynamic(d, (-128, 127)),
    "dynamic-7bit": lambda d: dynamic(d, (-64, 63)),
    "int4-weight": int4_weight,
    "qdq-conv": qdq_conv,
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
