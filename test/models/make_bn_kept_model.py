#!/usr/bin/python3
"""Exports a torchvision CNN with its BatchNormalization nodes kept, and an
ONNX backend-test dataset for it.

Usage: /usr/bin/python3 test/models/make_bn_kept_model.py NAME OUTDIR [--default-init]

NAME is resnet18, mobilenet_v2 or efficientnet_b0. The export a user
reported for ResNet-18: torch.onnx.export(..., opset_version=17,
do_constant_folding=False, training=TrainingMode.PRESERVE) of the model in
eval mode keeps the BatchNormalization nodes (inference mode; ResNet-18 has
20) instead of folding them into the Convs, and the exporter deduplicates
equal parameter tensors: every BatchNormalization of one width reads the same
two initializers, one as its scale and its running var, one as its bias and
its running mean, most of them through Identity nodes. torchvision
initializes them to ones and zeros; --default-init keeps those (the reported
model as it is). By default each width gets random statistics instead, the
same for every BatchNormalization of that width, with var equal to scale and
mean equal to bias, so that the sharing stays the same while the folding of
the statistics into the weights is tested.

Writes OUTDIR/model.onnx (input "input" float32[1, 3, 224, 224], output
"logits" float32[1, 1000]) and OUTDIR/test_data_set_0/{input_0,output_0}.pb,
the output computed by PyTorch in eval mode: the reference `onnxcc verify`
compares with. weights=None keeps this offline; fixed seeds make every run
write the same tensors.
"""
import os
import sys

import torch
import torchvision

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from make_torchvision_model import export_with_dataset  # noqa: E402

MODELS = {
    "resnet18": torchvision.models.resnet18,
    "mobilenet_v2": torchvision.models.mobilenet_v2,
    "efficientnet_b0": torchvision.models.efficientnet_b0,
}


def main():
    args = sys.argv[1:]
    default_init = "--default-init" in args
    args = [a for a in args if a != "--default-init"]
    if len(args) != 2 or args[0] not in MODELS:
        sys.exit("usage: make_bn_kept_model.py {%s} OUTDIR [--default-init]"
                 % "|".join(sorted(MODELS)))
    name, outdir = args
    torch.manual_seed(0)
    model = MODELS[name](weights=None).eval()
    generator = torch.Generator().manual_seed(1)
    if not default_init:
        stats = {}
        with torch.no_grad():
            for m in model.modules():
                if isinstance(m, torch.nn.BatchNorm2d):
                    c = m.num_features
                    if c not in stats:
                        stats[c] = (torch.rand(c, generator=generator) + 0.5,
                                    torch.randn(c, generator=generator) * 0.1)
                    scale, shift = stats[c]
                    m.weight.copy_(scale)
                    m.running_var.copy_(scale)
                    m.bias.copy_(shift)
                    m.running_mean.copy_(shift)
    example = torch.randn(1, 3, 224, 224, generator=generator)

    export_with_dataset(model, example, outdir, opset_version=17, do_constant_folding=False,
                        training=torch.onnx.TrainingMode.PRESERVE)


if __name__ == "__main__":
    main()
