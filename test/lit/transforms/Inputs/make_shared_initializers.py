"""Writes a model whose initializers are shared by many nodes, the way
exporters deduplicate equal tensors, and one dataset whose expected outputs
numpy computes here.

Usage: make_shared_initializers.py OUT_DIR

  x -> conv_a (w, bias n) -> bn_a (scale t, B n, mean n, var t) -> relu_a
    -> conv_b (w again, no bias) -> bn_b (scale Identity(t), B Identity(n),
       mean n, var t) -> + Unsqueeze(s) -> relu_b
    -> dw_1 (depthwise wd) -> bn_c (s, m, m, s) -> dw_2 (wd again)
       -> + Unsqueeze(s) -> bn_d (s, m, m, v), left unfolded (its input is
          an Add) -> y
  relu_b -> GlobalAveragePool -> Flatten -> gemm (wg, C n)
    -> bn_e (t, Identity(n), n, t) -> z

So each BatchNormalization reads one constant as scale and var, and one as
B and mean (and its Conv's or Gemm's bias); they read each other's
constants, some through Identity; two Convs share their weights, two
depthwise Convs theirs. t and n die with the last of the three folds that
read them (bn_e), where each stands for two or three values; s and m stay,
read by bn_d and by the Unsqueeze that constant folding turns into a new
constant.
OUT_DIR gets shared.onnx and test/test_data_set_0/{input_0,output_0,output_1}.pb.
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

out = sys.argv[1]
data = os.path.join(out, "test", "test_data_set_0")
os.makedirs(data, exist_ok=True)
rng = np.random.default_rng(23)
N, C, H, W_ = 1, 8, 6, 6
eps = 1e-5


def rand(*shape, lo=-1.0, hi=1.0):
    return rng.uniform(lo, hi, shape).astype(np.float32)


# Weights large enough (>= 1 KiB) to be resource blobs, as the importer
# writes initializers.
w = rand(C, C, 3, 3)
wd = rand(C, 1, 3, 3)
wg = rand(C, C)
t = rand(C, lo=0.5, hi=2.0)   # scale and var of bn_a, bn_b, bn_e
n = rand(C)                   # B and mean of bn_a, bn_b, bn_e; bias of conv_a, gemm
s = rand(C, lo=0.5, hi=2.0)   # scale of bn_c and bn_d, var of bn_c
m = rand(C)                   # B and mean of bn_c and bn_d
v = rand(C, lo=0.1, hi=3.0)   # var of bn_d


def conv(x, w, b, group):
    """NCHW convolution, stride 1, pads 1, by loops over the kernel offsets."""
    n, c, h, wd_ = x.shape
    co, cig, kh, kw = w.shape
    xp = np.pad(x, ((0, 0), (0, 0), (1, 1), (1, 1)))
    y = np.zeros((n, co, h, wd_))
    cog = co // group
    for g in range(group):
        xs = xp[:, g * cig:(g + 1) * cig]
        ws = w[g * cog:(g + 1) * cog].astype(np.float64)
        for i in range(kh):
            for j in range(kw):
                y[:, g * cog:(g + 1) * cog] += np.einsum(
                    "nchw,oc->nohw", xs[:, :, i:i + h, j:j + wd_], ws[:, :, i, j])
    if b is not None:
        y += b.astype(np.float64).reshape(1, -1, 1, 1)
    return y


def bn(x, scale, b, mean, var):
    shape = (1, -1) + (1,) * (x.ndim - 2)
    r = lambda t: t.astype(np.float64).reshape(shape)
    return (x - r(mean)) / np.sqrt(r(var) + eps) * r(scale) + r(b)


x = rand(N, C, H, W_)
s3 = s.astype(np.float64).reshape(1, C, 1, 1)
relu_a = np.maximum(bn(conv(x.astype(np.float64), w, n, 1), t, n, n, t), 0)
relu_b = np.maximum(bn(conv(relu_a, w, None, 1), t, n, n, t) + s3, 0)
dw = conv(bn(conv(relu_b, wd, None, C), s, m, m, s), wd, None, C) + s3
y = bn(dw, s, m, m, v).astype(np.float32)
pooled = relu_b.mean(axis=(2, 3))
z = bn(pooled @ wg.astype(np.float64).T + n.astype(np.float64), t, n, n, t).astype(np.float32)

BN = "BatchNormalization"
nodes = [
    helper.make_node("Identity", ["t"], ["t_id"], name="t_copy"),
    helper.make_node("Identity", ["n"], ["n_id"], name="n_copy"),
    helper.make_node("Unsqueeze", ["s", "axes12"], ["s_chw"], name="s_unsqueeze"),
    helper.make_node("Conv", ["x", "w", "n"], ["conv_a"], name="conv_a", pads=[1] * 4),
    helper.make_node(BN, ["conv_a", "t", "n", "n", "t"], ["bn_a"], name="bn_a", epsilon=eps),
    helper.make_node("Relu", ["bn_a"], ["relu_a"], name="relu_a"),
    helper.make_node("Conv", ["relu_a", "w"], ["conv_b"], name="conv_b", pads=[1] * 4),
    helper.make_node(BN, ["conv_b", "t_id", "n_id", "n", "t"], ["bn_b"], name="bn_b",
                     epsilon=eps),
    helper.make_node("Add", ["bn_b", "s_chw"], ["add_b"], name="add_b"),
    helper.make_node("Relu", ["add_b"], ["relu_b"], name="relu_b"),
    helper.make_node("Conv", ["relu_b", "wd"], ["dw_1"], name="dw_1", group=C, pads=[1] * 4),
    helper.make_node(BN, ["dw_1", "s", "m", "m", "s"], ["bn_c"], name="bn_c",
                     epsilon=eps),
    helper.make_node("Conv", ["bn_c", "wd"], ["dw_2"], name="dw_2", group=C, pads=[1] * 4),
    helper.make_node("Add", ["dw_2", "s_chw"], ["add_d"], name="add_d"),
    helper.make_node(BN, ["add_d", "s", "m", "m", "v"], ["y"], name="bn_d", epsilon=eps),
    helper.make_node("GlobalAveragePool", ["relu_b"], ["pool"], name="pool"),
    helper.make_node("Flatten", ["pool"], ["flat"], name="flat"),
    helper.make_node("Gemm", ["flat", "wg", "n"], ["gemm"], name="gemm", transB=1),
    helper.make_node(BN, ["gemm", "t", "n_id", "n", "t"], ["z"], name="bn_e", epsilon=eps),
]
inits = [numpy_helper.from_array(t, k) for k, t in [
    ("w", w), ("wd", wd), ("wg", wg), ("t", t), ("n", n), ("s", s), ("m", m), ("v", v),
    ("axes12", np.array([1, 2], dtype=np.int64))]]
graph = helper.make_graph(
    nodes, "shared_initializers",
    [helper.make_tensor_value_info("x", TensorProto.FLOAT, [N, C, H, W_])],
    [helper.make_tensor_value_info("y", TensorProto.FLOAT, [N, C, H, W_]),
     helper.make_tensor_value_info("z", TensorProto.FLOAT, [N, C])], inits)
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 15)])
onnx.checker.check_model(model)
onnx.save(model, os.path.join(out, "shared.onnx"))
for name, (value, tensor_name) in (("input_0.pb", (x, "x")), ("output_0.pb", (y, "y")),
                                   ("output_1.pb", (z, "z"))):
    with open(os.path.join(data, name), "wb") as f:
        f.write(numpy_helper.from_array(value, tensor_name).SerializeToString())
