#!/usr/bin/python3
"""Exports a torchvision model with an ONNX backend-test dataset for it.

Usage: /usr/bin/python3 test/models/make_torchvision_model.py NAME OUTDIR

NAME is resnet18, mobilenet_v2, efficientnet_b0 or squeezenet1_1. Writes OUTDIR/model.onnx
(opset 13, static shapes: input "input" float32[1, 3, 224, 224], output "logits"
float32[1, 1000])
and OUTDIR/test_data_set_0/{input_0,output_0}.pb, the output computed by
PyTorch: it is the reference `onnxcc verify` compares with.

weights=None keeps this offline (nothing is downloaded); the weights and the
input come from fixed seeds, so every run writes the same tensors.
"""
import os
import sys

import numpy as np
import onnx
from onnx import numpy_helper
import torch
import torchvision

MODELS = {
    "resnet18": torchvision.models.resnet18,
    "mobilenet_v2": torchvision.models.mobilenet_v2,
    "efficientnet_b0": torchvision.models.efficientnet_b0,
    "squeezenet1_1": torchvision.models.squeezenet1_1,
}


def main():
    if len(sys.argv) != 3 or sys.argv[1] not in MODELS:
        sys.exit("usage: make_torchvision_model.py {%s} OUTDIR" % "|".join(sorted(MODELS)))
    name, outdir = sys.argv[1], sys.argv[2]
    torch.manual_seed(0)
    model = MODELS[name](weights=None).eval()
    # Random-init BatchNorm has mean 0 / var 1 statistics, which makes it an
    # identity; give it other ones so that the folding into Conv is tested.
    generator = torch.Generator().manual_seed(1)
    with torch.no_grad():
        for m in model.modules():
            if isinstance(m, torch.nn.BatchNorm2d):
                m.running_mean.copy_(torch.randn(m.num_features, generator=generator) * 0.1)
                m.running_var.copy_(torch.rand(m.num_features, generator=generator) + 0.5)
                m.weight.copy_(torch.rand(m.num_features, generator=generator) + 0.5)
                m.bias.copy_(torch.randn(m.num_features, generator=generator) * 0.1)
    example = torch.randn(1, 3, 224, 224, generator=generator)

    export_with_dataset(model, example, outdir, opset_version=13)


def export_with_dataset(model, example, outdir, **export_args):
    """Writes OUTDIR/model.onnx (input "input", output "logits", exported
    with `export_args`) and OUTDIR/test_data_set_0 with `example` and the
    model's output for it."""
    os.makedirs(os.path.join(outdir, "test_data_set_0"), exist_ok=True)
    model_path = os.path.join(outdir, "model.onnx")
    with torch.no_grad():
        torch.onnx.export(model, example, model_path, **export_args,
                          input_names=["input"], output_names=["logits"])
        expected = model(example)
    onnx.checker.check_model(onnx.load(model_path))

    def write(tensor, file, tensor_name):
        proto = numpy_helper.from_array(np.ascontiguousarray(tensor.numpy()), tensor_name)
        with open(os.path.join(outdir, "test_data_set_0", file), "wb") as f:
            f.write(proto.SerializeToString())

    write(example, "input_0.pb", "input")
    write(expected, "output_0.pb", "logits")


if __name__ == "__main__":
    main()
