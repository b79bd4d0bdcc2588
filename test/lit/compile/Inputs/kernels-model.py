"""Writes OUT/kernels.onnx, a model that exercises every runtime-support
kernel onnxcc calls (convolutions of many shapes with fused epilogues,
Winograd, depthwise, grouped, Gemm/MatMul with constant weights, MatMul of
two activations in every layout, attention with a mask and in Whisper's
form, Conv1d, Conv3d, ConvTranspose in 1, 2 and 3 dims, LayerNormalization,
Softmax, max and global average pooling, InstanceNormalization, SiLU), and OUT/test/test_data_set_0 with its inputs
and the outputs PyTorch computes for them (float64, rounded to float32).

Sizes are odd on purpose, so that every kernel meets partial tiles.

usage: kernels-model.py OUT
"""
import os
import sys

import numpy as np
import onnx
import torch
import torch.nn.functional as F
from onnx import TensorProto, helper, numpy_helper

out = sys.argv[1]
rng = np.random.default_rng(7)


def rand(*shape, scale=1.0):
    return (rng.standard_normal(shape) * scale).astype(np.float32)


def t(a):
    return torch.from_numpy(np.asarray(a, dtype=np.float64))


inputs = {
    "x": rand(1, 8, 13, 11),
    "v": rand(3, 37),
    "u": rand(1, 300),
    "s": rand(2, 5, 24),
    "q": rand(2, 4, 10, 16),
    "k": rand(2, 4, 10, 16),
    "w": rand(2, 4, 10, 16),
    "a3": rand(2, 21, 13),
    "b3": rand(2, 21, 30),
    "ab": rand(4, 1, 5, 6),
    "bb": rand(3, 6, 7),
    "g1": rand(19, 9),
    "g2": rand(26, 19),
    "dq": rand(2, 3, 2, 16),
    "dk": rand(2, 3, 37, 16),
    "hx": rand(2, 71, 24),
    "hm": rand(2, 71),
    "c1": rand(2, 6, 37),
    "c3d": rand(1, 4, 5, 7, 6),
    "ct": rand(1, 6, 5, 7),
}
inits, nodes, outputs, expected = [], [], [], {}


def const(name, value):
    inits.append(numpy_helper.from_array(np.asarray(value), name))
    return name


def node(op, ins, out_name, **attrs):
    nodes.append(helper.make_node(op, ins, [out_name], name=out_name + "_node", **attrs))
    return out_name


def output(name, value):
    outputs.append(helper.make_tensor_value_info(name, TensorProto.FLOAT, list(value.shape)))
    expected[name] = value.numpy().astype(np.float32)


x = t(inputs["x"])

# 3x3 pad 1 with bias, Relu: a ResNet conv (8 input channels: too few for
# Winograd).
w, b = rand(16, 8, 3, 3, scale=0.3), rand(16)
inputs_w_c3, inputs_b_c3 = w, b
node("Conv", ["x", const("w_c3", w), const("b_c3", b)], "c3", pads=[1, 1, 1, 1])
node("Relu", ["c3"], "y_conv3_relu")
output("y_conv3_relu", F.relu(F.conv2d(x, t(w), t(b), padding=1)))

# Winograd: 3x3 stride 1 over 16 channels, with a residual (the first
# convolution's output) and Relu.
w, b = rand(16, 16, 3, 3, scale=0.2), rand(16)
node("Conv", ["y_conv3_relu", const("w_wino", w), const("b_wino", b)], "wino", pads=[1, 1, 1, 1])
node("Add", ["wino", "c3"], "wino_res")
node("Relu", ["wino_res"], "y_winograd_residual_relu")
c3 = F.conv2d(x, t(inputs_w_c3), t(inputs_b_c3), padding=1)
output("y_winograd_residual_relu", F.relu(F.conv2d(F.relu(c3), t(w), t(b), padding=1) + c3))

# Max pooling (3x3 stride 2, pads, ceil_mode) and global average pooling.
node("MaxPool", ["x"], "y_maxpool", kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1],
     ceil_mode=1)
output("y_maxpool", F.max_pool2d(x, 3, 2, padding=1, ceil_mode=True))
node("GlobalAveragePool", ["x"], "y_global_avg_pool")
output("y_global_avg_pool", x.mean(dim=(2, 3), keepdim=True))

