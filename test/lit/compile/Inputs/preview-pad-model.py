"""Writes models with cases the ONNX 1.23 node tests lack, each with a
numpy-computed reference (written here, independently of onnxcc):

  flex/   FlexAttention (ai.onnx.preview 1) over float Q with grouped K/V
          heads, softmax_precision double, a scale and a score_mod graph;
  pad/    Pad 18 in reflect mode with `axes` given at run time (negative).
  bad/    FlexAttention whose score_mod reads a value of the enclosing graph.

Usage: preview-pad-model.py OUT_DIR
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper


def save(folder, model, inputs, outputs):
    os.makedirs(os.path.join(folder, "test", "test_data_set_0"), exist_ok=True)
    onnx.save(model, os.path.join(folder, "model.onnx"))
    for kind, values in (("input", inputs), ("output", outputs)):
        for i, v in enumerate(values):
            path = os.path.join(folder, "test", "test_data_set_0", "%s_%d.pb" % (kind, i))
            with open(path, "wb") as f:
                f.write(numpy_helper.from_array(v).SerializeToString())


def flex(out, bad=False):
    rng = np.random.default_rng(7)
    b, hq, hkv, l, s, d, dv = 2, 4, 2, 3, 5, 6, 7
    q = rng.standard_normal((b, hq, l, d)).astype(np.float32)
    k = rng.standard_normal((b, hkv, s, d)).astype(np.float32)
    v = rng.standard_normal((b, hkv, s, dv)).astype(np.float32)
    scale = 0.3
    # score_mod: scores * 0.5 - 1 (or, `bad`, + a value of the main graph).
    bias = numpy_helper.from_array(np.array(-1.0, np.float64), "bias")
    half = numpy_helper.from_array(np.array(0.5, np.float64), "half")
    mod = helper.make_graph(
        [helper.make_node("Mul", ["scores", "half"], ["m"]),
         helper.make_node("Add", ["m", "outer" if bad else "bias"], ["scores_out"])],
        "score_mod",
        [helper.make_tensor_value_info("scores", TensorProto.DOUBLE, None)],
        [helper.make_tensor_value_info("scores_out", TensorProto.DOUBLE, None)],
        [bias, half])
    nodes = [helper.make_node("FlexAttention", ["Q", "K", "V"], ["Y"], domain="ai.onnx.preview",
                              scale=scale, softmax_precision=TensorProto.DOUBLE,
                              score_mod=mod)]
    if bad:
        nodes.insert(0, helper.make_node("Constant", [], ["outer"],
                                         value=numpy_helper.from_array(np.array(1.0))))
    graph = helper.make_graph(
        nodes, "flex",
        [helper.make_tensor_value_info("Q", TensorProto.FLOAT, q.shape),
         helper.make_tensor_value_info("K", TensorProto.FLOAT, k.shape),
         helper.make_tensor_value_info("V", TensorProto.FLOAT, v.shape)],
        [helper.make_tensor_value_info("Y", TensorProto.FLOAT, (b, hq, l, dv))])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 26),
                                                    helper.make_opsetid("ai.onnx.preview", 1)])
    model.ir_version = 10
    # Reference in float64: K/V head h // (hq / hkv) serves Q head h.
    rep = hq // hkv
    kk = np.repeat(k.astype(np.float64), rep, axis=1)
    vv = np.repeat(v.astype(np.float64), rep, axis=1)
    scores = q.astype(np.float64) @ kk.transpose(0, 1, 3, 2) * scale
    scores = scores * 0.5 - 1.0
    p = np.exp(scores - scores.max(-1, keepdims=True))
    p /= p.sum(-1, keepdims=True)
    y = (p @ vv).astype(np.float32)
    save(out, model, [q, k, v], [y])


def pad(out):
    x = np.arange(2 * 3 * 4, dtype=np.float32).reshape(2, 3, 4)
    pads = np.array([2, 0, 1, 1], np.int64)  # begins for axes, then ends
    axes = np.array([-1, 0], np.int64)
    graph = helper.make_graph(
        [helper.make_node("Pad", ["x", "pads", "", "axes"], ["y"], mode="reflect")], "pad",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, x.shape),
         helper.make_tensor_value_info("pads", TensorProto.INT64, (4,)),
         helper.make_tensor_value_info("axes", TensorProto.INT64, (2,))],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, (3, 3, 7))])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 19)])
    model.ir_version = 9
    y = np.pad(x, ((0, 1), (0, 0), (2, 1)), mode="reflect")
    save(out, model, [x, pads, axes], [y])


flex(os.path.join(sys.argv[1], "flex"))
flex(os.path.join(sys.argv[1], "bad"), bad=True)
pad(os.path.join(sys.argv[1], "pad"))
