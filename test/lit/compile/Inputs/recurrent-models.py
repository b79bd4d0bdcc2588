#!/usr/bin/python3
"""Models with RNN, GRU and LSTM nodes whose weights are constant (the
kernel path of lowering/OnnxToLinalg/Recurrent.cpp), with references from
outside onnxcc.

Usage: recurrent-models.py torch OUTDIR
       recurrent-models.py node OUTDIR ONNX_1_12_NODE_DIR ONNX_1_23_NODE_DIR
       recurrent-models.py ort OUTDIR

Writes
  OUTDIR/torch/        PyTorch: 2-layer bidirectional GRU, LSTM (with given
                       initial states), RNN (tanh) and RNN (relu), each on a
                       batch of 1 and of 3 (one model, eight recurrent
                       nodes), and a GRU over packed sequences of lengths 6,
                       2, 4 (the exporter writes sequence_lens); datasets
                       computed by PyTorch.
  OUTDIR/node-S/       every rnn/gru/lstm node test of the ONNX suite S
                       (1.12, 1.23) in one model, W, R, B and P turned into
                       initializers; the tests' own outputs as reference.
  OUTDIR/ort/          what PyTorch cannot export (references from ONNX
                       Runtime, through test/difftest/ort_run.js): varying
                       sequence_lens in both directions and both layouts,
                       clip, GRU without linear_before_reset, LSTM peepholes
                       with input_forget, the other ONNX activations with
                       their alpha and beta, Y_c; OUTDIR/requests lists its
                       dataset for ort_run.js.
Each folder holds model.onnx and test_data_set_0.
"""
import glob
import os
import sys

import numpy as np
import onnx
from onnx import helper, numpy_helper, TensorProto


def write_dataset(folder, inputs, outputs):
    """inputs/outputs: lists of (name, array)."""
    os.makedirs(folder, exist_ok=True)
    for k, (name, a) in enumerate(inputs):
        with open(os.path.join(folder, "input_%d.pb" % k), "wb") as f:
            f.write(numpy_helper.from_array(a, name).SerializeToString())
    for k, (name, a) in enumerate(outputs):
        with open(os.path.join(folder, "output_%d.pb" % k), "wb") as f:
            f.write(numpy_helper.from_array(a, name).SerializeToString())


# --- PyTorch ---------------------------------------------------------------

