"""Writes a model (ai.onnx opset 25) over the new element types and one
dataset whose expected outputs are computed here, with exact rational
arithmetic written for this test (not with onnxcc's conversions).

Usage: small-types-model.py OUT_DIR

  y_e4m3     Cast(x, to=FLOAT8E4M3FN)               saturate (the default)
  y_e4m3_ns  Cast(x, to=FLOAT8E4M3FN, saturate=0)   overflow and inf give NaN
  y_e5m2_ns  Cast(x, to=FLOAT8E5M2, saturate=0)     overflow gives inf
  y_uz       Cast(x, to=FLOAT8E4M3FNUZ)             no -0
  y_f4       Cast(x, to=FLOAT4E2M1)                 packed 2 per byte
  y_back     Cast(Cast(x, to=FLOAT8E5M2), to=FLOAT)  round trip through E5M2
  y_up       Cast(p, to=FLOAT8E8M0)                 round_mode 'up'
  y_near     Cast(p, to=FLOAT8E8M0, round_mode='nearest')
  y_i4       Cast(k, to=INT4)                       truncate, wrap to 4 bits
  y_u2       Cast(k, to=UINT2)                      wrap to 2 bits
  y_dq       DequantizeLinear(w, 0.5, zp=1)         w an int4 initializer of 7
                                                    elements (odd: half a byte
                                                    of padding), block_size 2
  y_dq16     DequantizeLinear(w, 0.1.., output_dtype=FLOAT16): in float, then
                                                    rounded once to float16
  y_shape    Reshape(u, [3, 2])                     a uint4 initializer moved
  y_q4       QuantizeLinear(x, 0.25, zp int4 -1)    round half even, saturate
  y_t4       Transpose(a4)                          an int4 graph input moved
  y_t8     Transpose(Identity(f8in))              a float8 graph input moved
  y_f8f      Cast(f8in, to=FLOAT)                   float8 read
  y_cos4     ConstantOfShape([3], value int4 -3)    an int4 fill
  y_pad4     Pad(a4, [0, 1, 0, 1], int4 5)          an int4 pad value

OUT_DIR gets model.onnx and test/test_data_set_0/{input_K,output_K}.pb.
"""
import math
import os
import sys
from fractions import Fraction

import numpy as np
from onnx import TensorProto, helper

FLOAT8E4M3FN, FLOAT8E4M3FNUZ, FLOAT8E5M2 = 17, 18, 19
UINT4, INT4, FLOAT4E2M1, FLOAT8E8M0, UINT2 = 21, 22, 23, 24, 25

out = sys.argv[1]
data = os.path.join(out, "test", "test_data_set_0")
os.makedirs(data, exist_ok=True)

# name: exponent bits, mantissa bits, bias, kind (see float8.test)
FORMATS = {
    FLOAT8E4M3FN: (4, 3, 7, "fn"),
    FLOAT8E4M3FNUZ: (4, 3, 8, "uz"),
    FLOAT8E5M2: (5, 2, 15, "ieee"),
    FLOAT4E2M1: (2, 1, 1, "none"),
}


def value(code, e, m, bias, kind):
    width = 1 + e + m
    sign, exp, mant = code >> (width - 1), (code >> m) & ((1 << e) - 1), code & ((1 << m) - 1)
    if kind == "fn" and exp == (1 << e) - 1 and mant == (1 << m) - 1:
        return None
    if kind == "uz" and code == 1 << (width - 1):
        return None
    if kind == "ieee" and exp == (1 << e) - 1:
        return None
    v = Fraction(mant if exp == 0 else (1 << m) + mant) * Fraction(2) ** (max(exp, 1) - bias - m)
    return -v if sign else v


