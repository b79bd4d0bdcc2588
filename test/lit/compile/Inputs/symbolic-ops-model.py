"""Writes small models whose inputs have symbolic dims (dim_params) for the
ops that lower them without fixing the dims: Concat, Split, Pad, Expand,
BatchNormalization, InstanceNormalization, Resize, Trilu, GlobalMaxPool,
ArgMin/ArgMax and TopK. Each model gets
datasets at several values of its symbols (0 included where the op allows
it), with expected outputs computed with numpy here.

Usage: symbolic-ops-model.py OUT_DIR

OUT_DIR gets NAME.onnx and NAME/test_data_set_K/{input,output}_K.pb for each
NAME below.
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

out = sys.argv[1]
rng = np.random.default_rng(7)
F = TensorProto.FLOAT


def const(name, values, dtype=np.int64):
    return numpy_helper.from_array(np.asarray(values, dtype=dtype), name)


def save(name, nodes, inputs, outputs, inits, datasets, opset=13):
    # Outputs of known rank and unknown dims, as shape inference sees them.
    outputs = [helper.make_tensor_value_info(o.name, o.type.tensor_type.elem_type,
                                             [None] * v.ndim)
               for o, v in zip(outputs, datasets[0][1])]
    graph = helper.make_graph(nodes, name, inputs, outputs, inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    onnx.checker.check_model(model)
    onnx.save(model, os.path.join(out, name + ".onnx"))
    for k, (ins, outs) in enumerate(datasets):
        data = os.path.join(out, name, f"test_data_set_{k}")
        os.makedirs(data, exist_ok=True)
        for kind, values, infos in (("input", ins, inputs), ("output", outs, outputs)):
            assert len(values) == len(infos)
            for i, (v, info) in enumerate(zip(values, infos)):
                with open(os.path.join(data, f"{kind}_{i}.pb"), "wb") as f:
                    f.write(numpy_helper.from_array(v, info.name).SerializeToString())


def uniform(*shape):
    return rng.uniform(-2, 2, shape).astype(np.float32)


# Concat along a static dim of [N, 3] and [N, 2], along the symbolic dim of
# [N, 3] and [2, 3] (N + 2 rows), and twice along it ([2*N, 3]) before an
# equal Split back into two [N, 3] parts, and a Split of static [1, 3] sizes
# of a [4, N] input.
save("concat_split", [
    helper.make_node("Concat", ["x", "y"], ["wide"], axis=1),
    helper.make_node("Concat", ["x", "c"], ["tall"], axis=0),
    helper.make_node("Concat", ["x", "x"], ["twice"], axis=0),
    helper.make_node("Neg", ["twice"], ["neg"]),
    helper.make_node("Split", ["neg"], ["p0", "p1"], axis=0),
    helper.make_node("Split", ["z", "sizes"], ["q0", "q1"], axis=0),
], [helper.make_tensor_value_info("x", F, ["N", 3]),
    helper.make_tensor_value_info("y", F, ["N", 2]),
    helper.make_tensor_value_info("z", F, [4, "M"])],
   [helper.make_tensor_value_info(n, F, None) for n in ["wide", "tall", "p0", "p1", "q0", "q1"]],
   [const("c", np.arange(6).reshape(2, 3), np.float32), const("sizes", [1, 3])],
   [([x, y, z], [np.concatenate([x, y], 1), np.concatenate([x, np.arange(6, dtype=np.float32)
                                                               .reshape(2, 3)], 0),
                 -x, -x, z[:1], z[1:]])
    for x, y, z in ((uniform(n, 3), uniform(n, 2), uniform(4, m)) for n, m in ((1, 5), (4, 2),
                                                                               (0, 0)))])

# Pad: constant pads grow the symbolic dims of [N, 3, M] (N + 3, M + 1), with
# a negative pad of the static dim; edge and reflect pad only its static dim.
pads_c = [1, -1, 0, 2, 0, 1]
save("pad", [
    helper.make_node("Pad", ["x", "pc", "v"], ["yc"], mode="constant"),
    helper.make_node("Pad", ["x", "pe"], ["ye"], mode="edge"),
    helper.make_node("Pad", ["x", "pe"], ["yr"], mode="reflect"),
], [helper.make_tensor_value_info("x", F, ["N", 3, "M"])],
   [helper.make_tensor_value_info(n, F, None) for n in ["yc", "ye", "yr"]],
   [const("pc", pads_c), const("v", [1.5], np.float32), const("pe", [0, 2, 0, 0, 1, 0])],
   [([x], [np.pad(x[:, 1:, :], ((1, 2), (0, 0), (0, 1)), constant_values=1.5),
           np.pad(x, ((0, 0), (2, 1), (0, 0)), mode="edge"),
           np.pad(x, ((0, 0), (2, 1), (0, 0)), mode="reflect")])
    for x in (uniform(2, 3, 4), uniform(5, 3, 1), uniform(0, 3, 2))])

# Edge and reflect pads of a symbolic dim read at positions computed from
# its size at run time. An empty dim has nothing to repeat (numpy and ONNX
# Runtime refuse it): the result is zeros, and nothing is read out of bounds.
def pad_modes(x):
    if x.shape[0] == 0:
        return [np.zeros((3, 3), np.float32), np.zeros((3, 3), np.float32)]
    return [np.pad(x, ((2, 1), (0, 0)), mode="edge"),
            np.pad(x, ((1, 2), (0, 0)), mode="reflect")]
save("pad_symbolic", [
    helper.make_node("Pad", ["x", "pe"], ["ye"], mode="edge"),
    helper.make_node("Pad", ["x", "pr"], ["yr"], mode="reflect"),
], [helper.make_tensor_value_info("x", F, ["N", 3])],
   [helper.make_tensor_value_info(n, F, None) for n in ["ye", "yr"]],
   [const("pe", [2, 0, 1, 0]), const("pr", [1, 0, 2, 0])],
   [([x], pad_modes(x)) for x in (uniform(1, 3), uniform(2, 3), uniform(5, 3), uniform(0, 3))])

# Expand of [N, 1] to [2, N, 4]: the symbolic dim is kept, the 1 broadcast.
save("expand", [helper.make_node("Expand", ["x", "shape"], ["y"])],
     [helper.make_tensor_value_info("x", F, ["N", 1])],
     [helper.make_tensor_value_info("y", F, None)], [const("shape", [2, 1, 4])],
     [([x], [np.broadcast_to(x, (2, x.shape[0], 4)).copy()])
      for x in (uniform(1, 1), uniform(3, 1), uniform(0, 1))])

# BatchNormalization (inference) of [2, 3, H, W]: every dim but the channels
# may be symbolic.
scale, bias, mean = uniform(3), uniform(3), uniform(3)
var = rng.uniform(0.5, 2, 3).astype(np.float32)
def batchnorm(x):
    s = lambda v: v.reshape(1, 3, 1, 1)
    return ((x - s(mean)) / np.sqrt(s(var) + 1e-5) * s(scale) + s(bias)).astype(np.float32)
save("batchnorm", [helper.make_node("BatchNormalization", ["x", "s", "b", "m", "v"], ["y"])],
     [helper.make_tensor_value_info("x", F, [2, 3, "H", "W"])],
     [helper.make_tensor_value_info("y", F, None)],
     [numpy_helper.from_array(a, n) for a, n in ((scale, "s"), (bias, "b"), (mean, "m"),
                                                  (var, "v"))],
     [([x], [batchnorm(x)]) for x in (uniform(2, 3, 4, 5), uniform(2, 3, 1, 7))])

# BatchNormalization over symbolic channels: [C] operands given at run time
# (their length D must be C: run() checks), and a slice of a symbolic dim
# (channels 1:3 of S) normalized with constant [2] operands.
def bn(x, s, b, m, v):
    r = lambda a: a.reshape(1, -1, *([1] * (x.ndim - 2)))
    return ((x - r(m)) / np.sqrt(r(v) + 1e-5) * r(s) + r(b)).astype(np.float32)
bn2 = [uniform(2), uniform(2), uniform(2), np.abs(uniform(2)) + 0.5]
save("batchnorm_channels_symbolic", [
    helper.make_node("BatchNormalization", ["x", "s", "b", "m", "v"], ["y"]),
    helper.make_node("Slice", ["z", "one", "three", "one"], ["zc"]),
    helper.make_node("BatchNormalization", ["zc", "s2", "b2", "m2", "v2"], ["y2"])],
    [helper.make_tensor_value_info("x", F, [2, "C", 3])] +
    [helper.make_tensor_value_info(n, F, ["D"]) for n in ("s", "b", "m", "v")] +
    [helper.make_tensor_value_info("z", F, [1, "S", 2])],
    [helper.make_tensor_value_info(n, F, None) for n in ("y", "y2")],
    [const("one", [1]), const("three", [3])] +
    [numpy_helper.from_array(a, n) for a, n in zip(bn2, ("s2", "b2", "m2", "v2"))],
    [([x, *p, z], [bn(x, *p), bn(z[:, 1:3], *bn2)])
     for x, p, z in ((uniform(2, 4, 3), [uniform(4), uniform(4), uniform(4),
                                         np.abs(uniform(4)) + 0.5], uniform(1, 3, 2)),
                     (uniform(2, 1, 3), [uniform(1), uniform(1), uniform(1),
                                         np.abs(uniform(1)) + 0.5], uniform(1, 5, 2)))])
bad = os.path.join(out, "batchnorm_channels_symbolic_bad", "test_data_set_0")
os.makedirs(bad, exist_ok=True)
for k, (n, v) in enumerate([("x", uniform(2, 4, 3))] +
                           [(n, uniform(3)) for n in ("s", "b", "m", "v")] +
                           [("z", uniform(1, 3, 2))]):
    with open(os.path.join(bad, "input_%d.pb" % k), "wb") as f:
        f.write(numpy_helper.from_array(v, n).SerializeToString())
for k, (n, shape) in enumerate([("y", (2, 4, 3)), ("y2", (1, 2, 2))]):
    with open(os.path.join(bad, "output_%d.pb" % k), "wb") as f:
        f.write(numpy_helper.from_array(np.zeros(shape, np.float32), n).SerializeToString())

# InstanceNormalization of [N, 3, H]: the mean and variance over a symbolic
# H count H elements at run time.
in_scale, in_bias = uniform(3), uniform(3)
def instancenorm(x):
    mean = x.astype(np.float64).mean(axis=2, keepdims=True) if x.shape[2] else 0
    var = ((x - mean) ** 2).mean(axis=2, keepdims=True) if x.shape[2] else 0
    y = (x - mean) / np.sqrt(var + 1e-5) * in_scale.reshape(1, 3, 1) + in_bias.reshape(1, 3, 1)
    return y.astype(np.float32)
save("instancenorm", [helper.make_node("InstanceNormalization", ["x", "s", "b"], ["y"])],
     [helper.make_tensor_value_info("x", F, ["N", 3, "H"])],
     [helper.make_tensor_value_info("y", F, None)],
     [numpy_helper.from_array(in_scale, "s"), numpy_helper.from_array(in_bias, "b")],
     [([x], [instancenorm(x)]) for x in (uniform(2, 3, 5), uniform(1, 3, 1), uniform(3, 3, 8),
                                          uniform(1, 3, 0))])

# Resize of [1, 2, S, 4] by scales that are 1 along S: nearest (asymmetric,
# floor) doubling the last dim, and cubic (half_pixel) by 1 everywhere,
# which reads every element at its own position.
save("resize", [
    helper.make_node("Resize", ["x", "", "double"], ["yn"], mode="nearest",
                     coordinate_transformation_mode="asymmetric", nearest_mode="floor"),
    helper.make_node("Resize", ["x", "", "same"], ["yc"], mode="cubic",
                     coordinate_transformation_mode="half_pixel"),
], [helper.make_tensor_value_info("x", F, [1, 2, "S", 4])],
   [helper.make_tensor_value_info(n, F, None) for n in ["yn", "yc"]],
   [const("double", [1, 1, 1, 2], np.float32), const("same", [1, 1, 1, 1], np.float32)],
   [([x], [np.repeat(x, 2, axis=3), x]) for x in (uniform(1, 2, 3, 4), uniform(1, 2, 1, 4),
                                                   uniform(1, 2, 0, 4))])

# Trilu of [B, 3, 4]: a loop over the matrices.
save("trilu", [helper.make_node("Trilu", ["x", "k"], ["up"], upper=1),
               helper.make_node("Trilu", ["x"], ["low"], upper=0)],
     [helper.make_tensor_value_info("x", F, ["B", 3, 4])],
     [helper.make_tensor_value_info(n, F, None) for n in ["up", "low"]], [const("k", 1)],
     [([x], [np.triu(x, 1), np.tril(x)]) for x in (uniform(2, 3, 4), uniform(1, 3, 4),
                                                   uniform(0, 3, 4))], opset=14)

# GlobalMaxPool of [N, C, 3, 4]: a loop over N and C.
save("globalmaxpool", [helper.make_node("GlobalMaxPool", ["x"], ["y"])],
     [helper.make_tensor_value_info("x", F, ["N", "C", 3, 4])],
     [helper.make_tensor_value_info("y", F, None)], [],
     [([x], [x.max(axis=(2, 3), keepdims=True)])
      for x in (uniform(1, 2, 3, 4), uniform(3, 5, 3, 4), uniform(0, 2, 3, 4))])

# Global pools over symbolic spatial dims: the average of [1, 4, S, 6]
# divides by 6*S at run time; the max of [N, 2, S, 3] loops over N.
save("globalpool_spatial", [helper.make_node("GlobalAveragePool", ["x"], ["avg"]),
                            helper.make_node("GlobalMaxPool", ["w"], ["max"])],
     [helper.make_tensor_value_info("x", F, [1, 4, "S", 6]),
      helper.make_tensor_value_info("w", F, ["N", 2, "S", 3])],
     [helper.make_tensor_value_info(n, F, None) for n in ["avg", "max"]], [],
     [([x, w], [x.mean(axis=(2, 3), keepdims=True), w.max(axis=(2, 3), keepdims=True)])
      for x, w in ((uniform(1, 4, s, 6), uniform(n, 2, s, 3)) for s, n in ((1, 2), (5, 1), (3, 3)))])

# ArgMax along a symbolic axis: [2, S] to [2].
save("argmax_symbolic_axis", [helper.make_node("ArgMax", ["x"], ["i"], axis=1, keepdims=0)],
     [helper.make_tensor_value_info("x", F, [2, "S"])],
     [helper.make_tensor_value_info("i", TensorProto.INT64, None)], [],
     [([x], [x.argmax(axis=1)]) for x in (uniform(2, 1), uniform(2, 7))])

# ArgMin over the static middle dim of [2, 3, S] (keepdims 0: [2, S]),
# ArgMax over the last dim of [S, 4] (keepdims 1: [S, 1]), and TopK (k = 2)
# over the last dim of [A, 3, B, 8]: loops over the other dims.
save("argmin_argmax", [
    helper.make_node("ArgMin", ["x"], ["imin"], axis=1, keepdims=0),
    helper.make_node("ArgMax", ["w"], ["imax"], axis=-1, keepdims=1),
], [helper.make_tensor_value_info("x", F, [2, 3, "S"]),
    helper.make_tensor_value_info("w", F, ["S", 4])],
   [helper.make_tensor_value_info(n, TensorProto.INT64, None) for n in ["imin", "imax"]], [],
   [([x, w], [x.argmin(axis=1), w.argmax(axis=-1)[:, None]])
    for x, w in ((uniform(2, 3, s), uniform(s, 4)) for s in (1, 6, 0))])


def topk(x):
    order = np.argsort(-x, axis=-1, kind="stable")[..., :2]
    return np.take_along_axis(x, order, axis=-1), order.astype(np.int64)
save("topk", [helper.make_node("TopK", ["x", "k"], ["values", "indices"], axis=3)],
     [helper.make_tensor_value_info("x", F, ["A", 3, "B", 8])],
     [helper.make_tensor_value_info("values", F, None),
      helper.make_tensor_value_info("indices", TensorProto.INT64, None)],
     [const("k", [2])],
     [([x], list(topk(x))) for x in (uniform(1, 3, 2, 8), uniform(3, 3, 1, 8))])


# Gather along a symbolic axis: the last token of [B, S, 4] (a constant -1:
# S at least 1, checked at run time) and run-time indices into S (negative
# ones count from the end); GatherElements along S with run-time indices.
# An index out of range is clamped (codegen/cpp/ABI.md, "Indices"); an
# empty S with indices to read is status 9 (gather_axis_empty below).
def gather_sym(x, idx, eidx):
    s = x.shape[1]
    last = x[:, -1, :]
    wrapped = np.clip(np.where(idx < 0, idx + s, idx), 0, s - 1)
    ew = np.clip(np.where(eidx < 0, eidx + s, eidx), 0, s - 1)
    return [last, np.take(x, wrapped, axis=1), np.take_along_axis(x, ew, axis=1)]
gather_data = []
for b, s in ((2, 5), (1, 1), (3, 2)):
    x = uniform(b, s, 4)
    idx = np.array([0, -1, s - 1], np.int64)
    eidx = rng.integers(-s, s, (b, 2, 4)).astype(np.int64)
    gather_data.append(([x, idx, eidx], gather_sym(x, idx, eidx)))
save("gather_symbolic_axis", [
    helper.make_node("Gather", ["x", "minus_one"], ["last"], axis=1),
    helper.make_node("Gather", ["x", "idx"], ["picked"], axis=1),
    helper.make_node("GatherElements", ["x", "eidx"], ["elements"], axis=1)],
    [helper.make_tensor_value_info("x", F, ["B", "S", 4]),
     helper.make_tensor_value_info("idx", TensorProto.INT64, [3]),
     helper.make_tensor_value_info("eidx", TensorProto.INT64, ["B", 2, 4])],
    [helper.make_tensor_value_info(n, F, None) for n in ("last", "picked", "elements")],
    [const("minus_one", -1)], gather_data)

# CumSum over [B, S] along S (position ids from an attention mask; forward
# and reversed exclusive) and along B; Einsum "bsh,hk->bsk" with symbolic b
# and s and "bij,bjk->bik" with a symbolic batch and contraction; Tile of
# [B, S, 3] by constant repeats (2, 1, 2): [2*B, S, 6].
def cumsum_etc(m, x, a, c):
    rev_excl = np.flip(np.cumsum(np.flip(m, 1), 1), 1) - m
    return [np.cumsum(m, 1), rev_excl, np.cumsum(m, 0),
            np.einsum("bsh,hk->bsk", x, w_einsum),
            np.einsum("bij,bjk->bik", a, c),
            np.tile(x[:, :, :3], (2, 1, 2))]
w_einsum = uniform(4, 5)
cumsum_data = []
for b, s, j in ((2, 5, 3), (1, 1, 1), (3, 0, 2), (0, 2, 0)):
    m = rng.integers(0, 3, (b, s)).astype(np.int64)
    x, a, c = uniform(b, s, 4), uniform(b, 3, j), uniform(b, j, 2)
    cumsum_data.append(([m, x, a, c], cumsum_etc(m, x, a, c)))
save("cumsum_einsum_tile", [
    helper.make_node("CumSum", ["m", "one"], ["pos"]),
    helper.make_node("CumSum", ["m", "one"], ["rev"], exclusive=1, reverse=1),
    helper.make_node("CumSum", ["m", "zero"], ["down"]),
    helper.make_node("Einsum", ["x", "w"], ["proj"], equation="bsh,hk->bsk"),
    helper.make_node("Einsum", ["a", "c"], ["bmm"], equation="bij,bjk->bik"),
    helper.make_node("Slice", ["x", "zero1", "three", "two"], ["x3"]),
    helper.make_node("Tile", ["x3", "reps"], ["tiled"])],
    [helper.make_tensor_value_info("m", TensorProto.INT64, ["B", "S"]),
     helper.make_tensor_value_info("x", F, ["B", "S", 4]),
     helper.make_tensor_value_info("a", F, ["B", 3, "J"]),
     helper.make_tensor_value_info("c", F, ["B", "J", 2])],
    [helper.make_tensor_value_info("pos", TensorProto.INT64, None),
     helper.make_tensor_value_info("rev", TensorProto.INT64, None),
     helper.make_tensor_value_info("down", TensorProto.INT64, None)] +
    [helper.make_tensor_value_info(n, F, None) for n in ("proj", "bmm", "tiled")],
    [const("one", 1), const("zero", 0), const("zero1", [0]), const("three", [3]),
     const("two", [2]), const("reps", [2, 1, 2]),
     numpy_helper.from_array(w_einsum, "w")], cumsum_data)

# Broadcasting between two different symbols: [N] + [M] is N when M is 1,
# M when N is 1 (a dim run() derives from both, "broadcast(M, N)"), and
# Where over [P, 1], [1, Q] and [R] chains three. Both operands are read at
# 0 where they are 1; unequal sizes other than 1 are status 9.
def bcast_two(a, b, c, x, y, z):
    return [a + b, np.where(c, x, y) * z]
bcast_data = []
for n, m, p, q, r in ((4, 1, 3, 1, 2), (1, 3, 1, 4, 4), (3, 3, 2, 2, 1), (0, 1, 0, 3, 1),
                      (0, 0, 1, 0, 0)):
    a, b = uniform(n), uniform(m)
    c = rng.integers(0, 2, (p, 1)).astype(bool)
    x, y, z = uniform(1, q), uniform(r), uniform(r)
    bcast_data.append(([a, b, c, x, y, z], bcast_two(a, b, c, x, y, z)))
save("broadcast_two_symbols", [
    helper.make_node("Add", ["a", "b"], ["sum"]),
    helper.make_node("Where", ["c", "x", "y"], ["w"]),
    helper.make_node("Mul", ["w", "z"], ["wz"])],
    [helper.make_tensor_value_info("a", F, ["N"]),
     helper.make_tensor_value_info("b", F, ["M"]),
     helper.make_tensor_value_info("c", TensorProto.BOOL, ["P", 1]),
     helper.make_tensor_value_info("x", F, [1, "Q"]),
     helper.make_tensor_value_info("y", F, ["R"]),
     helper.make_tensor_value_info("z", F, ["R"])],
    [helper.make_tensor_value_info(n, F, None) for n in ("sum", "wz")],
    [], bcast_data)

# Slices of a symbolic dim whose length is no polynomial of it: x[:, :3]
# (min(S, 3)), x[:, 2:5], x[:, -3:], x[:, ::2] (ceil(S/2)), x[:, -1:-4:-1]
# and x[:, ::-2]: run() computes each length from S with ONNX's clamping,
# so short inputs give short results (S = 0 included).
slices = [(0, 3, 1), (2, 5, 1), (-3, 2**62, 1), (0, 2**62, 2), (-1, -4, -1), (-1, -2**62, -2)]
def slice_sym(x):
    return [x[:, s:(None if abs(e) > 2**40 else e):t] for s, e, t in slices]
slice_data = [([x], slice_sym(x)) for x in (uniform(2, 7), uniform(3, 2), uniform(1, 1),
                                              uniform(2, 0), uniform(1, 4))]
save("slice_derived", [
    helper.make_node("Slice", ["x", "s%d" % k, "e%d" % k, "one", "t%d" % k], ["y%d" % k])
    for k in range(len(slices))],
    [helper.make_tensor_value_info("x", F, ["B", "S"])],
    [helper.make_tensor_value_info("y%d" % k, F, None) for k in range(len(slices))],
    [const("one", [1])] + [c for k, (st, en, t) in enumerate(slices)
                           for c in (const("s%d" % k, [st]), const("e%d" % k, [en]),
                                     const("t%d" % k, [t]))],
    slice_data)

# Resize of symbolic spatial dims by constant integer scales (a detector's
# upsampling with the image size given at run time): [N, 2, H, W] by 2 in
# H and W, nearest (asymmetric, floor) as exporters write it, linear
# (half_pixel) and cubic (align_corners) by 3 along W only. The result is
# [N, 2, 2*H, 2*W] and [N, 2, H, 3*W]; references from ONNX's own resize
# reference (onnx.backend.test.case.node.resize).
from onnx.backend.test.case.node.resize import (cubic_coeffs, interpolate_nd,  # noqa: E402
                                                 linear_coeffs, nearest_coeffs)
def resize_sym(x):
    up = interpolate_nd(x, lambda r: nearest_coeffs(r, mode="floor"),
                        scale_factors=[1, 1, 2, 2], coordinate_transformation_mode="asymmetric")
    lin = interpolate_nd(x, linear_coeffs, scale_factors=[1, 1, 1, 3],
                         coordinate_transformation_mode="half_pixel")
    cub = interpolate_nd(x, lambda r: cubic_coeffs(r, A=-0.75), scale_factors=[1, 1, 1, 3],
                         coordinate_transformation_mode="align_corners")
    return [up.astype(np.float32), lin.astype(np.float32), cub.astype(np.float32)]
resize_data = [([x], resize_sym(x)) for x in (uniform(1, 2, 3, 4), uniform(2, 2, 1, 5),
                                              uniform(1, 2, 2, 1))]
save("resize_symbolic", [
    helper.make_node("Resize", ["x", "", "s2"], ["up"], mode="nearest",
                     coordinate_transformation_mode="asymmetric", nearest_mode="floor"),
    helper.make_node("Resize", ["x", "", "s3"], ["lin"], mode="linear"),
    helper.make_node("Resize", ["x", "", "s3"], ["cub"], mode="cubic",
                     coordinate_transformation_mode="align_corners")],
    [helper.make_tensor_value_info("x", F, ["N", 2, "H", "W"])],
    [helper.make_tensor_value_info(n, F, None) for n in ("up", "lin", "cub")],
    [const("s2", [1, 1, 2, 2], np.float32), const("s3", [1, 1, 1, 3], np.float32)],
    resize_data)

# Resize of an image of any size to fixed sizes (torch's interpolate(size=)
# exports sizes as Shape(x)[:2] ++ constants): [N, 2, H, W] to
# [N, 2, 4, 5] linear (half_pixel), [N, 2, 3, 3] nearest and [N, 2, 6, 2]
# cubic (pytorch_half_pixel), the scales out / in computed at run time; and
# by constant scales that are not integers (floor(1.5 * H), floor(W / 2)).
def resize_sizes(x):
    n, c = x.shape[:2]
    lin = interpolate_nd(x, linear_coeffs, output_size=[n, c, 4, 5],
                         coordinate_transformation_mode="half_pixel")
    near = interpolate_nd(x, lambda r: nearest_coeffs(r, mode="round_prefer_floor"),
                          output_size=[n, c, 3, 3], coordinate_transformation_mode="half_pixel")
    cub = interpolate_nd(x, lambda r: cubic_coeffs(r, A=-0.75), output_size=[n, c, 6, 2],
                         coordinate_transformation_mode="pytorch_half_pixel")
    frac = interpolate_nd(x, linear_coeffs, scale_factors=[1, 1, 1.5, 0.5],
                          coordinate_transformation_mode="half_pixel")
    return [lin.astype(np.float32), near.astype(np.float32), cub.astype(np.float32),
            frac.astype(np.float32)]
save("resize_sizes_symbolic", [
    helper.make_node("Shape", ["x"], ["shape"]),
    helper.make_node("Slice", ["shape", "zero", "two"], ["nc"]),
    helper.make_node("Concat", ["nc", "hw45"], ["s45"], axis=0),
    helper.make_node("Concat", ["nc", "hw33"], ["s33"], axis=0),
    helper.make_node("Concat", ["nc", "hw62"], ["s62"], axis=0),
    helper.make_node("Resize", ["x", "", "", "s45"], ["lin"], mode="linear"),
    helper.make_node("Resize", ["x", "", "", "s33"], ["near"], mode="nearest"),
    helper.make_node("Resize", ["x", "", "", "s62"], ["cub"], mode="cubic",
                     coordinate_transformation_mode="pytorch_half_pixel"),
    helper.make_node("Resize", ["x", "", "frac_scales"], ["frac"], mode="linear")],
    [helper.make_tensor_value_info("x", F, ["N", 2, "H", "W"])],
    [helper.make_tensor_value_info(n, F, None) for n in ("lin", "near", "cub", "frac")],
    [const("zero", [0]), const("two", [2]), const("hw45", [4, 5]), const("hw33", [3, 3]),
     const("hw62", [6, 2]), const("frac_scales", [1, 1, 1.5, 0.5], np.float32)],
    [([x], resize_sizes(x)) for x in (uniform(1, 2, 3, 4), uniform(2, 2, 1, 5),
                                      uniform(1, 2, 8, 2))])

# ConvTranspose over symbolic spatial dims (a decoder of any image size):
# strides, dilations, group, output_padding, explicit pads and a bias; and
# SAME_UPPER, whose output is in * stride. The reference scatters every
# input point through the kernel, then crops the pads.
def conv_transpose(x, w, b, strides, dilations, pads, output_padding, group, same=False):
    n, c, *ins = x.shape
    m = w.shape[1] * group
    kernel = w.shape[2:]
    full = [(i - 1) * s + (k - 1) * d + 1 + o
            for i, s, k, d, o in zip(ins, strides, kernel, dilations, output_padding)]
    if same:
        outs = [i * s for i, s in zip(ins, strides)]
        totals = [f - o for f, o in zip(full, outs)]
        pads = [t // 2 for t in totals] + [t - t // 2 for t in totals]
    y = np.zeros([n, m] + full, np.float64)
    cg, mg = c // group, m // group
    for g in range(group):
        xs = x[:, g * cg:(g + 1) * cg].astype(np.float64)
        for kh in range(kernel[0]):
            for kw in range(kernel[1]):
                contrib = np.einsum("nchw,cm->nmhw", xs, w[g * cg:(g + 1) * cg, :, kh, kw])
                h0, w0 = kh * dilations[0], kw * dilations[1]
                y[:, g * mg:(g + 1) * mg, h0:h0 + (ins[0] - 1) * strides[0] + 1:strides[0],
                  w0:w0 + (ins[1] - 1) * strides[1] + 1:strides[1]] += contrib
    y = y[:, :, pads[0]:full[0] - pads[2], pads[1]:full[1] - pads[3]]
    if b is not None:
        y += b.reshape(1, -1, 1, 1)
    return y.astype(np.float32)
ct_w = uniform(4, 3, 3, 2)
ct_b = uniform(6)
ct_w2 = uniform(4, 2, 3, 3)
def ct_outputs(x):
    return [conv_transpose(x, ct_w, ct_b, [2, 3], [1, 2], [1, 0, 0, 2], [1, 2], 2),
            conv_transpose(x, ct_w2, None, [2, 2], [1, 1], None, [0, 0], 1, same=True)]
save("conv_transpose_symbolic", [
    helper.make_node("ConvTranspose", ["x", "ct_w", "ct_b"], ["y"], strides=[2, 3],
                     dilations=[1, 2], pads=[1, 0, 0, 2], output_padding=[1, 2], group=2),
    helper.make_node("ConvTranspose", ["x", "ct_w2"], ["same"], strides=[2, 2],
                     auto_pad="SAME_UPPER")],
    [helper.make_tensor_value_info("x", F, ["N", 4, "H", "W"])],
    [helper.make_tensor_value_info(n, F, None) for n in ("y", "same")],
    [numpy_helper.from_array(ct_w, "ct_w"), numpy_helper.from_array(ct_b, "ct_b"),
     numpy_helper.from_array(ct_w2, "ct_w2")],
    [([x], ct_outputs(x)) for x in (uniform(1, 4, 3, 5), uniform(2, 4, 1, 2),
                                    uniform(1, 4, 6, 1))])

# LRN over static channels of an image of any size (N, H, W symbolic; H = 0
# included): the window sums the squares of (size - 1) / 2 channels before
# and size / 2 after.
def lrn(x, size, alpha, beta, bias):
    c = x.shape[1]
    sq = x.astype(np.float64) ** 2
    sums = np.zeros_like(sq)
    for k in range(c):
        lo, hi = max(0, k - (size - 1) // 2), min(c - 1, k + size // 2)
        sums[:, k] = sq[:, lo:hi + 1].sum(axis=1)
    return (x / (bias + alpha / size * sums) ** beta).astype(np.float32)
save("lrn_symbolic", [helper.make_node("LRN", ["x"], ["y"], size=3, alpha=0.02, beta=0.75,
                                       bias=1.5)],
     [helper.make_tensor_value_info("x", F, ["N", 5, "H", "W"])],
     [helper.make_tensor_value_info("y", F, None)], [],
     [([x], [lrn(x, 3, 0.02, 0.75, 1.5)]) for x in (uniform(1, 5, 2, 3), uniform(2, 5, 1, 1),
                                                    uniform(1, 5, 0, 4))])
# LRN over channels whose number is symbolic too (1 and 2 included, where
# the window of 4 reaches past both ends).
save("lrn_channels_symbolic",
     [helper.make_node("LRN", ["x"], ["y"], size=4, alpha=0.03, beta=0.6, bias=1.0)],
     [helper.make_tensor_value_info("x", F, [2, "C", 3])],
     [helper.make_tensor_value_info("y", F, None)], [],
     [([x], [lrn(x, 4, 0.03, 0.6, 1.0)]) for x in (uniform(2, 1, 3), uniform(2, 2, 3),
                                                   uniform(2, 7, 3))])

# Negative pads crop a symbolic dim: S + 1 rows (2 of fill, then x[:S - 1])
# with S >= 1 checked at run time, and a reflect pad after cropping the
# first row (S + 1 rows: x[1:] and two reflected; ONNX Runtime refuses a
# reflection longer than what the crop leaves, S < 4 here).
save("pad_crop", [
    helper.make_node("Pad", ["x", "pc", "v"], ["yc"], mode="constant"),
    helper.make_node("Pad", ["x", "pr"], ["yr"], mode="reflect")],
    [helper.make_tensor_value_info("x", F, ["S", 3])],
    [helper.make_tensor_value_info(n, F, None) for n in ("yc", "yr")],
    [const("pc", [2, 0, -1, 0]), const("v", [0.5], np.float32), const("pr", [-1, 0, 2, 0])],
    [([x], [np.pad(x[:-1], ((2, 0), (0, 0)), constant_values=0.5),
            np.pad(x[1:], ((0, 2), (0, 0)), mode="reflect")])
     for x in (uniform(4, 3), uniform(5, 3), uniform(7, 3))])

# DepthToSpace (DCR and CRD) over an image of any size (a super-resolution
# head): [N, 8, H, W] to [N, 2, 2*H, 2*W], H = 0 included.
def depth_to_space(x, b, mode):
    n, c, h, w = x.shape
    if mode == "DCR":
        t = x.reshape(n, b, b, c // (b * b), h, w).transpose(0, 3, 4, 1, 5, 2)
    else:
        t = x.reshape(n, c // (b * b), b, b, h, w).transpose(0, 1, 4, 2, 5, 3)
    return t.reshape(n, c // (b * b), h * b, w * b)
save("depth_to_space_symbolic", [
    helper.make_node("DepthToSpace", ["x"], ["dcr"], blocksize=2, mode="DCR"),
    helper.make_node("DepthToSpace", ["x"], ["crd"], blocksize=2, mode="CRD")],
    [helper.make_tensor_value_info("x", F, ["N", 8, "H", "W"])],
    [helper.make_tensor_value_info(n, F, None) for n in ("dcr", "crd")], [],
    [([x], [depth_to_space(x, 2, "DCR"), depth_to_space(x, 2, "CRD")])
     for x in (uniform(1, 8, 2, 3), uniform(2, 8, 1, 1), uniform(1, 8, 0, 2))],
    opset=13)

def layer_norm(x, axis, scale, bias, eps=1e-5):
    axes = tuple(range(axis, x.ndim))
    mean = x.mean(axis=axes, keepdims=True)
    var = ((x - mean) ** 2).mean(axis=axes, keepdims=True)
    inv = 1 / np.sqrt(var + eps)
    return ((x - mean) * inv * scale + bias).astype(np.float32), mean.astype(np.float32), \
        inv.astype(np.float32)


def conv1d(x, w, b=None, stride=1, pad=0, dilation=1):
    x = np.pad(x, ((0, 0), (0, 0), (pad, pad)))
    n, c, width = x.shape
    m, _, k = w.shape
    extent = dilation * (k - 1) + 1
    count = (width - extent) // stride + 1
    out = np.zeros((n, m, count), np.float32)
    for i in range(count):
        start = i * stride
        out[:, :, i] = np.einsum("nck,mck->nm", x[:, :, start:start + extent:dilation], w)
    return out if b is None else out + b[None, :, None]
# Dims that are quotients or that agree only for some values of two
# symbols, which run() checks: Reshape of [A, 8, B] to [4, 16] (A*B = 8),
# Reshape of [S, 3] to [-1, 2] ((3*S)/2 rows), a Split of T into three equal
# parts, DepthToSpace of C channels (C/4), SpaceToDepth of H and W (H/2,
# W/2), a Concat of [P, 4] and [Q, 4] along dim 1 (P = Q), a
# LayerNormalization with a Scale of [K] (K = L), a Resize of [1, R] to
# [1, 3], a MatMul of [U, 2, 3] and [V, 3, 4] (batch broadcast(U, V)) and a
# Conv of [1, 1, 3] by a kernel of width J (3 - J + 1 wide).
def space_to_depth(x, b):
    n, c, h, w = x.shape
    t = x.reshape(n, c, h // b, b, w // b, b).transpose(0, 3, 5, 1, 2, 4)
    return t.reshape(n, c * b * b, h // b, w // b)
save("quotients", [
    helper.make_node("Reshape", ["a", "s16"], ["r16"]),
    helper.make_node("Reshape", ["s", "s2"], ["r2"]),
    helper.make_node("Split", ["t"], ["t0", "t1", "t2"], axis=0),
    helper.make_node("DepthToSpace", ["c"], ["d2s"], blocksize=2, mode="CRD"),
    helper.make_node("SpaceToDepth", ["h"], ["s2d"], blocksize=2),
    helper.make_node("Concat", ["p", "q"], ["pq"], axis=1),
    helper.make_node("LayerNormalization", ["l", "ls"], ["ln"], axis=-1),
    helper.make_node("Resize", ["r", "", "", "r3"], ["rz"], mode="linear"),
    helper.make_node("MatMul", ["m1", "m2"], ["mm"]),
    helper.make_node("Conv", ["cx", "ck"], ["cv"])],
    [helper.make_tensor_value_info("a", F, ["A", 8, "B"]),
     helper.make_tensor_value_info("s", F, ["S", 3]),
     helper.make_tensor_value_info("t", F, ["T"]),
     helper.make_tensor_value_info("c", F, [1, "C", 2, 1]),
     helper.make_tensor_value_info("h", F, [1, 2, "H", "W"]),
     helper.make_tensor_value_info("p", F, ["P", 4]),
     helper.make_tensor_value_info("q", F, ["Q", 4]),
     helper.make_tensor_value_info("l", F, [2, "L"]),
     helper.make_tensor_value_info("ls", F, ["K"]),
     helper.make_tensor_value_info("r", F, [1, "R"]),
     helper.make_tensor_value_info("m1", F, ["U", 2, 3]),
     helper.make_tensor_value_info("m2", F, ["V", 3, 4]),
     helper.make_tensor_value_info("cx", F, [1, 1, 3]),
     helper.make_tensor_value_info("ck", F, [1, 1, "J"])],
    [helper.make_tensor_value_info(n, F, None)
     for n in ("r16", "r2", "t0", "t1", "t2", "d2s", "s2d", "pq", "ln", "rz", "mm", "cv")],
    [const("s16", [4, 16]), const("s2", [-1, 2]), const("r3", [1, 3])],
    [([a, s, t, c, h, p, q, l, ls, r, m1, m2, cx, ck],
      [a.reshape(4, 16), s.reshape(-1, 2), *np.split(t, 3), depth_to_space(c, 2, "CRD"),
       space_to_depth(h, 2), np.concatenate([p, q], 1),
       layer_norm(l, 1, ls, np.float32(0))[0],
       interpolate_nd(r, linear_coeffs, output_size=[1, 3]).astype(np.float32), m1 @ m2,
       conv1d(cx, ck)])
     for a, s, t, c, h, p, q, l, ls, r, m1, m2, cx, ck in (
         (uniform(1, 8, 8), uniform(2, 3), uniform(6), uniform(1, 4, 2, 1), uniform(1, 2, 2, 4),
          uniform(3, 4), uniform(3, 4), uniform(2, 5), uniform(5), uniform(1, 7),
          uniform(1, 2, 3), uniform(3, 3, 4), uniform(1, 1, 3), uniform(1, 1, 3)),
         (uniform(2, 8, 4), uniform(4, 3), uniform(3), uniform(1, 12, 2, 1), uniform(1, 2, 6, 2),
          uniform(1, 4), uniform(1, 4), uniform(2, 1), uniform(1), uniform(1, 1),
          uniform(3, 2, 3), uniform(1, 3, 4), uniform(1, 1, 3), uniform(1, 1, 1)),
         (uniform(8, 8, 1), uniform(0, 3), uniform(0), uniform(1, 0, 2, 1), uniform(1, 2, 0, 2),
          uniform(0, 4), uniform(0, 4), uniform(2, 3), uniform(3), uniform(1, 2),
          uniform(2, 2, 3), uniform(2, 3, 4), uniform(1, 1, 3), uniform(1, 1, 2)))],
    opset=17)

# LayerNormalization whose normalized dims are symbolic: [N, 3, H] over
# axis 1 with a [3, 1] Scale and a [1] B (Mean and InvStdDev too), and
# [N, S] over the last axis with Scale and B given at run time as [S];
# Hardmax along a symbolic axis and along the other.
def hardmax(x, axis):
    y = np.zeros_like(x)
    if x.shape[axis] == 0:
        return y
    idx = np.expand_dims(np.argmax(x, axis=axis), axis)
    np.put_along_axis(y, idx, 1, axis=axis)
    return y


ln_scale = np.array([[0.5], [1.5], [-2.0]], np.float32)
ln_bias = np.array([0.25], np.float32)
save("norms_symbolic", [
    helper.make_node("LayerNormalization", ["x", "g", "b"], ["y", "mean", "inv"], axis=1),
    helper.make_node("LayerNormalization", ["z", "zs", "zb"], ["zy"], axis=-1),
    helper.make_node("Hardmax", ["z"], ["h1"], axis=1),
    helper.make_node("Hardmax", ["z"], ["h0"], axis=0)],
    [helper.make_tensor_value_info("x", F, ["N", 3, "H"]),
     helper.make_tensor_value_info("z", F, ["M", "S"]),
     helper.make_tensor_value_info("zs", F, ["S"]),
     helper.make_tensor_value_info("zb", F, ["S"])],
    [helper.make_tensor_value_info(n, F, None) for n in ("y", "mean", "inv", "zy", "h1", "h0")],
    [numpy_helper.from_array(ln_scale, "g"), numpy_helper.from_array(ln_bias, "b")],
    [([x, z, zs, zb], [*layer_norm(x, 1, ln_scale, ln_bias), layer_norm(z, 1, zs, zb)[0],
                       hardmax(z, 1), hardmax(z, 0)])
     for x, z, zs, zb in ((uniform(2, 3, 5), uniform(3, 7), uniform(7), uniform(7)),
                          (uniform(1, 3, 1), uniform(1, 1), uniform(1), uniform(1)),
                          (uniform(0, 3, 4), uniform(2, 16), uniform(16), uniform(16)))],
    opset=17)

# Conv whose weights are an input with a symbolic number of output channels
# M (one group): without a bias, and with a bias [M] and a Relu after it
# (which the optimizer fuses into the Conv), over an image of any width and
# over a static one; weights whose kernel width K is symbolic (stride 2
# with pads, dilation 2); and input channels symbolic on both X (C) and W
# (D), which must agree.
save("conv_weights_symbolic", [
    helper.make_node("Conv", ["x", "w"], ["y"]),
    helper.make_node("Conv", ["x", "w", "b"], ["yb"]),
    helper.make_node("Relu", ["yb"], ["yr"]),
    helper.make_node("Conv", ["xs", "w"], ["ys"]),
    helper.make_node("Conv", ["x", "wk"], ["yk"], strides=[2], pads=[1, 1]),
    helper.make_node("Conv", ["x", "wk"], ["yd"], dilations=[2]),
    helper.make_node("Conv", ["xc", "wc"], ["yc"])],
    [helper.make_tensor_value_info("x", F, ["N", 2, "L"]),
     helper.make_tensor_value_info("w", F, ["M", 2, 3]),
     helper.make_tensor_value_info("b", F, ["M"]),
     helper.make_tensor_value_info("xs", F, [1, 2, 4]),
     helper.make_tensor_value_info("wk", F, [2, 2, "K"]),
     helper.make_tensor_value_info("xc", F, [1, "C", 4]),
     helper.make_tensor_value_info("wc", F, [3, "D", 2])],
    [helper.make_tensor_value_info(n, F, None) for n in ("y", "yr", "ys", "yk", "yd", "yc")], [],
    [([x, w, b, xs, wk, xc, wc], [conv1d(x, w), np.maximum(conv1d(x, w, b), 0), conv1d(xs, w),
                                  conv1d(x, wk, stride=2, pad=1), conv1d(x, wk, dilation=2),
                                  conv1d(xc, wc)])
     for x, w, b, xs, wk, xc, wc in (
         (uniform(1, 2, 5), uniform(4, 2, 3), uniform(4), uniform(1, 2, 4), uniform(2, 2, 2),
          uniform(1, 3, 4), uniform(3, 3, 2)),
         (uniform(2, 2, 3), uniform(1, 2, 3), uniform(1), uniform(1, 2, 4), uniform(2, 2, 1),
          uniform(1, 1, 4), uniform(3, 1, 2)),
         (uniform(1, 2, 7), uniform(0, 2, 3), uniform(0), uniform(1, 2, 4), uniform(2, 2, 4),
          uniform(1, 0, 4), uniform(3, 0, 2)))])
# The same model with X's channels C and W's D different (run() returns 9).
bad = os.path.join(out, "conv_weights_symbolic_bad", "test_data_set_0")
os.makedirs(bad, exist_ok=True)
for k, (n, v) in enumerate([("x", uniform(1, 2, 5)), ("w", uniform(4, 2, 3)), ("b", uniform(4)),
                            ("xs", uniform(1, 2, 4)), ("wk", uniform(2, 2, 2)),
                            ("xc", uniform(1, 3, 4)), ("wc", uniform(3, 2, 2))]):
    with open(os.path.join(bad, "input_%d.pb" % k), "wb") as f:
        f.write(numpy_helper.from_array(v, n).SerializeToString())
for k, (n, shape) in enumerate([("y", (1, 4, 3)), ("yr", (1, 4, 3)), ("ys", (1, 4, 2)),
                                 ("yk", (1, 2, 3)), ("yd", (1, 2, 3)), ("yc", (1, 3, 3))]):
    with open(os.path.join(bad, "output_%d.pb" % k), "wb") as f:
        f.write(numpy_helper.from_array(np.zeros(shape, np.float32), n).SerializeToString())

# Models that fit their symbolic dims only for some values of the symbols:
# refused where no one value fixes it (refuse_*; they compile with
# --shape), compiled for the one value with a warning where it does
# (bind_*), and compiled with a run-time check where the op allows a range
# (check_*).
def refuse(name, nodes, inputs, inits, out_rank):
    graph = helper.make_graph(nodes, name, inputs,
                              [helper.make_tensor_value_info("y", F, [None] * out_rank)], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    onnx.checker.check_model(model)
    onnx.save(model, os.path.join(out, name + ".onnx"))


refuse("check_concat", [helper.make_node("Concat", ["a", "b"], ["y"], axis=1)],
       [helper.make_tensor_value_info("a", F, ["S", 4]),
        helper.make_tensor_value_info("b", F, ["T", 4])], [], 2)
refuse("bind_split", [helper.make_node("Split", ["a", "sizes"], ["y", "z"], axis=1)],
       [helper.make_tensor_value_info("a", F, [3, "S"])], [const("sizes", [2, 3])], 2)
refuse("bind_squeeze", [helper.make_node("Squeeze", ["a", "axes"], ["y"])],
       [helper.make_tensor_value_info("a", F, ["S", 3])], [const("axes", [0])], 1)
refuse("check_expand", [helper.make_node("Expand", ["a", "shape"], ["y"])],
       [helper.make_tensor_value_info("a", F, ["N", "S"])], [const("shape", [1, 3])], 2)
refuse("bind_batchnorm",
       [helper.make_node("BatchNormalization", ["a", "s", "s", "s", "s"], ["y"])],
       [helper.make_tensor_value_info("a", F, [2, "C", 3])],
       [numpy_helper.from_array(np.ones(4, np.float32), "s")], 3)
refuse("bind_conv",
       [helper.make_node("Conv", ["a", "w"], ["y"], group=2, kernel_shape=[3, 1])],
       [helper.make_tensor_value_info("a", F, [1, "C", 3, 1])],
       [numpy_helper.from_array(np.ones((4, 1, 3, 1), np.float32), "w")], 4)
refuse("bind_conv_bias", [helper.make_node("Conv", ["a", "w", "b"], ["y"])],
       [helper.make_tensor_value_info("a", F, [1, 1, 5]),
        helper.make_tensor_value_info("w", F, ["M", 1, "K"])],
       [numpy_helper.from_array(np.ones(3, np.float32), "b")], 3)
refuse("check_conv_weights", [helper.make_node("Conv", ["a", "w"], ["y"])],
       [helper.make_tensor_value_info("a", F, [1, 1, 5]),
        helper.make_tensor_value_info("w", F, ["M", 1, 2])], [], 3)
refuse("refuse_conv_same_kernel",
       [helper.make_node("Conv", ["a", "w"], ["y"], auto_pad="SAME_UPPER")],
       [helper.make_tensor_value_info("a", F, [1, 1, 5]),
        helper.make_tensor_value_info("w", F, [1, 1, "K"])], [], 3)
refuse("check_topk", [helper.make_node("TopK", ["a", "k"], ["y", "i"], axis=0)],
       [helper.make_tensor_value_info("a", F, ["S"])], [const("k", [3])], 1)
