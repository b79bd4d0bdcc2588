#!/usr/bin/env python3
"""Generates the onnx dialect's op definitions from the ONNX operator schemas.

Reads the schemas shipped with Debian's python3-onnx (ONNX 1.12, opset 17) and
writes two checked-in files:
  dialects/onnx/OnnxOps.gen.td     ODS definition of every ai.onnx operator
  dialects/onnx/OnnxSchema.gen.inc  import table: versions, compatibility, result types

Each op is defined at its newest version; the importer brings older versions to
that form (see compiler/OpsetNormalization.cpp). Run it again after changing it:
  /usr/bin/python3 utils/gen_onnx_dialect.py
"""
import os
import sys

import onnx
import onnx.defs
from onnx import AttributeProto as AP
from onnx.defs import OpSchema

MAX_OPSET = 17
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# Operators that are replaced by another operator on import, so they have no op.
REPLACED = {"Upsample": "Resize", "Scatter": "ScatterElements"}

# Ops whose attribute semantics changed without a signature change; versions
# before the given one need a normalization handler.
SEMANTIC_BREAKS = {"Softmax": 13, "LogSoftmax": 13, "Hardmax": 13}

# Reductions that take `axes` as an attribute in opset 17 are defined in the
# opset-18 form (axes as an optional input) so that every Reduce* op has one shape.
REDUCE_AXES_AS_INPUT = {
    "ReduceL1", "ReduceL2", "ReduceLogSum", "ReduceLogSumExp", "ReduceMax",
    "ReduceMean", "ReduceMin", "ReduceProd", "ReduceSumSquare"}

# Attributes of early opsets that carry no meaning for inference; the
# importer drops them.
LEGACY_ATTRS = {"consumed_inputs"}

# Ops that are not free of side effects (random number generation).
RANDOM_OPS = {"RandomNormal", "RandomNormalLike", "RandomUniform",
              "RandomUniformLike", "Bernoulli", "Multinomial"}

# Ops with a hand-written verifier in dialects/onnx/OnnxOps.cpp.
VERIFIED = {
    "ArgMax", "ArgMin", "AveragePool", "BatchNormalization", "BitShift", "Cast",
    "Compress", "Concat", "Constant", "Conv", "ConvTranspose", "CumSum", "DFT",
    "DepthToSpace", "Einsum", "Expand", "EyeLike", "Flatten", "GRU", "Gather",
    "GatherElements", "GatherND", "Gemm", "GridSample", "Hardmax", "If", "LRN",
    "LSTM", "LayerNormalization", "LogSoftmax", "Loop", "LpPool", "MaxPool",
    "MaxUnpool", "Mod", "OneHot", "Pad", "RNN", "Range", "Reshape", "Resize",
    "Scan", "ScatterElements", "ScatterND", "Slice", "Softmax", "SpaceToDepth",
    "Split", "Squeeze", "TfIdfVectorizer", "Tile", "TopK", "Transpose", "Trilu",
    "Unsqueeze"}

ELEM = {
    "float": "F32", "double": "F64", "float16": "F16", "bfloat16": "BF16",
    "int8": "I8", "int16": "I16", "int32": "I32", "int64": "I64",
    "uint8": "UI8", "uint16": "UI16", "uint32": "UI32", "uint64": "UI64",
    "bool": "I1", "string": "Onnx_StringType",
    "complex64": "Complex<F32>", "complex128": "Complex<F64>",
}
ELEM_ORDER = list(ELEM)

ODS_ATTR = {
    AP.INT: "I64Attr", AP.FLOAT: "F32Attr", AP.STRING: "StrAttr",
    AP.INTS: "DenseI64ArrayAttr", AP.FLOATS: "DenseF32ArrayAttr",
    AP.STRINGS: "StrArrayAttr", AP.TENSOR: "ElementsAttr",
    AP.SPARSE_TENSOR: "ElementsAttr", AP.TYPE_PROTO: "TypeAttr",
    AP.TENSORS: "TypedArrayAttrBase<ElementsAttr, \"tensor list\">",
    AP.TYPE_PROTOS: "TypeArrayAttr",
}
# Attribute kind codes shared with compiler/Importer.cpp.
KIND = {
    AP.INT: "Int", AP.FLOAT: "Float", AP.STRING: "String", AP.INTS: "Ints",
    AP.FLOATS: "Floats", AP.STRINGS: "Strings", AP.TENSOR: "Tensor",
    AP.SPARSE_TENSOR: "SparseTensor", AP.TYPE_PROTO: "TypeProto",
    AP.TENSORS: "Tensors", AP.TYPE_PROTOS: "TypeProtos", AP.GRAPH: "Graph",
}
OPTION_CODE = {"one": "s", "opt": "o", "var": "v"}
RESERVED = {"operands", "results", "attributes", "properties", "context",
            "location", "loc", "operation", "type", "name", "region", "body_"}


