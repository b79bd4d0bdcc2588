"""Writes unnamed.onnx (inputs with unnamed dims) and two datasets whose
references NumPy computes."""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

out = sys.argv[1]
F = TensorProto.FLOAT


def value_info(name, dims):
    """A float tensor; None is a dim with neither dim_value nor dim_param."""
    t = helper.make_tensor_value_info(name, F, [d if d is not None else 0 for d in dims])
    for d, dim in zip(dims, t.type.tensor_type.shape.dim):
        if d is None:
            dim.Clear()
    return t


graph = helper.make_graph(
    [helper.make_node("MatMul", ["x", "y"], ["p"], name="mm"),
     helper.make_node("ReduceSum", ["w", "axes"], ["s"], name="sum", keepdims=0)],
    "unnamed",
    [value_info("w", [2, "x:1"]), value_info("x", [None, None]), value_info("y", [4, None])],
    [value_info("p", [None, None]), value_info("s", [2])],
    [numpy_helper.from_array(np.array([1], dtype=np.int64), "axes")])
m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])
onnx.checker.check_model(m)
onnx.save(m, os.path.join(out, "unnamed.onnx"))

rng = np.random.default_rng(3)
for i, (rows, cols, k) in enumerate(((3, 5, 6), (1, 2, 1))):
    d = os.path.join(out, "unnamed", "test_data_set_%d" % i)
    os.makedirs(d)
    w = rng.standard_normal((2, k)).astype(np.float32)
    x = rng.standard_normal((rows, 4)).astype(np.float32)
    y = rng.standard_normal((4, cols)).astype(np.float32)
    refs = [("input_0", w), ("input_1", x), ("input_2", y),
            ("output_0", x @ y), ("output_1", w.sum(axis=1))]
    for name, arr in refs:
        with open(os.path.join(d, name + ".pb"), "wb") as f:
            f.write(numpy_helper.from_array(np.ascontiguousarray(arr)).SerializeToString())
