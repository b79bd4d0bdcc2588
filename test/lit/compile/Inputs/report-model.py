"""Writes a model with one heavy op of each kind `onnxcc compile --report`
lists, and nodes it does not list, for report.test and profile tests.

Usage: report-model.py OUT.onnx

  x [1, 4, 16, 16] -> Conv "conv" (8 filters 3x3, pad 1; fused with the Relu
  "relu") -> MaxPool "pool" 2x2 -> Reshape [1, 8, 64] -> MatMul "scores" of
  the activation by its own transpose (activation x activation) ->
  ReduceMean "mean" over the last axis -> Gemm "fc" (8 -> 3) -> y [1, 3]

FLOPs (compiler/Flops.h): conv 2 * 8*16*16 outputs * 4*3*3 = 147456, pool
8*8*8 outputs * 2*2 = 2048, scores 2 * 8*8 * 64 = 8192, mean 64 inputs, fc
2 * 3 * 8 = 48: 157808 in all.
"""
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

rng = np.random.default_rng(5)


def init(name, array):
    return numpy_helper.from_array(np.asarray(array), name)


nodes = [
    helper.make_node("Conv", ["x", "w", "b"], ["c"], name="conv", pads=[1, 1, 1, 1]),
    helper.make_node("Relu", ["c"], ["r"], name="relu"),
    helper.make_node("MaxPool", ["r"], ["p"], name="pool", kernel_shape=[2, 2], strides=[2, 2]),
    helper.make_node("Reshape", ["p", "shape"], ["s"], name="flatten"),
    helper.make_node("Transpose", ["s"], ["st"], name="transpose", perm=[0, 2, 1]),
    helper.make_node("MatMul", ["s", "st"], ["m"], name="scores"),
    helper.make_node("ReduceMean", ["m"], ["avg"], name="mean", axes=[-1], keepdims=0),
    helper.make_node("Gemm", ["avg", "fw", "fb"], ["y"], name="fc"),
]
inits = [
    init("w", rng.uniform(-0.3, 0.3, (8, 4, 3, 3)).astype(np.float32)),
    init("b", rng.uniform(-0.1, 0.1, 8).astype(np.float32)),
    init("shape", np.array([1, 8, 64], np.int64)),
    init("fw", rng.uniform(-1, 1, (8, 3)).astype(np.float32)),
    init("fb", rng.uniform(-1, 1, 3).astype(np.float32)),
]
graph = helper.make_graph(
    nodes, "report", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 4, 16, 16])],
    [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 3])], inits)
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
model.ir_version = 8
onnx.checker.check_model(model)
onnx.save(model, sys.argv[1])
