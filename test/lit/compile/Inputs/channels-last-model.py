"""Writes OUT/chain.onnx, a small network in the style of MobileNetV2 and
EfficientNet-B0 (a 3x3 stride-2 stem, inverted residual blocks with
depthwise 3x3 and 5x5 convolutions, squeeze-and-excitation, a residual add,
BatchNormalization, ReLU6 / SiLU / HardSwish, global average pooling and a
classifier), exported by PyTorch, and OUT/test/test_data_set_0 with an input
and PyTorch's outputs for it (computed in float64, rounded to float32).
A second output is a feature map from the middle of the convolution chain.

Sizes are odd on purpose (input 29x23, channel counts that are not
multiples of a vector) so that every kernel meets partial tiles.

usage: channels-last-model.py OUT
"""
import os
import sys

import numpy as np
import onnx
import torch
import torch.nn as nn
from onnx import numpy_helper

out = sys.argv[1]
torch.manual_seed(11)


def bn(c):
    b = nn.BatchNorm2d(c)
    # Statistics that are not the identity, so folding them matters.
    with torch.no_grad():
        b.running_mean.uniform_(-0.5, 0.5)
        b.running_var.uniform_(0.5, 2.0)
        b.weight.uniform_(0.5, 1.5)
        b.bias.uniform_(-0.2, 0.2)
    return b


class SqueezeExcite(nn.Module):
    def __init__(self, c, r):
        super().__init__()
        self.fc1 = nn.Conv2d(c, r, 1)
        self.fc2 = nn.Conv2d(r, c, 1)

    def forward(self, x):
        s = x.mean(dim=(2, 3), keepdim=True)
        return x * torch.sigmoid(self.fc2(nn.functional.silu(self.fc1(s))))


class Block(nn.Module):
    def __init__(self, cin, cmid, cout, k, stride, act, se):
        super().__init__()
        self.expand = nn.Sequential(nn.Conv2d(cin, cmid, 1, bias=False), bn(cmid), act())
        self.dw = nn.Sequential(
            nn.Conv2d(cmid, cmid, k, stride, k // 2, groups=cmid, bias=False), bn(cmid), act())
        self.se = SqueezeExcite(cmid, max(1, cmid // 4)) if se else nn.Identity()
        self.project = nn.Sequential(nn.Conv2d(cmid, cout, 1, bias=False), bn(cout))
        self.residual = stride == 1 and cin == cout

    def forward(self, x):
        y = self.project(self.se(self.dw(self.expand(x))))
        return x + y if self.residual else y


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, 20, 3, 2, 1, bias=False), bn(20), nn.SiLU())
        self.b1 = Block(20, 40, 20, 3, 1, nn.ReLU6, se=False)
        self.b2 = Block(20, 60, 36, 5, 2, nn.SiLU, se=True)
        self.b3 = Block(36, 72, 36, 3, 1, nn.Hardswish, se=True)
        self.head = nn.Sequential(nn.Conv2d(36, 100, 1), bn(100), nn.ReLU6())
        self.fc = nn.Linear(100, 10)

    def forward(self, x):
        f = self.b2(self.b1(self.stem(x)))
        y = self.head(self.b3(f))
        return self.fc(torch.flatten(y.mean(dim=(2, 3), keepdim=True), 1)), f


net = Net().eval()
x = torch.randn(1, 3, 29, 23)
os.makedirs(os.path.join(out, "test", "test_data_set_0"), exist_ok=True)
path = os.path.join(out, "chain.onnx")
torch.onnx.export(net, x, path, input_names=["image"], output_names=["logits", "features"],
                  opset_version=13, do_constant_folding=True)
onnx.checker.check_model(onnx.load(path))
with torch.no_grad():
    expected = net.double()(x.double())
data = os.path.join(out, "test", "test_data_set_0")
with open(os.path.join(data, "input_0.pb"), "wb") as f:
    f.write(numpy_helper.from_array(x.numpy(), "image").SerializeToString())
for i, (name, value) in enumerate(zip(["logits", "features"], expected)):
    with open(os.path.join(data, f"output_{i}.pb"), "wb") as f:
        f.write(numpy_helper.from_array(value.numpy().astype(np.float32), name).SerializeToString())
