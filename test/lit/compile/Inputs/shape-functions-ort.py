"""Shape-function cases issue 41 found in detectors and image pipelines, with
inputs and ort_run.js requests (usage: shape-functions-ort.py OUT).

nms.onnx: NonMaxSuppression selects boxes (how many, the data decides: at
most 5), Gather takes the batch and box columns of its [N, 3] indices, and
GatherND reads the selected boxes: [N, 4].

crop.onnx: LpPool-18 with ceil_mode (10 -> 5 with kernel 3, stride 2), then
CenterCropPad-18 to [4, 6] (a crop and a pad) on the pooled dims."""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

out = sys.argv[1]
F = TensorProto.FLOAT
rng = np.random.default_rng(12)
requests = []


def const(name, values, dtype):
    return numpy_helper.from_array(np.array(values, dtype=dtype), name)


def dataset(name, inputs):
    d = os.path.join(out, name, "test_data_set_0")
    os.makedirs(d)
    for i, arr in enumerate(inputs):
        with open(os.path.join(d, "input_%d.pb" % i), "wb") as f:
            f.write(numpy_helper.from_array(arr).SerializeToString())
    requests.append("%s\t%s" % (os.path.join(out, name + ".onnx"), d))


graph = helper.make_graph(
    [helper.make_node("NonMaxSuppression", ["boxes", "scores", "max_out", "iou", "min_score"],
                      ["selected"], name="nms"),
     helper.make_node("Gather", ["selected", "cols"], ["where"], name="columns", axis=1),
     helper.make_node("GatherND", ["boxes", "where"], ["picked"], name="pick")],
    "nms",
    [helper.make_tensor_value_info("boxes", F, [1, 8, 4]),
     helper.make_tensor_value_info("scores", F, [1, 1, 8])],
    [helper.make_tensor_value_info("picked", F, None)],
    [const("max_out", [5], np.int64), const("iou", [0.5], np.float32),
     const("min_score", [0.2], np.float32), const("cols", [0, 2], np.int64)])
onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)]),
          os.path.join(out, "nms.onnx"))
corners = rng.uniform(0, 10, (1, 8, 2)).astype(np.float32)
boxes = np.concatenate([corners, corners + rng.uniform(1, 4, (1, 8, 2)).astype(np.float32)], -1)
dataset("nms", [boxes, rng.uniform(0, 1, (1, 1, 8)).astype(np.float32)])

graph = helper.make_graph(
    [helper.make_node("LpPool", ["x"], ["pooled"], name="pool", kernel_shape=[3, 3],
                      strides=[2, 2], ceil_mode=1, p=2),
     helper.make_node("CenterCropPad", ["pooled", "shape"], ["y"], name="crop", axes=[2, 3])],
    "crop",
    [helper.make_tensor_value_info("x", F, [1, 2, 10, 10])],
    [helper.make_tensor_value_info("y", F, None)],
    [const("shape", [4, 6], np.int64)])
onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)]),
          os.path.join(out, "crop.onnx"))
dataset("crop", [rng.standard_normal((1, 2, 10, 10)).astype(np.float32)])

with open(os.path.join(out, "requests"), "w") as f:
    f.write("\n".join(requests) + "\n")
