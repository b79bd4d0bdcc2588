#!/usr/bin/python3
"""Exports a PyTorch model with symbolic dims and datasets of several sizes.

Usage: /usr/bin/python3 test/models/make_dynamic_model.py NAME OUTDIR

NAME is
  cnn      a small CNN (Conv+BatchNorm, grouped Conv, MaxPool, Relu6, global
           average pool, Linear, Softmax) with input "x" float32[batch, 3, 16, 16];
  encoder  a 2-layer nn.TransformerEncoder text classifier (Embedding, d=32,
           4 heads) with input "ids" int64[batch, seq];
  text-encoder  the same with 4 layers, d=256, 4 heads, feed-forward 1024
           and a vocabulary of 1000 (sequence 64 in its datasets).
Writes OUTDIR/model.onnx (dim_params "batch"/"seq" from dynamic_axes) and
OUTDIR/test_data_set_K/{input_0,output_0}.pb for several sizes, the outputs
computed by PyTorch: the references `onnxcc verify` compares with, all
against one compiled model.
"""
import os
import sys

import numpy as np
from onnx import numpy_helper
import torch


class SmallCnn(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = torch.nn.Conv2d(3, 8, 3, padding=1)
        self.bn = torch.nn.BatchNorm2d(8)
        self.conv2 = torch.nn.Conv2d(8, 8, 3, stride=2, groups=2)
        self.fc = torch.nn.Linear(8, 5)

    def forward(self, x):
        x = torch.relu(self.bn(self.conv1(x)))
        x = torch.nn.functional.max_pool2d(x, 2)
        x = torch.nn.functional.relu6(self.conv2(x))
        x = torch.nn.functional.adaptive_avg_pool2d(x, 1).flatten(1)
        return torch.softmax(self.fc(x), -1)


class Encoder(torch.nn.Module):
    def __init__(self, vocab=50, d=32, heads=4, ff=64, layers=2):
        super().__init__()
        self.embed = torch.nn.Embedding(vocab, d)
        layer = torch.nn.TransformerEncoderLayer(d, heads, ff, dropout=0.0, batch_first=True)
        self.encoder = torch.nn.TransformerEncoder(layer, layers)
        self.head = torch.nn.Linear(d, 3)

    def forward(self, ids):
        return self.head(self.encoder(self.embed(ids)).mean(1))


def main():
    if len(sys.argv) != 3 or sys.argv[1] not in ("cnn", "encoder", "text-encoder"):
        sys.exit("usage: make_dynamic_model.py {cnn|encoder|text-encoder} OUTDIR")
    name, outdir = sys.argv[1], sys.argv[2]
    os.makedirs(outdir, exist_ok=True)
    torch.manual_seed(0)
    if name == "cnn":
        model = SmallCnn().eval()
        with torch.no_grad():
            model.bn.running_mean.uniform_(-1, 1)
            model.bn.running_var.uniform_(0.5, 2)
        inputs = [torch.randn(b, 3, 16, 16) for b in (1, 3, 2)]
        names, axes = ["x"], {"x": {0: "batch"}, "y": {0: "batch"}}
    elif name == "encoder":
        model = Encoder().eval()
        inputs = [torch.randint(0, 50, shape) for shape in ((1, 5), (2, 9), (3, 1))]
        names, axes = ["ids"], {"ids": {0: "batch", 1: "seq"}, "y": {0: "batch"}}
    else:
        model = Encoder(vocab=1000, d=256, heads=4, ff=1024, layers=4).eval()
        inputs = [torch.randint(0, 1000, shape) for shape in ((1, 64), (2, 16))]
        names, axes = ["ids"], {"ids": {0: "batch", 1: "seq"}, "y": {0: "batch"}}
    torch.onnx.export(model, inputs[0], os.path.join(outdir, "model.onnx"), input_names=names,
                      output_names=["y"], dynamic_axes=axes, opset_version=14)
    for k, x in enumerate(inputs):
        folder = os.path.join(outdir, "test_data_set_%d" % k)
        os.makedirs(folder, exist_ok=True)
        with torch.no_grad():
            y = model(x)
        with open(os.path.join(folder, "input_0.pb"), "wb") as f:
            f.write(numpy_helper.from_array(x.numpy(), names[0]).SerializeToString())
        with open(os.path.join(folder, "output_0.pb"), "wb") as f:
            f.write(numpy_helper.from_array(y.numpy().astype(np.float32), "y").SerializeToString())


if __name__ == "__main__":
    main()
