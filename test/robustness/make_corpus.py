#!/usr/bin/python3
"""Writes the hostile-model corpus for `onnxcc compile`.

Usage: make_corpus.py OUTDIR

Each case is a folder OUTDIR/NAME holding the model (and, for the external
data cases, its data files). OUTDIR/manifest.jsonl has one JSON object a line:

  name     the case
  model    the model's path, relative to OUTDIR
  expect   "reject": onnxcc must exit non-zero with one error line matching
           `error`; "compile-or-reject": a valid but extreme model, which must
           either compile or be rejected with one clean line
  error    (reject) a regex the error line must match; it names the problem
  timeout  seconds the compile may take
  args     extra command-line arguments of `onnxcc compile`
  xfail    (optional) why the case is a known failure
  xfail_sanitized  (optional) why the case is a known failure of ASan/UBSan
           builds only (undefined behaviour a release build does not show)

Everything is generated here (the big cases too), from fixed seeds, so that
the output is the same on every run and the repository stays small.
"""
import json
import os
import random
import shutil
import struct
import sys

import onnx
from onnx import TensorProto, helper

FLOAT = TensorProto.FLOAT
OPSET = 13


# --------------------------------------------------------------------------
# Protobuf wire format, for the cases the onnx package cannot write.
# --------------------------------------------------------------------------

def varint(n):
    out = bytearray()
    n &= (1 << 64) - 1
    while True:
        b = n & 0x7F
        n >>= 7
        if n:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def field(number, wire_type, payload):
    """One field: its tag, then the payload (a length prefix is added for
    wire type 2)."""
    tag = varint((number << 3) | wire_type)
    if wire_type == 2:
        return tag + varint(len(payload)) + payload
    return tag + payload


def read_varint(data, pos):
    shift = value = 0
    while True:
        b = data[pos]
        pos += 1
        value |= (b & 0x7F) << shift
        shift += 7
        if not b & 0x80:
            return value, pos


def top_level_fields(data):
    """(number, wire type, tag offset, payload offset, end) of each field."""
    fields = []
    pos = 0
    while pos < len(data):
        start = pos
        tag, pos = read_varint(data, pos)
        number, wire = tag >> 3, tag & 7
        if wire == 0:
            _, pos = read_varint(data, pos)
            fields.append((number, wire, start, pos, pos))
        elif wire == 2:
            length, payload = read_varint(data, pos)
            pos = payload + length
            fields.append((number, wire, start, payload, pos))
        elif wire == 1:
            pos += 8
            fields.append((number, wire, start, pos - 8, pos))
        elif wire == 5:
            pos += 4
            fields.append((number, wire, start, pos - 4, pos))
        else:
            raise ValueError("unexpected wire type")
    return fields


# --------------------------------------------------------------------------
# Models
# --------------------------------------------------------------------------

def vi(name, dims, elem=FLOAT):
    return helper.make_tensor_value_info(name, elem, dims)


def model(nodes, inputs, outputs, initializers=(), opset=OPSET, ir_version=8,
          value_info=(), name="g"):
    graph = helper.make_graph(list(nodes), name, list(inputs), list(outputs),
                              initializer=list(initializers), value_info=list(value_info))
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)],
                          producer_name="onnxcc-robustness")
    m.ir_version = ir_version
    return m


def relu_model():
    return model([helper.make_node("Relu", ["x"], ["y"], name="relu")],
                 [vi("x", [2, 3])], [vi("y", [2, 3])])


def weights_model():
    """A small CNN with real weights: the base of the bit-flip cases."""
    rng = random.Random(1234)
    w = [rng.uniform(-1, 1) for _ in range(4 * 3 * 3 * 3)]
    b = [rng.uniform(-1, 1) for _ in range(4)]
    fc = [rng.uniform(-1, 1) for _ in range(4 * 6 * 6 * 5)]
    inits = [helper.make_tensor("w", FLOAT, [4, 3, 3, 3], w),
             helper.make_tensor("b", FLOAT, [4], b),
             helper.make_tensor("fc", FLOAT, [4 * 6 * 6, 5], fc),
             helper.make_tensor("shape", TensorProto.INT64, [2], [1, 4 * 6 * 6])]
    nodes = [helper.make_node("Conv", ["x", "w", "b"], ["c"], name="conv", pads=[0, 0, 0, 0]),
             helper.make_node("Relu", ["c"], ["r"], name="relu"),
             helper.make_node("Reshape", ["r", "shape"], ["f"], name="flatten"),
             helper.make_node("MatMul", ["f", "fc"], ["y"], name="fc")]
    return model(nodes, [vi("x", [1, 3, 8, 8])], [vi("y", [1, 5])], inits)


