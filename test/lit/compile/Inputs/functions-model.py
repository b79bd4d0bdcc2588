"""Writes models with model-local functions (ModelProto.functions) and, for the
valid one, two datasets whose expected outputs are computed with numpy here.

Usage: functions-model.py OUT_DIR

OUT_DIR/model.onnx (IR 10, ai.onnx opset 18, domain `local`):
  local:Act       Y = tanh(alpha * X) + X; alpha an attribute reference with a
                  default (attribute_proto, 0.5)
  local:Act "v2"  the overload v2 (IR 10): Y = X * sigmoid(X)
  local:Block     calls local:Act (alpha from its own attribute beta), splits
                  the result with Split-11's `split` attribute (the function
                  imports ai.onnx 11, the model 18), negates the first part,
                  squares the second; value_info on an inner value; inner
                  value names that the main graph uses too (x, h, y)
  main graph      Block twice (beta 2 and -1), Act with the default alpha,
                  Act with alpha 3, Act overload v2.
OUT_DIR/model-18.onnx: the same with Block importing ai.onnx 18 (Split-18).
OUT_DIR/test/test_data_set_{0,1}: two random x.
OUT_DIR/if-in-function.onnx: local:Gate, an If whose branches read a value of
the function.
OUT_DIR/no-ai-onnx.onnx: a model that imports only `local` (its function
imports ai.onnx), with OUT_DIR/no-ai-onnx/test_data_set_0.
OUT_DIR/bad-*.onnx: a missing function, a call with too many inputs, a call
with an unknown attribute, recursion through two functions, calls that would
inline 2^40 nodes.
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

out = sys.argv[1]
os.makedirs(out, exist_ok=True)


def varint(n):
    b = bytearray()
    while True:
        c = n & 0x7F
        n >>= 7
        b.append(c | (0x80 if n else 0))
        if not n:
            return bytes(b)


def field(num, payload):
    """A length-delimited protobuf field: onnx 1.12's Python lacks the IR 9/10
    fields (FunctionProto.attribute_proto/value_info/overload,
    NodeProto.overload), so they are appended as raw fields."""
    return varint((num << 3) | 2) + varint(len(payload)) + payload


def with_fields(msg, *fields):
    parsed = type(msg)()
    parsed.ParseFromString(msg.SerializeToString() + b"".join(fields))
    return parsed


def call(op, inputs, outputs, overload=None, **attrs):
    n = helper.make_node(op, inputs, outputs, domain="local", **attrs)
    return with_fields(n, field(8, overload.encode())) if overload else n


def ref(name, attr_type, ref_name):
    a = onnx.AttributeProto()
    a.name, a.type, a.ref_attr_name = name, attr_type, ref_name
    return a


ONNX18 = [helper.make_opsetid("", 18), helper.make_opsetid("local", 1)]

alpha_const = helper.make_node("Constant", [], ["A"])
alpha_const.attribute.append(ref("value_float", onnx.AttributeProto.FLOAT, "alpha"))
act = helper.make_function(
    "local", "Act", ["X"], ["Y"],
    [alpha_const,
     helper.make_node("CastLike", ["A", "X"], ["AC"]),
     helper.make_node("Mul", ["X", "AC"], ["M"]),
     helper.make_node("Tanh", ["M"], ["T"]),
     helper.make_node("Add", ["T", "X"], ["Y"])],
    ONNX18, ["alpha"])
act = with_fields(act, field(11, helper.make_attribute("alpha", 0.5).SerializeToString()))
act_v2 = helper.make_function(
    "local", "Act", ["X"], ["Y"],
    [helper.make_node("Sigmoid", ["X"], ["S"]), helper.make_node("Mul", ["X", "S"], ["Y"])],
    ONNX18, [])
act_v2 = with_fields(act_v2, field(13, b"v2"))

inner_act = helper.make_node("Act", ["x"], ["h"], domain="local")
inner_act.attribute.append(ref("alpha", onnx.AttributeProto.FLOAT, "beta"))


def make_block(opset):
    """Block with the Split of `opset`: 11 (split an attribute) or 18 (an input)."""
    split = (helper.make_node("Split", ["h"], ["p1", "p2"], axis=1, split=[1, 2])
             if opset < 13 else helper.make_node("Split", ["h", "sizes"], ["p1", "p2"], axis=1))
    sizes = helper.make_node("Constant", [], ["sizes"],
                             value=numpy_helper.from_array(np.array([1, 2], np.int64)))
    b = helper.make_function(
        "local", "Block", ["x"], ["y", "z"],
        ([] if opset < 13 else [sizes]) +
        [inner_act, split,
         helper.make_node("Neg", ["p1"], ["y"]),
         helper.make_node("Mul", ["p2", "p2"], ["z"])],
        [helper.make_opsetid("", opset), helper.make_opsetid("local", 1)], ["beta"])
    return with_fields(b, field(12, helper.make_tensor_value_info(
        "h", TensorProto.FLOAT, [2, 3]).SerializeToString()))

def model(nodes, inputs, outputs, functions, opsets=ONNX18, inits=()):
    g = helper.make_graph(nodes, "functions", inputs, outputs, list(inits))
    m = helper.make_model(g, opset_imports=opsets, producer_name="functions-model.py")
    m.ir_version = 10
    m.functions.extend(functions)
    return m


def save(m, path):
    with open(path, "wb") as f:
        f.write(m.SerializeToString())


def vi(name, dims, t=TensorProto.FLOAT):
    return helper.make_tensor_value_info(name, t, dims)


main_nodes = [
    call("Block", ["x"], ["y", "z"], beta=2.0),
    helper.make_node("Add", ["x", "one"], ["h"]),
    call("Block", ["h"], ["y2", "z2"], beta=-1.0),
    call("Act", ["x"], ["a_default"]),
    call("Act", ["x"], ["a_given"], alpha=3.0),
    call("Act", ["x"], ["a_v2"], overload="v2"),
]
outs = [vi("y", [2, 1]), vi("z", [2, 2]), vi("y2", [2, 1]), vi("z2", [2, 2]),
        vi("a_default", [2, 3]), vi("a_given", [2, 3]), vi("a_v2", [2, 3])]
one = numpy_helper.from_array(np.array(1.0, np.float32), "one")
main_inputs = [vi("x", [2, 3])]
save(model(main_nodes, main_inputs, outs, [act, act_v2, make_block(11)], inits=[one]),
     os.path.join(out, "model.onnx"))
# The same with Block at the model's opset: ONNX Runtime reads functions at the
# model's opset only, so this one is the model it checks the datasets with.
save(model(main_nodes, main_inputs, outs, [act, act_v2, make_block(18)], inits=[one]),
     os.path.join(out, "model-18.onnx"))

rng = np.random.default_rng(18)
x = rng.uniform(-2, 2, (2, 3)).astype(np.float32)


def act_ref(v, a):
    v = v.astype(np.float64)
    return np.tanh(a * v) + v


def block_ref(v, beta):
    h = act_ref(v, beta)
    return -h[:, :1], h[:, 1:] ** 2


def write_set(d, inputs, outputs):
    os.makedirs(d, exist_ok=True)
    for i, (name, v) in enumerate(inputs):
        save(numpy_helper.from_array(v, name), os.path.join(d, f"input_{i}.pb"))
    for i, (name, v) in enumerate(outputs):
        save(numpy_helper.from_array(np.asarray(v, np.float32), name),
             os.path.join(d, f"output_{i}.pb"))


for k, x in enumerate([x, rng.uniform(-3, 3, (2, 3)).astype(np.float32)]):
    y, z = block_ref(x, 2.0)
    y2, z2 = block_ref(x.astype(np.float64) + 1.0, -1.0)
    xd = x.astype(np.float64)
    write_set(os.path.join(out, "test", f"test_data_set_{k}"),
              [("x", x)],
              [("y", y), ("z", z), ("y2", y2), ("z2", z2), ("a_default", act_ref(x, 0.5)),
               ("a_given", act_ref(x, 3.0)), ("a_v2", xd / (1 + np.exp(-xd)))])

# Only `local` imported: every ai.onnx node is inside the function.
save(model([call("Act", ["x"], ["a"], alpha=-0.25)], [vi("x", [2, 3])], [vi("a", [2, 3])],
           [act], opsets=[helper.make_opsetid("local", 1)]),
     os.path.join(out, "no-ai-onnx.onnx"))
write_set(os.path.join(out, "no-ai-onnx", "test_data_set_0"), [("x", x)],
          [("a", act_ref(x, -0.25))])

# An If inside a function whose branches read a value of the function (the
# lowering has no If yet: only imported).
then_g = helper.make_graph([helper.make_node("Identity", ["n"], ["t"])], "then", [],
                           [helper.make_tensor_value_info("t", TensorProto.FLOAT, None)])
else_g = helper.make_graph([helper.make_node("Identity", ["X"], ["e"])], "else", [],
                           [helper.make_tensor_value_info("e", TensorProto.FLOAT, None)])
gate = helper.make_function(
    "local", "Gate", ["X", "flag"], ["Y"],
    [helper.make_node("Neg", ["X"], ["n"]),
     helper.make_node("If", ["flag"], ["Y"], then_branch=then_g, else_branch=else_g)],
    ONNX18, [])
save(model([call("Gate", ["x", "flag"], ["a"], name="gate")],
           [vi("x", [2, 3]), vi("flag", [], TensorProto.BOOL)], [vi("a", [2, 3])], [gate]),
     os.path.join(out, "if-in-function.onnx"))

# Errors, each a one-line message naming the node.
x_in, a_out = [vi("x", [2, 3])], [vi("a", [2, 3])]
save(model([call("Nope", ["x"], ["a"])], x_in, a_out, [act]),
     os.path.join(out, "bad-missing.onnx"))
save(model([call("Act", ["x", "x"], ["a"], name="two_inputs")], x_in, a_out, [act]),
     os.path.join(out, "bad-arity.onnx"))
save(model([call("Act", ["x"], ["a"], gamma=1.0)], x_in, a_out, [act]),
     os.path.join(out, "bad-attribute.onnx"))
f_calls_g = helper.make_function("local", "F", ["X"], ["Y"],
                                 [helper.make_node("G", ["X"], ["Y"], domain="local")],
                                 ONNX18, [])
g_calls_f = helper.make_function("local", "G", ["X"], ["Y"],
                                 [helper.make_node("F", ["X"], ["Y"], domain="local")],
                                 ONNX18, [])
save(model([call("F", ["x"], ["a"], name="rec")], x_in, a_out, [f_calls_g, g_calls_f]),
     os.path.join(out, "bad-recursion.onnx"))

# Each function calls the one before twice: 2^40 nodes if inlined blindly.
chain = [helper.make_function("local", "F0", ["X"], ["Y"],
                              [helper.make_node("Neg", ["X"], ["Y"])], ONNX18, [])]
for i in range(1, 41):
    chain.append(helper.make_function(
        "local", f"F{i}", ["X"], ["Y"],
        [helper.make_node(f"F{i - 1}", ["X"], ["T"], domain="local"),
         helper.make_node(f"F{i - 1}", ["T"], ["Y"], domain="local")], ONNX18, []))
save(model([call("F40", ["x"], ["a"], name="big")], x_in, a_out, chain),
     os.path.join(out, "bad-exponential.onnx"))
