"""Writes a small decoder block built from the transformer ops of opset 23
and one dataset of random inputs (the expected outputs are ONNX Runtime's:
the test runs test/difftest/ort_run.js on the dataset).

Usage: transformer-block-model.py OUT_DIR

Block A (3-D, GQA, KV cache):
  n       = RMSNormalization(x, w_norm)                        axis -1
  q, k, v = MatMul(n, Wq / Wk / Wv)                            4 query, 2 kv heads
  qr, kr  = RotaryEmbedding(q / k, cos, sin, position_ids)    3-D, num_heads
  y, present_key, present_value = Attention(qr, kr, v, -, past_key, past_value,
                                            is_causal=1)
  out     = MatMul(y, Wo) + x
Block B (4-D):
  rb      = RotaryEmbedding(q4, cos_b, sin_b)                  interleaved, dim 4,
                                                               caches per token
  y4, qk  = Attention(rb, k4, v4, bool mask, softcap 2.5,
                      qk_matmul_output_mode 3)
  m       = RMSNormalization(y4, w4, axis=2, epsilon=1e-3)

OUT_DIR gets model.onnx and test/test_data_set_0/input_K.pb.
"""
import os
import sys

import numpy as np
from onnx import TensorProto, helper, numpy_helper

out = sys.argv[1]
data = os.path.join(out, "test", "test_data_set_0")
os.makedirs(data, exist_ok=True)
rng = np.random.default_rng(23)
B, S, P, HQ, HKV, D = 2, 5, 3, 4, 2, 8
H = HQ * D


def rand(*shape, scale=1.0):
    return (rng.standard_normal(shape) * scale).astype(np.float32)


inputs = {
    "x": rand(B, S, H),
    "position_ids": np.array([[3, 4, 5, 6, 7], [3, 4, 5, 6, 7]], dtype=np.int64),
    "past_key": rand(B, HKV, P, D),
    "past_value": rand(B, HKV, P, D),
    "q4": rand(B, 3, 4, 6),
    "k4": rand(B, 3, 7, 6),
    "v4": rand(B, 3, 7, 5),
    "mask": rng.uniform(size=(B, 1, 4, 7)) > 0.3,
}
inputs["mask"][1, 0, 2, :] = False  # one fully masked row
angles = np.arange(16)[:, None] / (10000.0 ** (np.arange(D // 2)[None, :] / (D // 2)))
angles_b = rng.uniform(0, 6, (B, 4, 2))
inits = {
    "w_norm": rand(H, scale=0.5) + 1,
    "Wq": rand(H, HQ * D, scale=0.2),
    "Wk": rand(H, HKV * D, scale=0.2),
    "Wv": rand(H, HKV * D, scale=0.2),
    "Wo": rand(H, H, scale=0.2),
    "cos": np.cos(angles).astype(np.float32),
    "sin": np.sin(angles).astype(np.float32),
    "cos_b": np.cos(angles_b).astype(np.float32),
    "sin_b": np.sin(angles_b).astype(np.float32),
    "w4": rand(1, 5, scale=0.5) + 1,
}

nodes = [
    helper.make_node("RMSNormalization", ["x", "w_norm"], ["n"]),
    helper.make_node("MatMul", ["n", "Wq"], ["q"]),
    helper.make_node("MatMul", ["n", "Wk"], ["k"]),
    helper.make_node("MatMul", ["n", "Wv"], ["v"]),
    helper.make_node("RotaryEmbedding", ["q", "cos", "sin", "position_ids"], ["qr"],
                     num_heads=HQ),
    helper.make_node("RotaryEmbedding", ["k", "cos", "sin", "position_ids"], ["kr"],
                     num_heads=HKV),
    helper.make_node("Attention", ["qr", "kr", "v", "", "past_key", "past_value"],
                     ["y", "present_key", "present_value"], is_causal=1,
                     q_num_heads=HQ, kv_num_heads=HKV),
    helper.make_node("MatMul", ["y", "Wo"], ["yo"]),
    helper.make_node("Add", ["yo", "x"], ["out"]),
    helper.make_node("RotaryEmbedding", ["q4", "cos_b", "sin_b"], ["rb"], interleaved=1,
                     rotary_embedding_dim=4),
    helper.make_node("Attention", ["rb", "k4", "v4", "mask"], ["y4", "", "", "qk"],
                     softcap=2.5, qk_matmul_output_mode=3),
    helper.make_node("RMSNormalization", ["y4", "w4"], ["m"], axis=2, epsilon=1e-3),
]


def info(name, elem, shape):
    return helper.make_tensor_value_info(name, elem, list(shape))


graph = helper.make_graph(
    nodes, "transformer_block",
    [info(n, TensorProto.BOOL if a.dtype == np.bool_ else
          TensorProto.INT64 if a.dtype == np.int64 else TensorProto.FLOAT, a.shape)
     for n, a in inputs.items()],
    [info("out", TensorProto.FLOAT, (B, S, H)),
     info("present_key", TensorProto.FLOAT, (B, HKV, P + S, D)),
     info("present_value", TensorProto.FLOAT, (B, HKV, P + S, D)),
     info("m", TensorProto.FLOAT, (B, 3, 4, 5)),
     info("qk", TensorProto.FLOAT, (B, 3, 4, 7))],
    [numpy_helper.from_array(a, n) for n, a in inits.items()])
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 23)])
model.ir_version = 10
with open(os.path.join(out, "model.onnx"), "wb") as f:
    f.write(model.SerializeToString())
for i, (n, a) in enumerate(inputs.items()):
    with open(os.path.join(data, "input_%d.pb" % i), "wb") as f:
        f.write(numpy_helper.from_array(a, n).SerializeToString())
