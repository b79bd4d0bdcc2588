"""Writes one model per op whose result dims come from the values of an
operand given at run time (Reshape's shape, Slice's starts/ends, TopK's K,
Expand's shape, Tile's repeats, ConstantOfShape's shape, OneHot's depth,
Pad's pads, Range's limit), each with the result shape declared static as
exporters write it, and two datasets with NumPy's results: `match/`, whose
values give the declared dims, and `other/`, whose values give other dims.

Usage: runtime-shape-operands-model.py OUT_DIR
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto as T
from onnx import helper as h
from onnx import numpy_helper as nh

out = sys.argv[1]


def info(name, elem, shape):
    return h.make_tensor_value_info(name, elem, shape)


def dataset(folder, feeds, refs):
    os.makedirs(os.path.join(folder, "test_data_set_0"), exist_ok=True)
    for i, (name, value) in enumerate(feeds):
        with open(os.path.join(folder, "test_data_set_0", f"input_{i}.pb"), "wb") as f:
            f.write(nh.from_array(value, name).SerializeToString())
    for i, (name, value) in enumerate(refs):
        with open(os.path.join(folder, "test_data_set_0", f"output_{i}.pb"), "wb") as f:
            f.write(nh.from_array(value, name).SerializeToString())


def model(name, node, inputs, outputs, match, other, opset=18, check=True):
    """match/other: (feeds, refs) pairs of (name, array) lists."""
    graph = h.make_graph([node], name, inputs, outputs)
    m = h.make_model(graph, opset_imports=[h.make_opsetid("", opset)])
    # (onnx 1.12, the one of Debian 12, knows neither DFT-20, AffineGrid nor
    # Col2Im.)
    if check and opset < 20:
        onnx.checker.check_model(m)
    os.makedirs(os.path.join(out, name), exist_ok=True)
    onnx.save(m, os.path.join(out, name, "model.onnx"))
    dataset(os.path.join(out, name, "match"), *match)
    dataset(os.path.join(out, name, "other"), *other)


rng = np.random.RandomState(7)
x = rng.rand(4, 6).astype(np.float32)
i64 = lambda *v: np.array(v, dtype=np.int64)

model("slice", h.make_node("Slice", ["x", "starts", "ends", "axes"], ["y"]),
      [info("x", T.FLOAT, [4, 6]), info("starts", T.INT64, [1]), info("ends", T.INT64, [1]),
       info("axes", T.INT64, [1])], [info("y", T.FLOAT, [4, 2])],
      ([("x", x), ("starts", i64(1)), ("ends", i64(3)), ("axes", i64(1))], [("y", x[:, 1:3])]),
      ([("x", x), ("starts", i64(0)), ("ends", i64(5)), ("axes", i64(1))], [("y", x[:, 0:5])]))

order = np.argsort(-x, axis=1, kind="stable")
model("topk", h.make_node("TopK", ["x", "k"], ["values", "indices"]),
      [info("x", T.FLOAT, [4, 6]), info("k", T.INT64, [1])],
      [info("values", T.FLOAT, [4, 2]), info("indices", T.INT64, [4, 2])],
      ([("x", x), ("k", i64(2))],
       [("values", np.take_along_axis(x, order[:, :2], 1)), ("indices", order[:, :2])]),
      ([("x", x), ("k", i64(4))],
       [("values", np.take_along_axis(x, order[:, :4], 1)), ("indices", order[:, :4])]))

model("reshape", h.make_node("Reshape", ["x", "shape"], ["y"]),
      [info("x", T.FLOAT, [4, 6]), info("shape", T.INT64, [2])], [info("y", T.FLOAT, [6, 4])],
      ([("x", x), ("shape", i64(-1, 4))], [("y", x.reshape(6, 4))]),
      ([("x", x), ("shape", i64(3, 8))], [("y", x.reshape(3, 8))]))

# The declared result has the input's shape: not a no-op for every target.
model("reshape_same", h.make_node("Reshape", ["x", "shape"], ["y"]),
      [info("x", T.FLOAT, [4, 6]), info("shape", T.INT64, [2])], [info("y", T.FLOAT, [4, 6])],
      ([("x", x), ("shape", i64(4, -1))], [("y", x)]),
      ([("x", x), ("shape", i64(6, 4))], [("y", x.reshape(6, 4))]))

col = x[:, :1].copy()
model("expand", h.make_node("Expand", ["x", "shape"], ["y"]),
      [info("x", T.FLOAT, [4, 1]), info("shape", T.INT64, [2])], [info("y", T.FLOAT, [4, 3])],
      ([("x", col), ("shape", i64(1, 3))], [("y", np.broadcast_to(col, (4, 3)).copy())]),
      ([("x", col), ("shape", i64(4, 5))], [("y", np.broadcast_to(col, (4, 5)).copy())]))

model("tile", h.make_node("Tile", ["x", "repeats"], ["y"]),
      [info("x", T.FLOAT, [4, 6]), info("repeats", T.INT64, [2])], [info("y", T.FLOAT, [4, 12])],
      ([("x", x), ("repeats", i64(1, 2))], [("y", np.tile(x, (1, 2)))]),
      ([("x", x), ("repeats", i64(1, 3))], [("y", np.tile(x, (1, 3)))]))

model("constant_of_shape",
      h.make_node("ConstantOfShape", ["shape"], ["y"],
                  value=nh.from_array(np.array([2.5], np.float32))),
      [info("shape", T.INT64, [2])], [info("y", T.FLOAT, [2, 3])],
      ([("shape", i64(2, 3))], [("y", np.full((2, 3), 2.5, np.float32))]),
      ([("shape", i64(3, 3))], [("y", np.full((3, 3), 2.5, np.float32))]))

hot = i64(0, 3, 1)
model("onehot", h.make_node("OneHot", ["indices", "depth", "values"], ["y"]),
      [info("indices", T.INT64, [3]), info("depth", T.FLOAT, [1]), info("values", T.FLOAT, [2])],
      [info("y", T.FLOAT, [3, 4])],
      ([("indices", hot), ("depth", np.array([4], np.float32)), ("values", np.array([0, 1], np.float32))],
       [("y", np.eye(4, dtype=np.float32)[hot])]),
      ([("indices", hot), ("depth", np.array([5], np.float32)), ("values", np.array([0, 1], np.float32))],
       [("y", np.eye(5, dtype=np.float32)[hot])]))

model("pad", h.make_node("Pad", ["x", "pads"], ["y"]),
      [info("x", T.FLOAT, [4, 6]), info("pads", T.INT64, [4])], [info("y", T.FLOAT, [5, 6])],
      ([("x", x), ("pads", i64(1, 1, 0, -1))], [("y", np.pad(x, ((1, 0), (1, 0)))[:, :6])]),
      ([("x", x), ("pads", i64(0, 0, 2, 1))], [("y", np.pad(x, ((0, 2), (0, 1))))]))

f32 = lambda v: np.array(v, dtype=np.float32)
model("range", h.make_node("Range", ["start", "limit", "delta"], ["y"]),
      [info("start", T.FLOAT, []), info("limit", T.FLOAT, []), info("delta", T.FLOAT, [])],
      [info("y", T.FLOAT, [3])],
      ([("start", f32(1)), ("limit", f32(2.5)), ("delta", f32(0.5))],
       [("y", np.arange(1, 2.5, 0.5, dtype=np.float32))]),
      ([("start", f32(0)), ("limit", f32(5)), ("delta", f32(1))],
       [("y", np.arange(0, 5, 1, dtype=np.float32))]))

# The same with one-element [1] operands, which ONNX Runtime takes as scalars.
model("range_1", h.make_node("Range", ["start", "limit", "delta"], ["y"]),
      [info("start", T.FLOAT, [1]), info("limit", T.FLOAT, [1]), info("delta", T.FLOAT, [1])],
      [info("y", T.FLOAT, [4])],
      ([("start", f32([1])), ("limit", f32([3])), ("delta", f32([0.5]))],
       [("y", np.arange(1, 3, 0.5, dtype=np.float32))]),
      ([("start", f32([0])), ("limit", f32([5])), ("delta", f32([1]))],
       [("y", np.arange(0, 5, 1, dtype=np.float32))]))

# A one-sided DFT whose axis comes at run time: the declared [1, 6, 8, 2]
# says axis 1 (or -3); axis 2 would give [1, 10, 5, 2].
signal = rng.rand(1, 10, 8, 1).astype(np.float32)
def rfft(axis):
    spectrum = np.fft.rfft(signal[..., 0].astype(np.float64), axis=axis)
    return np.stack([spectrum.real, spectrum.imag], axis=-1).astype(np.float32)
model("dft", h.make_node("DFT", ["x", "", "axis"], ["y"], onesided=1),
      [info("x", T.FLOAT, [1, 10, 8, 1]), info("axis", T.INT64, [])], [info("y", T.FLOAT, [1, 6, 8, 2])],
      ([("x", signal), ("axis", np.array(-3, np.int64))], [("y", rfft(1))]),
      ([("x", signal), ("axis", np.array(2, np.int64))], [("y", rfft(2))]), opset=20)

# AffineGrid whose size comes at run time: the declared [2, 5, 6, 2] gives
# the grid; a size of another H makes run() return 9 (C is free).
theta = rng.rand(2, 2, 3).astype(np.float32)
def affine_grid(h_, w_):
    ys = (2 * np.arange(h_) + 1) / h_ - 1
    xs = (2 * np.arange(w_) + 1) / w_ - 1
    base = np.stack([np.tile(xs, h_), np.repeat(ys, w_), np.ones(h_ * w_)], axis=1)
    return (base @ theta.astype(np.float64).transpose(0, 2, 1)).reshape(2, h_, w_, 2).astype(np.float32)
model("affine_grid", h.make_node("AffineGrid", ["theta", "size"], ["grid"]),
      [info("theta", T.FLOAT, [2, 2, 3]), info("size", T.INT64, [4])],
      [info("grid", T.FLOAT, [2, 5, 6, 2])],
      ([("theta", theta), ("size", i64(2, 7, 5, 6))], [("grid", affine_grid(5, 6))]),
      ([("theta", theta), ("size", i64(2, 7, 4, 6))], [("grid", affine_grid(4, 6))]), opset=20)

# Col2Im whose image_shape and block_shape come at run time: the declared
# [1, 1, 5, 5] leaves the blocks [1, 5] and [5, 1] for the input [1, 5, 5],
# and the run's block_shape picks one; an image_shape of [1, 9] or [9, 1]
# (a valid Col2Im of that input too) makes run() return 9.
cols = rng.rand(1, 5, 5).astype(np.float32)
def col2im(image, block):
    k = block[0] * block[1]
    counts = (image[0] - block[0] + 1, image[1] - block[1] + 1)
    out = np.zeros((1, 1) + tuple(image), np.float32)
    for i in range(block[0]):
        for j in range(block[1]):
            for bi in range(counts[0]):
                for bj in range(counts[1]):
                    out[0, 0, bi + i, bj + j] += cols[0, i * block[1] + j, bi * counts[1] + bj]
    return out
for name, block, other in (("col2im", (1, 5), (1, 9)), ("col2im_other_block", (5, 1), (9, 1))):
    model(name, h.make_node("Col2Im", ["x", "image_shape", "block_shape"], ["y"]),
          [info("x", T.FLOAT, [1, 5, 5]), info("image_shape", T.INT64, [2]),
           info("block_shape", T.INT64, [2])], [info("y", T.FLOAT, [1, 1, 5, 5])],
          ([("x", cols), ("image_shape", i64(5, 5)), ("block_shape", i64(*block))],
           [("y", col2im((5, 5), block))]),
          ([("x", cols), ("image_shape", i64(*other)), ("block_shape", i64(*block))],
           [("y", col2im(other, block))]), check=False)

# The same Slice and TopK with the dim left to the run (a dim_param where the
# values decide it): one compiled model for each of the datasets, whose
# results have different sizes.


def model_data(name, node, inputs, outputs, datasets):
    graph = h.make_graph([node], name, inputs, outputs)
    m = h.make_model(graph, opset_imports=[h.make_opsetid("", 18)])
    onnx.checker.check_model(m)
    os.makedirs(os.path.join(out, name), exist_ok=True)
    onnx.save(m, os.path.join(out, name, "model.onnx"))
    for k, (feeds, refs) in enumerate(datasets):
        folder = os.path.join(out, name, "data")
        os.makedirs(os.path.join(folder, "test_data_set_%d" % k), exist_ok=True)
        for i, (n, v) in enumerate(feeds):
            with open(os.path.join(folder, "test_data_set_%d" % k, f"input_{i}.pb"), "wb") as f:
                f.write(nh.from_array(v, n).SerializeToString())
        for i, (n, v) in enumerate(refs):
            with open(os.path.join(folder, "test_data_set_%d" % k, f"output_{i}.pb"), "wb") as f:
                f.write(nh.from_array(v, n).SerializeToString())


model_data("slice_data", h.make_node("Slice", ["x", "starts", "ends"], ["y"]),
           [info("x", T.FLOAT, [4, 6]), info("starts", T.INT64, [2]), info("ends", T.INT64, [2])],
           [info("y", T.FLOAT, ["rows", "cols"])],
           [([("x", x), ("starts", i64(1, 1)), ("ends", i64(3, 3))], [("y", x[1:3, 1:3])]),
            ([("x", x), ("starts", i64(0, -4)), ("ends", i64(9, 6))], [("y", x[0:9, -4:6])]),
            ([("x", x), ("starts", i64(2, 5)), ("ends", i64(2, 1))], [("y", x[2:2, 5:1])])])
model_data("topk_data", h.make_node("TopK", ["x", "k"], ["values", "indices"]),
           [info("x", T.FLOAT, [4, 6]), info("k", T.INT64, [1])],
           [info("values", T.FLOAT, [4, "k"]), info("indices", T.INT64, [4, "k"])],
           [([("x", x), ("k", i64(k))],
             [("values", np.take_along_axis(x, order[:, :k], 1)), ("indices", order[:, :k])])
            for k in (2, 6, 0)])
