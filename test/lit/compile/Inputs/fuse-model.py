"""Writes a model whose nodes onnx-fuse folds into epilogues, and one dataset
whose expected outputs are computed with numpy here (float64, then cast).

Usage: fuse-model.py OUT_DIR

  y_block  Relu(Conv(x, wa, ba) + bias [1, C, 1, 1] + x)   (a ResNet block end)
  y_clip   Clip(Conv(x, wd), 0, 6)                          (Relu6)
  y_gemm   Sigmoid(Gemm(g, wg, cg, alpha 0.5, beta 0.75, transB))
  y_mm3    Tanh(MatMul(m [2, 3, K], wm [K, N]) + bm [N])
  y_mm2    Relu(MatMul(k [3, K], wk [K, N]) + ck [N])       (first a Gemm)

OUT_DIR gets fuse.onnx and test/test_data_set_0/{input_K,output_K}.pb.
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

out = sys.argv[1]
data = os.path.join(out, "test", "test_data_set_0")
os.makedirs(data, exist_ok=True)
rng = np.random.default_rng(7)


def rand(*shape, lo=-1.0, hi=1.0):
    return rng.uniform(lo, hi, shape).astype(np.float32)


N, C, H, W = 2, 4, 6, 6
K, M = 5, 4
x = rand(N, C, H, W)
wa, ba, bias_a = rand(C, C, 3, 3), rand(C), rand(1, C, 1, 1)
# Large enough weights that the Conv's result crosses both 0 and 6.
wd = rand(3, C, 1, 1, lo=-6.0, hi=6.0)
g, wg, cg = rand(3, K), rand(M, K, lo=-3.0, hi=3.0), rand(M)
m, wm, bm = rand(2, 3, K), rand(K, M), rand(M)
k, wk, ck = rand(3, K), rand(K, M), rand(M)


def f64(v):
    return v.astype(np.float64)


def conv(x, w, b, pad):
    """NCHW convolution, stride 1, group 1, by loops over the kernel offsets."""
    n, c, h, wd_ = x.shape
    co, _, kh, kw = w.shape
    xp = np.pad(f64(x), ((0, 0), (0, 0), (pad, pad), (pad, pad)))
    oh, ow = h + 2 * pad - kh + 1, wd_ + 2 * pad - kw + 1
    y = np.zeros((n, co, oh, ow))
    for i in range(kh):
        for j in range(kw):
            y += np.einsum("nchw,oc->nohw", xp[:, :, i:i + oh, j:j + ow], f64(w[:, :, i, j]))
    if b is not None:
        y += f64(b).reshape(1, -1, 1, 1)
    return y


y_block = np.maximum(conv(x, wa, ba, 1) + f64(bias_a) + f64(x), 0)
y_clip = np.clip(conv(x, wd, None, 0), 0, 6)
y_gemm = 1 / (1 + np.exp(-(0.5 * f64(g) @ f64(wg).T + 0.75 * f64(cg))))
y_mm3 = np.tanh(f64(m) @ f64(wm) + f64(bm))
y_mm2 = np.maximum(f64(k) @ f64(wk) + f64(ck), 0)
outputs = [("y_block", y_block), ("y_clip", y_clip), ("y_gemm", y_gemm), ("y_mm3", y_mm3),
           ("y_mm2", y_mm2)]
assert (y_clip == 0).any() and (y_clip == 6).any(), "Clip must bound on both sides"

nodes = [
    helper.make_node("Conv", ["x", "wa", "ba"], ["ca"], name="conv_a", pads=[1, 1, 1, 1]),
    helper.make_node("Add", ["ca", "bias_a"], ["sa"], name="bias_a_add"),
    helper.make_node("Add", ["x", "sa"], ["ra"], name="residual_add"),
    helper.make_node("Relu", ["ra"], ["y_block"], name="relu_a"),
    helper.make_node("Conv", ["x", "wd"], ["cd"], name="conv_d"),
    helper.make_node("Clip", ["cd", "zero", "six"], ["y_clip"], name="relu6"),
    helper.make_node("Gemm", ["g", "wg", "cg"], ["gg"], name="gemm", alpha=0.5, beta=0.75,
                     transB=1),
    helper.make_node("Sigmoid", ["gg"], ["y_gemm"], name="sigmoid"),
    helper.make_node("MatMul", ["m", "wm"], ["mm"], name="matmul3"),
    helper.make_node("Add", ["mm", "bm"], ["mb"], name="matmul3_bias"),
    helper.make_node("Tanh", ["mb"], ["y_mm3"], name="tanh"),
    helper.make_node("MatMul", ["k", "wk"], ["km"], name="matmul2"),
    helper.make_node("Add", ["ck", "km"], ["kb"], name="matmul2_bias"),
    helper.make_node("Relu", ["kb"], ["y_mm2"], name="relu_k"),
]
inits = [numpy_helper.from_array(v, name) for name, v in [
    ("wa", wa), ("ba", ba), ("bias_a", bias_a), ("wd", wd), ("zero", np.float32(0)),
    ("six", np.float32(6)), ("wg", wg), ("cg", cg), ("wm", wm), ("bm", bm), ("wk", wk),
    ("ck", ck)]]
inputs = [("x", x), ("g", g), ("m", m), ("k", k)]
graph = helper.make_graph(
    nodes, "fuse",
    [helper.make_tensor_value_info(name, TensorProto.FLOAT, v.shape) for name, v in inputs],
    [helper.make_tensor_value_info(name, TensorProto.FLOAT, v.shape) for name, v in outputs],
    inits)
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
onnx.checker.check_model(model)
onnx.save(model, os.path.join(out, "fuse.onnx"))
for kind, tensors in (("input", inputs), ("output", outputs)):
    for i, (name, v) in enumerate(tensors):
        with open(os.path.join(data, f"{kind}_{i}.pb"), "wb") as f:
            f.write(numpy_helper.from_array(v.astype(np.float32), name).SerializeToString())
