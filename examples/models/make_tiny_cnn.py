#!/usr/bin/python3
"""Writes tiny_cnn.onnx, the small CNN bundled with onnxcc as its example.

Conv -> Relu -> MaxPool -> Flatten -> Gemm -> Softmax on a float32[N, 3, 8, 8]
input, with the batch dimension left symbolic ("N"). The weights come from a
fixed seed, so running this again writes the same bytes.

Usage: /usr/bin/python3 examples/models/make_tiny_cnn.py [OUTPUT.onnx]
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper


def build_model():
    rng = np.random.RandomState(0)

    def weight(name, *shape):
        data = (rng.standard_normal(shape) * 0.1).astype(np.float32)
        return numpy_helper.from_array(data, name)

    channels, classes = 4, 10
    initializers = [
        weight("conv.weight", channels, 3, 3, 3),
        weight("conv.bias", channels),
        weight("fc.weight", classes, channels * 4 * 4),
        weight("fc.bias", classes),
    ]
    nodes = [
        helper.make_node("Conv", ["input", "conv.weight", "conv.bias"], ["conv"],
                         name="conv", kernel_shape=[3, 3], pads=[1, 1, 1, 1]),
        helper.make_node("Relu", ["conv"], ["relu"], name="relu"),
        helper.make_node("MaxPool", ["relu"], ["pool"], name="pool",
                         kernel_shape=[2, 2], strides=[2, 2]),
        helper.make_node("Flatten", ["pool"], ["flat"], name="flatten", axis=1),
        helper.make_node("Gemm", ["flat", "fc.weight", "fc.bias"], ["logits"],
                         name="fc", transB=1),
        helper.make_node("Softmax", ["logits"], ["probabilities"], name="softmax",
                         axis=1),
    ]
    graph = helper.make_graph(
        nodes, "tiny_cnn",
        [helper.make_tensor_value_info("input", TensorProto.FLOAT, ["N", 3, 8, 8])],
        [helper.make_tensor_value_info("probabilities", TensorProto.FLOAT,
                                       ["N", classes])],
        initializer=initializers)
    model = helper.make_model(graph, producer_name="onnxcc-examples",
                              producer_version="1",
                              opset_imports=[helper.make_opsetid("", 13)])
    # Pin the IR version so that a newer python-onnx writes the same file.
    model.ir_version = 8
    onnx.checker.check_model(model, full_check=True)
    return model


def main():
    default = os.path.join(os.path.dirname(os.path.abspath(__file__)), "tiny_cnn.onnx")
    path = sys.argv[1] if len(sys.argv) > 1 else default
    onnx.save(build_model(), path)


if __name__ == "__main__":
    main()
