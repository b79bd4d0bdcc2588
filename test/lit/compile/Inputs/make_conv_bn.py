"""Writes Conv -> BatchNormalization -> Relu -> grouped Conv (no bias) ->
BatchNormalization with random weights and non-trivial statistics, and one
dataset whose expected output is computed with numpy here.

Usage: make_conv_bn.py OUT_DIR

The weights are large enough to be stored as resource blobs by the importer,
so the fold reads and writes blobs. OUT_DIR gets conv_bn.onnx and
test/test_data_set_0/{input_0,output_0}.pb.
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

out = sys.argv[1]
data = os.path.join(out, "test", "test_data_set_0")
os.makedirs(data, exist_ok=True)
rng = np.random.default_rng(11)
N, C, H, W_ = 2, 8, 6, 6
C1, C2, G = 16, 16, 4


def rand(*shape, lo=-1.0, hi=1.0):
    return rng.uniform(lo, hi, shape).astype(np.float32)


w1, b1 = rand(C1, C, 3, 3), rand(C1)
s1, beta1, mean1, var1 = rand(C1, lo=0.5, hi=2), rand(C1), rand(C1), rand(C1, lo=0.1, hi=3)
w2 = rand(C2, C1 // G, 3, 3)
s2, beta2, mean2, var2 = rand(C2, lo=0.5, hi=2), rand(C2), rand(C2), rand(C2, lo=0.1, hi=3)
eps = 1e-3


def conv(x, w, b, group, pad):
    """NCHW convolution, stride 1, by loops over the kernel offsets."""
    n, c, h, wd = x.shape
    co, cig, kh, kw = w.shape
    xp = np.pad(x.astype(np.float64), ((0, 0), (0, 0), (pad, pad), (pad, pad)))
    oh, ow = h + 2 * pad - kh + 1, wd + 2 * pad - kw + 1
    y = np.zeros((n, co, oh, ow))
    cog = co // group
    for g in range(group):
        xs = xp[:, g * cig:(g + 1) * cig]
        ws = w[g * cog:(g + 1) * cog].astype(np.float64)
        for i in range(kh):
            for j in range(kw):
                y[:, g * cog:(g + 1) * cog] += np.einsum(
                    "nchw,oc->nohw", xs[:, :, i:i + oh, j:j + ow], ws[:, :, i, j])
    if b is not None:
        y += b.reshape(1, -1, 1, 1)
    return y


def bn(x, s, beta, mean, var):
    r = lambda v: v.astype(np.float64).reshape(1, -1, 1, 1)
    return (x - r(mean)) / np.sqrt(r(var) + eps) * r(s) + r(beta)


x = rand(N, C, H, W_)
y = bn(conv(np.maximum(bn(conv(x, w1, b1, 1, 1), s1, beta1, mean1, var1), 0), w2, None, G, 1),
       s2, beta2, mean2, var2).astype(np.float32)

nodes = [
    helper.make_node("Conv", ["x", "w1", "b1"], ["c1"], name="conv1", pads=[1, 1, 1, 1]),
    helper.make_node("BatchNormalization", ["c1", "s1", "beta1", "mean1", "var1"], ["n1"],
                     name="bn1", epsilon=eps),
    helper.make_node("Relu", ["n1"], ["r1"], name="relu1"),
    helper.make_node("Conv", ["r1", "w2"], ["c2"], name="conv2", group=G, pads=[1, 1, 1, 1]),
    helper.make_node("BatchNormalization", ["c2", "s2", "beta2", "mean2", "var2"], ["y"],
                     name="bn2", epsilon=eps),
]
inits = [numpy_helper.from_array(v, k) for k, v in [
    ("w1", w1), ("b1", b1), ("s1", s1), ("beta1", beta1), ("mean1", mean1), ("var1", var1),
    ("w2", w2), ("s2", s2), ("beta2", beta2), ("mean2", mean2), ("var2", var2)]]
graph = helper.make_graph(
    nodes, "conv_bn",
    [helper.make_tensor_value_info("x", TensorProto.FLOAT, [N, C, H, W_])],
    [helper.make_tensor_value_info("y", TensorProto.FLOAT, [N, C2, H, W_])], inits)
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 15)])
onnx.checker.check_model(model)
onnx.save(model, os.path.join(out, "conv_bn.onnx"))
for name, value in (("input_0.pb", (x, "x")), ("output_0.pb", (y, "y"))):
    with open(os.path.join(data, name), "wb") as f:
        f.write(numpy_helper.from_array(value[0], value[1]).SerializeToString())
