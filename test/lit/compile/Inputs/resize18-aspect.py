"""Resize-18 with `axes` and constant `sizes` under keep_aspect_ratio_policy
not_larger and not_smaller, and with axes alone (stretch), on inputs whose
dims are all fixed and an output whose shape the model leaves undeclared
(what detectors' preprocessing exports write); inputs and ort_run.js
requests (usage: resize18-aspect.py OUT)."""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

out = sys.argv[1]
F = TensorProto.FLOAT
rng = np.random.default_rng(8)


def sizes(name, values):
    return numpy_helper.from_array(np.array(values, dtype=np.int64), name)


graph = helper.make_graph(
    [helper.make_node("Resize", ["x", "", "", "to32"], ["smaller"], name="not_larger",
                      axes=[2, 3], keep_aspect_ratio_policy="not_larger", mode="linear"),
     helper.make_node("Resize", ["x", "", "", "to32"], ["larger"], name="not_smaller",
                      axes=[3, 2], keep_aspect_ratio_policy="not_smaller", mode="nearest"),
     helper.make_node("Resize", ["x", "", "", "to20"], ["stretched"], name="stretch",
                      axes=[-1], mode="linear")],
    "resize18_aspect",
    [helper.make_tensor_value_info("x", F, [1, 3, 40, 60])],
    [helper.make_tensor_value_info("smaller", F, None),
     helper.make_tensor_value_info("larger", F, None),
     helper.make_tensor_value_info("stretched", F, None)],
    [sizes("to32", [32, 32]), sizes("to20", [20])])
m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])
path = os.path.join(out, "resize18.onnx")
onnx.save(m, path)
d = os.path.join(out, "resize18", "test_data_set_0")
os.makedirs(d)
with open(os.path.join(d, "input_0.pb"), "wb") as f:
    f.write(numpy_helper.from_array(rng.standard_normal((1, 3, 40, 60)).astype(np.float32))
            .SerializeToString())
with open(os.path.join(out, "requests"), "w") as f:
    f.write("%s\t%s\n" % (path, d))