class Corpus:
    def __init__(self, root):
        self.root = root
        self.cases = []
        self.names = set()

    def _folder(self, name):
        assert name not in self.names, name
        self.names.add(name)
        folder = os.path.join(self.root, name)
        os.makedirs(folder)
        return folder

    def add(self, name, expect, data, error=None, timeout=20, args=(), file="model.onnx",
            xfail=None, xfail_sanitized=None, setup=None):
        """Writes case `name`: `data` (bytes or a ModelProto) as FILE in its
        folder; `setup(folder)` adds other files."""
        assert expect in ("reject", "compile-or-reject")
        assert (error is not None) == (expect == "reject"), name
        folder = self._folder(name)
        if isinstance(data, onnx.ModelProto):
            data = data.SerializeToString()
        elif isinstance(data, str):
            data = data.encode()
        path = os.path.join(folder, file)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "wb") as f:
            f.write(data)
        if setup:
            setup(folder)
        case = {"name": name, "model": os.path.relpath(path, self.root), "expect": expect,
                "timeout": timeout, "args": list(args)}
        if error is not None:
            case["error"] = error
        if xfail:
            case["xfail"] = xfail
        if xfail_sanitized:
            case["xfail_sanitized"] = xfail_sanitized
        self.cases.append(case)

    def reject(self, name, data, error, **kw):
        self.add(name, "reject", data, error=error, **kw)

    def extreme(self, name, data, **kw):
        self.add(name, "compile-or-reject", data, **kw)

    def write_manifest(self):
        with open(os.path.join(self.root, "manifest.jsonl"), "w") as f:
            for case in self.cases:
                f.write(json.dumps(case, sort_keys=True) + "\n")


MALFORMED = r"truncated or malformed"


# --------------------------------------------------------------------------
# Broken protobufs
# --------------------------------------------------------------------------