def to_small(x, fmt, saturate):
    """ONNX Cast of float x to a float8/float4 type: the bit pattern."""
    e, m, bias, kind = FORMATS[fmt]
    signbit = 1 << (e + m)
    neg = math.copysign(1.0, x) < 0
    s = signbit if neg else 0
    finite = sorted((value(c, e, m, bias, kind), c) for c in range(signbit)
                    if value(c, e, m, bias, kind) is not None)
    top, topcode = finite[-1]
    largest = topcode | s
    nan = {"fn": 0x7F | s, "uz": 0x80, "ieee": 0x7E | s, "none": 0x8}[kind]
    over = {"fn": 0x7F | s, "uz": 0x80, "ieee": 0x7C | s, "none": 0x7 | s}[kind]
    if kind == "none":
        saturate = True
    if math.isnan(x):
        return nan
    if math.isinf(x):
        return largest if saturate else over
    a = abs(Fraction(x))
    ulp = Fraction(2) ** ((topcode >> m) - bias - m)
    beyond_even = (topcode & ((1 << m) - 1)) == (1 << m) - 1 or (topcode & 1) == 1
    cands = [(v, c, c % 2 == 0) for v, c in finite] + [(top + ulp, None, beyond_even)]
    best = min(cands, key=lambda t: (abs(t[0] - a), not t[2]))
    if a >= top + ulp or best[1] is None:
        return largest if saturate else over
    code = best[1]
    if code == 0:
        return 0 if kind == "uz" else s
    return code | s


def small_value(code, fmt):
    e, m, bias, kind = FORMATS[fmt]
    v = value(code, e, m, bias, kind)
    if v is None:
        exp_all = (code >> m) & ((1 << e) - 1) == (1 << e) - 1
        if kind == "ieee" and exp_all and code & ((1 << m) - 1) == 0:
            return -math.inf if code >> (e + m) else math.inf
        return math.nan
    return float(v)


def to_e8m0(x, mode):
    """ONNX Cast to FLOAT8E8M0 (saturate): the exponent of x, rounded."""
    bits = int(np.array([x], np.float32).view(np.uint32)[0])
    exp = (bits >> 23) & 0xFF
    if exp == 0xFF:
        return 0xFF
    if mode == "up":
        up = (bits & 0x7FFFFF) != 0
    else:  # nearest: guard bit, ties up unless below the smallest normal
        g, r, st = bits & 0x400000, bits & 0x200000, bits & 0x1FFFFF
        up = bool(g) and (bool(r) or bool(st) or exp > 0)
    if up and exp == 0xFE:
        up = False
    return exp + int(up)


