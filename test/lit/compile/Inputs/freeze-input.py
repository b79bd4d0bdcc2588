"""Copies an ONNX backend test with its last input made an initializer (its
value from the test's input_K.pb): ops that need that input known at compile
time (CumProd's axis, CenterCropPad's shape) are then checked against the
test's own expected outputs.

Usage: freeze-input.py TEST_DIR OUT_DIR
"""
import os
import shutil
import sys

import onnx

src, out = sys.argv[1], sys.argv[2]
model = onnx.load(os.path.join(src, "model.onnx"))
data = os.path.join(src, "test_data_set_0")
k = len(model.graph.input) - 1
tensor = onnx.TensorProto()
with open(os.path.join(data, f"input_{k}.pb"), "rb") as f:
    tensor.ParseFromString(f.read())
tensor.name = model.graph.input[k].name
del model.graph.input[k]
model.graph.initializer.append(tensor)
dst = os.path.join(out, "test_data_set_0")
os.makedirs(dst, exist_ok=True)
onnx.save(model, os.path.join(out, "model.onnx"))
for name in os.listdir(data):
    if name != f"input_{k}.pb":
        shutil.copy(os.path.join(data, name), os.path.join(dst, name))