# Stride 2, asymmetric pads (top 1, left 0, bottom 1, right 1), Sigmoid.
# (10 output channels fill 10/16 of a vector, less than its 7x5 plane fills
# 3 of them: it stays NCHW.)
w, b = rand(10, 8, 3, 3, scale=0.3), rand(10)
node("Conv", ["x", const("w_s2", w), const("b_s2", b)], "s2", pads=[1, 0, 1, 1],
     strides=[2, 2])
node("Sigmoid", ["s2"], "y_conv_s2_sigmoid")
output("y_conv_s2_sigmoid",
       torch.sigmoid(F.conv2d(F.pad(x, (0, 1, 1, 1)), t(w), t(b), stride=2)))

# A small plane: 7x6 pixels fill 3 vectors to 88%, 32 output channels fill
# 2 to 100%, so this one runs channels-last on its own, between transposes.
w, b = rand(32, 8, 3, 3, scale=0.3), rand(32)
node("Conv", ["x", const("w_sp", w), const("b_sp", b)], "sp", pads=[1, 1, 1, 1], strides=[2, 2])
node("Relu", ["sp"], "y_small_plane_relu")
output("y_small_plane_relu", F.relu(F.conv2d(x, t(w), t(b), padding=1, stride=2)))
sp = F.relu(F.conv2d(x, t(w), t(b), padding=1, stride=2))

# On that plane, a 3x3 stride-1 convolution over 32 channels with the
# residual and Relu: channels-last Winograd F(2x2, 3x3).
w, b = rand(32, 32, 3, 3, scale=0.15), rand(32)
node("Conv", ["y_small_plane_relu", const("w_spw", w), const("b_spw", b)], "spw",
     pads=[1, 1, 1, 1])
node("Add", ["spw", "y_small_plane_relu"], "spw_res")
node("Relu", ["spw_res"], "y_small_plane_winograd")
output("y_small_plane_winograd", F.relu(F.conv2d(sp, t(w), t(b), padding=1) + sp))

# 1x1 convolution plus a residual (another 1x1 convolution), HardSwish.
w1, w2, b = rand(20, 8, 1, 1), rand(20, 8, 1, 1), rand(20)
node("Conv", ["x", const("w_p1", w1), const("b_p1", b)], "p1")
node("Conv", ["x", const("w_p2", w2)], "p2")
node("Add", ["p1", "p2"], "p12")
node("HardSwish", ["p12"], "y_conv1x1_residual_hardswish")
output("y_conv1x1_residual_hardswish",
       F.hardswish(F.conv2d(x, t(w1), t(b)) + F.conv2d(x, t(w2))))

# Two groups, dilation 2, LeakyRelu(0.1).
w, b = rand(8, 4, 3, 3, scale=0.3), rand(8)
node("Conv", ["x", const("w_g", w), const("b_g", b)], "g", group=2, dilations=[2, 2],
     pads=[2, 2, 2, 2])
node("LeakyRelu", ["g"], "y_group_dilated_leaky", alpha=0.1)
output("y_group_dilated_leaky",
       F.leaky_relu(F.conv2d(x, t(w), t(b), groups=2, dilation=2, padding=2), 0.1))

# Depthwise 3x3 stride 2, Clip(0, 6); depthwise 5x5 stride 1, Tanh.
w, b = rand(8, 1, 3, 3), rand(8)
node("Conv", ["x", const("w_dw", w), const("b_dw", b)], "dw", group=8, pads=[1, 1, 1, 1],
     strides=[2, 2])
node("Clip", ["dw", const("clip_lo", np.float32(0)), const("clip_hi", np.float32(6))],
     "y_depthwise_s2_relu6")
output("y_depthwise_s2_relu6",
       torch.clamp(F.conv2d(x, t(w), t(b), groups=8, padding=1, stride=2), 0, 6))
w = rand(8, 1, 5, 5, scale=0.3)
node("Conv", ["x", const("w_dw5", w)], "dw5", group=8, pads=[2, 2, 2, 2])
node("Tanh", ["dw5"], "y_depthwise5_tanh")
output("y_depthwise5_tanh", torch.tanh(F.conv2d(x, t(w), groups=8, padding=2)))

