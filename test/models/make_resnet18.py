#!/usr/bin/python3
"""Exports torchvision's ResNet-18 (random weights, fixed seed) to ONNX.

Usage: /usr/bin/python3 test/models/make_resnet18.py OUTPUT.onnx

weights=None keeps this offline: nothing is downloaded. The batch dimension
of the input and the output is symbolic and named "batch"; opset 13.
"""
import sys

import torch
import torchvision


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: make_resnet18.py OUTPUT.onnx")
    torch.manual_seed(0)
    model = torchvision.models.resnet18(weights=None).eval()
    example = torch.randn(1, 3, 224, 224)
    with torch.no_grad():
        torch.onnx.export(
            model, example, sys.argv[1],
            opset_version=13,
            input_names=["input"], output_names=["logits"],
            dynamic_axes={"input": {0: "batch"}, "logits": {0: "batch"}})


if __name__ == "__main__":
    main()
