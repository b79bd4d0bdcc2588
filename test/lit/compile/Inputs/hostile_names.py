#!/usr/bin/env python3
"""Writes a model in which every name and string is hostile, with a dataset.

usage: hostile_names.py OUT_DIR

OUT_DIR/hostile.onnx: x0 + x1 -> Relu -> * w -> several outputs, where the
tensor, node, graph and dim names, doc strings, producer and metadata hold
quotes, backslashes, comment delimiters, newlines, preprocessor directives,
trigraphs, control bytes, non-ASCII text, a 5,000-character name, C keywords,
C library names and names that sanitize alike. Also:
  OUT_DIR/data/test_data_set_0   inputs and numpy's outputs (onnxcc verify)
  OUT_DIR/names.txt              the inputs', outputs' and dims' names in model
                                 order, one per line: in|out|sym HEX (of the
                                 UTF-8 bytes)
  OUT_DIR/evil-path.txt          the path of a copy of the model whose file
                                 name holds a newline, '#error' and '??='
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

INJECT = 'y */ int injected = 1; /* "); \n#error pwned'
JSON_LABELS = '{"1": "1_minute_timer", "2": "2_minute_timer"}'
LONG = "n" * 4990 + "_long_"
DIM = 'b */ #define injected 1 /* ??/\n'


def main():
    out = sys.argv[1]
    os.makedirs(os.path.join(out, "data", "test_data_set_0"), exist_ok=True)
    inputs = [INJECT, JSON_LABELS]
    outputs = [
        "a.b",                       # the Add's result, also read by Relu
        "a_b",                       # sanitizes like a.b
        "exp",                       # a libm function
        "int",                       # a C keyword
        LONG,                        # 5,000 characters
        "ctrl\x01\x1f caf\u00e9 \u20ac \U0001F600 \\",  # control bytes, non-ASCII
        "errno", "NULL", "EOF", "__reserved", "_Upper", "main", "v0", "hostile_run",
        "back\\slash\\",
        "trigraph ??/",
    ]
    w_name = "int"  # initializer named like a keyword, and like an output
    nodes = [
        helper.make_node("Add", [INJECT, JSON_LABELS], ["a.b"],
                         name='add */\n#error node name\\', doc_string='*/ #error doc'),
        helper.make_node("Relu", ["a.b"], ["a_b"], name="??= relu \\"),
        helper.make_node("Mul", ["a_b", "w int"], ["exp"], name="// mul\n#include <x>"),
        helper.make_node("Neg", ["exp"], ["int"], name="neg"),
        helper.make_node("Sub", ["int", "a.b"], [LONG], name=LONG),
    ]
    # The rest: each a distinct function of the Add's result.
    for k, name in enumerate(outputs[5:]):
        c = f"c{k} \"const\""
        nodes.append(helper.make_node("Constant", [], [c], name=f"const */ {k}",
                                      value=numpy_helper.from_array(
                                          np.array(k + 1, np.float32), "value")))
        nodes.append(helper.make_node("Mul", ["a.b", c], [name], name=name + " node"))
    x_shape = [DIM, 4]
    graph = helper.make_graph(
        nodes, 'graph */ #error graph\n"name"',
        [helper.make_tensor_value_info(n, TensorProto.FLOAT, x_shape) for n in inputs],
        [helper.make_tensor_value_info(n, TensorProto.FLOAT, None) for n in outputs],
        [numpy_helper.from_array(np.array([0.5, -1, 2, 3], np.float32), "w int")],
        doc_string="*/ #error graph doc\n??/")
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)],
                              producer_name='producer */ #error\n"', producer_version="??=\\",
                              doc_string="model doc */\n#error")
    helper.set_model_props(model, {'key */\n#error': 'value "\\\n#error', "??=": "\x01"})
    data = open(os.path.join(out, "hostile.onnx"), "wb")
    data.write(model.SerializeToString())
    data.close()
    evil = os.path.join(out, "evil\n#error file ??= \\.onnx")
    with open(evil, "wb") as f:
        f.write(model.SerializeToString())
    with open(os.path.join(out, "evil-path.txt"), "w") as f:
        f.write(evil)

    # numpy's reference for batch 3.
    rng = np.random.default_rng(7)
    x0 = rng.uniform(-1, 1, (3, 4)).astype(np.float32)
    x1 = rng.uniform(-1, 1, (3, 4)).astype(np.float32)
    w = np.array([0.5, -1, 2, 3], np.float32)
    ab = x0 + x1
    relu = np.maximum(ab, 0)
    e = relu * w
    neg = -e
    values = [ab, relu, e, neg, neg - ab]
    values += [ab * np.float32(k + 1) for k in range(len(outputs) - 5)]
    d = os.path.join(out, "data", "test_data_set_0")
    for k, (name, x) in enumerate(zip(inputs, [x0, x1])):
        open(os.path.join(d, f"input_{k}.pb"), "wb").write(
            numpy_helper.from_array(x, name).SerializeToString())
    for k, (name, y) in enumerate(zip(outputs, values)):
        open(os.path.join(d, f"output_{k}.pb"), "wb").write(
            numpy_helper.from_array(y, name).SerializeToString())
    with open(os.path.join(out, "names.txt"), "w") as f:
        for kind, names in (("in", inputs), ("out", outputs), ("sym", [DIM])):
            for n in names:
                f.write(kind + " " + n.encode("utf-8").hex() + "\n")


if __name__ == "__main__":
    main()