def schemas():
    latest, history = {}, {}
    for s in onnx.defs.get_all_schemas_with_history():
        if s.domain != "" or s.since_version > MAX_OPSET:
            continue
        history.setdefault(s.name, []).append(s)
        if s.name not in latest or latest[s.name].since_version < s.since_version:
            latest[s.name] = s
    for h in history.values():
        h.sort(key=lambda s: s.since_version)
    return latest, history


def option(p):
    o = p.option
    if o == OpSchema.FormalParameterOption.Optional:
        return "opt"
    if o == OpSchema.FormalParameterOption.Variadic:
        return "var"
    return "one"


def signature(s):
    ins = tuple((p.name, option(p)) for p in s.inputs)
    outs = tuple((p.name, option(p)) for p in s.outputs)
    attrs = {n: a.type for n, a in s.attributes.items()}
    return ins, outs, attrs


def compatible(old, new):
    """An older version imports as the newest when its inputs and outputs are
    a prefix of the newest's (same names, any extra ones optional, a required one may
    become optional) and its attributes a subset with the same types."""
    oi, oo, oa = signature(old)
    ni, no, na = signature(new)

    def params_fit(o, n):
        if len(o) > len(n):
            return False
        for (oname, oo_), (nname, no_) in zip(o, n):
            if oname != nname:
                return False
            if oo_ != no_ and not (oo_ == "one" and no_ == "opt"):
                return False
        return all(opt != "one" for _, opt in n[len(o):])

    if not params_fit(oi, ni) or not params_fit(oo, no):
        return False
    return all(n in na and na[n] == t for n, t in oa.items()
               if n not in LEGACY_ATTRS)


def cap(name):
    return name[0].upper() + name[1:]


def type_constraint(allowed):
    tensors, other = [], set()
    for t in allowed:
        if t.startswith("tensor("):
            tensors.append(ELEM[t[len("tensor("):-1]])
        elif t.startswith("seq("):
            other.add("Onnx_SeqType")
        elif t.startswith("optional("):
            other.add("Onnx_OptType")
        else:
            raise SystemExit(f"unknown type string {t}")
    parts = []
    if tensors:
        uniq = sorted(set(tensors), key=list(ELEM.values()).index)
        parts.append("TensorOf<[" + ", ".join(uniq) + "]>")
    parts += sorted(other)
    return parts


def param_type(schema, p, opt_none):
    tc = {t.type_param_str: t.allowed_type_strs for t in schema.type_constraints}
    allowed = tc.get(p.typeStr, [p.typeStr])
    parts = type_constraint(allowed)
    if opt_none:
        parts.append("NoneType")
    if len(parts) == 1:
        return parts[0]
    return "AnyTypeOf<[" + ", ".join(parts) + "]>"


def cpp_float(v):
    r = repr(float(v))
    if "e" not in r and "." not in r and "inf" not in r and "nan" not in r:
        r += ".0"
    return r + "f"


def attr_decl(name, a):
    base = ODS_ATTR[a.type]
    dv = a.default_value
    has_default = dv.type != 0
    if a.required:
        return f"{base}:${name}"
    if has_default and a.type == AP.INT:
        return f'DefaultValuedAttr<{base}, "{dv.i}">:${name}'
    if has_default and a.type == AP.FLOAT:
        return f'DefaultValuedAttr<{base}, "::llvm::APFloat({cpp_float(dv.f)})">:${name}'
    if has_default and a.type == AP.STRING:
        return f'DefaultValuedStrAttr<{base}, "{dv.s.decode()}">:${name}'
    # List-valued defaults are applied where the attribute is read.
    return f"OptionalAttr<{base}>:${name}"


def attr_order(name):
    """Attributes in name order, except that If's then_branch comes first."""
    return (name != "then_branch", name)


