"""Writes models with If, Loop and Scan and their input datasets; the
expected outputs come from ONNX Runtime (test/difftest/ort_run.js), never
from onnxcc.

Usage: control-flow-model.py OUT_DIR

OUT_DIR/nested.onnx     x: float[3, 4], c: bool. If c: a Loop of 3
                        iterations (M a constant) whose carried s goes
                        through an If on the sign of the row it reads (If in
                        Loop in If), with s stacked as scan output; else a
                        Scan over the rows of x (state s * 0.5 + row, scan
                        output relu(row) written in reverse). Outputs
                        s [4], rows [3, 4].
OUT_DIR/lstm-if.onnx    x: float[5, 2, 3], n: int64. If n > 0 an LSTM with
                        one set of weights, else another (hidden 4, both
                        directions): Y_h [2, 2, 4].
OUT_DIR/while.onnx      x: float[3], m: int64, a Loop whose trip count m and
                        condition sum(x) < 100 come from run time: carried
                        x * 2 and the iteration count. Outputs x, count.
OUT_DIR/until.onnx      the body of while.onnx with no trip count: only the
                        condition ends it.
OUT_DIR/swap.onnx       x, y: float[2]: a Loop of 5 iterations whose two
                        carried values swap each time (y + 1, x): carried
                        values must not overwrite each other.
OUT_DIR/seqmap.onnx     SequenceMap over the rows of x and a sequence of z0..z2,
                        with y passed whole: sum(row + y) and row * z.
OUT_DIR/scan-seq.onnx   a Scan over xs: float[seq, 4], input and output
                        reversed, seq symbolic (datasets of 1, 5 and 2 rows).
OUT_DIR/invalid.onnx    x: float[n], c: bool. If c: x reshaped to [2, 3];
                        else x reshaped to [4, -1], which 6 elements cannot
                        fill: compiled with n = 6, the else branch returns
                        status 11 (ONNX Runtime runs the model: it checks
                        only the branch it takes).
OUT_DIR/invalid-static.onnx  the same with x: float[6].
OUT_DIR/requests        the ort_run.js requests (MODEL<TAB>DATASET_DIR).
Each model has datasets OUT_DIR/NAME/test_data_set_K with input_K.pb only.
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

out = sys.argv[1]
os.makedirs(out, exist_ok=True)
rng = np.random.default_rng(7)
F = TensorProto.FLOAT
requests = []


def const(name, array):
    return helper.make_node("Constant", [], [name], value=numpy_helper.from_array(array, name))


def save(name, graph, datasets, opset=17):
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    model.ir_version = 8
    onnx.checker.check_model(model)
    path = os.path.join(out, name + ".onnx")
    onnx.save(model, path)
    for k, inputs in enumerate(datasets):
        d = os.path.join(out, name, "test_data_set_%d" % k)
        os.makedirs(d, exist_ok=True)
        for i, (input_name, value) in enumerate(inputs):
            with open(os.path.join(d, "input_%d.pb" % i), "wb") as f:
                f.write(numpy_helper.from_array(value, input_name).SerializeToString())
        requests.append("%s\t%s" % (path, d))


# --- nested: If in Loop in If, and a Scan in the other branch -------------
inner_then = helper.make_graph([helper.make_node("Add", ["s_in", "row"], ["s_then"])],
                               "inner_then", [], [helper.make_tensor_value_info("s_then", F, [4])])
inner_else = helper.make_graph([helper.make_node("Sub", ["s_in", "row"], ["s_else"])],
                               "inner_else", [], [helper.make_tensor_value_info("s_else", F, [4])])
loop_body = helper.make_graph(
    [
        helper.make_node("Identity", ["cond_in"], ["cond_out"]),
        helper.make_node("Gather", ["x", "i"], ["row"], axis=0),
        helper.make_node("ReduceSum", ["row"], ["row_sum"], keepdims=0),
        const("zero", np.array(0, np.float32)),
        helper.make_node("Greater", ["row_sum", "zero"], ["positive"]),
        helper.make_node("If", ["positive"], ["s_next"], then_branch=inner_then,
                         else_branch=inner_else),
        helper.make_node("Identity", ["s_next"], ["s_scan"]),
    ],
    "loop_body",
    [helper.make_tensor_value_info("i", TensorProto.INT64, []),
     helper.make_tensor_value_info("cond_in", TensorProto.BOOL, []),
     helper.make_tensor_value_info("s_in", F, [4])],
    [helper.make_tensor_value_info("cond_out", TensorProto.BOOL, []),
     helper.make_tensor_value_info("s_next", F, [4]),
     helper.make_tensor_value_info("s_scan", F, [4])],
)
then_branch = helper.make_graph(
    [
        const("m", np.array(3, np.int64)),
        const("go", np.array(True)),
        const("s0", np.zeros(4, np.float32)),
        helper.make_node("Loop", ["m", "go", "s0"], ["loop_s", "loop_rows"], body=loop_body),
    ],
    "then_branch", [],
    [helper.make_tensor_value_info("loop_s", F, [4]),
     helper.make_tensor_value_info("loop_rows", F, [3, 4])],
)
scan_body = helper.make_graph(
    [
        const("half", np.array(0.5, np.float32)),
        helper.make_node("Mul", ["st_in", "half"], ["scaled"]),
        helper.make_node("Add", ["scaled", "r"], ["st_out"]),
        helper.make_node("Relu", ["r"], ["r_out"]),
    ],
    "scan_body",
    [helper.make_tensor_value_info("st_in", F, [4]), helper.make_tensor_value_info("r", F, [4])],
    [helper.make_tensor_value_info("st_out", F, [4]), helper.make_tensor_value_info("r_out", F, [4])],
)
else_branch = helper.make_graph(
    [
        const("st0", np.ones(4, np.float32)),
        helper.make_node("Scan", ["st0", "x"], ["scan_s", "scan_rows"], body=scan_body,
                         num_scan_inputs=1, scan_output_directions=[1]),
    ],
    "else_branch", [],
    [helper.make_tensor_value_info("scan_s", F, [4]),
     helper.make_tensor_value_info("scan_rows", F, [3, 4])],
)
save(
    "nested",
    helper.make_graph(
        [helper.make_node("If", ["c"], ["s", "rows"], then_branch=then_branch,
                          else_branch=else_branch)],
        "nested",
        [helper.make_tensor_value_info("x", F, [3, 4]),
         helper.make_tensor_value_info("c", TensorProto.BOOL, [])],
        [helper.make_tensor_value_info("s", F, [4]),
         helper.make_tensor_value_info("rows", F, [3, 4])],
    ),
    [[("x", rng.standard_normal((3, 4)).astype(np.float32)), ("c", np.array(c))]
     for c in (True, False, True)],
)

# --- lstm-if: an LSTM in both branches of an If on an int64 input ---------
def lstm_branch(tag):
    hidden, inputs = 4, 3
    w = rng.standard_normal((2, 4 * hidden, inputs)).astype(np.float32) * 0.5
    r = rng.standard_normal((2, 4 * hidden, hidden)).astype(np.float32) * 0.5
    b = rng.standard_normal((2, 8 * hidden)).astype(np.float32) * 0.1
    return helper.make_graph(
        [const("w" + tag, w), const("r" + tag, r), const("b" + tag, b),
         helper.make_node("LSTM", ["x", "w" + tag, "r" + tag, "b" + tag], ["", "h" + tag],
                          hidden_size=hidden, direction="bidirectional")],
        "lstm_" + tag, [], [helper.make_tensor_value_info("h" + tag, F, [2, 2, hidden])])


save(
    "lstm-if",
    helper.make_graph(
        [const("zero_i", np.array(0, np.int64)),
         helper.make_node("Greater", ["n", "zero_i"], ["pos"]),
         helper.make_node("If", ["pos"], ["h"], then_branch=lstm_branch("a"),
                          else_branch=lstm_branch("b"))],
        "lstm_if",
        [helper.make_tensor_value_info("x", F, [5, 2, 3]),
         helper.make_tensor_value_info("n", TensorProto.INT64, [])],
        [helper.make_tensor_value_info("h", F, [2, 2, 4])],
    ),
    [[("x", rng.standard_normal((5, 2, 3)).astype(np.float32)), ("n", np.array(n, np.int64))]
     for n in (3, -2)],
)

# --- while: trip count and condition from run time ------------------------
while_body = helper.make_graph(
    [
        const("two", np.array(2, np.float32)),
        helper.make_node("Mul", ["v_in", "two"], ["v_out"]),
        helper.make_node("ReduceSum", ["v_out"], ["total"], keepdims=0),
        const("limit", np.array(100, np.float32)),
        helper.make_node("Less", ["total", "limit"], ["cond_out"]),
        const("one", np.array(1, np.int64)),
        helper.make_node("Add", ["n_in", "one"], ["n_out"]),
    ],
    "while_body",
    [helper.make_tensor_value_info("i", TensorProto.INT64, []),
     helper.make_tensor_value_info("cond_in", TensorProto.BOOL, []),
     helper.make_tensor_value_info("v_in", F, [3]),
     helper.make_tensor_value_info("n_in", TensorProto.INT64, [])],
    [helper.make_tensor_value_info("cond_out", TensorProto.BOOL, []),
     helper.make_tensor_value_info("v_out", F, [3]),
     helper.make_tensor_value_info("n_out", TensorProto.INT64, [])],
)
save(
    "while",
    helper.make_graph(
        [const("t", np.array(True)), const("n0", np.array(0, np.int64)),
         helper.make_node("Loop", ["m", "t", "x", "n0"], ["y", "count"], body=while_body)],
        "while",
        [helper.make_tensor_value_info("x", F, [3]),
         helper.make_tensor_value_info("m", TensorProto.INT64, [])],
        [helper.make_tensor_value_info("y", F, [3]),
         helper.make_tensor_value_info("count", TensorProto.INT64, [])],
    ),
    [[("x", np.array([1, 2, 3], np.float32)), ("m", np.array(m, np.int64))] for m in (20, 2, 0)],
)

# --- rows: the while loop with a scan output, one row per iteration --------
# The run decides the row count: at most M (a constant 10 in rows-m10), or
# at most the bound given to the compiler (M given at run time).
rows_body = helper.make_graph(
    list(while_body.node) + [helper.make_node("Identity", ["v_out"], ["row"])],
    "rows_body",
    list(while_body.input),
    list(while_body.output) + [helper.make_tensor_value_info("row", F, [3])],
)
save(
    "rows",
    helper.make_graph(
        [const("t3", np.array(True)), const("n2", np.array(0, np.int64)),
         helper.make_node("Loop", ["m", "t3", "x", "n2"], ["y", "count", "rows"], body=rows_body)],
        "rows",
        [helper.make_tensor_value_info("x", F, [3]),
         helper.make_tensor_value_info("m", TensorProto.INT64, [])],
        [helper.make_tensor_value_info("y", F, [3]),
         helper.make_tensor_value_info("count", TensorProto.INT64, []),
         helper.make_tensor_value_info("rows", F, [2, 3])],
    ),
    [[("x", np.array([1, 2, 3], np.float32)), ("m", np.array(m, np.int64))] for m in (20, 2, 0)],
)
save(
    "rows-m10",
    helper.make_graph(
        [const("t4", np.array(True)), const("n3", np.array(0, np.int64)),
         const("ten", np.array(10, np.int64)),
         helper.make_node("Loop", ["ten", "t4", "x", "n3"], ["y", "count", "rows"],
                          body=rows_body)],
        "rows_m10",
        [helper.make_tensor_value_info("x", F, [3])],
        [helper.make_tensor_value_info("y", F, [3]),
         helper.make_tensor_value_info("count", TensorProto.INT64, []),
         helper.make_tensor_value_info("rows", F, ["n", 3])],
    ),
    [[("x", np.array([1, 2, 3], np.float32))], [("x", np.array([50, 60, 70], np.float32))],
     [("x", np.array([0.001, 0, 0], np.float32))]],
)

# --- until: no trip count, only the condition ends the loop ---------------
save(
    "until",
    helper.make_graph(
        [const("t2", np.array(True)), const("n1", np.array(0, np.int64)),
         helper.make_node("Loop", ["", "t2", "x", "n1"], ["y", "count"], body=while_body)],
        "until",
        [helper.make_tensor_value_info("x", F, [3])],
        [helper.make_tensor_value_info("y", F, [3]),
         helper.make_tensor_value_info("count", TensorProto.INT64, [])],
    ),
    [[("x", np.array([1, 2, 3], np.float32))], [("x", np.array([50, 60, 70], np.float32))]],
)

# --- swap: carried values that trade places every iteration ---------------
swap_body = helper.make_graph(
    [
        helper.make_node("Identity", ["cond_in"], ["cond_out"]),
        const("inc", np.array(1, np.float32)),
        helper.make_node("Add", ["b_in", "inc"], ["a_out"]),
        helper.make_node("Identity", ["a_in"], ["b_out"]),
    ],
    "swap_body",
    [helper.make_tensor_value_info("i", TensorProto.INT64, []),
     helper.make_tensor_value_info("cond_in", TensorProto.BOOL, []),
     helper.make_tensor_value_info("a_in", F, [2]),
     helper.make_tensor_value_info("b_in", F, [2])],
    [helper.make_tensor_value_info("cond_out", TensorProto.BOOL, []),
     helper.make_tensor_value_info("a_out", F, [2]),
     helper.make_tensor_value_info("b_out", F, [2])],
)
save(
    "swap",
    helper.make_graph(
        [const("five", np.array(5, np.int64)),
         helper.make_node("Loop", ["five", "", "x", "y"], ["a", "b"], body=swap_body)],
        "swap",
        [helper.make_tensor_value_info("x", F, [2]), helper.make_tensor_value_info("y", F, [2])],
        [helper.make_tensor_value_info("a", F, [2]), helper.make_tensor_value_info("b", F, [2])],
    ),
    [[("x", np.array([1, 2], np.float32)), ("y", np.array([10, 20], np.float32))]],
)

# --- seqmap: SequenceMap over a sequence made in the graph ---------------
map_body = helper.make_graph(
    [
        helper.make_node("Add", ["e", "y"], ["e_plus"]),
        helper.make_node("ReduceSum", ["e_plus"], ["e_sum"], keepdims=1),
        helper.make_node("Mul", ["e", "e2"], ["e_prod"]),
    ],
    "map_body",
    [helper.make_tensor_value_info("e", F, [4]), helper.make_tensor_value_info("y", F, [4]),
     helper.make_tensor_value_info("e2", F, [4])],
    [helper.make_tensor_value_info("e_sum", F, [1]),
     helper.make_tensor_value_info("e_prod", F, [4])],
)
save(
    "seqmap",
    helper.make_graph(
        [helper.make_node("SplitToSequence", ["x"], ["xs"], axis=0, keepdims=0),
         helper.make_node("SequenceConstruct", ["z0", "z1", "z2"], ["zs"]),
         helper.make_node("SequenceMap", ["xs", "y", "zs"], ["sums", "prods"], body=map_body),
         helper.make_node("ConcatFromSequence", ["sums"], ["s"], axis=0),
         helper.make_node("ConcatFromSequence", ["prods"], ["p"], axis=0, new_axis=1)],
        "seqmap",
        [helper.make_tensor_value_info("x", F, [3, 4]), helper.make_tensor_value_info("y", F, [4]),
         helper.make_tensor_value_info("z0", F, [4]), helper.make_tensor_value_info("z1", F, [4]),
         helper.make_tensor_value_info("z2", F, [4])],
        [helper.make_tensor_value_info("s", F, [3]), helper.make_tensor_value_info("p", F, [3, 4])],
    ),
    [[("x", rng.standard_normal((3, 4)).astype(np.float32))] +
     [(n, rng.standard_normal(4).astype(np.float32)) for n in ("y", "z0", "z1", "z2")]],
)

# --- scan-seq: a Scan over a sequence of symbolic length ------------------
seq_body = helper.make_graph(
    [helper.make_node("Add", ["acc", "row"], ["acc_out"]),
     helper.make_node("Mul", ["acc_out", "row"], ["prod"])],
    "seq_body",
    [helper.make_tensor_value_info("acc", F, [4]), helper.make_tensor_value_info("row", F, [4])],
    [helper.make_tensor_value_info("acc_out", F, [4]), helper.make_tensor_value_info("prod", F, [4])],
)
save(
    "scan-seq",
    helper.make_graph(
        [helper.make_node("Scan", ["a0", "xs"], ["a", "ys"], body=seq_body, num_scan_inputs=1,
                          scan_input_directions=[1], scan_output_directions=[1])],
        "scan_seq",
        [helper.make_tensor_value_info("a0", F, [4]),
         helper.make_tensor_value_info("xs", F, ["seq", 4])],
        [helper.make_tensor_value_info("a", F, [4]),
         helper.make_tensor_value_info("ys", F, ["seq", 4])],
    ),
    [[("a0", rng.standard_normal(4).astype(np.float32)),
      ("xs", rng.standard_normal((n, 4)).astype(np.float32))] for n in (1, 5, 2)],
)

# --- invalid: the else branch cannot run with x of 6 elements ------------
save(
    "invalid",
    helper.make_graph(
        [helper.make_node("If", ["c"], ["y"],
                          then_branch=helper.make_graph(
                              [const("s23", np.array([2, 3], np.int64)),
                               helper.make_node("Reshape", ["x", "s23"], ["y_then"])],
                              "then", [], [helper.make_tensor_value_info("y_then", F, ["a", "b"])]),
                          else_branch=helper.make_graph(
                              [const("s4", np.array([4, -1], np.int64)),
                               helper.make_node("Reshape", ["x", "s4"], ["y_else"])],
                              "else", [], [helper.make_tensor_value_info("y_else", F, ["a", "b"])]))],
        "invalid",
        [helper.make_tensor_value_info("x", F, ["n"]),
         helper.make_tensor_value_info("c", TensorProto.BOOL, [])],
        [helper.make_tensor_value_info("y", F, ["a", "b"])],
    ),
    [[("x", np.arange(6, dtype=np.float32)), ("c", np.array(True))]],
)
# The same with x declared float[6]: the importer, which infers shapes node
# by node, meets the Reshape that cannot work inside the branch (ONNX
# Runtime refuses this model: it checks both branches).
static = onnx.load(os.path.join(out, "invalid.onnx"))
static.graph.input[0].type.tensor_type.shape.dim[0].ClearField("dim_param")
static.graph.input[0].type.tensor_type.shape.dim[0].dim_value = 6
onnx.save(static, os.path.join(out, "invalid-static.onnx"))
# Taken, the invalid branch: ONNX Runtime refuses it too (no reference).
d = os.path.join(out, "invalid-taken", "test_data_set_0")
os.makedirs(d, exist_ok=True)
for i, (input_name, value) in enumerate([("x", np.arange(6, dtype=np.float32)),
                                         ("c", np.array(False))]):
    with open(os.path.join(d, "input_%d.pb" % i), "wb") as f:
        f.write(numpy_helper.from_array(value, input_name).SerializeToString())

with open(os.path.join(out, "requests"), "w") as f:
    f.write("\n".join(requests) + "\n")
