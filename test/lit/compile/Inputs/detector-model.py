"""A small detector head and a reduction over run-time axes, for
data-dependent-dims.test: models whose result dims depend on the data.

detector.onnx: scores = Sigmoid(logits) [1, 2, 8], NonMaxSuppression over
boxes [1, 8, 4] (at most 3 per class, IoU 0.5, score 0.4), then the selected
boxes gathered: `selected` [n, 3] and `picked` [n, 4] for n known only at run
time. Two datasets whose scores keep different numbers of boxes; their
expected outputs come from ONNX Runtime (ort_run.js), not from here.

nonzero.onnx: the coordinates of the positive elements of x [3, 4] (NonZero
of Greater), then their count as a float through ReduceSum of a Cast: a
data-dependent dim flowing through ops downstream. The coordinates' output
has a hostile name: it must reach the generated code (its dims parameter
too) only escaped or sanitized.

usage: detector-model.py OUT_DIR
"""
import os
import sys

HOSTILE = 'coords */ int injected; /* "\n#error pwned'

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

out = sys.argv[1]


def save_inputs(folder, arrays):
    os.makedirs(folder, exist_ok=True)
    for k, a in enumerate(arrays):
        with open(os.path.join(folder, "input_%d.pb" % k), "wb") as f:
            f.write(numpy_helper.from_array(a).SerializeToString())


def int64(name, values):
    return numpy_helper.from_array(np.array(values, dtype=np.int64), name)


def float32(name, values):
    return numpy_helper.from_array(np.array(values, dtype=np.float32), name)


detector = helper.make_graph(
    [
        helper.make_node("Sigmoid", ["logits"], ["scores"]),
        helper.make_node("NonMaxSuppression", ["boxes", "scores", "max_out", "iou", "score"],
                         ["selected"]),
        helper.make_node("Slice", ["selected", "col2", "col3", "axis1"], ["box_col"]),
        helper.make_node("Squeeze", ["box_col", "axis1"], ["box_index"]),
        helper.make_node("Squeeze", ["boxes", "axis0"], ["all_boxes"]),
        helper.make_node("Gather", ["all_boxes", "box_index"], ["picked"], axis=0),
    ],
    "detector",
    [helper.make_tensor_value_info("boxes", TensorProto.FLOAT, [1, 8, 4]),
     helper.make_tensor_value_info("logits", TensorProto.FLOAT, [1, 2, 8])],
    [helper.make_tensor_value_info("selected", TensorProto.INT64, ["n", 3]),
     helper.make_tensor_value_info("picked", TensorProto.FLOAT, ["n", 4])],
    [int64("max_out", [3]), float32("iou", [0.5]), float32("score", [0.4]),
     int64("col2", [2]), int64("col3", [3]), int64("axis1", [1]), int64("axis0", [0])],
)
model = helper.make_model(detector, opset_imports=[helper.make_opsetid("", 13)])
model.ir_version = 7
onnx.checker.check_model(model)
onnx.save(model, os.path.join(out, "detector.onnx"))

rng = np.random.default_rng(7)
corners = rng.uniform(0, 8, size=(1, 8, 2)).astype(np.float32)
sizes = rng.uniform(1, 4, size=(1, 8, 2)).astype(np.float32)
boxes = np.concatenate([corners, corners + sizes], axis=2)
# Many boxes pass the score threshold in dataset 0, few in dataset 1.
save_inputs(os.path.join(out, "detector", "test_data_set_0"),
            [boxes, rng.uniform(-1, 3, size=(1, 2, 8)).astype(np.float32)])
save_inputs(os.path.join(out, "detector", "test_data_set_1"),
            [boxes, rng.uniform(-4, 0, size=(1, 2, 8)).astype(np.float32)])

nonzero = helper.make_graph(
    [
        helper.make_node("Greater", ["x", "zero"], ["positive"]),
        helper.make_node("NonZero", ["positive"], [HOSTILE]),
        helper.make_node("Cast", [HOSTILE], ["coords_f"], to=TensorProto.FLOAT),
        helper.make_node("ReduceSum", ["coords_f", "axes"], ["coord_sums"], keepdims=0),
    ],
    "nonzero",
    [helper.make_tensor_value_info("x", TensorProto.FLOAT, [3, 4])],
    [helper.make_tensor_value_info(HOSTILE, TensorProto.INT64, [2, "k"]),
     helper.make_tensor_value_info("coord_sums", TensorProto.FLOAT, [2])],
    [float32("zero", 0.0), int64("axes", [1])],
)
model = helper.make_model(nonzero, opset_imports=[helper.make_opsetid("", 13)])
model.ir_version = 7
onnx.checker.check_model(model)
onnx.save(model, os.path.join(out, "nonzero.onnx"))
save_inputs(os.path.join(out, "nonzero", "test_data_set_0"),
            [rng.normal(size=(3, 4)).astype(np.float32)])
save_inputs(os.path.join(out, "nonzero", "test_data_set_1"),
            [np.where(np.arange(12).reshape(3, 4) == 5, 1.0, -1.0).astype(np.float32)])

# Runs per dataset, for ort_run.js.
with open(os.path.join(out, "requests"), "w") as f:
    for name in ("detector", "nonzero"):
        for k in (0, 1):
            f.write("%s\t%s\n" % (os.path.join(out, name + ".onnx"),
                                  os.path.join(out, name, "test_data_set_%d" % k)))
