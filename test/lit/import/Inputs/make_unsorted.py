"""Writes a model whose nodes are not in topological order, and test data.

Usage: make_unsorted.py OUT_DIR

The nodes come in the file in reverse: an If whose branches read a value
that a later node produces, then that node (Neg), then the one it reads
(Mul). Expected outputs are NumPy's: then -(x*x) + x, else -(x*x) - x, one
dataset per branch.
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3])
    cond = helper.make_tensor_value_info("cond", TensorProto.BOOL, [])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 3])
    branch_out = helper.make_tensor_value_info("r", TensorProto.FLOAT, [2, 3])
    then_graph = helper.make_graph([helper.make_node("Add", ["a", "x"], ["r"])], "then", [],
                                   [branch_out])
    else_graph = helper.make_graph([helper.make_node("Sub", ["a", "x"], ["r"])], "else", [],
                                   [branch_out])
    nodes = [
        helper.make_node("If", ["cond"], ["y"], name="pick", then_branch=then_graph,
                         else_branch=else_graph),
        helper.make_node("Neg", ["b"], ["a"], name="negate"),
        helper.make_node("Mul", ["x", "x"], ["b"], name="square"),
    ]
    graph = helper.make_graph(nodes, "unsorted", [x, cond], [y])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    with open(os.path.join(out, "model.onnx"), "wb") as f:
        f.write(model.SerializeToString())

    rng = np.random.default_rng(7)
    for index, taken in enumerate((True, False)):
        data = os.path.join(out, "test_data_set_%d" % index)
        os.makedirs(data, exist_ok=True)
        xv = rng.standard_normal((2, 3)).astype(np.float32)
        square = xv * xv
        yv = (-square + xv) if taken else (-square - xv)
        tensors = [numpy_helper.from_array(xv, "x"),
                   numpy_helper.from_array(np.array(taken), "cond")]
        for i, t in enumerate(tensors):
            with open(os.path.join(data, "input_%d.pb" % i), "wb") as f:
                f.write(t.SerializeToString())
        with open(os.path.join(data, "output_0.pb"), "wb") as f:
            f.write(numpy_helper.from_array(yv.astype(np.float32), "y").SerializeToString())


if __name__ == "__main__":
    main()
