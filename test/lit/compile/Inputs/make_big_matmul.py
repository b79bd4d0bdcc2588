"""Writes big.onnx, y = x @ W with W a 1024 x 1100 float32 initializer (4.3 MiB),
and x.bin / y.bin: a random x and numpy's y, raw float32.

Usage: make_big_matmul.py OUT_DIR
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

out = sys.argv[1]
os.makedirs(out, exist_ok=True)
rng = np.random.default_rng(11)
W = rng.standard_normal((1024, 1100)).astype(np.float32)
x = rng.standard_normal((1, 1024)).astype(np.float32)
y = (x.astype(np.float64) @ W.astype(np.float64)).astype(np.float32)

graph = helper.make_graph(
    [helper.make_node("MatMul", ["x", "W"], ["y"], name="mm")], "big",
    [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 1024])],
    [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 1100])],
    [numpy_helper.from_array(W, "W")])
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
onnx.checker.check_model(model)
onnx.save(model, os.path.join(out, "big.onnx"))
x.tofile(os.path.join(out, "x.bin"))
y.tofile(os.path.join(out, "y.bin"))
