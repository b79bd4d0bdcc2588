#!/usr/bin/python3
"""Writes a model with GELU, SiLU and attention in the decomposed forms
exporters use (opset 13): usage make_decomposed.py OUT.onnx.

x [2, 4, 8] -> gelu(x) (erf form) -> silu (x * sigmoid(x)) -> attention with
q = k = v = that value: softmax(q k^T / sqrt(8)) v.
"""
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper


def const(name, value):
    return numpy_helper.from_array(np.array(value, dtype=np.float32), name)


nodes = [
    # GELU: x * 0.5 * (1 + erf(x / sqrt(2)))
    helper.make_node("Div", ["x", "sqrt2"], ["g_div"]),
    helper.make_node("Erf", ["g_div"], ["g_erf"]),
    helper.make_node("Add", ["g_erf", "one"], ["g_add"]),
    helper.make_node("Mul", ["x", "g_add"], ["g_mul"]),
    helper.make_node("Mul", ["g_mul", "half"], ["gelu"]),
    # SiLU
    helper.make_node("Sigmoid", ["gelu"], ["s_sig"]),
    helper.make_node("Mul", ["gelu", "s_sig"], ["silu"]),
    # Attention over the last two dims.
    helper.make_node("Transpose", ["silu"], ["kt"], perm=[0, 2, 1]),
    helper.make_node("MatMul", ["silu", "kt"], ["scores"]),
    helper.make_node("Div", ["scores", "scale"], ["scaled"]),
    helper.make_node("Softmax", ["scaled"], ["probs"], axis=-1),
    helper.make_node("MatMul", ["probs", "silu"], ["y"]),
]
graph = helper.make_graph(
    nodes, "decomposed",
    [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 4, 8])],
    [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 4, 8])],
    [const("sqrt2", 1.4142135381698608), const("one", 1.0), const("half", 0.5),
     const("scale", np.sqrt(8.0))])
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
model.ir_version = 7
onnx.checker.check_model(model)
onnx.save(model, sys.argv[1])
