"""Writes a test_data_set_0 folder for one of ONNX's "light" models: the
input as ONNX's backend runner feeds it (arange(n).reshape(shape) / n, an
unknown dim taken as 1) and the reference output that comes with the model.

usage: light-dataset.py MODEL.onnx OUTPUT_0.pb DIR
"""
import os
import shutil
import sys

import numpy as np
import onnx
from onnx import numpy_helper

model_path, output_path, out_dir = sys.argv[1:4]
model = onnx.load(model_path)
initializers = {t.name for t in model.graph.initializer}
data_dir = os.path.join(out_dir, "test_data_set_0")
os.makedirs(data_dir, exist_ok=True)
inputs = [i for i in model.graph.input if i.name not in initializers]
for k, value in enumerate(inputs):
    shape = [d.dim_value if d.dim_value > 0 else 1 for d in value.type.tensor_type.shape.dim]
    n = int(np.prod(shape))
    x = (np.arange(n, dtype=np.float32).reshape(shape) / n).astype(np.float32)
    with open(os.path.join(data_dir, "input_%d.pb" % k), "wb") as f:
        f.write(numpy_helper.from_array(x, value.name).SerializeToString())
shutil.copy(output_path, os.path.join(data_dir, "output_0.pb"))