def gen_op(s, lines):
    name = s.name
    taken = set()

    def ident(n):
        v = n
        while v.lower() in taken or v in RESERVED:
            v = v + "_"
        taken.add(v.lower())
        return v

    ins, attrs, regions, outs = [], [], [], []
    for p in s.inputs:
        o = option(p)
        t = param_type(s, p, o == "opt")
        if o == "var":
            t = f"Variadic<{t}>"
        ins.append(f"{t}:${ident(p.name)}")
    if name in REDUCE_AXES_AS_INPUT:
        ins.append(f"AnyTypeOf<[TensorOf<[I64]>, NoneType]>:${ident('axes')}")
    for p in s.outputs:
        o = option(p)
        t = param_type(s, p, o == "opt")
        if o == "var":
            t = f"Variadic<{t}>"
        outs.append(f"{t}:${ident(p.name)}")
    for an in sorted(s.attributes, key=attr_order):
        a = s.attributes[an]
        if name in REDUCE_AXES_AS_INPUT and an == "axes":
            continue
        if a.type == AP.GRAPH:
            regions.append(f"SizedRegion<1>:${ident(an)}")
            continue
        attrs.append(attr_decl(ident(an), a))
    if name in REDUCE_AXES_AS_INPUT:
        attrs.append(f'DefaultValuedAttr<I64Attr, "0">:${ident("noop_with_empty_axes")}')

    traits = []
    if regions:
        traits.append("RecursiveMemoryEffects")
    elif name not in RANDOM_OPS:
        traits.append("Pure")
    traits.append("DeclareOpInterfaceMethods<OnnxShapeInferenceOpInterface>")
    version = s.since_version
    lines.append(f"def Onnx_{name}Op : Onnx_Op<\"{name}\", [{', '.join(traits)}]> {{")
    lines.append(f"  let summary = \"ONNX {name} (ai.onnx, since opset {version})\";")
    lines.append("  let arguments = (ins" + ("" if not ins + attrs else "\n    " + ",\n    ".join(ins + attrs)) + ");")
    lines.append("  let results = (outs" + ("" if not outs else "\n    " + ",\n    ".join(outs)) + ");")
    if regions:
        lines.append("  let regions = (region " + ", ".join(regions) + ");")
    if name in VERIFIED:
        lines.append("  let hasVerifier = 1;")
    lines.append("}")
    lines.append("")


def out_rule(s, p):
    """How the importer finds an output's element type: an input index with
    the same type variable, a fixed element type, or unknown (-1)."""
    opt = OPTION_CODE[option(p)]
    for i, q in enumerate(s.inputs):
        if q.typeStr == p.typeStr:
            return f"{{{i}, \"\", '{opt}'}}"
    tc = {t.type_param_str: t.allowed_type_strs for t in s.type_constraints}
    allowed = tc.get(p.typeStr, [p.typeStr])
    if len(allowed) == 1:
        return f"{{-1, \"{allowed[0]}\", '{opt}'}}"
    return f"{{-1, \"\", '{opt}'}}"


def main():
    latest, history = schemas()
    ops = sorted(n for n in latest if n not in REPLACED)
    td = ["// Generated by utils/gen_onnx_dialect.py from the ONNX "
          f"{onnx.__version__} operator schemas (opset {MAX_OPSET}). Do not edit.", ""]
    for n in ops:
        gen_op(latest[n], td)
    inc = ["// Generated by utils/gen_onnx_dialect.py from the ONNX "
           f"{onnx.__version__} operator schemas (opset {MAX_OPSET}). Do not edit.",
           "// ONNX_OP(name, latestSince, {allSince...}, {compatibleSince...},",
           "//         {{inputName, option}...}, {{attrName, kind}...}, {{outTypeInput, outTypeStr}...})", ""]
    for n in ops:
        s = latest[n]
        hist = history[n]
        all_since = [h.since_version for h in hist]
        compat = [h.since_version for h in hist if compatible(h, s)
                  and not (n in SEMANTIC_BREAKS and h.since_version < SEMANTIC_BREAKS[n])]
        if n in REDUCE_AXES_AS_INPUT:
            compat = []  # every version carries attribute axes: normalized on import
        ins = ", ".join(f"{{\"{p.name}\", '{OPTION_CODE[option(p)]}'}}" for p in s.inputs)
        attrs = ", ".join(f"{{\"{a}\", AttrKind::{KIND[s.attributes[a].type]}}}"
                          for a in sorted(s.attributes))
        outs = ", ".join(out_rule(s, p) for p in s.outputs)
        inc.append(f"ONNX_OP({n}, {s.since_version}, ({', '.join(map(str, all_since))}), "
                   f"({', '.join(map(str, compat))}), ({ins}), ({attrs}), ({outs}))")
    with open(os.path.join(ROOT, "dialects/onnx/OnnxOps.gen.td"), "w") as f:
        f.write("\n".join(td))
    with open(os.path.join(ROOT, "dialects/onnx/OnnxSchema.gen.inc"), "w") as f:
        f.write("\n".join(inc) + "\n")
    print(f"{len(ops)} ops", file=sys.stderr)


if __name__ == "__main__":
    main()