def torch_models(outdir):
    import torch

    class Stack(torch.nn.Module):
        def __init__(self):
            super().__init__()
            kw = dict(num_layers=2, bidirectional=True)
            self.gru = torch.nn.GRU(6, 8, **kw)
            self.lstm = torch.nn.LSTM(6, 7, **kw)
            self.rnn = torch.nn.RNN(6, 5, **kw)
            self.relu = torch.nn.RNN(6, 4, nonlinearity="relu", **kw)

        def forward(self, x1, x3, h1, c1):
            outs = []
            for x, h, c in ((x1, h1, c1), (x3, None, None)):
                y, hn = self.gru(x)
                outs += [y, hn]
                y, (hn, cn) = self.lstm(x, (h, c)) if h is not None else self.lstm(x)
                outs += [y, hn, cn]
                y, hn = self.rnn(x)
                outs += [y, hn]
                y, hn = self.relu(x)
                outs += [y, hn]
            return tuple(outs)

    class Packed(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.gru = torch.nn.GRU(4, 5, num_layers=2, bidirectional=True)

        def forward(self, x, lens):
            p = torch.nn.utils.rnn.pack_padded_sequence(x, lens, enforce_sorted=False)
            y, h = self.gru(p)
            y, _ = torch.nn.utils.rnn.pad_packed_sequence(y, total_length=x.shape[0])
            return y, h

    torch.manual_seed(0)
    cases = []
    model = Stack().eval()
    x1, x3 = torch.randn(9, 1, 6), torch.randn(5, 3, 6)
    h1, c1 = torch.randn(4, 1, 7), torch.randn(4, 1, 7)
    cases.append(("torch", model, (x1, x3, h1, c1), ["x1", "x3", "h1", "c1"]))
    model = Packed().eval()
    cases.append(("torch-packed", model, (torch.randn(6, 3, 4), torch.tensor([6, 2, 4])),
                  ["x", "lens"]))
    for name, model, args, names in cases:
        folder = os.path.join(outdir, name)
        os.makedirs(folder, exist_ok=True)
        with torch.no_grad():
            outs = model(*args)
        out_names = ["out%d" % i for i in range(len(outs))]
        import warnings
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            torch.onnx.export(model, args, os.path.join(folder, "model.onnx"),
                              input_names=names, output_names=out_names, opset_version=14)
        write_dataset(os.path.join(folder, "test_data_set_0"),
                      [(n, a.numpy()) for n, a in zip(names, args)],
                      [(n, o.numpy().astype(np.float32)) for n, o in zip(out_names, outs)])


# --- ONNX node tests with constant weights --------------------------------

CONSTANT_INPUTS = {1: "W", 2: "R", 3: "B", 7: "P"}


def node_tests(outdir, suite, data_dir):
    """All rnn/gru/lstm node tests of `data_dir` in one model: node inputs
    W, R, B, P become initializers, every name gets the test's prefix."""
    tests = sorted(d for d in glob.glob(os.path.join(data_dir, "test_*"))
                   if any(k in os.path.basename(d) for k in ("gru", "lstm", "rnn")))
    nodes, inits, ins, outs, in_data, out_data = [], [], [], [], [], []
    opset = 7
    for test in tests:
        prefix = os.path.basename(test)[5:] + "_"
        model = onnx.load(os.path.join(test, "model.onnx"))
        opset = max(opset, model.opset_import[0].version)
        data = os.path.join(test, "test_data_set_0")
        values = {}
        for k, vi in enumerate(model.graph.input):
            t = onnx.TensorProto()
            with open(os.path.join(data, "input_%d.pb" % k), "rb") as f:
                t.ParseFromString(f.read())
            values[vi.name] = numpy_helper.to_array(t)
        (node,) = model.graph.node
        constant = {node.input[i] for i in CONSTANT_INPUTS if i < len(node.input) and node.input[i]}
        for vi in model.graph.input:
            if vi.name in constant:
                inits.append(numpy_helper.from_array(values[vi.name], prefix + vi.name))
            else:
                v = onnx.ValueInfoProto()
                v.CopyFrom(vi)
                v.name = prefix + vi.name
                ins.append(v)
                in_data.append((v.name, values[vi.name]))
        for k, vo in enumerate(model.graph.output):
            v = onnx.ValueInfoProto()
            v.CopyFrom(vo)
            v.name = prefix + vo.name
            outs.append(v)
            t = onnx.TensorProto()
            with open(os.path.join(data, "output_%d.pb" % k), "rb") as f:
                t.ParseFromString(f.read())
            out_data.append((v.name, numpy_helper.to_array(t)))
        renamed = onnx.NodeProto()
        renamed.CopyFrom(node)
        renamed.name = prefix + "node"
        for i, n in enumerate(node.input):
            renamed.input[i] = prefix + n if n else ""
        for i, n in enumerate(node.output):
            renamed.output[i] = prefix + n if n else ""
        nodes.append(renamed)
    graph = helper.make_graph(nodes, "node_" + suite, ins, outs, inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    folder = os.path.join(outdir, "node-" + suite)
    os.makedirs(folder, exist_ok=True)
    onnx.save(model, os.path.join(folder, "model.onnx"))
    write_dataset(os.path.join(folder, "test_data_set_0"), in_data, out_data)
    return len(tests)


# --- ONNX features, references from ONNX Runtime --------------------------

def ort_models(outdir):
    rng = np.random.default_rng(5)
    nodes, ref_nodes, inits, ins, outs, in_data = [], [], [], [], [], []

    def add(name, op, seq, batch, inp, hidden, dirs, attrs, lens=None, layout=0, h0=False,
            c0=False, peep=False, bias=True):
        gates = {"RNN": 1, "GRU": 3, "LSTM": 4}[op]
        def init(suffix, shape, scale):
            a = (scale * rng.standard_normal(shape)).astype(np.float32)
            inits.append(numpy_helper.from_array(a, name + suffix))
            return name + suffix
        def inp_(suffix, a):
            ins.append(helper.make_tensor_value_info(
                name + suffix, TensorProto.INT32 if a.dtype == np.int32 else TensorProto.FLOAT,
                list(a.shape)))
            in_data.append((name + suffix, a))
            return name + suffix
        x_shape = (batch, seq, inp) if layout else (seq, batch, inp)
        state_shape = (batch, dirs, hidden) if layout else (dirs, batch, hidden)
        inputs = [inp_("_x", rng.standard_normal(x_shape).astype(np.float32)),
                  init("_w", (dirs, gates * hidden, inp), 0.5),
                  init("_r", (dirs, gates * hidden, hidden), 0.5),
                  init("_b", (dirs, 2 * gates * hidden), 0.3) if bias else "",
                  inp_("_lens", np.array(lens, dtype=np.int32)) if lens else "",
                  inp_("_h0", rng.standard_normal(state_shape).astype(np.float32)) if h0 else ""]
        if op == "LSTM":
            inputs += [inp_("_c0", rng.standard_normal(state_shape).astype(np.float32))
                       if c0 else "", init("_p", (dirs, 3 * hidden), 0.5) if peep else ""]
        while inputs and not inputs[-1]:
            inputs.pop()
        results = [name + "_y", name + "_yh"] + ([name + "_yc"] if op == "LSTM" else [])
        y_shape = (batch, seq, dirs, hidden) if layout else (seq, dirs, batch, hidden)
        outs.append(helper.make_tensor_value_info(results[0], TensorProto.FLOAT, list(y_shape)))
        for r in results[1:]:
            outs.append(helper.make_tensor_value_info(r, TensorProto.FLOAT, list(state_shape)))
        direction = {1: "forward", 2: "bidirectional"}[dirs]
        if attrs.pop("reverse", False):
            direction = "reverse"
        nodes.append(helper.make_node(op, inputs, results, name=name, hidden_size=hidden,
                                      direction=direction, layout=layout, **attrs))
        if not layout:
            ref_nodes.append(nodes[-1])
            return
        # ONNX Runtime has no layout 1: its reference runs layout 0 between
        # transposes.
        def transposed(value, perm, suffix):
            ref_nodes.append(helper.make_node("Transpose", [value], [value + suffix], perm=perm))
            return value + suffix
        ref_inputs = list(inputs)
        for i in (0, 5, 6):
            if i < len(ref_inputs) and ref_inputs[i]:
                ref_inputs[i] = transposed(ref_inputs[i], [1, 0, 2], "_t")
        ref_results = [r + "_t" for r in results]
        ref_nodes.append(helper.make_node(op, ref_inputs, ref_results, name=name,
                                          hidden_size=hidden, direction=direction, **attrs))
        ref_nodes.append(helper.make_node("Transpose", [ref_results[0]], [results[0]],
                                          perm=[2, 0, 1, 3]))
        for r, t in zip(results[1:], ref_results[1:]):
            ref_nodes.append(helper.make_node("Transpose", [t], [r], perm=[1, 0, 2]))

    # Varying lengths in both directions, both layouts. One of them is 0:
    # without initial states there, as for an empty sequence ONNX Runtime
    # gives Y_h = 0 where onnxcc keeps the state frozen (Y_h = initial_h).
    add("gru_lens", "GRU", 6, 4, 5, 7, 2, {"linear_before_reset": 1}, lens=[6, 0, 3, 5])
    add("lstm_lens_batchwise", "LSTM", 5, 3, 4, 6, 2, {}, lens=[2, 5, 1], layout=1, h0=True,
        c0=True)
    add("rnn_lens_reverse", "RNN", 7, 5, 3, 9, 1, {"reverse": True}, lens=[7, 1, 4, 6, 2])
    # GRU without linear_before_reset, batch 1 and a batch of 6 (blocks of 4
    # and 2 rows), clip.
    add("gru_default_b1", "GRU", 8, 1, 6, 17, 2, {})
    add("gru_clip_b6", "GRU", 4, 6, 5, 10, 1, {"clip": 0.7, "reverse": True}, h0=True)
    # LSTM peepholes with input_forget, and with the forget gate.
    add("lstm_peep_forget", "LSTM", 5, 2, 4, 5, 2, {"input_forget": 1}, h0=True, c0=True,
        peep=True)
    add("lstm_peep_clip", "LSTM", 6, 1, 3, 33, 1, {"clip": 1.5}, peep=True, bias=False)
    # The other activations, alpha/beta consumed in order (ONNX defaults
    # where the list runs out).
    add("rnn_affine", "RNN", 4, 2, 3, 6, 2,
        {"activations": ["Affine", "ScaledTanh"], "activation_alpha": [0.5, 0.8],
         "activation_beta": [0.1, 1.2], "clip": 2.0})
    add("gru_acts", "GRU", 5, 3, 4, 6, 2,
        {"activations": ["HardSigmoid", "Softsign", "Sigmoid", "Elu"],
         "activation_alpha": [0.25, 0.9], "activation_beta": [0.45], "linear_before_reset": 1})
    add("lstm_acts", "LSTM", 4, 2, 3, 5, 1,
        {"activations": ["HardSigmoid", "LeakyRelu", "Softplus"], "activation_alpha": [0.3],
         "clip": 3.0})
    add("rnn_thresholded", "RNN", 3, 2, 3, 4, 1,
        {"activations": ["ThresholdedRelu"], "activation_alpha": [0.2]})
    folder = os.path.join(outdir, "ort")
    os.makedirs(folder, exist_ok=True)
    for graph_nodes, file in ((nodes, "model.onnx"), (ref_nodes, "reference.onnx")):
        graph = helper.make_graph(graph_nodes, "ort_features", ins, outs, inits)
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 14)])
        onnx.checker.check_model(model)
        onnx.save(model, os.path.join(folder, file))
    write_dataset(os.path.join(folder, "test_data_set_0"), in_data, [])
    with open(os.path.join(outdir, "requests"), "w") as f:
        f.write("%s\t%s\n" % (os.path.abspath(os.path.join(folder, "reference.onnx")),
                              os.path.abspath(os.path.join(folder, "test_data_set_0"))))


def main():
    what = sys.argv[1] if len(sys.argv) > 2 else ""
    if (what, len(sys.argv)) not in (("torch", 3), ("node", 5), ("ort", 3)):
        sys.exit(__doc__)
    outdir = sys.argv[2]
    os.makedirs(outdir, exist_ok=True)
    if what == "torch":
        torch_models(outdir)
    elif what == "node":
        for suite, data_dir in zip(("1.12", "1.23"), sys.argv[3:]):
            print("node-%s: %d tests" % (suite, node_tests(outdir, suite, data_dir)))
    else:
        ort_models(outdir)


if __name__ == "__main__":
    main()