def protobuf_cases(c):
    relu = relu_model().SerializeToString()
    cnn = weights_model().SerializeToString()
    graph_field = next(f for f in top_level_fields(relu) if f[0] == 7)

    c.reject("pb-empty", b"", r"not an ONNX model: it has no graph")
    c.reject("pb-truncated-half", relu[:len(relu) // 2], MALFORMED)
    c.reject("pb-truncated-last-byte", relu[:-1], MALFORMED)
    # Cut inside the 576-float raw weights of the MatMul.
    c.reject("pb-truncated-in-weights", cnn[:len(cnn) - 1500], MALFORMED)

    # The graph's length prefix with its high bit flipped: the varint runs on
    # into the payload and claims more bytes than the file has.
    flipped = bytearray(relu)
    length_end = graph_field[3] - 1
    flipped[length_end] ^= 0x80
    c.reject("pb-bitflip-length", bytes(flipped), MALFORMED)
    # The graph's tag with wire type 7, which does not exist.
    flipped = bytearray(relu)
    flipped[graph_field[2]] |= 0x07
    c.reject("pb-bitflip-wiretype", bytes(flipped), MALFORMED)

    # Known fields with the wrong (but valid) wire type: protobuf keeps them
    # as unknown fields, so the model silently loses them.
    head = relu[:graph_field[2]]
    tail = relu[graph_field[4]:]
    c.reject("pb-wiretype-graph-varint", head + field(7, 0, varint(5)) + tail,
             r"wire type|no graph")
    c.reject("pb-wiretype-irversion-bytes",
             field(1, 2, b"eight") + relu[top_level_fields(relu)[1][2]:], r"wire type")
    graph = relu[graph_field[3]:graph_field[4]]
    node = next(f for f in top_level_fields(graph) if f[0] == 1)
    bad_graph = graph[:node[2]] + field(1, 5, b"\x01\x02\x03\x04") + graph[node[4]:]
    c.reject("pb-wiretype-node-fixed32", head + field(7, 2, bad_graph) + tail, r"wire type")

    # An attribute whose type is 99, which AttributeProto.AttributeType lacks.
    n = helper.make_node("Concat", ["x", "x"], ["y"], name="cat")
    n.MergeFromString(field(5, 2, field(1, 2, b"axis") + field(3, 0, varint(0)) +
                            field(20, 0, varint(99))))
    c.reject("pb-unknown-enum-value", model([n], [vi("x", [2, 3])], [vi("y", [4, 3])]),
             r"'type' \(20\) of AttributeProto has value 99")
    # A varint of eleven bytes; a length of 2^64 - 1.
    c.reject("pb-varint-overflow", field(1, 0, b"\xff" * 10 + b"\x01") + relu, MALFORMED)
    c.reject("pb-length-overflow", head + varint((7 << 3) | 2) + varint(2**64 - 1) + graph,
             MALFORMED)
    # A graph input whose type nests sequence(sequence(...)) 5,000 deep:
    # ValueInfoProto.type -> TypeProto.sequence_type -> Sequence.elem_type.
    tp = field(1, 2, field(1, 0, varint(FLOAT)))  # tensor_type { elem_type: FLOAT }
    for _ in range(5000):
        tp = field(4, 2, field(1, 2, tp))
    deep_graph = graph + field(11, 2, field(1, 2, b"deep") + field(2, 2, tp))
    c.reject("pb-nested-types", head + field(7, 2, deep_graph) + tail,
             r"nested|" + MALFORMED)

    rng = random.Random(7)
    c.reject("pb-garbage", bytes(rng.randrange(256) for _ in range(4096)),
             MALFORMED + r"|not an ONNX model")
    c.reject("text-syntax", "ir_version: 8\ngraph { node { op_type: \"Relu\" \n",
             r"malformed ONNX text model", file="model.onnxtxt")

    # Random bit flips of a model with weights: each must compile or be
    # rejected cleanly, whatever the flip hits.
    rng = random.Random(2024)
    for i in range(8):
        data = bytearray(cnn)
        for _ in range(1 + i % 3):
            pos = rng.randrange(len(data))
            data[pos] ^= 1 << rng.randrange(8)
        c.extreme("pb-bitflip-random-%d" % i, bytes(data))


# --------------------------------------------------------------------------
# Invalid graphs, ops, types and tensors
# --------------------------------------------------------------------------

def graph_cases(c):
    x, y = vi("x", [2, 3]), vi("y", [2, 3])
    node = helper.make_node
    c.reject("graph-cycle", model(
        [node("Add", ["x", "b"], ["a"], name="add"), node("Relu", ["a"], ["b"], name="relu")],
        [x], [vi("b", [2, 3])]), r"cycle")
    c.reject("graph-self-loop", model([node("Add", ["x", "a"], ["a"], name="add")], [x],
                                      [vi("a", [2, 3])]), r"cycle")
    # Out-of-order nodes without a cycle are sorted, as ONNX Runtime does
    # (test/lit/import/unsorted-nodes.test); with a cycle they stay an error.
    c.reject("graph-unsorted-cycle", model(
        [node("Relu", ["a"], ["y"], name="second"), node("Neg", ["x"], ["a"], name="first"),
         node("Add", ["x", "d"], ["c"], name="third"), node("Abs", ["c"], ["d"], name="fourth")],
        [x], [y]), r"cannot be put in order: the graph has a cycle")
    c.reject("graph-undefined-input", model([node("Add", ["x", "nope"], ["y"], name="add")],
                                            [x], [y]), r"'nope' is not produced|undefined")
    c.reject("graph-undefined-output", model([node("Relu", ["x"], ["y"])], [x],
                                             [vi("z", [2, 3])]),
             r"graph output 'z' is not produced")
    c.reject("graph-duplicate-node-output", model(
        [node("Relu", ["x"], ["y"], name="one"), node("Neg", ["x"], ["y"], name="two")],
        [x], [y]), r"output 'y' is already defined")
    c.reject("graph-output-shadows-input", model([node("Relu", ["x"], ["x"], name="relu")],
                                                 [x], [x]), r"output 'x' is already defined")
    c.reject("graph-duplicate-graph-output", model([node("Relu", ["x"], ["y"])], [x], [y, y]),
             r"graph output 'y' is listed twice")
    c.reject("graph-duplicate-input", model([node("Relu", ["x"], ["y"])], [x, x], [y]),
             r"graph input 'x' is declared twice")
    c.reject("graph-duplicate-initializer", model(
        [node("Add", ["x", "w"], ["y"])], [x], [y],
        [helper.make_tensor("w", FLOAT, [3], [1, 2, 3]),
         helper.make_tensor("w", FLOAT, [3], [4, 5, 6])]), r"initializer 'w' is declared twice")
    m = model([node("Relu", ["x"], ["y"])], [x], [y])
    m.graph.input[0].ClearField("type")
    c.reject("graph-input-no-type", m, r"graph input 'x' has no type")
    c.reject("graph-no-op-type", model([node("", ["x"], ["y"], name="blank")], [x], [y]),
             r"no op_type")


def op_cases(c):
    x, y = vi("x", [2, 3]), vi("y", [2, 3])
    node = helper.make_node
    c.reject("op-missing-attr-cast", model([node("Cast", ["x"], ["y"], name="cast")], [x],
                                           [vi("y", [2, 3], TensorProto.INT32)]),
             r"'to'.*(missing|required)|(missing|required).*'to'")
    c.reject("op-missing-attr-concat", model([node("Concat", ["x", "x"], ["y"], name="cat")],
                                             [x], [vi("y", [4, 3])]),
             r"'axis'.*(missing|required)|(missing|required).*'axis'")
    c.reject("op-constant-no-value", model([node("Constant", [], ["y"], name="k")], [x], [y]),
             r"Constant.*(value|attribute)")
    n = node("Concat", ["x", "x"], ["y"], name="cat")
    n.attribute.append(helper.make_attribute("axis", 0.5))
    c.reject("op-attr-type-float-for-int", model([n], [x], [vi("y", [4, 3])]),
             r"attribute 'axis' has type FLOAT, expected INT")
    n = node("Transpose", ["x"], ["y"], name="t")
    n.attribute.append(helper.make_attribute("perm", "1,0"))
    c.reject("op-attr-type-string-for-ints", model([n], [x], [vi("y", [3, 2])]),
             r"attribute 'perm' has type STRING, expected INTS")
    n = node("Relu", ["x"], ["y"], name="relu")
    n.attribute.append(helper.make_attribute("alpha", 1.0))
    c.reject("op-unknown-attr", model([n], [x], [y]), r"unknown attribute 'alpha'")
    n = node("Concat", ["x", "x"], ["y"], name="cat", axis=0)
    n.attribute.append(helper.make_attribute("axis", 1))
    c.reject("op-duplicate-attr", model([n], [x], [vi("y", [4, 3])]),
             r"attribute 'axis' is given twice")
    c.reject("op-unknown", model([node("FooBar", ["x"], ["y"], name="foo")], [x], [y]),
             r"unknown operator 'FooBar'")
    c.reject("op-unknown-domain", model([node("Relu", ["x"], ["y"], domain="com.example")],
                                        [x], [y]), r"domain 'com.example' is not supported")
    c.reject("op-not-in-opset", model([node("Trilu", ["x"], ["y"])], [x], [y]),
             r"Trilu does not exist in opset 13")
    c.reject("op-too-many-inputs", model([node("Relu", ["x", "x"], ["y"])], [x], [y]),
             r"has 2 inputs, the operator takes at most 1")
    c.reject("op-missing-input", model([node("Add", ["x"], ["y"])], [x], [y]),
             r"required input #1 'B' is missing")
    c.reject("op-too-many-outputs", model([node("Relu", ["x"], ["y", "z"])], [x], [y]),
             r"has 2 outputs, the operator has at most 1")
    then_g = helper.make_graph([node("Relu", ["x"], ["t"])], "then", [], [vi("t", [2, 3])])
    c.reject("op-if-missing-branch", model(
        [node("If", ["c"], ["y"], name="if", then_branch=then_g)],
        [x, vi("c", [], TensorProto.BOOL)], [y]), r"subgraph attribute 'else_branch' is missing")
    body = helper.make_graph(
        [node("Identity", ["cond"], ["cond_out"]), node("Add", ["v", "ghost"], ["v_out"])],
        "body", [vi("i", [], TensorProto.INT64), vi("cond", [], TensorProto.BOOL), vi("v", [2, 3])],
        [vi("cond_out", [], TensorProto.BOOL), vi("v_out", [2, 3])])
    c.reject("op-loop-body-undefined", model(
        [node("Loop", ["n", "", "x"], ["y"], name="loop", body=body)],
        [x, vi("n", [], TensorProto.INT64)], [y]), r"subgraph loop.*'ghost' is not produced")
    c.reject("op-graph-attr-on-plain-op", model(
        [node("Relu", ["x"], ["y"], name="relu", then_branch=then_g)], [x], [y]),
        r"unknown attribute 'then_branch'")
    c.reject("op-axis-out-of-range", model([node("Softmax", ["x"], ["y"], name="sm", axis=5)],
                                           [x], [y]), r"axis")


def hostile_attribute_cases(c):
    """Attributes and constant operands that shape functions and constant
    folding divide by, index with or add up: each must compile or be
    rejected cleanly (no division by zero, no overflow, no read out of
    bounds)."""
    node = helper.make_node
    i64 = TensorProto.INT64

    def const(name, values):
        return helper.make_tensor(name, i64, [len(values)], values)

    img = vi("x", [1, 1, 4, 4])
    w = helper.make_tensor("w", FLOAT, [1, 1, 2, 2], [1, 2, 3, 4])
    c.extreme("attr-conv-stride-0", model(
        [node("Conv", ["x", "w"], ["y"], name="conv", strides=[0, 0])], [img], [vi("y", None)],
        [w]))
    c.extreme("attr-conv-dilation-huge", model(
        [node("Conv", ["x", "w"], ["y"], name="conv", dilations=[2**62, 2**62])], [img],
        [vi("y", None)], [w]))
    c.extreme("attr-pool-kernel-larger", model(
        [node("MaxPool", ["x"], ["y"], name="pool", kernel_shape=[9, 9])], [img],
        [vi("y", None)]))
    c.extreme("attr-pads-huge", model(
        [node("Conv", ["x", "w"], ["y"], name="conv", pads=[2**62, 2**62, 2**62, 2**62])],
        [img], [vi("y", None)], [w]))
    c.extreme("attr-transpose-perm-bad", model(
        [node("Transpose", ["x"], ["y"], name="t", perm=[0, 0, 7, -9])], [img],
        [vi("y", None)]))
    c.extreme("attr-concat-axis-huge", model(
        [node("Concat", ["x", "x"], ["y"], name="cat", axis=2**62)], [img], [vi("y", None)]))
    c.extreme("attr-flatten-axis-bad", model(
        [node("Flatten", ["x"], ["y"], name="f", axis=-100)], [img], [vi("y", None)]))
    c.extreme("const-slice-extremes", model(
        [node("Slice", ["x", "st", "en", "ax", "sp"], ["y"], name="slice")], [vi("x", [10])],
        [vi("y", None)],
        [const("st", [-2**63]), const("en", [2**63 - 1]), const("ax", [0]),
         const("sp", [-2**63])]))
    c.extreme("const-slice-step-0", model(
        [node("Slice", ["x", "st", "en", "ax", "sp"], ["y"], name="slice")], [vi("x", [10])],
        [vi("y", None)], [const("st", [0]), const("en", [5]), const("ax", [0]), const("sp", [0])]))
    # ONNX makes an index outside [-s, s) an error; constant ones are
    # rejected at compile time (the first one found is named).
    c.reject("const-gather-out-of-range", model(
        [node("Gather", ["d", "i"], ["y"], name="gather")], [], [vi("y", None)],
        [helper.make_tensor("d", FLOAT, [3], [1, 2, 3]), const("i", [5, -7, 2**62])]),
        r"node 'gather' .*index 5 of input 'indices' is out of range \[-3, 3\) of axis 0")
    c.reject("const-scatternd-out-of-range", model(
        [node("ScatterND", ["d", "i", "u"], ["y"], name="scatter")], [vi("d", [3, 2])],
        [vi("y", None)],
        [helper.make_tensor("i", i64, [2, 1], [1, 2**62]),
         helper.make_tensor("u", FLOAT, [2, 2], [1, 2, 3, 4])]),
        r"node 'scatter' .*index 4611686018427387904 of input 'indices' is out of range")
    c.reject("const-gatherelements-int32-min", model(
        [node("GatherElements", ["d", "i"], ["y"], name="gather", axis=1)], [vi("d", [2, 3])],
        [vi("y", None)], [helper.make_tensor("i", TensorProto.INT32, [1, 2], [-3, -2**31])]),
        r"node 'gather' .*index -2147483648 of input 'indices' is out of range \[-3, 3\) of axis 1")
    c.extreme("const-range-delta-0", model(
        [node("Range", ["a", "b", "d"], ["y"], name="range")], [], [vi("y", None)],
        [helper.make_tensor("a", i64, [], [0]), helper.make_tensor("b", i64, [], [10]),
         helper.make_tensor("d", i64, [], [0])]))
    c.extreme("const-range-huge", model(
        [node("Range", ["a", "b", "d"], ["y"], name="range")], [], [vi("y", None)],
        [helper.make_tensor("a", i64, [], [-2**63]), helper.make_tensor("b", i64, [], [2**63 - 1]),
         helper.make_tensor("d", i64, [], [1])]))
    c.extreme("const-reshape-two-minus-one", model(
        [node("Reshape", ["x", "s"], ["y"], name="reshape")], [vi("x", [2, 3])], [vi("y", None)],
        [const("s", [-1, -1])]))
    c.extreme("const-reshape-zero-and-minus-one", model(
        [node("Reshape", ["x", "s"], ["y"], name="reshape")], [vi("x", [0, 3])], [vi("y", None)],
        [const("s", [-1, 0])]))
    c.extreme("const-tile-huge", model(
        [node("Tile", ["x", "r"], ["y"], name="tile")], [vi("x", [2, 3])], [vi("y", None)],
        [const("r", [2**62, 2**62])]))
    c.extreme("const-constantofshape-negative", model(
        [node("ConstantOfShape", ["s"], ["y"], name="zeros")], [], [vi("y", None)],
        [const("s", [-5])]))
    c.extreme("const-split-negative", model(
        [node("Split", ["x", "s"], ["a", "b"], name="split", axis=0)], [vi("x", [4])],
        [vi("a", None), vi("b", None)], [const("s", [6, -2])]))
    c.extreme("const-onehot-depth-huge", model(
        [node("OneHot", ["i", "d", "v"], ["y"], name="onehot")], [vi("i", [3], i64)],
        [vi("y", None)],
        [helper.make_tensor("d", i64, [], [2**62]), helper.make_tensor("v", FLOAT, [2], [0, 1])]))
    c.extreme("const-resize-scale-huge", model(
        [node("Resize", ["x", "", "sc"], ["y"], name="resize")], [img], [vi("y", None)],
        [helper.make_tensor("sc", FLOAT, [4], [1, 1, 1e30, 1e30])]))
    c.extreme("scan-num-inputs-bad", model(
        [node("Scan", ["x"], ["y"], name="scan", num_scan_inputs=5,
              body=helper.make_graph([node("Identity", ["e"], ["o"])], "body",
                                     [vi("e", [3])], [vi("o", [3])]))],
        [vi("x", [2, 3])], [vi("y", None)]))


def model_cases(c):
    relu = relu_model()
    m = onnx.ModelProto()
    m.CopyFrom(relu)
    m.opset_import[0].version = 99
    c.reject("opset-99", m, r"opset 99")
    m.opset_import[0].version = 0
    c.reject("opset-0", m, r"invalid opset 0")
    m.opset_import[0].version = -5
    c.reject("opset-negative", m, r"invalid opset -5")
    m = onnx.ModelProto()
    m.CopyFrom(relu)
    m.ir_version = 99
    c.reject("ir-version-99", m, r"IR version 99")
    m.ir_version = -1
    c.reject("ir-version-negative", m, r"IR version -1")
    m = onnx.ModelProto()
    m.CopyFrom(relu)
    del m.opset_import[:]
    c.reject("no-opset-import", m, r"no opset_import")


def type_cases(c):
    node = helper.make_node
    c.reject("input-negative-dim", model([node("Relu", ["x"], ["y"])], [vi("x", [2, -3])],
                                         [vi("y", [2, 3])]), r"negative dimension -3")
    c.reject("input-unknown-elem-type", model([node("Relu", ["x"], ["y"])], [vi("x", [2, 3], 99)],
                                              [vi("y", [2, 3])]), r"unsupported element type")
    c.reject("shape-add-mismatch", model([node("Add", ["a", "b"], ["y"], name="add")],
                                         [vi("a", [2, 3]), vi("b", [4, 5])], [vi("y", None)]),
             r"broadcast|incompatible|mismatch")
    c.reject("shape-matmul-mismatch", model([node("MatMul", ["a", "b"], ["y"], name="mm")],
                                            [vi("a", [2, 3]), vi("b", [4, 5])], [vi("y", None)]),
             r"MatMul|inner|contract|mismatch|incompatible")
    c.reject("shape-conv-rank-mismatch", model(
        [node("Conv", ["a", "w"], ["y"], name="conv")],
        [vi("a", [1, 3, 8]), vi("w", [4, 3, 3, 3])], [vi("y", None)]), r"rank")
    c.reject("shape-reshape-count", model(
        [node("Reshape", ["x", "s"], ["y"], name="reshape")], [vi("x", [2, 3])], [vi("y", None)],
        [helper.make_tensor("s", TensorProto.INT64, [2], [4, 4])]),
        r"reshape|element|6|16")
    c.reject("shape-concat-mismatch", model(
        [node("Concat", ["a", "b"], ["y"], name="cat", axis=0)],
        [vi("a", [2, 3]), vi("b", [2, 4])], [vi("y", None)]), r"dim|mismatch|incompatible")
    c.reject("shape-declared-conflict", model(
        [node("Relu", ["x"], ["y"], name="relu")], [vi("x", [2, 3])], [vi("y", [5, 5])]),
        r"5|shape|mismatch|incompatible|contradict")


def tensor_cases(c):
    node = helper.make_node
    x = vi("x", [3])

    def add_init(name, t, error, **kw):
        c.reject(name, model([node("Add", ["x", t.name], ["y"], name="add")], [x], [vi("y", [3])],
                             [t]), error, **kw)

    t = helper.make_tensor("w", FLOAT, [3], [1, 2, 3])
    t.raw_data = b"\0" * 7
    t.ClearField("float_data")
    add_init("init-raw-size", t, r"7 bytes of raw data, expected 12")
    t = TensorProto(name="w", data_type=FLOAT, dims=[3], float_data=[1, 2])
    add_init("init-typed-count", t, r"2 values in float_data, expected 3")
    c.reject("init-raw-size-large", model(
        [node("Add", ["x", "w"], ["y"])], [vi("x", [1000])], [vi("y", [1000])],
        [TensorProto(name="w", data_type=FLOAT, dims=[1000], raw_data=b"\0" * 3999)]),
        r"3999 bytes of raw data, expected 4000")
    # 2^31 floats (8 GiB) and no data at all: rejected without allocating.
    t = TensorProto(name="w", data_type=FLOAT, dims=[2**31])
    c.reject("init-8gb-no-data", model([node("Relu", ["w"], ["y"])], [], [vi("y", [2**31])], [t]),
             r"initializer 'w' has (no data|0 values)")
    t = TensorProto(name="w", data_type=TensorProto.INT64, dims=[2**30])
    c.reject("init-8gb-int64-no-data",
             model([node("Neg", ["w"], ["y"])], [], [vi("y", [2**30], TensorProto.INT64)], [t]),
             r"initializer 'w' has (no data|0 values)")
    t = TensorProto(name="w", data_type=FLOAT, dims=[2**31])
    t.raw_data = b"\0" * 16
    c.reject("init-8gb-short-raw", model([node("Relu", ["w"], ["y"])], [], [vi("y", [2**31])],
                                         [t]), r"16 bytes of raw data")
    kt = TensorProto(name="k", data_type=FLOAT, dims=[2**31])
    c.reject("constant-8gb-no-data", model([node("Constant", [], ["y"], name="k", value=kt)], [],
                                           [vi("y", [2**31])]), r"(no data|0 values)")
    # A sparse constant of 2^32 floats holding no values: its dense form would
    # take 16 GiB.
    sparse = onnx.SparseTensorProto(dims=[2**32])
    sparse.values.CopyFrom(TensorProto(name="v", data_type=FLOAT, dims=[0]))
    sparse.indices.CopyFrom(TensorProto(name="i", data_type=TensorProto.INT64, dims=[0]))
    c.reject("sparse-constant-16gb", model([node("Constant", [], ["y"], name="k",
                                                 sparse_value=sparse)], [], [vi("y", [2**32])]),
             r"expands to more than 2 GiB")
    # 8 GiB of zeros from a 8-byte shape: valid, and small in the model.
    c.extreme("constant-of-shape-8gb", model(
        [node("ConstantOfShape", ["s"], ["y"], name="zeros")], [], [vi("y", [2**31])],
        [helper.make_tensor("s", TensorProto.INT64, [1], [2**31])]))
    t = TensorProto(name="w", data_type=FLOAT, dims=[2**40, 2**40])
    c.reject("init-dims-overflow", model([node("Relu", ["w"], ["y"])], [], [vi("y", None)], [t]),
             r"more than 2\^40 elements")
    t = TensorProto(name="w", data_type=FLOAT, dims=[3, -1])
    c.reject("init-negative-dim", model([node("Relu", ["w"], ["y"])], [], [vi("y", None)], [t]),
             r"negative dimension -1")
    t = TensorProto(name="w", data_type=99, dims=[3])
    add_init("init-unknown-dtype", t, r"unsupported data type")
    t = TensorProto(name="w", data_type=TensorProto.STRING, dims=[3], string_data=[b"a", b"b"])
    c.reject("init-string-count", model([node("Identity", ["w"], ["y"])], [],
                                        [vi("y", [3], TensorProto.STRING)], [t]),
             r"2 strings, expected 3")


# --------------------------------------------------------------------------
# External data
# --------------------------------------------------------------------------

def external_model(entries, dims=(4,), dtype=FLOAT):
    t = TensorProto(name="w", data_type=dtype, dims=list(dims))
    t.data_location = TensorProto.EXTERNAL
    for k, v in entries:
        e = t.external_data.add()
        e.key, e.value = k, v
    return model([helper.make_node("Identity", ["w"], ["y"], name="id")], [],
                 [vi("y", list(dims), dtype)], [t])


def write(path, data):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as f:
        f.write(data)


def external_cases(c):
    data16 = struct.pack("<4f", 1, 2, 3, 4)

    def with_data(name="w.bin", data=data16):
        return lambda folder: write(os.path.join(folder, name), data)

    # A valid external-data model, so that the cases below fail for their
    # one reason only.
    c.extreme("ext-valid", external_model([("location", "w.bin")]), setup=with_data())
    c.reject("ext-absolute", external_model([("location", "/etc/passwd")]),
             r"'/etc/passwd' must be relative")
    # The model sits in sub/; ../secret.bin exists but is outside its folder.
    c.reject("ext-escape-dotdot", external_model([("location", "../secret.bin")]),
             r"'../secret.bin' escapes the model's folder", file="sub/model.onnx",
             setup=with_data("secret.bin"))
    c.reject("ext-escape-inner-dotdot", external_model([("location", "d/../../secret.bin")]),
             r"escapes the model's folder", file="sub/model.onnx",
             setup=lambda f: (write(os.path.join(f, "secret.bin"), data16),
                              os.makedirs(os.path.join(f, "sub", "d"))))

    def symlink_setup(folder):
        write(os.path.join(folder, "secret.bin"), data16)
        os.symlink("../secret.bin", os.path.join(folder, "sub", "w.bin"))
    c.reject("ext-escape-symlink", external_model([("location", "w.bin")]),
             r"'w.bin' escapes the model's folder", file="sub/model.onnx", setup=symlink_setup)
    c.reject("ext-offset-past-end", external_model([("location", "w.bin"), ("offset", "1000000")]),
             r"too small", setup=with_data())
    c.reject("ext-length-past-end", external_model([("location", "w.bin"), ("length", "16")],
                                                   dims=(4,)),
             r"too small", setup=with_data(data=data16[:8]))
    c.reject("ext-offset-huge", external_model([("location", "w.bin"),
                                                ("offset", str(2**63 - 1))]),
             r"too small", setup=with_data())
    c.reject("ext-offset-not-a-number", external_model([("location", "w.bin"),
                                                        ("offset", "-8")]),
             r"offset '-8' is not a non-negative integer", setup=with_data())
    c.reject("ext-length-mismatch", external_model([("location", "w.bin"), ("length", "8")]),
             r"length 8 does not match 16 bytes", setup=with_data())
    c.reject("ext-missing-file", external_model([("location", "nothere.bin")]),
             r"cannot open external data file 'nothere.bin'")
    c.reject("ext-no-location", external_model([("offset", "0")]), r"no location")
    c.reject("ext-directory", external_model([("location", "d")]),
             r"'d' is not a (regular )?file|cannot read external data",
             setup=lambda f: os.makedirs(os.path.join(f, "d")))
    # A named pipe holding a zero-size tensor: opening it for reading would
    # wait for a writer forever.
    c.reject("ext-fifo", external_model([("location", "pipe")], dims=(0,)),
             r"'pipe' is not a (regular )?file", timeout=10,
             setup=lambda f: os.mkfifo(os.path.join(f, "pipe")))
    c.reject("ext-8gb", external_model([("location", "w.bin")], dims=(2**31,)),
             r"too small", setup=with_data())
    c.reject("ext-string", external_model([("location", "w.bin")], dtype=TensorProto.STRING),
             r"external data of type STRING is not supported", setup=with_data())


# --------------------------------------------------------------------------
# Valid but extreme models
# --------------------------------------------------------------------------

def nested_model(depth):
    """If inside Loop inside If ... `depth` levels of subgraphs."""
    node = helper.make_node

    def level(k):
        if k == depth:
            return [node("Neg", ["x"], ["t%d" % k])], "t%d" % k
        inner, out = level(k + 1)
        if k % 2 == 0:
            then_g = helper.make_graph(inner, "then%d" % k, [], [vi(out, [2])])
            else_g = helper.make_graph([node("Identity", ["x"], ["e%d" % k])], "else%d" % k, [],
                                       [vi("e%d" % k, [2])])
            return [node("If", ["c"], ["t%d" % k], name="if%d" % k, then_branch=then_g,
                         else_branch=else_g)], "t%d" % k
        body = helper.make_graph(
            [node("Identity", ["ci%d" % k], ["co%d" % k])] + inner +
            [node("Add", ["v%d" % k, out], ["vo%d" % k])],
            "body%d" % k,
            [vi("i%d" % k, [], TensorProto.INT64), vi("ci%d" % k, [], TensorProto.BOOL),
             vi("v%d" % k, [2])],
            [vi("co%d" % k, [], TensorProto.BOOL), vi("vo%d" % k, [2])])
        return [node("Loop", ["n", "", "x"], ["t%d" % k], name="loop%d" % k, body=body)], \
            "t%d" % k

    nodes, out = level(0)
    return model(nodes, [vi("x", [2]), vi("c", [], TensorProto.BOOL),
                         vi("n", [], TensorProto.INT64)], [vi(out, [2])])


def chain_model(count):
    """`count` nodes, each adding the input to the previous result."""
    node = helper.make_node
    nodes = []
    prev = "x"
    for i in range(count):
        out = "y" if i == count - 1 else "t%d" % i
        nodes.append(node("Add" if i % 2 == 0 else "Mul", [prev, "x"], [out], name="n%d" % i))
        prev = out
    return model(nodes, [vi("x", [4])], [vi("y", [4])])


def extreme_cases(c):
    node = helper.make_node
    c.extreme("dim-2p40", model([node("Relu", ["x"], ["y"])], [vi("x", [2**40])],
                                [vi("y", [2**40])]))
    c.extreme("dims-product-overflow", model([node("Relu", ["x"], ["y"])],
                                             [vi("x", [2**40, 2**40, 2**40])],
                                             [vi("y", [2**40, 2**40, 2**40])]))
    c.extreme("broadcast-overflow", model([node("Add", ["a", "b"], ["y"])],
                                          [vi("a", [2**32, 1]), vi("b", [1, 2**32])],
                                          [vi("y", None)]))
    c.extreme("expand-overflow", model(
        [node("Expand", ["x", "s"], ["y"], name="expand")], [vi("x", [1])], [vi("y", None)],
        [helper.make_tensor("s", TensorProto.INT64, [3], [2**40, 2**40, 2**40])]))
    c.extreme("nested-8", nested_model(8))
    c.extreme("nested-40", nested_model(40), timeout=60)
    c.extreme("nested-300", nested_model(300), timeout=60)
    c.extreme("nodes-100k", chain_model(100000), timeout=60)
    c.extreme("zero-size-dims", model([node("Relu", ["x"], ["y"])], [vi("x", [0, 3])],
                                      [vi("y", [0, 3])]))
    c.extreme("zero-size-matmul", model([node("MatMul", ["a", "b"], ["y"])],
                                        [vi("a", [2, 0]), vi("b", [0, 3])], [vi("y", [2, 3])]))
    c.extreme("empty-graph-identity", model([], [vi("x", [2, 3])], [vi("x", [2, 3])]))
    c.extreme("empty-graph-initializer-output", model(
        [], [], [vi("w", [3])], [helper.make_tensor("w", FLOAT, [3], [1, 2, 3])]))
    names = ["s%d" % i for i in range(1000)]
    c.extreme("outputs-1000", model(
        [node("Split", ["x"], names, name="split", axis=0),
         node("Concat", names, ["y"], name="cat", axis=0)],
        [vi("x", [1000])], [vi("y", [1000])]))
    c.extreme("outputs-1000-graph", model(
        [node("Split", ["x"], names, name="split", axis=0)],
        [vi("x", [1000])], [vi(n, [1]) for n in names]))
    c.extreme("name-1mb-node", model([node("Relu", ["x"], ["y"], name="n" * (1 << 20))],
                                     [vi("x", [2, 3])], [vi("y", [2, 3])]))
    big = "v" * (1 << 20)
    c.extreme("name-1mb-tensor", model([node("Relu", [big], ["y"])], [vi(big, [2, 3])],
                                       [vi("y", [2, 3])]))
    # Names that would break out of a C++ comment, string or file name.
    evil = "*/ \"\n#error injected\n../../escape\\"
    c.extreme("names-hostile", model([node("Relu", [evil + "in"], [evil + "out"], name=evil)],
                                     [vi(evil + "in", [2, 3])], [vi(evil + "out", [2, 3])],
                                     name="../../escape"))
    c.extreme("inputs-2000", model([node("Sum", ["x%d" % i for i in range(2000)], ["y"])],
                                   [vi("x%d" % i, [2]) for i in range(2000)], [vi("y", [2])]))
    c.extreme("rank-64", model([node("Relu", ["x"], ["y"])], [vi("x", [1] * 64)],
                               [vi("y", [1] * 64)]))
    c.extreme("scalar-rank-0", model([node("Add", ["x", "x"], ["y"])], [vi("x", [])],
                                     [vi("y", [])]))


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: make_corpus.py OUTDIR")
    root = sys.argv[1]
    if os.path.exists(root):
        shutil.rmtree(root)
    os.makedirs(root)
    c = Corpus(root)
    protobuf_cases(c)
    graph_cases(c)
    op_cases(c)
    model_cases(c)
    hostile_attribute_cases(c)
    type_cases(c)
    tensor_cases(c)
    external_cases(c)
    extreme_cases(c)
    c.write_manifest()
    print("corpus: %d cases in %s" % (len(c.cases), root))


if __name__ == "__main__":
    main()
