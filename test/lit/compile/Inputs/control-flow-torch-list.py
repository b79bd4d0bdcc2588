"""Writes a torch.jit.script model that builds a Python list in a loop
(`res.append(h)`, exported as a Loop carrying a sequence with SequenceInsert
in its body), then stacks it; x declared float[4, 3] so that the trip count
(x.size(0)) is known at compile time. The expected outputs come from ONNX
Runtime (test/difftest/ort_run.js), from the input written here.

Usage: control-flow-torch-list.py OUT_DIR
  OUT_DIR/list.onnx, OUT_DIR/list/test_data_set_0/input_0.pb, OUT_DIR/requests
"""
import os
import sys

import numpy as np
import onnx
import torch
from onnx import numpy_helper

out = sys.argv[1]
os.makedirs(os.path.join(out, "list", "test_data_set_0"), exist_ok=True)


class Lists(torch.nn.Module):
    def forward(self, x):
        res = []
        h = x[0]
        for i in range(x.size(0)):
            h = torch.tanh(h * 2.0 + x[i])
            res.append(h)
        return torch.stack(res), h


path = os.path.join(out, "list.onnx")
torch.onnx.export(torch.jit.script(Lists()), (torch.zeros(4, 3),), path, opset_version=13,
                  input_names=["x"], output_names=["stack", "h"],
                  dynamic_axes={"x": {0: "n"}})
model = onnx.load(path)
assert any(n.op_type == "Loop" for n in model.graph.node), "the loop was unrolled"
dim = model.graph.input[0].type.tensor_type.shape.dim[0]
dim.ClearField("dim_param")
dim.dim_value = 4
onnx.save(model, path)
x = np.random.default_rng(3).standard_normal((4, 3)).astype(np.float32)
with open(os.path.join(out, "list", "test_data_set_0", "input_0.pb"), "wb") as f:
    f.write(numpy_helper.from_array(x, "x").SerializeToString())
with open(os.path.join(out, "requests"), "w") as f:
    f.write("%s\t%s\n" % (path, os.path.join(out, "list", "test_data_set_0")))
