"""Writes two models whose run-time checks the Halide target must keep, each
with a data set that passes (reference: numpy) and one that fails a check:

  cumsum/   CumSum with the axis given at run time: axis 1 (numpy.cumsum),
            axis 5 (outside [-2, 1]: run() returns 9)
  dropout/  Dropout with ratio and training_mode given at run time:
            inference (the identity) and training with ratio 0.5 (the mask
            would come from a random generator: run() returns 15)
  reduce/   ReduceL1 with the axes given at run time into the declared shape
            [2, 1, 3] of a [2, 1, 3] input: axes [1] (a dim of size 1, which
            the shape does not tell from none: the sum of |x| over it) and
            [-1, 1] into keepdims=0's declared [2] (other model, reduce0/);
            axes [0] give [1, 1, 3], not the declared shape: run() returns 9
  range/    Range with start, limit and delta given at run time into the
            declared [5]: 0..5 step 1 (numpy.arange), and 0..7, whose 7
            elements are not the declared 5: run() returns 9
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper


def save(model, folder, datasets):
    os.makedirs(folder, exist_ok=True)
    onnx.save(model, os.path.join(folder, "model.onnx"))
    for k, (inputs, outputs) in enumerate(datasets):
        d = os.path.join(folder, "test_data_set_%d" % k)
        os.makedirs(d, exist_ok=True)
        for i, a in enumerate(inputs):
            with open(os.path.join(d, "input_%d.pb" % i), "wb") as f:
                f.write(numpy_helper.from_array(a).SerializeToString())
        for i, a in enumerate(outputs):
            with open(os.path.join(d, "output_%d.pb" % i), "wb") as f:
                f.write(numpy_helper.from_array(a).SerializeToString())


out = sys.argv[1]
x = np.arange(1, 7, dtype=np.float32).reshape(2, 3)

graph = helper.make_graph(
    [helper.make_node("CumSum", ["x", "axis"], ["y"])], "cumsum",
    [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3]),
     helper.make_tensor_value_info("axis", TensorProto.INT32, [])],
    [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 3])])
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 14)])
model.ir_version = 7
save(model, os.path.join(out, "cumsum"), [
    ([x, np.array(1, dtype=np.int32)], [np.cumsum(x, axis=1)]),
    ([x, np.array(5, dtype=np.int32)], [np.cumsum(x, axis=1)]),
])

graph = helper.make_graph(
    [helper.make_node("Dropout", ["x", "ratio", "training"], ["y"])], "dropout",
    [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3]),
     helper.make_tensor_value_info("ratio", TensorProto.FLOAT, []),
     helper.make_tensor_value_info("training", TensorProto.BOOL, [])],
    [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 3])])
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
model.ir_version = 7
save(model, os.path.join(out, "dropout"), [
    ([x, np.array(0.5, dtype=np.float32), np.array(False)], [x]),
    ([x, np.array(0.5, dtype=np.float32), np.array(True)], [x]),
])

x3 = np.array([[[1, -2, 3]], [[-4, 5, -6]]], dtype=np.float32)
for name, keepdims, declared, datasets in [
        ("reduce", 1, [2, 1, 3], [
            ([x3, np.array([1], dtype=np.int64)], [np.abs(x3).sum(axis=1, keepdims=True)]),
            ([x3, np.array([0], dtype=np.int64)], [np.abs(x3).sum(axis=1, keepdims=True)])]),
        ("reduce0", 0, [2], [
            ([x3, np.array([-1, 1], dtype=np.int64)], [np.abs(x3).sum(axis=(1, 2))])])]:
    graph = helper.make_graph(
        [helper.make_node("ReduceL1", ["x", "axes"], ["y"], keepdims=keepdims)], name,
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 1, 3]),
         helper.make_tensor_value_info("axes", TensorProto.INT64, [len(datasets[0][0][1])])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, declared)])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])
    model.ir_version = 8
    save(model, os.path.join(out, name), datasets)

graph = helper.make_graph(
    [helper.make_node("Range", ["start", "limit", "delta"], ["y"])], "range",
    [helper.make_tensor_value_info(n, TensorProto.FLOAT, []) for n in ("start", "limit", "delta")],
    [helper.make_tensor_value_info("y", TensorProto.FLOAT, [5])])
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 11)])
model.ir_version = 7
f32 = lambda v: np.array(v, dtype=np.float32)
save(model, os.path.join(out, "range"), [
    ([f32(0), f32(5), f32(1)], [np.arange(0, 5, 1, dtype=np.float32)]),
    ([f32(0), f32(7), f32(1)], [np.arange(0, 5, 1, dtype=np.float32)]),
])
