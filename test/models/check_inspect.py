#!/usr/bin/python3
"""Checks `onnxcc inspect --json` output against facts computed with python onnx.

Usage: /usr/bin/python3 test/models/check_inspect.py MODEL INSPECT_JSON

Every reference value comes from reading MODEL with the onnx package here, so
the check holds for any model, not only one whose numbers were written down.
Prints each mismatch and exits 1 if there is any.
"""
import collections
import json
import sys

import numpy as np
import onnx
from onnx import TensorProto

# Our names for the TensorProto data types; the rest are the lower-case enum name.
DTYPE_NAMES = {"FLOAT": "float32", "DOUBLE": "float64", "UNDEFINED": "undefined"}

# Bits per element where numpy has no type for it (4-bit, 8-bit floats).
PACKED_BITS = {"BFLOAT16": 16, "UINT4": 4, "INT4": 4, "FLOAT4E2M1": 4,
               "FLOAT8E4M3FN": 8, "FLOAT8E4M3FNUZ": 8, "FLOAT8E5M2": 8,
               "FLOAT8E5M2FNUZ": 8}


def dtype_name(elem_type):
    try:
        name = TensorProto.DataType.Name(elem_type)
    except ValueError:
        return "type%d" % elem_type
    return DTYPE_NAMES.get(name, name.lower())


def shape_of(tensor_type):
    if not tensor_type.HasField("shape"):
        return None
    dims = []
    for dim in tensor_type.shape.dim:
        if dim.HasField("dim_value"):
            dims.append(dim.dim_value)
        elif dim.HasField("dim_param"):
            dims.append(dim.dim_param)
        else:
            dims.append(None)
    return dims


def value_facts(info):
    facts = {"name": info.name}
    if info.type.WhichOneof("value") == "tensor_type":
        facts["dtype"] = dtype_name(info.type.tensor_type.elem_type)
        facts["shape"] = shape_of(info.type.tensor_type)
    return facts


def tensor_size(tensor):
    elements = int(np.prod(list(tensor.dims), dtype=object)) if tensor.dims else 1
    name = TensorProto.DataType.Name(tensor.data_type)
    if name == "STRING":
        return elements, sum(len(s) for s in tensor.string_data)
    if name in PACKED_BITS:
        bits = elements * PACKED_BITS[name]
    else:
        bits = elements * 8 * np.dtype(onnx.mapping.TENSOR_TYPE_TO_NP_TYPE[tensor.data_type]).itemsize
    return elements, (bits + 7) // 8


def walk(graph, facts, histogram):
    for tensor in graph.initializer:
        elements, size = tensor_size(tensor)
        facts["count"] += elements
        facts["bytes"] += size
        facts["initializers"] += 1
    for sparse in graph.sparse_initializer:
        elements, size = tensor_size(sparse.values)
        _, index_size = tensor_size(sparse.indices)
        facts["count"] += elements
        facts["bytes"] += size + index_size
        facts["initializers"] += 1
    for node in graph.node:
        facts["nodes_with_subgraphs"] += 1
        op = node.op_type if node.domain in ("", "ai.onnx") else node.domain + ":" + node.op_type
        histogram[op] += 1
        for attr in node.attribute:
            if attr.HasField("g"):
                walk(attr.g, facts, histogram)
            for subgraph in attr.graphs:
                walk(subgraph, facts, histogram)


def expected_facts(model):
    graph = model.graph
    weights = {t.name for t in graph.initializer}
    weights |= {s.values.name for s in graph.sparse_initializer}
    counts = {"count": 0, "bytes": 0, "initializers": 0, "nodes_with_subgraphs": 0}
    histogram = collections.Counter()
    walk(graph, counts, histogram)
    return {
        "ir_version": model.ir_version,
        "opsets": {(o.domain or "ai.onnx"): o.version for o in model.opset_import},
        "producer": {"name": model.producer_name, "version": model.producer_version},
        "graph": graph.name,
        "inputs": [value_facts(i) for i in graph.input if i.name not in weights],
        "outputs": [value_facts(o) for o in graph.output],
        "nodes": len(graph.node),
        "nodes_with_subgraphs": counts["nodes_with_subgraphs"],
        "ops": [{"op": op, "count": n}
                for op, n in sorted(histogram.items(), key=lambda e: (-e[1], e[0]))],
        "parameters": {k: counts[k] for k in ("count", "bytes", "initializers")},
    }


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: check_inspect.py MODEL INSPECT_JSON")
    model = onnx.load(sys.argv[1], load_external_data=False)
    with open(sys.argv[2]) as f:
        actual = json.load(f)
    # The type strings are checked by the lit tests; compare the structured parts.
    for value in actual.get("inputs", []) + actual.get("outputs", []):
        value.pop("type", None)
    expected = expected_facts(model)
    errors = []
    for key in sorted(set(expected) | set(actual)):
        if expected.get(key) != actual.get(key):
            errors.append("%s: onnxcc says %s, python onnx says %s"
                          % (key, json.dumps(actual.get(key)), json.dumps(expected.get(key))))
    for error in errors:
        print("mismatch:", error)
    if errors:
        sys.exit(1)
    print("ok: %s: %d nodes, %d ops, %d parameters"
          % (sys.argv[1], expected["nodes"], len(expected["ops"]),
             expected["parameters"]["count"]))


if __name__ == "__main__":
    main()
