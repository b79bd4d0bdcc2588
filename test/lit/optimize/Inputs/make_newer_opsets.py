#!/usr/bin/python3
"""Writes models of opsets 13 to 27 whose nodes or types changed after opset
17, for the check that `onnxcc optimize` writes each at the opset it was read
at (or the first that has what it holds) and that ONNX Runtime computes the
same from it. onnx here is 1.12: the newer ops and types are written by
number, without its checker.

usage: make_newer_opsets.py OUT_DIR
"""
import os
import sys

import numpy as np
from onnx import TensorProto, helper, save

FLOAT8E4M3FN, INT4 = 17, 22


def model(name, opset, nodes, inputs, outputs, inits=(), ir=None):
    graph = helper.make_graph(nodes, name, inputs, outputs, list(inits))
    ir_version = ir or {13: 7, 19: 9, 20: 9, 21: 10, 23: 11, 27: 13}[opset]
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)],
                          ir_version=ir_version)
    return m


def t(name, elem, shape):
    return helper.make_tensor_value_info(name, elem, shape)


def float_init(name, values):
    values = np.asarray(values, dtype=np.float32)
    return helper.make_tensor(name, TensorProto.FLOAT, values.shape, values.ravel().tolist())


def main():
    out = sys.argv[1]
    rng = np.random.RandomState(0)
    models = {}

    # Opset 23: RMSNormalization and Attention (3-D, grouped heads, causal),
    # ReduceMean with its axes as an input (opset 18) and Split with
    # num_outputs (opset 18).
    models["transformer-23"] = model("transformer", 23, [
        helper.make_node("RMSNormalization", ["x", "gamma"], ["n"], axis=-1, epsilon=1e-5),
        helper.make_node("MatMul", ["n", "wqkv"], ["qkv"]),
        helper.make_node("Split", ["qkv"], ["q", "k", "v"], axis=2, num_outputs=3),
        helper.make_node("Attention", ["q", "k", "v"], ["a"], q_num_heads=4, kv_num_heads=4,
                         is_causal=1),
        helper.make_node("ReduceMean", ["a", "axes"], ["y"], keepdims=1),
    ], [t("x", TensorProto.FLOAT, [2, 5, 8]), t("axes", TensorProto.INT64, [1])],
        [t("y", TensorProto.FLOAT, None)],
        [float_init("gamma", rng.uniform(0.5, 1.5, 8)),
         float_init("wqkv", rng.uniform(-0.5, 0.5, (8, 24)))])

    # Opset 21: int4 weights quantized in blocks of 4 along K, dequantized
    # before a MatMul.
    w = rng.randint(-8, 8, size=(8, 6)).astype(np.int8)
    packed = bytearray()
    flat = w.ravel()
    for i in range(0, flat.size, 2):
        lo = int(flat[i]) & 0xF
        hi = (int(flat[i + 1]) & 0xF) if i + 1 < flat.size else 0
        packed.append(lo | (hi << 4))
    wq = TensorProto()
    wq.name, wq.data_type = "wq", INT4
    wq.dims.extend(w.shape)
    wq.raw_data = bytes(packed)
    models["int4-21"] = model("int4", 21, [
        helper.make_node("DequantizeLinear", ["wq", "scale"], ["wf"], axis=0, block_size=4),
        helper.make_node("MatMul", ["x", "wf"], ["y"]),
    ], [t("x", TensorProto.FLOAT, [3, 8])], [t("y", TensorProto.FLOAT, [3, 6])],
        [wq, float_init("scale", rng.uniform(0.01, 0.1, (2, 6)))])

    # Opset 20: DFT with its axis as an input, GridSample with mode linear.
    models["signal-20"] = model("signal", 20, [
        helper.make_node("DFT", ["x", "", "axis"], ["y"], onesided=1),
        helper.make_node("GridSample", ["img", "grid"], ["z"], mode="linear",
                         align_corners=1),
    ], [t("x", TensorProto.FLOAT, [2, 8, 1]), t("img", TensorProto.FLOAT, [1, 2, 4, 5]),
        t("grid", TensorProto.FLOAT, [1, 3, 3, 2])],
        [t("y", TensorProto.FLOAT, [2, 5, 2]), t("z", TensorProto.FLOAT, [1, 2, 3, 3])],
        [helper.make_tensor("axis", TensorProto.INT64, [], [1])])

    # Opset 19: a round trip through float8 without saturation.
    models["float8-19"] = model("float8", 19, [
        helper.make_node("Cast", ["x"], ["f8"], to=FLOAT8E4M3FN, saturate=0),
        helper.make_node("Cast", ["f8"], ["y"], to=TensorProto.FLOAT),
    ], [t("x", TensorProto.FLOAT, [4, 4])], [t("y", TensorProto.FLOAT, [4, 4])])

    # Opset 13, with a ReduceMean of constant axes: written at opset 17.
    models["old-13"] = model("old", 13, [
        helper.make_node("ReduceMean", ["x"], ["m"], axes=[1], keepdims=1),
        helper.make_node("Sub", ["x", "m"], ["y"]),
    ], [t("x", TensorProto.FLOAT, [3, 4])], [t("y", TensorProto.FLOAT, [3, 4])])

    for name, m in models.items():
        save(m, os.path.join(out, name + ".onnx"))


if __name__ == "__main__":
    main()
