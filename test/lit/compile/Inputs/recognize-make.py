"""Writes a model with GELU (erf form, as PyTorch exports it; tanh form with
Pow), SiLU, a LayerNorm (Mul(d, d), Reciprocal, weight and bias) and an
attention (scores divided by 2, an additive mask [4, 5]) written out as
elementwise, reduction and MatMul nodes, at opset 14, and one dataset whose
expected outputs are computed with numpy here (float64, math.erf).

Usage: recognize-make.py OUT_DIR

OUT_DIR gets recognize.onnx and test/test_data_set_0/{input_*,output_*}.pb.
The inputs "x" [n, 16], "q" [n, 4, 8], "k" [n, 5, 8] and "v" [n, 5, 6] have
a symbolic batch dim "n".
"""
import math
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

out = sys.argv[1]
data = os.path.join(out, "test", "test_data_set_0")
os.makedirs(data, exist_ok=True)
rng = np.random.default_rng(5)
N, C = 3, 16
x = rng.uniform(-4, 4, (N, C)).astype(np.float32)
w = rng.uniform(0.5, 2, (C,)).astype(np.float32)
b = rng.uniform(-1, 1, (C,)).astype(np.float32)
eps = 1e-5
q = rng.uniform(-2, 2, (N, 4, 8)).astype(np.float32)
k = rng.uniform(-2, 2, (N, 5, 8)).astype(np.float32)
v = rng.uniform(-2, 2, (N, 5, 6)).astype(np.float32)
mask = np.where(rng.uniform(0, 1, (4, 5)) < 0.3, -1e4, 0).astype(np.float32)


def const(name, value, dtype=np.float32):
    return helper.make_node("Constant", [], [name],
                            value=numpy_helper.from_array(np.array(value, dtype=dtype), name))


nodes = [
    const("sqrt2", math.sqrt(2)), const("one", 1.0), const("half", 0.5), const("three", 3.0),
    const("c3", 0.044715), const("gk", math.sqrt(2 / math.pi)), const("eps", eps),
    const("axes", [-1], np.int64), const("w", w), const("b", b), const("two", 2.0), const("mask", mask),
    # GELU, erf form: (x * (Erf(x / sqrt 2) + 1)) * 0.5
    helper.make_node("Div", ["x", "sqrt2"], ["e0"]),
    helper.make_node("Erf", ["e0"], ["e1"]),
    helper.make_node("Add", ["e1", "one"], ["e2"]),
    helper.make_node("Mul", ["x", "e2"], ["e3"]),
    helper.make_node("Mul", ["e3", "half"], ["gelu_erf"]),
    # GELU, tanh form: 0.5 * x * (1 + Tanh(k * (x + 0.044715 * x^3)))
    helper.make_node("Pow", ["x", "three"], ["t0"]),
    helper.make_node("Mul", ["c3", "t0"], ["t1"]),
    helper.make_node("Add", ["x", "t1"], ["t2"]),
    helper.make_node("Mul", ["gk", "t2"], ["t3"]),
    helper.make_node("Tanh", ["t3"], ["t4"]),
    helper.make_node("Add", ["one", "t4"], ["t5"]),
    helper.make_node("Mul", ["half", "x"], ["t6"]),
    helper.make_node("Mul", ["t6", "t5"], ["gelu_tanh"]),
    # SiLU
    helper.make_node("Sigmoid", ["x"], ["s0"]),
    helper.make_node("Mul", ["s0", "x"], ["silu"]),
    # LayerNorm over the last axis
    helper.make_node("ReduceMean", ["x"], ["l0"], axes=[-1]),
    helper.make_node("Sub", ["x", "l0"], ["l1"]),
    helper.make_node("Mul", ["l1", "l1"], ["l2"]),
    helper.make_node("ReduceMean", ["l2"], ["l3"], axes=[-1]),
    helper.make_node("Add", ["l3", "eps"], ["l4"]),
    helper.make_node("Sqrt", ["l4"], ["l5"]),
    helper.make_node("Reciprocal", ["l5"], ["l6"]),
    helper.make_node("Mul", ["l1", "l6"], ["l7"]),
    helper.make_node("Mul", ["l7", "w"], ["l8"]),
    helper.make_node("Add", ["b", "l8"], ["layernorm"]),
    # Softmax(Q K^T / 2 + mask) V
    helper.make_node("Transpose", ["k"], ["a0"], perm=[0, 2, 1]),
    helper.make_node("MatMul", ["q", "a0"], ["a1"]),
    helper.make_node("Div", ["a1", "two"], ["a2"]),
    helper.make_node("Add", ["a2", "mask"], ["a3"]),
    helper.make_node("Softmax", ["a3"], ["a4"], axis=-1),
    helper.make_node("MatMul", ["a4", "v"], ["attention"]),
]
outputs = ["gelu_erf", "gelu_tanh", "silu", "layernorm", "attention"]
graph = helper.make_graph(
    nodes, "recognize",
    [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["n", C]),
     helper.make_tensor_value_info("q", TensorProto.FLOAT, ["n", 4, 8]),
     helper.make_tensor_value_info("k", TensorProto.FLOAT, ["n", 5, 8]),
     helper.make_tensor_value_info("v", TensorProto.FLOAT, ["n", 5, 6])],
    [helper.make_tensor_value_info(o, TensorProto.FLOAT, ["n", C]) for o in outputs[:-1]] +
    [helper.make_tensor_value_info("attention", TensorProto.FLOAT, ["n", 4, 6])])
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 14)])
onnx.checker.check_model(model)
onnx.save(model, os.path.join(out, "recognize.onnx"))

# References in float64.
xd = x.astype(np.float64)
erf = np.vectorize(math.erf)
ref = {
    "gelu_erf": 0.5 * xd * (1 + erf(xd / math.sqrt(2))),
    "gelu_tanh": 0.5 * xd * (1 + np.tanh(math.sqrt(2 / math.pi) * (xd + 0.044715 * xd ** 3))),
    "silu": xd / (1 + np.exp(-xd)),
}
mean = xd.mean(-1, keepdims=True)
var = ((xd - mean) ** 2).mean(-1, keepdims=True)
ref["layernorm"] = (xd - mean) / np.sqrt(var + eps) * w + b
scores = np.einsum("nid,njd->nij", q.astype(np.float64), k.astype(np.float64)) / 2 + mask
p = np.exp(scores - scores.max(-1, keepdims=True))
p /= p.sum(-1, keepdims=True)
ref["attention"] = np.einsum("nij,nje->nie", p, v.astype(np.float64))

for i, (name, value) in enumerate([("x", x), ("q", q), ("k", k), ("v", v)]):
    with open(os.path.join(data, "input_%d.pb" % i), "wb") as f:
        f.write(numpy_helper.from_array(value, name).SerializeToString())
for i, name in enumerate(outputs):
    with open(os.path.join(data, "output_%d.pb" % i), "wb") as f:
        f.write(numpy_helper.from_array(ref[name].astype(np.float32), name).SerializeToString())