def packed(values, bits):
    per = 8 // bits
    out = bytearray((len(values) + per - 1) // per)
    for i, v in enumerate(values):
        out[i // per] |= (v & ((1 << bits) - 1)) << (bits * (i % per))
    return bytes(out)


def tensor(name, dtype, dims, raw):
    t = TensorProto()
    t.name = name
    t.data_type = dtype
    t.dims.extend(dims)
    t.raw_data = raw
    return t


x = np.array([0.0, -0.0, 0.3, -1.7, 2.5, 3.5, 300.0, 470.0, -1000.0, 1e-4, -3e-3,
              math.inf, -math.inf, math.nan, 5.0, 0.0136719], np.float32)
p = np.array([1.0, 1.5, 3.0, 0.75, 2.0 ** -130, 1e38, 2.0 ** 127 * 1.75, 0.3], np.float32)
k = np.array([-9.5, -8.0, -1.2, 0.0, 7.9, 8.0, 15.0, 16.5], np.float32)
w = [-8, -3, 0, 1, 5, 7, -1]
a4 = [-8, 7, -1, 0, 3, -5]
f8in = [0x00, 0x80, 0x7E, 0xFE, 0x7F, 0x01]  # 0, -0, 448, -448, NaN, 2^-9
u = [0, 15, 3, 9, 12, 1]

nodes = [
    helper.make_node("Cast", ["x"], ["y_e4m3"], to=FLOAT8E4M3FN),
    helper.make_node("Cast", ["x"], ["y_e4m3_ns"], to=FLOAT8E4M3FN, saturate=0),
    helper.make_node("Cast", ["x"], ["y_e5m2_ns"], to=FLOAT8E5M2, saturate=0),
    helper.make_node("Cast", ["x"], ["y_uz"], to=FLOAT8E4M3FNUZ),
    helper.make_node("Cast", ["x"], ["y_f4"], to=FLOAT4E2M1),
    helper.make_node("Cast", ["x"], ["e5"], to=FLOAT8E5M2),
    helper.make_node("Cast", ["e5"], ["y_back"], to=TensorProto.FLOAT),
    helper.make_node("Cast", ["p"], ["y_up"], to=FLOAT8E8M0),
    helper.make_node("Cast", ["p"], ["y_near"], to=FLOAT8E8M0, round_mode="nearest"),
    helper.make_node("Cast", ["k"], ["y_i4"], to=INT4),
    helper.make_node("Cast", ["k"], ["y_u2"], to=UINT2),
    helper.make_node("DequantizeLinear", ["w", "w_scale", "w_zp"], ["y_dq"], axis=0,
                     block_size=2),
    helper.make_node("DequantizeLinear", ["w", "w_scale16"], ["y_dq16"], axis=0,
                     output_dtype=TensorProto.FLOAT16),
    helper.make_node("Reshape", ["u", "shape"], ["y_shape"]),
    helper.make_node("QuantizeLinear", ["x4", "q_scale", "q_zp"], ["y_q4"]),
    helper.make_node("Transpose", ["a4"], ["y_t4"], perm=[1, 0]),
    helper.make_node("Identity", ["f8in"], ["f8id"]),
    helper.make_node("Transpose", ["f8id"], ["y_t8"], perm=[1, 0]),
    helper.make_node("Cast", ["f8in"], ["y_f8f"], to=TensorProto.FLOAT),
    helper.make_node("ConstantOfShape", ["cos_shape"], ["y_cos4"],
                     value=tensor("v", INT4, [1], packed([-3], 4))),
    helper.make_node("Pad", ["a4", "pads", "pad_value"], ["y_pad4"]),
]
n = len(x)
x4 = np.array([0.0, 0.1, 0.125, 0.375, -0.375, 1.9, 2.0, -5.0, 100.0, -0.2], np.float32)
inits = [
    tensor("w", INT4, [7], packed(w, 4)),
    tensor("w_scale", TensorProto.FLOAT, [4], np.array([0.5, 0.25, 2.0, 1.0], np.float32).tobytes()),
    tensor("w_zp", INT4, [4], packed([1, -1, 0, 2], 4)),
    tensor("w_scale16", TensorProto.FLOAT, [], np.array([0.1037], np.float32).tobytes()),
    tensor("u", UINT4, [2, 3], packed(u, 4)),
    tensor("shape", TensorProto.INT64, [2], np.array([3, 2], np.int64).tobytes()),
    tensor("q_scale", TensorProto.FLOAT, [], np.array([0.25], np.float32).tobytes()),
    tensor("q_zp", INT4, [], packed([-1], 4)),
    tensor("cos_shape", TensorProto.INT64, [1], np.array([3], np.int64).tobytes()),
    tensor("pads", TensorProto.INT64, [4], np.array([0, 1, 0, 1], np.int64).tobytes()),
    tensor("pad_value", INT4, [], packed([5], 4)),
]
inputs = [("x", TensorProto.FLOAT, [n]), ("p", TensorProto.FLOAT, [len(p)]),
          ("k", TensorProto.FLOAT, [len(k)]), ("x4", TensorProto.FLOAT, [len(x4)]),
          ("a4", INT4, [2, 3]), ("f8in", FLOAT8E4M3FN, [2, 3])]
outputs = [("y_e4m3", FLOAT8E4M3FN, [n]), ("y_e4m3_ns", FLOAT8E4M3FN, [n]),
           ("y_e5m2_ns", FLOAT8E5M2, [n]), ("y_uz", FLOAT8E4M3FNUZ, [n]),
           ("y_f4", FLOAT4E2M1, [n]), ("y_back", TensorProto.FLOAT, [n]),
           ("y_up", FLOAT8E8M0, [len(p)]), ("y_near", FLOAT8E8M0, [len(p)]),
           ("y_i4", INT4, [len(k)]), ("y_u2", UINT2, [len(k)]),
           ("y_dq", TensorProto.FLOAT, [7]), ("y_dq16", TensorProto.FLOAT16, [7]),
           ("y_shape", UINT4, [3, 2]),
           ("y_q4", INT4, [len(x4)]), ("y_t4", INT4, [3, 2]),
           ("y_t8", FLOAT8E4M3FN, [3, 2]), ("y_f8f", TensorProto.FLOAT, [2, 3]),
           ("y_cos4", INT4, [3]), ("y_pad4", INT4, [2, 5])]
graph = helper.make_graph(
    nodes, "small_types",
    [helper.make_tensor_value_info(a, t, d) for a, t, d in inputs],
    [helper.make_tensor_value_info(a, t, d) for a, t, d in outputs], inits)
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 25)])
model.ir_version = 11
with open(os.path.join(out, "model.onnx"), "wb") as f:
    f.write(model.SerializeToString())

