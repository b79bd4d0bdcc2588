"""Models whose If branches give results of different sizes, with datasets
NumPy computes (usage: if-branch-dims.py OUT).

ragged.onnx: x[N] (N symbolic) and a bool flag; the then branch gives
x[0:4] and x doubled by Concat ([4] and [2N]), the else branch x[0:6] and x
itself ([6] and [N]): each result dim is the taken branch's, known at run
time; later ops (Mul, ReduceSum) read them.

squeeze.onnx: what PyTorch exports `h.squeeze(-1)` as under dynamic shapes:
If(Equal(Gather(Shape(h), -1), 1)) with Squeeze and Identity branches, the
two of different ranks, on h = Relu(x[B, 3, T] every second step) of
length P = ceil(T / 2) (a dim derived from T, not bound to a value), and a
ReduceSum after it. Compiled for P == 1 (run() returns 9 for other P): the
datasets have T = 2 and 1, and squeeze-t3/ holds one with T = 3."""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

out = sys.argv[1]
F = TensorProto.FLOAT


def ints(values, name):
    return numpy_helper.from_array(np.array(values, dtype=np.int64), name)


def write(folder, arrays):
    os.makedirs(folder)
    for name, arr in arrays:
        with open(os.path.join(folder, name + ".pb"), "wb") as f:
            f.write(numpy_helper.from_array(np.array(arr, copy=True, order="C")).SerializeToString())


def branch(name, nodes, outputs):
    """A subgraph; `outputs` are (name, shape) pairs."""
    return helper.make_graph(nodes, name, [],
                             [helper.make_tensor_value_info(o, F, s) for o, s in outputs])


then_branch = branch("then", [
    helper.make_node("Slice", ["x", "zero", "four"], ["a_then"]),
    helper.make_node("Concat", ["x", "x"], ["b_then"], axis=0),
], [("a_then", [4]), ("b_then", ["2N"])])
else_branch = branch("else", [
    helper.make_node("Slice", ["x", "zero", "six"], ["a_else"]),
    helper.make_node("Identity", ["x"], ["b_else"]),
], [("a_else", [6]), ("b_else", ["N"])])
graph = helper.make_graph(
    [helper.make_node("If", ["flag"], ["a", "b"], name="pick",
                      then_branch=then_branch, else_branch=else_branch),
     helper.make_node("Mul", ["a", "two"], ["a2"], name="double"),
     helper.make_node("ReduceSum", ["b", "axes"], ["s"], name="sum", keepdims=0)],
    "ragged",
    [helper.make_tensor_value_info("x", F, ["N"]),
     helper.make_tensor_value_info("flag", TensorProto.BOOL, [])],
    [helper.make_tensor_value_info("a2", F, ["A"]),
     helper.make_tensor_value_info("s", F, [])],
    [ints([0], "zero"), ints([4], "four"), ints([6], "six"), ints([0], "axes"),
     numpy_helper.from_array(np.array(2.0, dtype=np.float32), "two")])
m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])
onnx.checker.check_model(m)
onnx.save(m, os.path.join(out, "ragged.onnx"))
rng = np.random.default_rng(5)
for i, (flag, n) in enumerate(((True, 8), (False, 8), (False, 7), (True, 5))):
    x = rng.standard_normal(n).astype(np.float32)
    a = x[:4] if flag else x[:6]
    b = np.concatenate([x, x]) if flag else x
    write(os.path.join(out, "ragged", "test_data_set_%d" % i),
          [("input_0", x), ("input_1", np.array(flag)), ("output_0", a * np.float32(2)),
           ("output_1", b.sum(axis=0).astype(np.float32))])

squeeze_then = branch("then", [helper.make_node("Squeeze", ["h", "last"], ["q"])],
                      [("q", ["B", 3])])
squeeze_else = branch("else", [helper.make_node("Identity", ["h"], ["q_id"])],
                      [("q_id", ["B", 3, "T"])])
graph = helper.make_graph(
    [helper.make_node("AveragePool", ["x"], ["p"], name="every_second", kernel_shape=[1],
                      strides=[2]),
     helper.make_node("Relu", ["p"], ["h"], name="relu"),
     helper.make_node("Shape", ["h"], ["shape"]),
     helper.make_node("Gather", ["shape", "last"], ["t"], axis=0),
     helper.make_node("Equal", ["t", "one"], ["is_one"]),
     helper.make_node("If", ["is_one"], ["squeezed"], name="squeeze_if",
                      then_branch=squeeze_then, else_branch=squeeze_else),
     helper.make_node("ReduceSum", ["squeezed", "one"], ["y"], name="sum", keepdims=0)],
    "squeeze",
    [helper.make_tensor_value_info("x", F, ["B", 3, "T"])],
    [helper.make_tensor_value_info("y", F, ["B"])],
    [ints([-1], "last"), ints([1], "one")])
m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])
onnx.checker.check_model(m)
onnx.save(m, os.path.join(out, "squeeze.onnx"))
for i, (batch, t) in enumerate(((1, 2), (4, 1))):
    x = rng.standard_normal((batch, 3, t)).astype(np.float32)
    write(os.path.join(out, "squeeze", "test_data_set_%d" % i),
          [("input_0", x), ("output_0", np.maximum(x[:, :, ::2], 0).squeeze(-1).sum(axis=1))])
x = rng.standard_normal((2, 3, 3)).astype(np.float32)
write(os.path.join(out, "squeeze-t3", "test_data_set_0"),
      [("input_0", x), ("output_0", np.zeros(2, np.float32))])