# Gemm with transB, alpha, beta and a [1, N] bias; then a M = 1 Gemm.
w, c = rand(29, 37), rand(1, 29)
node("Gemm", ["v", const("w_gemm", w), const("c_gemm", c)], "y_gemm", transB=1, alpha=0.5,
     beta=2.0)
output("y_gemm", 0.5 * t(inputs["v"]) @ t(w).T + 2.0 * t(c))
w, c = rand(300, 130, scale=0.1), rand(130)
node("Gemm", ["u", const("w_gemv", w), const("c_gemv", c)], "gv")
node("Sigmoid", ["gv"], "y_gemv_sigmoid")
output("y_gemv_sigmoid", torch.sigmoid(t(inputs["u"]) @ t(w) + t(c)))

# Rank-3 MatMul with a bias and Relu; LayerNormalization; Softmax.
w, b = rand(24, 40, scale=0.3), rand(40)
node("MatMul", ["s", const("w_mm", w)], "mm")
node("Add", ["mm", const("b_mm", b)], "mmb")
node("Relu", ["mmb"], "y_matmul3_relu")
output("y_matmul3_relu", F.relu(t(inputs["s"]) @ t(w) + t(b)))
gamma, beta = rand(24), rand(24)
node("LayerNormalization", ["s", const("ln_scale", gamma), const("ln_bias", beta)],
     "y_layernorm", axis=-1, epsilon=1e-5)
output("y_layernorm", F.layer_norm(t(inputs["s"]), (24,), t(gamma), t(beta), eps=1e-5))
node("Softmax", ["s"], "y_softmax", axis=-1)
output("y_softmax", torch.softmax(t(inputs["s"]), dim=-1))

# InstanceNormalization (one row per image and channel); SiLU written as
# x * Sigmoid(x) after it (recognized, and with no Conv or MatMul before it
# to take it as an epilogue: the activation kernel).
gamma, beta = rand(8), rand(8)
node("InstanceNormalization", ["x", const("in_scale", gamma), const("in_bias", beta)], "inorm",
     epsilon=1e-5)
node("Sigmoid", ["inorm"], "inorm_sig")
node("Mul", ["inorm", "inorm_sig"], "y_instance_norm_silu")
inorm = F.instance_norm(x, weight=t(gamma), bias=t(beta), eps=1e-5)
output("y_instance_norm_silu", inorm * torch.sigmoid(inorm))

# Attention as exporters write it: MatMul(Q, K^T) * scale + mask, Softmax,
# MatMul with V. The mask hides the last 3 keys of every query.
mask = np.zeros((1, 1, 10, 10), np.float32)
mask[..., 7:] = -1e4
node("Transpose", ["k"], "kt", perm=[0, 1, 3, 2])
node("MatMul", ["q", "kt"], "qk")
node("Mul", ["qk", const("att_scale", np.float32(0.25))], "qks")
node("Add", ["qks", const("att_mask", mask)], "qkm")
node("Softmax", ["qkm"], "p", axis=-1)
node("MatMul", ["p", "w"], "y_attention")
scores = t(inputs["q"]) @ t(inputs["k"]).transpose(-1, -2) * 0.25 + t(mask)
output("y_attention", torch.softmax(scores, dim=-1) @ t(inputs["w"]))

# MatMul of two activations (onnxcc_rt::kernels::matmul): A transposed by a
# Transpose it reads in place, the batch dims of A and B broadcast, a Gemm
# with transA and transB, and B transposed against few rows (the dot
# products of a decode step) and against more (B packed at run time).
node("Transpose", ["a3"], "a3t", perm=[0, 2, 1])
node("MatMul", ["a3t", "b3"], "y_matmul_transposed_a")
output("y_matmul_transposed_a", t(inputs["a3"]).transpose(1, 2) @ t(inputs["b3"]))
node("MatMul", ["ab", "bb"], "y_matmul_broadcast")
output("y_matmul_broadcast", t(inputs["ab"]) @ t(inputs["bb"]))
node("Gemm", ["g1", "g2"], "y_gemm_activations", transA=1, transB=1)
output("y_gemm_activations", t(inputs["g1"]).T @ t(inputs["g2"]).T)
node("Transpose", ["dk"], "dkt", perm=[0, 1, 3, 2])
node("MatMul", ["dq", "dkt"], "y_matmul_dot")
output("y_matmul_dot", t(inputs["dq"]) @ t(inputs["dk"]).transpose(-1, -2))
node("Transpose", ["q"], "qt", perm=[0, 1, 3, 2])
node("MatMul", ["k", "qt"], "y_matmul_packed_b")
output("y_matmul_packed_b", t(inputs["k"]) @ t(inputs["q"]).transpose(-1, -2))

