"""A float16 CNN (what float16 exports of image models look like: float16
input, weights, activations and output), with inputs and ort_run.js
requests (usage: float16-model.py OUT): Conv 3x3 + Relu, a depthwise Conv,
a Cast to float and back (a rounding the model asks for), GlobalAveragePool,
Flatten, Gemm, Softmax."""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

out = sys.argv[1]
H = TensorProto.FLOAT16
rng = np.random.default_rng(4)


def half(name, shape, scale=0.3):
    return numpy_helper.from_array((scale * rng.standard_normal(shape)).astype(np.float16), name)


graph = helper.make_graph(
    [helper.make_node("Conv", ["x", "w1", "b1"], ["c1"], name="conv", pads=[1, 1, 1, 1]),
     helper.make_node("Relu", ["c1"], ["r1"], name="relu"),
     helper.make_node("Conv", ["r1", "w2"], ["c2"], name="depthwise", group=16,
                      pads=[1, 1, 1, 1], strides=[2, 2]),
     helper.make_node("Cast", ["c2"], ["c2f"], to=TensorProto.FLOAT),
     helper.make_node("Cast", ["c2f"], ["c2h"], to=H),
     helper.make_node("GlobalAveragePool", ["c2h"], ["p"], name="pool"),
     helper.make_node("Flatten", ["p"], ["f"]),
     helper.make_node("Gemm", ["f", "w3", "b3"], ["g"], name="fc", transB=1),
     helper.make_node("Softmax", ["g"], ["y"], name="softmax")],
    "float16_cnn",
    [helper.make_tensor_value_info("x", H, [1, 3, 24, 24])],
    [helper.make_tensor_value_info("y", H, [1, 10]),
     helper.make_tensor_value_info("c1", H, [1, 16, 24, 24])],
    [half("w1", (16, 3, 3, 3)), half("b1", (16,)), half("w2", (16, 1, 3, 3)),
     half("w3", (10, 16)), half("b3", (10,))])
m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
onnx.checker.check_model(m)
path = os.path.join(out, "float16.onnx")
onnx.save(m, path)
d = os.path.join(out, "float16", "test_data_set_0")
os.makedirs(d)
with open(os.path.join(d, "input_0.pb"), "wb") as f:
    f.write(numpy_helper.from_array(rng.standard_normal((1, 3, 24, 24)).astype(np.float16))
            .SerializeToString())
with open(os.path.join(out, "requests"), "w") as f:
    f.write("%s\t%s\n" % (path, d))
