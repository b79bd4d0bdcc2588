#!/usr/bin/python3
"""Checks what the graph passes did to a model, reading both with python onnx.

Usage: /usr/bin/python3 test/models/check_optimized.py ORIGINAL FUSED
           [--layernorm N] [--attention N]

FUSED is `onnxcc optimize --keep-fused` of ORIGINAL (onnxcc's own ops stay as
nodes of domain ai.onnxcc). Prints the op histogram before and after, then
checks that no BatchNormalization, Identity or Dropout node is left; that no
activation is left standing after a Conv, Gemm or MatMul (directly or after
a bias/residual Add) whose result it alone uses, i.e. every such activation
was fused into the node's epilogue; and, when given, how many
LayerNormalization and ScaledDotProductAttention nodes there are (with no
Softmax left outside them). Exits 1 on any failed check.
"""
import argparse
import collections
import sys

import onnx

ANCHORS = {"Conv", "Gemm", "MatMul", "FusedConv", "FusedGemm", "FusedMatMul"}
ACTIVATIONS = {"Relu", "Clip", "LeakyRelu", "Sigmoid", "HardSigmoid", "HardSwish", "Tanh",
               "SiLU", "Gelu"}


def histogram(model):
    return collections.Counter(
        (n.domain + ":" if n.domain else "") + n.op_type for n in model.graph.node)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("original")
    parser.add_argument("fused")
    parser.add_argument("--layernorm", type=int)
    parser.add_argument("--attention", type=int)
    args = parser.parse_args()
    before, after = onnx.load(args.original), onnx.load(args.fused)
    hb, ha = histogram(before), histogram(after)
    print("%-40s %7s %7s" % ("op", "before", "after"))
    for op in sorted(set(hb) | set(ha)):
        print("%-40s %7d %7d" % (op, hb[op], ha[op]))

    failures = []
    for op in ("BatchNormalization", "Identity", "Dropout"):
        if ha[op]:
            failures.append("%d %s node(s) left" % (ha[op], op))

    producer = {out: n for n in after.graph.node for out in n.output}
    uses = collections.Counter(i for n in after.graph.node for i in n.input)
    graph_outputs = {o.name for o in after.graph.output}

    def single_use(name):
        return uses[name] == 1 and name not in graph_outputs

    for n in after.graph.node:
        if n.op_type not in ACTIVATIONS or not n.input:
            continue
        x = n.input[0]
        p = producer.get(x)
        if p is None or not single_use(x):
            continue
        if p.op_type == "Add":
            # A bias or residual Add between the anchor and the activation.
            for a in p.input:
                q = producer.get(a)
                if q is not None and q.op_type in ANCHORS and single_use(a):
                    p = q
                    break
        if p.op_type in ANCHORS:
            failures.append("%s '%s' after %s '%s' was not fused" %
                            (n.op_type, n.name, p.op_type, p.name))

    if args.layernorm is not None and ha["LayerNormalization"] != args.layernorm:
        failures.append("%d LayerNormalization, expected %d" %
                        (ha["LayerNormalization"], args.layernorm))
    if args.attention is not None:
        found = ha["ai.onnxcc:ScaledDotProductAttention"]
        if found != args.attention:
            failures.append("%d ScaledDotProductAttention, expected %d" % (found, args.attention))
        if ha["Softmax"]:
            failures.append("%d Softmax left outside attention" % ha["Softmax"])

    for f in failures:
        print("FAIL: " + f)
    if not failures:
        print("OK")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
