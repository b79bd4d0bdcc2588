"""Writes DIR/gather_scatter.onnx, whose gather and scatter indices are run-time
inputs, and two datasets of NumPy references: DIR/valid (in-range and
negative indices, ONNX semantics) and DIR/oob (indices past either end).

ONNX leaves out-of-range indices undefined; onnxcc's documented behaviour
(codegen/cpp/ABI.md, "Indices") is: a negative index wraps once (i + n);
a gather then clamps it into [0, n - 1], and a scatter drops an update
whose index is still outside [0, n). The references below implement that
with NumPy loops."""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

out = sys.argv[1]
F, I = TensorProto.FLOAT, TensorProto.INT64
inputs = [
    helper.make_tensor_value_info("data", F, [5, 4]),
    helper.make_tensor_value_info("idx", I, [3]),
    helper.make_tensor_value_info("eidx", I, [5, 2]),
    helper.make_tensor_value_info("ndidx", I, [2, 2]),
    helper.make_tensor_value_info("sidx", I, [2, 1]),
]
upd = numpy_helper.from_array(np.arange(8, dtype=np.float32).reshape(2, 4) + 100, "upd")
eupd = numpy_helper.from_array(np.full((5, 2), -1, dtype=np.float32), "eupd")
nodes = [
    helper.make_node("Gather", ["data", "idx"], ["g"], axis=0),
    helper.make_node("GatherElements", ["data", "eidx"], ["ge"], axis=1),
    helper.make_node("GatherND", ["data", "ndidx"], ["gnd"]),
    helper.make_node("ScatterND", ["data", "sidx", "upd"], ["snd"]),
    helper.make_node("ScatterElements", ["data", "eidx", "eupd"], ["se"], axis=1),
]
outputs = [
    helper.make_tensor_value_info("g", F, [3, 4]),
    helper.make_tensor_value_info("ge", F, [5, 2]),
    helper.make_tensor_value_info("gnd", F, [2]),
    helper.make_tensor_value_info("snd", F, [5, 4]),
    helper.make_tensor_value_info("se", F, [5, 4]),
]
graph = helper.make_graph(nodes, "gather_scatter", inputs, outputs, initializer=[upd, eupd])
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
onnx.checker.check_model(model)
onnx.save(model, os.path.join(out, "gather_scatter.onnx"))


def wrap(i, n):
    i = int(i)
    return i + n if i < 0 else i


def fix(i, n):
    """A gather's index: wrap once, then clamp."""
    return min(max(wrap(i, n), 0), n - 1)


def references(data, idx, eidx, ndidx, sidx):
    g = np.stack([data[fix(i, 5)] for i in idx])
    ge = np.array([[data[r, fix(eidx[r, j], 4)] for j in range(2)] for r in range(5)])
    gnd = np.array([data[fix(t[0], 5), fix(t[1], 4)] for t in ndidx])
    # Scatters: an update whose wrapped index is out of range is dropped.
    snd = data.copy()
    for k in range(2):
        if 0 <= wrap(sidx[k, 0], 5) < 5:
            snd[wrap(sidx[k, 0], 5)] = upd_v[k]
    se = data.copy()
    for r in range(5):
        for j in range(2):
            if 0 <= wrap(eidx[r, j], 4) < 4:
                se[r, wrap(eidx[r, j], 4)] = -1
    return [g, ge, gnd, snd, se]


upd_v = numpy_helper.to_array(upd)
rng = np.random.default_rng(3)
data = rng.standard_normal((5, 4)).astype(np.float32)
cases = {
    "valid": [np.array([4, -1, 0]), np.array([[0, -1], [1, 2], [-4, 3], [2, 2], [-2, 0]]),
              np.array([[-1, -1], [2, 1]]), np.array([[-5], [3]])],
    "oob": [np.array([5, -6, 1 << 40]), np.array([[4, -5], [9, 2], [-100, 3], [2, 7], [-2, 0]]),
            np.array([[5, -7], [-6, 4]]), np.array([[6], [-9]])],
}
for name, (idx, eidx, ndidx, sidx) in cases.items():
    folder = os.path.join(out, name)
    os.makedirs(folder, exist_ok=True)
    ins = [data] + [a.astype(np.int64) for a in (idx, eidx, ndidx, sidx)]
    for k, v in enumerate(ins):
        with open(os.path.join(folder, "input_%d.pb" % k), "wb") as f:
            f.write(numpy_helper.from_array(v).SerializeToString())
    for k, v in enumerate(references(*ins)):
        with open(os.path.join(folder, "output_%d.pb" % k), "wb") as f:
            f.write(numpy_helper.from_array(np.asarray(v, dtype=np.float32)).SerializeToString())