# Whisper's attention over [B, S, H * D] (3 heads of 8, 71 keys: three
# panels and a partial one): Q and K each scaled by D^-1/4, K transposed to
# [B, H, D, S] straight from [B, S, H, D], a padding mask [B, 1, 1, S] as
# BERT writes it (0 or -10000), and the heads merged back.
wq, wk, wv = rand(24, 24, scale=0.3), rand(24, 24, scale=0.3), rand(24, 24, scale=0.3)
hscale = np.float32(8 ** -0.25)
shape4 = const("hx_shape4", np.array([2, 71, 3, 8], np.int64))
node("MatMul", ["hx", const("hx_wq", wq)], "hq0")
node("Reshape", ["hq0", shape4], "hq1")
node("Transpose", ["hq1"], "hq2", perm=[0, 2, 1, 3])
node("Mul", ["hq2", const("hx_scale_q", hscale)], "hq3")
node("MatMul", ["hx", const("hx_wk", wk)], "hk0")
node("Reshape", ["hk0", shape4], "hk1")
node("Transpose", ["hk1"], "hk2", perm=[0, 2, 3, 1])
node("Mul", ["hk2", const("hx_scale_k", hscale)], "hk3")
node("MatMul", ["hx", const("hx_wv", wv)], "hv0")
node("Reshape", ["hv0", shape4], "hv1")
node("Transpose", ["hv1"], "hv2", perm=[0, 2, 1, 3])
node("MatMul", ["hq3", "hk3"], "hs")
node("Unsqueeze", ["hm", const("hm_axes", np.array([1, 2], np.int64))], "hm4")
node("Greater", ["hm4", const("hm_zero", np.float32(0))], "hm_keep")
node("Where", ["hm_keep", const("hm_open", np.float32(0)), const("hm_shut", np.float32(-1e4))],
     "hm_add")
node("Add", ["hs", "hm_add"], "hsm")
node("Softmax", ["hsm"], "hp", axis=-1)
node("MatMul", ["hp", "hv2"], "ho")
node("Transpose", ["ho"], "ho2", perm=[0, 2, 1, 3])
node("Reshape", ["ho2", const("hx_shape3", np.array([2, 71, 24], np.int64))],
     "y_attention_whisper")
hx = t(inputs["hx"])
hq = (hx @ t(wq)).reshape(2, 71, 3, 8).permute(0, 2, 1, 3) * float(hscale)
hk = (hx @ t(wk)).reshape(2, 71, 3, 8).permute(0, 2, 3, 1) * float(hscale)
hv = (hx @ t(wv)).reshape(2, 71, 3, 8).permute(0, 2, 1, 3)
hmask = torch.where(t(inputs["hm"])[:, None, None, :] > 0, 0.0, -1e4)
hattn = torch.softmax(hq @ hk + hmask, dim=-1) @ hv
output("y_attention_whisper", hattn.permute(0, 2, 1, 3).reshape(2, 71, 24))

# Conv1d (conv2d with a height of 1): stride 2, pads, dilation 2, two
# groups, GELU-free Relu; depthwise Conv1d; Conv3d (im2col over the depth).
w, b = rand(8, 3, 5, scale=0.3), rand(8)
node("Conv", ["c1", const("w_c1", w), const("b_c1", b)], "c1c", strides=[2], pads=[3, 1],
     dilations=[2], group=2)
node("Relu", ["c1c"], "y_conv1d_relu")
c1 = t(inputs["c1"])
output("y_conv1d_relu", F.relu(F.conv1d(F.pad(c1, (3, 1)), t(w), t(b), stride=2, dilation=2,
                                        groups=2)))
