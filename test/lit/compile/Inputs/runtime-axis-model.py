"""Writes a model with CumSum (exclusive, reverse) and CumProd whose axis is a
graph input, datasets for axes -1, 0 and 1 with numpy's results, and one
dataset with axis 2 (out of range for rank 2).

Usage: runtime-axis-model.py OUT_DIR
"""
import os
import sys

import numpy as np
from onnx import TensorProto, helper, numpy_helper

out = sys.argv[1]
g = helper.make_graph(
    [helper.make_node("CumSum", ["x", "axis"], ["s"], exclusive=1, reverse=1),
     helper.make_node("CumProd", ["x", "axis"], ["p"])],
    "g",
    [helper.make_tensor_value_info("x", TensorProto.FLOAT, [3, 4]),
     helper.make_tensor_value_info("axis", TensorProto.INT64, [])],
    [helper.make_tensor_value_info("s", TensorProto.FLOAT, [3, 4]),
     helper.make_tensor_value_info("p", TensorProto.FLOAT, [3, 4])])
m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 26)])
m.ir_version = 10
os.makedirs(out, exist_ok=True)
with open(os.path.join(out, "model.onnx"), "wb") as f:
    f.write(m.SerializeToString())

x = np.random.default_rng(26).uniform(0.5, 1.5, (3, 4)).astype(np.float32)


def write(d, axis, outputs):
    os.makedirs(d, exist_ok=True)
    tensors = [numpy_helper.from_array(x, "x"),
               numpy_helper.from_array(np.array(axis, np.int64), "axis")]
    for i, t in enumerate(tensors):
        with open(os.path.join(d, f"input_{i}.pb"), "wb") as f:
            f.write(t.SerializeToString())
    for i, (name, v) in enumerate(outputs):
        with open(os.path.join(d, f"output_{i}.pb"), "wb") as f:
            f.write(numpy_helper.from_array(v.astype(np.float32), name).SerializeToString())


xd = x.astype(np.float64)
for k, axis in enumerate([-1, 0, 1]):
    # Reverse exclusive sum: the sum of the elements after each one.
    flipped = np.flip(xd, axis)
    s = np.flip(np.cumsum(flipped, axis) - flipped, axis)
    write(os.path.join(out, "test", f"test_data_set_{k}"), axis,
          [("s", s), ("p", np.cumprod(xd, axis))])
write(os.path.join(out, "bad", "test_data_set_0"), 2, [("s", xd), ("p", xd)])
