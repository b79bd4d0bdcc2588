"""Writes an ArrayFeatureExtractor model (x: float[2, 3], indices: int64[2])
and a dataset whose second index (7) is out of range, into argv[1]."""
import os
import sys

import numpy as np
from onnx import TensorProto, helper, numpy_helper, save

out = sys.argv[1]
node = helper.make_node("ArrayFeatureExtractor", ["x", "i"], ["z"], domain="ai.onnx.ml")
graph = helper.make_graph(
    [node], "g",
    [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3]),
     helper.make_tensor_value_info("i", TensorProto.INT64, [2])],
    [helper.make_tensor_value_info("z", TensorProto.FLOAT, [2, 2])])
save(helper.make_model(graph, opset_imports=[helper.make_opsetid("ai.onnx.ml", 1)]),
     os.path.join(out, "model.onnx"))
data = os.path.join(out, "data")
os.makedirs(data, exist_ok=True)
for name, array in [("input_0", np.ones((2, 3), np.float32)),
                    ("input_1", np.array([0, 7], np.int64)),
                    ("output_0", np.ones((2, 2), np.float32))]:
    with open(os.path.join(data, name + ".pb"), "wb") as f:
        f.write(numpy_helper.from_array(array).SerializeToString())