w = rand(6, 1, 3, scale=0.5)
node("Conv", ["c1", const("w_c1dw", w)], "y_conv1d_depthwise", pads=[1, 1], group=6)
output("y_conv1d_depthwise", F.conv1d(c1, t(w), padding=1, groups=6))
w, b = rand(5, 4, 3, 2, 3, scale=0.3), rand(5)
node("Conv", ["c3d", const("w_c3d", w), const("b_c3d", b)], "y_conv3d",
     strides=[1, 2, 1], pads=[1, 0, 1, 1, 1, 0])
output("y_conv3d", F.conv3d(F.pad(t(inputs["c3d"]), (1, 0, 0, 1, 1, 1)), t(w), t(b),
                            stride=(1, 2, 1)))

# ConvTranspose: 2-D stride 2 with pads, output_padding, dilation and two
# groups; 1-D stride 3; 3-D over a depth of 1 (a UNet's upsampling 2x2,
# stride 2).
ct = t(inputs["ct"])
w, b = rand(6, 4, 3, 3, scale=0.3), rand(8)
node("ConvTranspose", ["ct", const("w_ct2", w), const("b_ct2", b)], "y_conv_transpose2d",
     strides=[2, 2], pads=[1, 0, 0, 1], output_padding=[1, 0], dilations=[1, 2], group=2)
full = F.conv_transpose2d(ct, t(w), t(b), stride=2, output_padding=(1, 0), dilation=(1, 2),
                          groups=2)
output("y_conv_transpose2d", full[:, :, 1:full.shape[2] - 0, 0:full.shape[3] - 1])
w = rand(6, 3, 4, scale=0.3)
node("ConvTranspose", ["c1", const("w_ct1", w)], "y_conv_transpose1d", strides=[3])
output("y_conv_transpose1d", F.conv_transpose1d(c1, t(w), stride=3))
w, b = rand(4, 3, 1, 2, 2, scale=0.3), rand(3)
node("ConvTranspose", ["c3d", const("w_ct3", w), const("b_ct3", b)], "y_conv_transpose3d",
     strides=[1, 2, 2])
output("y_conv_transpose3d", F.conv_transpose3d(t(inputs["c3d"]), t(w), t(b), stride=(1, 2, 2)))

# Weights that only folding makes constant (issue 39): a float16 weight
# cast to float32 and scaled, and a ConstantOfShape weight; they take the
# packed kernels like initializers.
wh = rand(16, 8, 3, 3, scale=0.3).astype(np.float16)
node("Cast", [const("w_half", wh)], "w_half32", to=TensorProto.FLOAT)
node("Mul", ["w_half32", const("w_half_scale", np.float32(0.5))], "w_half_scaled")
node("Conv", ["x", "w_half_scaled"], "y_conv_folded_weights", pads=[1, 1, 1, 1])
output("y_conv_folded_weights", F.conv2d(x, t(wh.astype(np.float32)) * 0.5, padding=1))
node("ConstantOfShape", [const("w_cos_shape", np.array([37, 12], np.int64))], "w_cos",
     value=numpy_helper.from_array(np.array([0.125], np.float32)))
node("MatMul", ["v", "w_cos"], "y_matmul_constant_of_shape")
output("y_matmul_constant_of_shape", t(inputs["v"]) @ torch.full((37, 12), 0.125,
                                                                 dtype=torch.float64))

graph = helper.make_graph(
    nodes, "kernels",
    [helper.make_tensor_value_info(n, TensorProto.FLOAT, list(a.shape))
     for n, a in inputs.items()],
    outputs, inits)
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)],
                          producer_name="kernels-model.py")
model.ir_version = 8
onnx.checker.check_model(model)
os.makedirs(os.path.join(out, "test", "test_data_set_0"), exist_ok=True)
onnx.save(model, os.path.join(out, "kernels.onnx"))
data = os.path.join(out, "test", "test_data_set_0")
for i, (n, a) in enumerate(inputs.items()):
    with open(os.path.join(data, f"input_{i}.pb"), "wb") as f:
        f.write(numpy_helper.from_array(a, n).SerializeToString())
for i, o in enumerate(outputs):
    with open(os.path.join(data, f"output_{i}.pb"), "wb") as f:
        f.write(numpy_helper.from_array(expected[o.name], o.name).SerializeToString())
