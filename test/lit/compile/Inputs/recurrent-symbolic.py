"""LSTM and GRU nodes whose sequence length S and batch B are symbolic
(Silero VAD's decoder LSTM takes its batch at run time), with inputs for
three (S, B) pairs and ort_run.js requests (usage: recurrent-symbolic.py
OUT): X[S, B, 8]; an LSTM with initial states given as inputs [1, B, 16];
a bidirectional GRU with linear_before_reset and no initial state."""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

out = sys.argv[1]
F = TensorProto.FLOAT
rng = np.random.default_rng(9)
I, H = 8, 16


def weights(name, shape):
    return numpy_helper.from_array((0.4 * rng.standard_normal(shape)).astype(np.float32), name)


graph = helper.make_graph(
    [helper.make_node("LSTM", ["x", "lw", "lr", "lb", "", "h0", "c0"], ["ly", "lh", "lc"],
                      name="lstm", hidden_size=H),
     helper.make_node("GRU", ["x", "gw", "gr", "gb"], ["gy"], name="gru", hidden_size=H,
                      direction="bidirectional", linear_before_reset=1)],
    "recurrent_symbolic",
    [helper.make_tensor_value_info("x", F, ["S", "B", I]),
     helper.make_tensor_value_info("h0", F, [1, "B", H]),
     helper.make_tensor_value_info("c0", F, [1, "B", H])],
    [helper.make_tensor_value_info("ly", F, ["S", 1, "B", H]),
     helper.make_tensor_value_info("lh", F, [1, "B", H]),
     helper.make_tensor_value_info("lc", F, [1, "B", H]),
     helper.make_tensor_value_info("gy", F, ["S", 2, "B", H])],
    [weights("lw", (1, 4 * H, I)), weights("lr", (1, 4 * H, H)), weights("lb", (1, 8 * H)),
     weights("gw", (2, 3 * H, I)), weights("gr", (2, 3 * H, H)), weights("gb", (2, 6 * H))])
m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 14)])
onnx.checker.check_model(m)
path = os.path.join(out, "recurrent.onnx")
onnx.save(m, path)

requests = []
for i, (s, b) in enumerate(((1, 1), (4, 3), (7, 2))):
    d = os.path.join(out, "recurrent", "test_data_set_%d" % i)
    os.makedirs(d)
    for k, arr in enumerate((rng.standard_normal((s, b, I)), rng.standard_normal((1, b, H)),
                             rng.standard_normal((1, b, H)))):
        with open(os.path.join(d, "input_%d.pb" % k), "wb") as f:
            f.write(numpy_helper.from_array(arr.astype(np.float32)).SerializeToString())
    requests.append("%s\t%s" % (path, d))
with open(os.path.join(out, "requests"), "w") as f:
    f.write("\n".join(requests) + "\n")
