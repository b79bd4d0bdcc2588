"""Writes a model stamped with a newer ai.onnx opset (18 to 28) and one
dataset whose expected outputs are computed with numpy here.

Usage: newer-opset-model.py OUT_DIR OPSET

  y        Softmax(Relu(MatMul(x, w) + b))       versions unchanged since 13/14
  y_mean   ReduceMean(x, axes=[1])               axes as an input (opset 18)
  y_s1/s2  Split(x, split=[1, 2], axis=1)        Split 18 without num_outputs
  y_pad    Pad(x, [0,0,1,0,0,2], 'reflect')      Pad 18+ without axes
  y_cast   Cast(x, to=DOUBLE, saturate=0)        Cast 19+ to a type of Cast 13
  y_pool   AveragePool(q, 2x2, dilations 1)      AveragePool 19+ with dilations 1
  y_gelu   Gelu(x), Gelu(x, 'tanh') summed       Gelu, new in opset 20

OUT_DIR gets model.onnx and test/test_data_set_0/{input_K,output_K}.pb.
"""
import math
import os
import sys

import numpy as np
from onnx import TensorProto, helper, numpy_helper

out, opset = sys.argv[1], int(sys.argv[2])
data = os.path.join(out, "test", "test_data_set_0")
os.makedirs(data, exist_ok=True)
rng = np.random.default_rng(21)

x = rng.uniform(-1, 1, (2, 3, 4)).astype(np.float32)
q = rng.uniform(-1, 1, (1, 2, 5, 5)).astype(np.float32)
w = rng.uniform(-1, 1, (4, 5)).astype(np.float32)
b = rng.uniform(-0.5, 0.5, (5,)).astype(np.float32)

nodes = [
    helper.make_node("MatMul", ["x", "w"], ["h"]),
    helper.make_node("Add", ["h", "b"], ["hb"]),
    helper.make_node("Relu", ["hb"], ["r"]),
    helper.make_node("Softmax", ["r"], ["y"], axis=-1),
    helper.make_node("ReduceMean", ["x", "axes"], ["y_mean"], keepdims=1),
    helper.make_node("Split", ["x", "split"], ["y_s1", "y_s2"], axis=1),
    helper.make_node("Pad", ["x", "pads"], ["y_pad"], mode="reflect"),
    helper.make_node("Cast", ["x"], ["y_cast"], to=TensorProto.DOUBLE, saturate=0),
    helper.make_node("AveragePool", ["q"], ["y_pool"], kernel_shape=[2, 2],
                     dilations=[1, 1]),
    helper.make_node("Gelu", ["x"], ["g_erf"]),
    helper.make_node("Gelu", ["x"], ["g_tanh"], approximate="tanh"),
    helper.make_node("Add", ["g_erf", "g_tanh"], ["y_gelu"]),
]
inits = [
    numpy_helper.from_array(w, "w"),
    numpy_helper.from_array(b, "b"),
    numpy_helper.from_array(np.array([1], np.int64), "axes"),
    numpy_helper.from_array(np.array([1, 2], np.int64), "split"),
    numpy_helper.from_array(np.array([0, 0, 1, 0, 0, 2], np.int64), "pads"),
]

r = np.maximum(x.astype(np.float64) @ w + b, 0)
e = np.exp(r - r.max(axis=-1, keepdims=True))
pool = np.zeros((1, 2, 4, 4))
for i in range(4):
    for j in range(4):
        pool[:, :, i, j] = q[:, :, i:i + 2, j:j + 2].astype(np.float64).mean(axis=(2, 3))
x64 = x.astype(np.float64)
g_erf = 0.5 * x64 * (1 + np.vectorize(math.erf)(x64 / math.sqrt(2)))
g_tanh = 0.5 * x64 * (1 + np.tanh(math.sqrt(2 / math.pi) * (x64 + 0.044715 * x64**3)))
expected = {
    "y": (e / e.sum(axis=-1, keepdims=True)).astype(np.float32),
    "y_mean": x.mean(axis=1, keepdims=True),
    "y_s1": x[:, :1],
    "y_s2": x[:, 1:],
    "y_pad": np.pad(x, [(0, 0), (0, 0), (1, 2)], mode="reflect"),
    "y_cast": x.astype(np.float64),
    "y_pool": pool.astype(np.float32),
    "y_gelu": (g_erf + g_tanh).astype(np.float32),
}

def info(name, a):
    return helper.make_tensor_value_info(
        name, helper.np_dtype_to_tensor_dtype(a.dtype) if hasattr(helper, "np_dtype_to_tensor_dtype")
        else {np.dtype(np.float32): TensorProto.FLOAT, np.dtype(np.float64): TensorProto.DOUBLE}[a.dtype],
        list(a.shape))

graph = helper.make_graph(nodes, "newer_opset", [info("x", x), info("q", q)],
                          [info(n, a) for n, a in expected.items()], inits)
# The IR version of the ONNX release that introduced the opset (21: IR 10, 28: 13).
ir = {18: 8, 19: 9, 20: 9, 21: 10, 22: 10, 23: 11, 24: 12}.get(opset, 13)
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)],
                          ir_version=ir, producer_name="newer-opset-model.py")
with open(os.path.join(out, "model.onnx"), "wb") as f:
    f.write(model.SerializeToString())
for i, (n, a) in enumerate((("x", x), ("q", q))):
    with open(os.path.join(data, f"input_{i}.pb"), "wb") as f:
        f.write(numpy_helper.from_array(a, n).SerializeToString())
for i, (n, a) in enumerate(expected.items()):
    with open(os.path.join(data, f"output_{i}.pb"), "wb") as f:
        f.write(numpy_helper.from_array(np.ascontiguousarray(a), n).SerializeToString())
