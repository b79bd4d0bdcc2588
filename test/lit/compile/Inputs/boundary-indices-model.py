"""Writes DIR/boundary_indices.onnx, whose gathers and scatters take constant
indices at the ends of their axes (s - 1 and -s, the last values ONNX
allows), one of them over data with a symbolic batch dim and a static axis,
one made constant only by constant folding (a Cast of a float initializer);
and two datasets of NumPy references, DIR/batch1 and DIR/batch3.

These must compile: the compile-time index check (compile-time-errors.test)
rejects only what lies outside [-s, s)."""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

out = sys.argv[1]
F, I = TensorProto.FLOAT, TensorProto.INT64


def const(name, values, dtype=np.int64):
    return numpy_helper.from_array(np.array(values, dtype=dtype), name)


gather_idx = [4, -5, 0, -1]
sym_idx = [4, -5]
elem_idx = [[4, -5, 0, -1]]
nd_idx = [[[2, -4]], [[-3, 3]]]  # batch_dims 1 over data [2, 3, 4]
scatter_elem_idx = [[4, -5, 3, -1]]
scatter_nd_idx = [[-5], [4]]
scatter_elem_upd = np.array([[10, 20, 30, 40]], dtype=np.float32)
scatter_nd_upd = np.arange(8, dtype=np.float32).reshape(2, 4) + 100
folded_idx = [4.0, -5.0]

inputs = [
    helper.make_tensor_value_info("sym", F, ["batch", 5]),
    helper.make_tensor_value_info("d2", F, [5, 4]),
    helper.make_tensor_value_info("d3", F, [2, 3, 4]),
]
initializers = [
    const("gi", gather_idx), const("si", sym_idx), const("ei", elem_idx), const("ni", nd_idx),
    const("sei", scatter_elem_idx), const("sni", scatter_nd_idx),
    numpy_helper.from_array(scatter_elem_upd, "seu"),
    numpy_helper.from_array(scatter_nd_upd, "snu"),
    const("fi", folded_idx, np.float32),
]
nodes = [
    helper.make_node("Gather", ["d2", "gi"], ["g"], name="gather", axis=0),
    helper.make_node("Gather", ["sym", "si"], ["gs"], name="gather_symbolic", axis=1),
    helper.make_node("GatherElements", ["d2", "ei"], ["ge"], name="gather_elements", axis=0),
    helper.make_node("GatherND", ["d3", "ni"], ["gnd"], name="gather_nd", batch_dims=1),
    helper.make_node("ScatterElements", ["d2", "sei", "seu"], ["se"], name="scatter_elements",
                     axis=0),
    helper.make_node("ScatterND", ["d2", "sni", "snu"], ["snd"], name="scatter_nd"),
    helper.make_node("Cast", ["fi"], ["fii"], name="cast", to=I),
    helper.make_node("Gather", ["d2", "fii"], ["gf"], name="gather_folded", axis=0),
]
outputs = [
    helper.make_tensor_value_info("g", F, [4, 4]),
    helper.make_tensor_value_info("gs", F, ["batch", 2]),
    helper.make_tensor_value_info("ge", F, [1, 4]),
    helper.make_tensor_value_info("gnd", F, [2, 1]),
    helper.make_tensor_value_info("se", F, [5, 4]),
    helper.make_tensor_value_info("snd", F, [5, 4]),
    helper.make_tensor_value_info("gf", F, [2, 4]),
]
graph = helper.make_graph(nodes, "boundary_indices", inputs, outputs, initializer=initializers)
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
onnx.checker.check_model(model)
onnx.save(model, os.path.join(out, "boundary_indices.onnx"))


def references(sym, d2, d3):
    """NumPy's own indexing, which takes negative indices as ONNX does."""
    g = d2[np.array(gather_idx)]
    gs = sym[:, np.array(sym_idx)]
    ge = np.take_along_axis(d2, np.array(elem_idx), axis=0)
    gnd = np.stack([d3[b][tuple(np.array(nd_idx[b]).T)] for b in range(2)])
    se = d2.copy()
    for j, i in enumerate(scatter_elem_idx[0]):
        se[i, j] = scatter_elem_upd[0, j]
    snd = d2.copy()
    for k, (i,) in enumerate(scatter_nd_idx):
        snd[i] = scatter_nd_upd[k]
    gf = d2[np.array(folded_idx).astype(np.int64)]
    return [g, gs, ge, gnd, se, snd, gf]


rng = np.random.default_rng(11)
for batch in (1, 3):
    folder = os.path.join(out, "batch%d" % batch)
    os.makedirs(folder, exist_ok=True)
    ins = [rng.standard_normal(s).astype(np.float32) for s in ((batch, 5), (5, 4), (2, 3, 4))]
    for k, v in enumerate(ins):
        with open(os.path.join(folder, "input_%d.pb" % k), "wb") as f:
            f.write(numpy_helper.from_array(v).SerializeToString())
    for k, v in enumerate(references(*ins)):
        with open(os.path.join(folder, "output_%d.pb" % k), "wb") as f:
            f.write(numpy_helper.from_array(np.asarray(v, dtype=np.float32)).SerializeToString())
