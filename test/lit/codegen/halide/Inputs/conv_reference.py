"""Writes a dataset for Inputs/conv.onnxtxt (Conv 3x3 pad 1, Relu, MaxPool
2x2 stride 2) with PyTorch's result as the reference output."""
import os
import sys

import numpy as np
import torch
from onnx import numpy_helper

out = sys.argv[1]
os.makedirs(out, exist_ok=True)
rng = np.random.default_rng(7)
x = rng.standard_normal((2, 8, 30, 30)).astype(np.float32)
w = rng.standard_normal((16, 8, 3, 3)).astype(np.float32)
y = torch.nn.functional.max_pool2d(
    torch.relu(torch.nn.functional.conv2d(torch.from_numpy(x), torch.from_numpy(w), padding=1)),
    2, 2).numpy()
for name, value, array in (("input_0", "x", x), ("input_1", "w", w), ("output_0", "y", y)):
    with open(os.path.join(out, name + ".pb"), "wb") as f:
        f.write(numpy_helper.from_array(array, value).SerializeToString())