xs = [float(v) for v in x]
e5 = [to_small(v, FLOAT8E5M2, True) for v in xs]


def trunc_wrap(v, bits, signed):
    i = int(math.trunc(v)) & ((1 << bits) - 1)
    return i - (1 << bits) if signed and i >> (bits - 1) else i


def q4(v):
    r = Fraction(float(v)) / Fraction(0.25)
    q = round(r)  # Python rounds half to even
    return max(-8, min(7, q - 1))


wscale, wzp = [0.5, 0.25, 2.0, 1.0], [1, -1, 0, 2]
expected = {
    "y_e4m3": bytes(to_small(v, FLOAT8E4M3FN, True) for v in xs),
    "y_e4m3_ns": bytes(to_small(v, FLOAT8E4M3FN, False) for v in xs),
    "y_e5m2_ns": bytes(to_small(v, FLOAT8E5M2, False) for v in xs),
    "y_uz": bytes(to_small(v, FLOAT8E4M3FNUZ, True) for v in xs),
    "y_f4": packed([to_small(v, FLOAT4E2M1, True) for v in xs], 4),
    "y_back": np.array([small_value(c, FLOAT8E5M2) for c in e5], np.float32).tobytes(),
    "y_up": bytes(to_e8m0(float(v), "up") for v in p),
    "y_near": bytes(to_e8m0(float(v), "nearest") for v in p),
    "y_i4": packed([trunc_wrap(float(v), 4, True) for v in k], 4),
    "y_u2": packed([trunc_wrap(float(v), 2, False) for v in k], 2),
    "y_dq": np.array([(w[i] - wzp[i // 2]) * wscale[i // 2] for i in range(7)],
                     np.float32).tobytes(),
    "y_dq16": (np.array(w, np.float32) * np.float32(0.1037)).astype(np.float16).tobytes(),
    "y_shape": packed(u, 4),
    "y_q4": packed([q4(v) for v in x4], 4),
    "y_t4": packed(list(np.array(a4).reshape(2, 3).T.ravel()), 4),
    "y_t8": bytes(np.array(f8in, np.uint8).reshape(2, 3).T.ravel()),
    "y_f8f": np.array([small_value(c, FLOAT8E4M3FN) for c in f8in], np.float32).tobytes(),
    "y_cos4": packed([-3] * 3, 4),
    "y_pad4": packed(list(np.pad(np.array(a4).reshape(2, 3), [(0, 0), (1, 1)],
                                 constant_values=5).ravel()), 4),
}
raw_inputs = {"x": x.tobytes(), "p": p.tobytes(), "k": k.tobytes(), "x4": x4.tobytes(),
              "a4": packed(a4, 4), "f8in": bytes(f8in)}
for i, (name, t, d) in enumerate(inputs):
    with open(os.path.join(data, f"input_{i}.pb"), "wb") as f:
        f.write(tensor(name, t, d, raw_inputs[name]).SerializeToString())
for i, (name, t, d) in enumerate(outputs):
    with open(os.path.join(data, f"output_{i}.pb"), "wb") as f:
        f.write(tensor(name, t, d, expected[name]).SerializeToString())
