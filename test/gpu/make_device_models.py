#!/usr/bin/python3
"""Writes ONNX models with periodic, well-compressing weights, and a dataset each.

Usage: /usr/bin/python3 test/gpu/make_device_models.py OUTDIR [NAME...]

NAME is resnet18, mobilenet_v2 or text-encoder (default: all three). Writes
  OUTDIR/NAME/model.onnx                  (TorchScript exporter, opset 17,
                                           eval mode, constant folding)
  OUTDIR/NAME/test_data_set_0/input_0.pb  a deterministic input
  OUTDIR/NAME/test_data_set_0/output_0.pb PyTorch's (CPU, fp32) output for it
  OUTDIR/NAME/tolerance                   "ATOL RTOL" for check_outputs.py: atol
                                           1e-3 times the output's RMS (rounded
                                           up to one digit), rtol 1e-3
Models (static shapes, batch 1):
  resnet18, mobilenet_v2  torchvision (weights=None), input "input"
                          float32[1, 3, 224, 224], output "logits" float32[1, 1000]
  text-encoder            the Encoder of test/models/make_dynamic_model.py with
                          its text-encoder arguments (4 layers, d=256, 4 heads,
                          feed-forward 1024, vocabulary 1000), input "ids"
                          int64[1, 64], output "y" float32[1, 3]

Why: binaries compiled with embedded weights must travel to a lent GPU
machine (64 MiB in all), so their weights must compress well. Random weights
do not compress; these do. Every parameter and buffer is a periodic pattern
over its flat index i,
    p(i) = (((i * 37) % 101) - 50) / 50       (period 101, values in [-1, 1])
times a per-tensor scale:
  conv/linear/attention weights   p * sqrt(6 / fan_in)  (He-uniform variance)
  embedding                       p
  biases, BatchNorm/LayerNorm bias, BatchNorm running_mean   0.1 * p (times
                                  sqrt(running_var) for running_mean)
  LayerNorm weight                1 + 0.25 * p
  BatchNorm weight and running_var  one value per tensor (not a pattern):
                                  weight 1, running_var the variance of the
                                  BatchNorm's input for the dataset's input,
                                  measured as the forward pass reaches it and
                                  rounded to 3 digits, so that activations
                                  neither vanish nor explode.
BatchNorm's per-channel factor weight / sqrt(running_var + eps) is constant
on purpose: the exporter (and the compiler) fold BatchNorm into the Conv
before it, multiplying each output channel by that factor, and a factor that
differed per channel would break the byte-level repetition that gzip finds
across channels. Since p has period 101 in the flat index, every output
channel of a weight is periodic along its input dims too, so layouts that
interleave output channels stay periodic.

The inputs come from seeded generators (images: standard normal; ids:
uniform in [0, 1000)); everything runs on the CPU in float32, so every run
writes the same files. The script checks that the outputs are finite and
not all equal, and prints the size of each model.onnx and of its gzip -9
compression (at most a tenth is expected; a warning otherwise).
"""
import gzip
import importlib.util
import math
import os
import sys

import numpy as np
import onnx
from onnx import numpy_helper
import torch
import torchvision

HERE = os.path.dirname(os.path.abspath(__file__))
NAMES = ("resnet18", "mobilenet_v2", "text-encoder")


