"""Writes a model with a symbolic batch dim and reference data for it.

Usage: make_symbolic.py OUT_DIR

The graph is what exporters emit for `y = relu(x @ W + b).view(batch, 2, 3)
.transpose(1, 2) * scale`: the Reshape's target comes from Shape -> Gather
-> Unsqueeze -> Concat of x's symbolic dim. The references are computed
with numpy here, for batch 1, 3 and 0, and written as raw float32 files
(x_B.bin, y_B.bin) that the C test reads.
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

out = sys.argv[1]
os.makedirs(out, exist_ok=True)
rng = np.random.default_rng(7)
W = rng.standard_normal((4, 6)).astype(np.float32)
b = rng.standard_normal((6,)).astype(np.float32)
scale = rng.standard_normal((3, 1)).astype(np.float32)

nodes = [
    helper.make_node("MatMul", ["x", "W"], ["m"], name="mm"),
    helper.make_node("Add", ["m", "b"], ["a"], name="bias"),
    helper.make_node("Relu", ["a"], ["r"], name="relu"),
    helper.make_node("Shape", ["x"], ["s"], name="shape"),
    helper.make_node("Gather", ["s", "zero"], ["n"], name="batch", axis=0),
    helper.make_node("Unsqueeze", ["n", "axes"], ["n1"], name="unsq"),
    helper.make_node("Concat", ["n1", "tail"], ["target"], name="target", axis=0),
    helper.make_node("Reshape", ["r", "target"], ["v"], name="view"),
    helper.make_node("Transpose", ["v"], ["t"], name="tr", perm=[0, 2, 1]),
    helper.make_node("Mul", ["t", "scale"], ["y"], name="scale"),
]
inits = [
    numpy_helper.from_array(W, "W"),
    numpy_helper.from_array(b, "b"),
    numpy_helper.from_array(scale, "scale"),
    numpy_helper.from_array(np.array(0, dtype=np.int64), "zero"),
    numpy_helper.from_array(np.array([0], dtype=np.int64), "axes"),
    numpy_helper.from_array(np.array([2, 3], dtype=np.int64), "tail"),
]
graph = helper.make_graph(
    nodes, "symbolic_batch",
    [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", 4])],
    [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["batch", 3, 2])], inits)
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
onnx.checker.check_model(model)
onnx.save(model, os.path.join(out, "symbolic_batch.onnx"))

for batch in (1, 3, 0):
    x = rng.standard_normal((batch, 4)).astype(np.float32)
    y = np.maximum(x @ W + b, 0).reshape(batch, 2, 3).transpose(0, 2, 1) * scale
    x.tofile(os.path.join(out, "x_%d.bin" % batch))
    y.astype(np.float32).tofile(os.path.join(out, "y_%d.bin" % batch))
