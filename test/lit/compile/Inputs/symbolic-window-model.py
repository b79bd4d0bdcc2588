"""Writes a small CNN exported by PyTorch with symbolic batch, height and
width, and reference datasets for three image sizes computed by PyTorch.

Usage: symbolic-window-model.py OUT_DIR

The network has what makes output sizes floor divisions of the input's:
a strided 3x3 Conv, a ResNet-style block whose 1x1 strided downsample must
come out the same size as its strided 3x3 branch, MaxPool with ceil_mode,
AveragePool with count_include_pad=0 over pads, a stride-1 Conv without
padding, and a global pool + Linear head. It also writes `fcn.onnx` (no
head: its output's spatial dims are derived from the input's) with data.
"""
import os
import sys

import numpy as np
import onnx
import torch
from onnx import numpy_helper

out = sys.argv[1]
os.makedirs(out, exist_ok=True)
torch.manual_seed(0)


class Block(torch.nn.Module):
    def __init__(self, c_in, c_out):
        super().__init__()
        self.conv1 = torch.nn.Conv2d(c_in, c_out, 3, stride=2, padding=1)
        self.conv2 = torch.nn.Conv2d(c_out, c_out, 3, padding=1)
        self.down = torch.nn.Conv2d(c_in, c_out, 1, stride=2)

    def forward(self, x):
        y = torch.relu(self.conv1(x))
        return torch.relu(self.conv2(y) + self.down(x))


class Features(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.stem = torch.nn.Conv2d(3, 8, 3, stride=2, padding=1)
        self.pool = torch.nn.MaxPool2d(3, stride=2, padding=1, ceil_mode=True)
        self.block = Block(8, 12)
        self.avg = torch.nn.AvgPool2d(3, stride=2, padding=1, count_include_pad=False)
        self.valid = torch.nn.Conv2d(12, 6, (2, 1))

    def forward(self, x):
        x = torch.relu(self.stem(x))
        x = self.pool(x)
        x = self.block(x)
        x = self.avg(x)
        return self.valid(x)


class Classifier(torch.nn.Module):
    def __init__(self, features):
        super().__init__()
        self.features = features
        self.fc = torch.nn.Linear(6, 4)

    def forward(self, x):
        return self.fc(self.features(x).mean(dim=(2, 3)))


features = Features().eval()
models = {"cnn": Classifier(features).eval(), "fcn": features}
sizes = [(1, 29, 19), (2, 32, 32), (1, 26, 40)]
for name, model in models.items():
    path = os.path.join(out, name + ".onnx")
    torch.onnx.export(model, torch.zeros(1, 3, 21, 19), path, input_names=["image"],
                      output_names=["out"], opset_version=17,
                      dynamic_axes={"image": {0: "N", 2: "H", 3: "W"}, "out": {0: "N"}})
    for k, (n, h, w) in enumerate(sizes):
        data = os.path.join(out, name, "test_data_set_%d" % k)
        os.makedirs(data, exist_ok=True)
        x = torch.randn(n, 3, h, w)
        with torch.no_grad():
            y = model(x).numpy()
        onnx.save_tensor(numpy_helper.from_array(x.numpy(), "image"),
                         os.path.join(data, "input_0.pb"))
        onnx.save_tensor(numpy_helper.from_array(y, "out"), os.path.join(data, "output_0.pb"))
