"""Writes DIR/undefined.onnx and DIR/data: casts of NaN, infinite and
out-of-range floats to integer types, integer sums and products that
overflow, integer Div/Mod by 0 and of the minimum by -1, and shifts by the
width or more. ONNX leaves these values undefined; C++ makes such code
undefined behaviour. onnxcc's generated code gives the values of
codegen/cpp/ABI.md ("Arithmetic that ONNX leaves undefined"), which are what
NumPy gives on x86-64 for the casts and the wrapping sums (the references
below come from NumPy's own casts and int32 arithmetic); the division and
shift values are the documented rule, written out with NumPy."""
import os
import sys
import warnings

import numpy as np
import onnx
from onnx import TensorProto as T, helper, numpy_helper

out = sys.argv[1]
N = 10
casts = [("c_i32", T.INT32, np.int32), ("c_i64", T.INT64, np.int64), ("c_i8", T.INT8, np.int8),
         ("c_i16", T.INT16, np.int16), ("c_u8", T.UINT8, np.uint8),
         ("c_u16", T.UINT16, np.uint16), ("c_u32", T.UINT32, np.uint32),
         ("c_u64", T.UINT64, np.uint64)]
nodes, outputs = [], []
for name, t, _ in casts:
    nodes.append(helper.make_node("Cast", ["x"], [name], to=t))
    outputs.append(helper.make_tensor_value_info(name, t, [N]))
    nodes.append(helper.make_node("Cast", ["xd"], [name + "_d"], to=t))
    outputs.append(helper.make_tensor_value_info(name + "_d", t, [N]))
for op in ["Add", "Sub", "Mul", "Div", "Mod"]:
    for suffix, t in [("32", T.INT32), ("64", T.INT64)]:
        nodes.append(helper.make_node(op, ["a" + suffix, "b" + suffix], [op.lower() + suffix]))
        outputs.append(helper.make_tensor_value_info(op.lower() + suffix, t, [N]))
for direction in ["LEFT", "RIGHT"]:
    name = "shift_" + direction.lower()
    nodes.append(helper.make_node("BitShift", ["u", "s"], [name], direction=direction))
    outputs.append(helper.make_tensor_value_info(name, T.UINT32, [N]))
inputs = [helper.make_tensor_value_info("x", T.FLOAT, [N]),
          helper.make_tensor_value_info("xd", T.DOUBLE, [N]),
          helper.make_tensor_value_info("a32", T.INT32, [N]),
          helper.make_tensor_value_info("b32", T.INT32, [N]),
          helper.make_tensor_value_info("a64", T.INT64, [N]),
          helper.make_tensor_value_info("b64", T.INT64, [N]),
          helper.make_tensor_value_info("u", T.UINT32, [N]),
          helper.make_tensor_value_info("s", T.UINT32, [N])]
graph = helper.make_graph(nodes, "undefined", inputs, outputs)
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
onnx.checker.check_model(model)
onnx.save(model, os.path.join(out, "undefined.onnx"))

xs = [np.nan, np.inf, -np.inf, 1e20, -1e20, 3.75, -3.75, 300.5, 5e9, 1.5e19]
x = np.array(xs, np.float32)
xd = np.array(xs, np.float64)
i32 = np.iinfo(np.int32)
i64 = np.iinfo(np.int64)
a32 = np.array([i32.max, i32.min, 7, -7, 5, i32.min, 100000, 9, -9, 0], np.int32)
b32 = np.array([1, -1, 0, 2, 0, -1, 100000, -2, 4, 0], np.int32)
a64 = np.array([i64.max, i64.min, 7, -7, 5, i64.min, 5000000000, 9, -9, 0], np.int64)
b64 = np.array([1, -1, 0, 2, 0, -1, 5000000000, -2, 4, 0], np.int64)
u = np.array([1, 0xffffffff, 5, 0x80000000, 7, 1, 3, 0x12345678, 9, 1], np.uint32)
s = np.array([31, 1, 32, 31, 40, 0, 33, 4, 4294967295, 64], np.uint32)

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    refs = {}
    for name, _, np_type in casts:
        # NumPy converts float32 -> int32/int64 with x86-64's truncating
        # conversion directly; 8/16-bit types through int32, uint32 through
        # int64, as C compilers do for these casts.
        def convert(v):
            if np_type in (np.int8, np.int16, np.uint8, np.uint16):
                return v.astype(np.int32).astype(np_type)
            if np_type == np.uint32:
                return v.astype(np.int64).astype(np_type)
            return v.astype(np_type)
        refs[name] = convert(x)
        refs[name + "_d"] = convert(xd)
    for suffix, a, b, info in [("32", a32, b32, i32), ("64", a64, b64, i64)]:
        refs["add" + suffix] = a + b
        refs["sub" + suffix] = a - b
        refs["mul" + suffix] = a * b
        # Truncating division; x / 0 = 0, min / -1 = min (wrapped), x % 0 = 0.
        q = np.zeros_like(a)
        m = np.zeros_like(a)
        for k in range(N):
            ak, bk = int(a[k]), int(b[k])
            if bk == 0:
                continue
            qk = abs(ak) // abs(bk) * (1 if (ak < 0) == (bk < 0) else -1)
            q[k] = np.array(qk).astype(a.dtype) if qk <= info.max else info.min
            r = ak - qk * bk
            m[k] = r + bk if r != 0 and (r < 0) != (bk < 0) else r  # Mod takes the divisor's sign
        refs["div" + suffix] = q
        refs["mod" + suffix] = m
    wide = s >= 32
    refs["shift_left"] = np.where(wide, 0, u.astype(np.uint64) << np.where(wide, 0, s).astype(np.uint64)).astype(np.uint32)
    refs["shift_right"] = np.where(wide, 0, u >> np.where(wide, 0, s)).astype(np.uint32)

data = os.path.join(out, "data")
os.makedirs(data, exist_ok=True)
for k, (name, v) in enumerate([("x", x), ("xd", xd), ("a32", a32), ("b32", b32), ("a64", a64),
                               ("b64", b64), ("u", u), ("s", s)]):
    with open(os.path.join(data, "input_%d.pb" % k), "wb") as f:
        f.write(numpy_helper.from_array(v, name).SerializeToString())
for k, o in enumerate(outputs):
    with open(os.path.join(data, "output_%d.pb" % k), "wb") as f:
        f.write(numpy_helper.from_array(np.asarray(refs[o.name]), o.name).SerializeToString())
