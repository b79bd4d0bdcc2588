"""Writes Relu(Conv(x, w, b) + x) with a symbolic batch N, and datasets at
N = 1 and N = 3 whose expected outputs are computed with numpy here.

Usage: fuse-symbolic.py OUT_DIR

The fused Conv runs in a loop over the batch, its residual (x itself)
sliced with the result. OUT_DIR gets fuse_symbolic.onnx and
test/test_data_set_{0,1}/{input_0,output_0}.pb.
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

out = sys.argv[1]
rng = np.random.default_rng(3)
C, H, W = 4, 5, 5
w = rng.uniform(-1, 1, (C, C, 3, 3)).astype(np.float32)
b = rng.uniform(-1, 1, (C,)).astype(np.float32)
nodes = [
    helper.make_node("Conv", ["x", "w", "b"], ["c"], name="conv", pads=[1, 1, 1, 1]),
    helper.make_node("Add", ["c", "x"], ["s"], name="residual"),
    helper.make_node("Relu", ["s"], ["y"], name="relu"),
]
graph = helper.make_graph(
    nodes, "fuse_symbolic",
    [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", C, H, W])],
    [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["N", C, H, W])],
    [numpy_helper.from_array(w, "w"), numpy_helper.from_array(b, "b")])
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
onnx.checker.check_model(model)
onnx.save(model, os.path.join(out, "fuse_symbolic.onnx"))

for i, n in enumerate([1, 3]):
    x = rng.uniform(-1, 1, (n, C, H, W)).astype(np.float32)
    xp = np.pad(x.astype(np.float64), ((0, 0), (0, 0), (1, 1), (1, 1)))
    y = np.zeros((n, C, H, W))
    for di in range(3):
        for dj in range(3):
            y += np.einsum("nchw,oc->nohw", xp[:, :, di:di + H, dj:dj + W],
                           w[:, :, di, dj].astype(np.float64))
    y = np.maximum(y + b.astype(np.float64).reshape(1, -1, 1, 1) + x, 0)
    data = os.path.join(out, "test", f"test_data_set_{i}")
    os.makedirs(data, exist_ok=True)
    for name, value in (("input_0.pb", (x, "x")), ("output_0.pb", (y.astype(np.float32), "y"))):
        with open(os.path.join(data, name), "wb") as f:
            f.write(numpy_helper.from_array(value[0], value[1]).SerializeToString())