def load_encoder_class():
    """The Encoder module of test/models/make_dynamic_model.py."""
    path = os.path.join(HERE, "..", "models", "make_dynamic_model.py")
    spec = importlib.util.spec_from_file_location("make_dynamic_model", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.Encoder


def pattern(shape):
    """p(i) over the flat index of a tensor of `shape`, float32."""
    count = int(np.prod(shape)) if len(shape) else 1
    i = torch.arange(count, dtype=torch.int64)
    return ((((i * 37) % 101) - 50).to(torch.float32) / 50).reshape(shape)


def set_weights(model):
    """Gives every parameter and buffer of `model` its pattern (BatchNorm's
    running_mean and running_var are set later, by calibrate_batchnorm)."""
    done = set()
    with torch.no_grad():
        for prefix, module in model.named_modules():
            tensors = dict(module.named_parameters(recurse=False))
            tensors.update(module.named_buffers(recurse=False))
            for name, tensor in tensors.items():
                if not tensor.is_floating_point():
                    continue  # BatchNorm's num_batches_tracked
                done.add(prefix + "." + name if prefix else name)
                p = pattern(tensor.shape)
                if isinstance(module, torch.nn.modules.batchnorm._BatchNorm):
                    value = {"weight": torch.ones_like(p), "bias": 0.1 * p,
                             "running_mean": torch.zeros_like(p),
                             "running_var": torch.ones_like(p)}[name]
                elif isinstance(module, torch.nn.LayerNorm):
                    value = 1.0 + 0.25 * p if name == "weight" else 0.1 * p
                elif isinstance(module, torch.nn.Embedding):
                    value = p
                elif tensor.dim() >= 2:  # conv, linear, attention projections
                    value = p * (6.0 / tensor[0].numel()) ** 0.5
                else:  # biases
                    value = 0.1 * p
                tensor.copy_(value)
    # Nothing may keep PyTorch's (random) initialization.
    left = [k for k, v in model.state_dict().items() if v.is_floating_point() and k not in done]
    assert not left, left


def calibrate_batchnorm(model, example):
    """One forward pass in which each BatchNorm, just before it runs, gets
    running_var = the variance of its input (one value for all channels)
    and running_mean = 0.1 * sqrt(running_var) * p."""
    def hook(module, args):
        x = args[0]
        variance = float(x.transpose(0, 1).reshape(x.shape[1], -1).var(dim=1).mean())
        variance = float("%.3g" % max(variance, 1e-3))
        module.running_var.fill_(variance)
        module.running_mean.copy_(0.1 * variance ** 0.5 * pattern(module.running_mean.shape))

    handles = [m.register_forward_pre_hook(hook) for m in model.modules()
               if isinstance(m, torch.nn.modules.batchnorm._BatchNorm)]
    with torch.no_grad():
        model(example)
    for handle in handles:
        handle.remove()


def build(name):
    """(model, example input, input name, output name)."""
    generator = torch.Generator().manual_seed(0)
    if name == "text-encoder":
        model = load_encoder_class()(vocab=1000, d=256, heads=4, ff=1024, layers=4).eval()
        example = torch.randint(0, 1000, (1, 64), generator=generator, dtype=torch.int64)
        input_name, output_name = "ids", "y"
    else:
        model = getattr(torchvision.models, name)(weights=None).eval()
        example = torch.randn(1, 3, 224, 224, generator=generator)
        input_name, output_name = "input", "logits"
    set_weights(model)
    calibrate_batchnorm(model, example)
    return model, example, input_name, output_name


def write_tensor(array, tensor_name, path):
    proto = numpy_helper.from_array(np.ascontiguousarray(array), tensor_name)
    with open(path, "wb") as f:
        f.write(proto.SerializeToString())


def suggested_tolerance(expected):
    """("ATOL", "RTOL") for comparing another float32 implementation with
    PyTorch's output: atol 1e-3 times the output's root mean square, rounded
    up to one digit, rtol 1e-3. verify's default atol (1e-7) fails outputs
    near zero after twenty layers of float32 sums in another order (onnxcc's
    CPU code: ResNet-18's largest difference is about 6e-5 with outputs of
    RMS 0.39), while a wrong kernel is off by about the RMS itself."""
    rms = float(np.sqrt(np.mean(np.square(expected.astype(np.float64)))))
    unit = 10.0 ** math.floor(math.log10(1e-3 * rms))
    return "%.0e" % (math.ceil(1e-3 * rms / unit) * unit), "1e-3"


def make(name, outdir):
    model, example, input_name, output_name = build(name)
    with torch.no_grad():
        expected = model(example).numpy()
    if not np.all(np.isfinite(expected)):
        sys.exit("%s: the output is not finite" % name)
    if np.ptp(expected) == 0:
        sys.exit("%s: every value of the output is %g" % (name, expected.flat[0]))
    folder = os.path.join(outdir, name)
    os.makedirs(os.path.join(folder, "test_data_set_0"), exist_ok=True)
    model_path = os.path.join(folder, "model.onnx")
    # Not under no_grad: there, nn.TransformerEncoder takes its fused fast
    # path (aten::_transformer_encoder_layer_fwd), which has no ONNX export.
    torch.onnx.export(model, example, model_path, opset_version=17, do_constant_folding=True,
                      input_names=[input_name], output_names=[output_name])
    onnx_model = onnx.load(model_path)
    onnx.checker.check_model(onnx_model)
    graph_inputs = [i.name for i in onnx_model.graph.input]
    graph_outputs = [o.name for o in onnx_model.graph.output]
    assert graph_inputs == [input_name] and graph_outputs == [output_name], \
        (graph_inputs, graph_outputs)
    write_tensor(example.numpy(), input_name,
                 os.path.join(folder, "test_data_set_0", "input_0.pb"))
    write_tensor(expected.astype(np.float32), output_name,
                 os.path.join(folder, "test_data_set_0", "output_0.pb"))
    tolerance = suggested_tolerance(expected)
    with open(os.path.join(folder, "tolerance"), "w") as f:
        f.write("%s %s\n" % tolerance)

    with open(model_path, "rb") as f:
        data = f.read()
    packed = len(gzip.compress(data, compresslevel=9))
    ratio = packed / len(data)
    print("%s: model.onnx %.1f MB, gzip -9 %.2f MB (1/%.0f); output %s, mean %.4g, std %.4g, "
          "range [%.4g, %.4g]; tolerance %s %s" % (
              name, len(data) / 1e6, packed / 1e6, 1 / ratio, list(expected.shape),
              expected.mean(), expected.std(), expected.min(), expected.max(), *tolerance))
    if ratio > 0.1:
        print("%s: warning: gzip -9 keeps %.0f%% of model.onnx, more than a tenth"
              % (name, 100 * ratio))


def main():
    if len(sys.argv) < 2 or any(n not in NAMES for n in sys.argv[2:]):
        sys.exit("usage: make_device_models.py OUTDIR [%s]..." % "|".join(NAMES))
    for name in sys.argv[2:] or NAMES:
        make(name, sys.argv[1])


if __name__ == "__main__":
    main()
