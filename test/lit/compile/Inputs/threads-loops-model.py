"""Writes DIR/loops.onnx, a model made of loop nests (no kernel calls), and
DIR/test/ with an input and NumPy float64 reference outputs.

Large elementwise ops (x + Sigmoid(x): x * Sigmoid(x) would be SiLU, a kernel), a Transpose and a ReduceSum (a reduction inside a
parallel nest) over [1, 48, 40, 40]; one small Add over [40, 40]."""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

out = sys.argv[1]
x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 48, 40, 40])
y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [40, 40])
nodes = [
    helper.make_node("Sigmoid", ["x"], ["s"], name="sig"),
    helper.make_node("Add", ["s", "x"], ["a"], name="gate"),
    helper.make_node("Transpose", ["a"], ["t"], name="to_nhwc", perm=[0, 2, 3, 1]),
    helper.make_node("ReduceSum", ["a", "axes"], ["r"], name="sum_w", keepdims=0),
    helper.make_node("Add", ["y", "y"], ["small"], name="small_add"),
]
axes = numpy_helper.from_array(np.array([3], dtype=np.int64), "axes")
graph = helper.make_graph(
    nodes, "loops", [x, y],
    [helper.make_tensor_value_info("t", TensorProto.FLOAT, [1, 40, 40, 48]),
     helper.make_tensor_value_info("r", TensorProto.FLOAT, [1, 48, 40]),
     helper.make_tensor_value_info("small", TensorProto.FLOAT, [40, 40])],
    initializer=[axes])
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
onnx.checker.check_model(model)
onnx.save(model, os.path.join(out, "loops.onnx"))

rng = np.random.default_rng(7)
xv = rng.standard_normal((1, 48, 40, 40)).astype(np.float32)
yv = rng.standard_normal((40, 40)).astype(np.float32)
x64 = xv.astype(np.float64)
a = x64 + 1 / (1 + np.exp(-x64))
refs = [a.transpose(0, 2, 3, 1), a.sum(axis=3), 2 * yv.astype(np.float64)]
test = os.path.join(out, "test")
os.makedirs(test, exist_ok=True)
for i, v in enumerate([xv, yv]):
    with open(os.path.join(test, "input_%d.pb" % i), "wb") as f:
        f.write(numpy_helper.from_array(v).SerializeToString())
for i, v in enumerate(refs):
    with open(os.path.join(test, "output_%d.pb" % i), "wb") as f:
        f.write(numpy_helper.from_array(v.astype(np.float32)).SerializeToString())
