#!/usr/bin/env python3
"""Generates the onnx dialect's op definitions from the ONNX operator schemas.

Reads ../shared/onnx/schemas-1.23.json (every ONNX 1.23 operator schema with
its history, ai.onnx opsets 1..28; relative to the repository root) and writes
two checked-in files:
  dialects/onnx/OnnxOps.gen.td     ODS definition of every ai.onnx operator
  dialects/onnx/OnnxSchema.gen.inc  import table: versions, compatibility, result types
  dialects/onnx/OnnxMLOps.gen.td   ODS definition of every ai.onnx.ml operator
  dialects/onnx/OnnxMLSchema.gen.inc  their import table (ONNX_ML_OP entries)
  compiler/SchemaFunctions.gen.inc  the schemas' function bodies (gen_schema_functions.py)

Each op is defined at the version the lowering implements: its newest version
up to IMPLEMENTED_OPSET (17). Every other version either has the same signature
(inputs, outputs, attributes and their defaults; only the type constraints may
differ) and imports generically, or the importer brings it to that form (see
compiler/OpsetNormalization.cpp) or refuses it. An op's inputs and outputs take
the element types of all its versions up to MAX_OPSET (the float8/4-bit/2-bit
types of Cast-19+, QuantizeLinear-21+, Reshape-21+, ...): the lowering handles
them or refuses them with a message. Run it again after changing it:
  /usr/bin/python3 utils/gen_onnx_dialect.py
"""
import json
import os
import struct
import sys

# The ai.onnx.ml operators are ops `onnx.ml.<Name>` (C++ class ML<Name>Op),
# each at its newest version up to ML_MAX_OPSET that is not deprecated.
ML_DOMAIN = "ai.onnx.ml"
ML_MAX_OPSET = 5

# Newest ai.onnx opset the importer accepts, and the newest opset whose
# versions the dialect defines (later versions import when they are compatible).
MAX_OPSET = 28
IMPLEMENTED_OPSET = 17
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SCHEMAS = os.path.join(ROOT, "..", "shared", "onnx", "schemas-1.23.json")


class AP:
    """AttributeProto type names as schemas-1.23.json spells them."""
    INT, FLOAT, STRING, INTS, FLOATS, STRINGS = "INT", "FLOAT", "STRING", "INTS", "FLOATS", "STRINGS"
    TENSOR, SPARSE_TENSOR, TYPE_PROTO = "TENSOR", "SPARSE_TENSOR", "TYPE_PROTO"
    TENSORS, TYPE_PROTOS, GRAPH = "TENSORS", "TYPE_PROTOS", "GRAPH"


def f32(v):
    """The float32 value of `v` as a Python float (attribute defaults are float32)."""
    return struct.unpack("f", struct.pack("f", float(v)))[0]


class Param:
    def __init__(self, j):
        self.name = j["name"]
        self.typeStr = j["type_str"]
        self.option = j["option"]  # Single, Optional or Variadic


class Attr:
    def __init__(self, j):
        self.name = j["name"]
        self.type = j["type"]
        self.required = j["required"]
        self.default = j.get("default_value")
        if self.type == AP.FLOAT and self.default is not None:
            self.default = f32(self.default)


class TypeConstraint:
    def __init__(self, j):
        self.type_param_str = j["type_param_str"]
        self.allowed_type_strs = j["allowed_type_strs"]


class Schema:
    def __init__(self, j):
        self.name = j["name"]
        self.domain = j["domain"]
        self.since_version = j["since_version"]
        self.deprecated = j["deprecated"]
        self.inputs = [Param(p) for p in j["inputs"]]
        self.outputs = [Param(p) for p in j["outputs"]]
        self.attributes = {a["name"]: Attr(a) for a in j["attributes"]}
        self.type_constraints = [TypeConstraint(t) for t in j["type_constraints"]]


def load_schemas():
    if not os.path.exists(SCHEMAS):
        raise SystemExit(f"gen_onnx_dialect.py: {os.path.normpath(SCHEMAS)} is missing; "
                         "the generator reads the ONNX schemas from ../shared/onnx "
                         "next to the repository")
    with open(SCHEMAS) as f:
        data = json.load(f)
    return data["onnx_version"], [Schema(j) for j in data["schemas"]]

# Operators that are replaced by another operator on import, so they have no op.
REPLACED = {"Upsample": "Resize", "Scatter": "ScatterElements"}

# Ops whose attribute semantics changed without a signature change; versions
# before the given one need a normalization handler.
SEMANTIC_BREAKS = {"Softmax": 13, "LogSoftmax": 13, "Hardmax": 13}

# Versions after the implemented one whose signature is the same but whose
# meaning widened: ScatterElements-18 and ScatterND-18 add the reductions
# 'max' and 'min'. The importer maps them (see compiler/OpsetNormalization.cpp).
LATER_SEMANTIC_BREAKS = {"ScatterElements": 18, "ScatterND": 18}

# Type lists the dialect keeps although ONNX later corrected the schema of the
# implemented version in place: ONNX 1.12 gave Erf-13 every numeric type, 1.23
# only float types; the lowering computes integer Erf in double.
KEPT_TYPES = {
    ("Erf", 13, "T"): [
        "tensor(float16)", "tensor(float)", "tensor(double)", "tensor(bfloat16)",
        "tensor(uint8)", "tensor(uint16)", "tensor(uint32)", "tensor(uint64)",
        "tensor(int8)", "tensor(int16)", "tensor(int32)", "tensor(int64)"],
}

# BitCast-26 lists the element types of IR 9-11 (float8, int4, ...), which the
# dialect does not have yet: it keeps the others.
_BITCAST_TYPES = [
    "tensor(uint8)", "tensor(uint16)", "tensor(uint32)", "tensor(uint64)",
    "tensor(int8)", "tensor(int16)", "tensor(int32)", "tensor(int64)",
    "tensor(bfloat16)", "tensor(float16)", "tensor(float)", "tensor(double)",
    "tensor(bool)", "tensor(complex64)", "tensor(complex128)"]
KEPT_TYPES[("BitCast", 26, "T1")] = _BITCAST_TYPES
KEPT_TYPES[("BitCast", 26, "T2")] = _BITCAST_TYPES

# Ops new after IMPLEMENTED_OPSET that the dialect defines (at their newest
# version up to MAX_OPSET) and the lowering implements natively. Other new ops
# are unknown to the dialect; those with a function body are expanded on import.
NEW_OPS = {"BitwiseAnd", "BitwiseOr", "BitwiseXor", "BitwiseNot", "BitCast", "CumProd",
           "StringConcat", "TensorScatter", "StringSplit", "RegexFullMatch",
           "CenterCropPad"}

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
    "Unsqueeze", "BitCast", "CumProd"}

ELEM = {
    "float": "F32", "double": "F64", "float16": "F16", "bfloat16": "BF16",
    "int8": "I8", "int16": "I16", "int32": "I32", "int64": "I64",
    "uint8": "UI8", "uint16": "UI16", "uint32": "UI32", "uint64": "UI64",
    "bool": "I1", "string": "Onnx_StringType",
    "complex64": "Complex<F32>", "complex128": "Complex<F64>",
    "float8e4m3fn": "F8E4M3FN", "float8e4m3fnuz": "F8E4M3FNUZ",
    "float8e5m2": "F8E5M2", "float8e5m2fnuz": "F8E5M2FNUZ",
    "float8e8m0": "F8E8M0FNU", "float4e2m1": "F4E2M1FN",
    "int4": "I<4>", "uint4": "UI<4>", "int2": "I<2>", "uint2": "UI<2>",
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


def schemas(all_schemas):
    """The implemented version of every ai.onnx op that exists by
    IMPLEMENTED_OPSET, and the history (up to MAX_OPSET) of those ops."""
    latest, history = {}, {}
    for s in all_schemas:
        if s.domain != "ai.onnx" or s.since_version > MAX_OPSET:
            continue
        history.setdefault(s.name, []).append(s)
        if s.since_version > IMPLEMENTED_OPSET and s.name not in NEW_OPS:
            continue
        if s.name not in latest or latest[s.name].since_version < s.since_version:
            latest[s.name] = s
    history = {n: sorted(h, key=lambda s: s.since_version)
               for n, h in history.items() if n in latest}
    return latest, history


def option(p):
    return {"Single": "one", "Optional": "opt", "Variadic": "var"}[p.option]


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


def full_signature(s, form=None):
    """Inputs, outputs and attributes (with required flag and default) of `s`;
    `form` replaces inputs and attributes for ops defined in another shape."""
    ins, outs, _ = signature(s)
    attrs = {n: (a.type, a.required, repr(a.default)) for n, a in s.attributes.items()
             if n not in LEGACY_ATTRS}
    if form:
        ins, attrs = form
    return ins, outs, attrs


def reduce_form(s):
    """The opset-18 signature the dialect gives the Reduce* ops: `axes` is an
    optional input, `noop_with_empty_axes` an attribute."""
    ins, _, attrs = full_signature(s)
    attrs = dict(attrs)
    attrs.pop("axes", None)
    attrs["noop_with_empty_axes"] = (AP.INT, False, repr(0))
    return ins + (("axes", "opt"),), attrs


def later_compatible(new, implemented):
    """A version after the implemented one imports as it when it has the same
    inputs, outputs, attributes and defaults (only type lists may differ)."""
    name = implemented.name
    if name in LATER_SEMANTIC_BREAKS and new.since_version >= LATER_SEMANTIC_BREAKS[name]:
        return False
    form = reduce_form(implemented) if name in REDUCE_AXES_AS_INPUT else None
    return full_signature(new) == full_signature(implemented, form)


def cap(name):
    return name[0].upper() + name[1:]


def type_constraint(allowed):
    tensors, other = [], set()
    for t in allowed:
        if t.startswith("tensor("):
            tensors.append(ELEM[t[len("tensor("):-1]])
        elif t.startswith("seq(") and not t.startswith("seq(map("):
            other.add("Onnx_SeqType")
        elif t.startswith("optional("):
            other.add("Onnx_OptType")
        elif t.startswith("map(") or t.startswith("seq(map("):
            other.add("AnyType")  # maps have no type in the dialect yet
        else:
            raise SystemExit(f"unknown type string {t}")
    parts = []
    if tensors:
        uniq = sorted(set(tensors), key=list(ELEM.values()).index)
        parts.append("TensorOf<[" + ", ".join(uniq) + "]>")
    parts += sorted(other)
    return parts


def allowed_types(schema, p):
    tc = {t.type_param_str: t.allowed_type_strs for t in schema.type_constraints}
    return tc.get(p.typeStr, [p.typeStr])


def param_type(schema, p, opt_none, later=()):
    """The ODS type of `p`: its types in the implemented version, with those
    the later versions the importer brings to it (`later`) give the input or
    output of the same name (the new element types: float8, int4, ...)."""
    allowed = KEPT_TYPES.get((schema.name, schema.since_version, p.typeStr),
                             allowed_types(schema, p))
    allowed = list(allowed)
    for h in later:
        for q in list(h.inputs) + list(h.outputs):
            if q.name == p.name:
                allowed += [t for t in allowed_types(h, q) if t not in allowed]
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
    dv = a.default
    has_default = dv is not None
    if a.required:
        return f"{base}:${name}"
    if has_default and a.type == AP.INT:
        return f'DefaultValuedAttr<{base}, "{dv}">:${name}'
    if has_default and a.type == AP.FLOAT:
        return f'DefaultValuedAttr<{base}, "::llvm::APFloat({cpp_float(dv)})">:${name}'
    if has_default and a.type == AP.STRING:
        return f'DefaultValuedStrAttr<{base}, "{dv}">:${name}'
    # List-valued defaults are applied where the attribute is read.
    return f"OptionalAttr<{base}>:${name}"


def attr_order(name):
    """Attributes in name order, except that If's then_branch comes first."""
    return (name != "then_branch", name)


def gen_op(s, lines, later=()):
    name = s.name
    ml = s.domain == ML_DOMAIN
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
        t = param_type(s, p, o == "opt", later)
        if o == "var":
            t = f"Variadic<{t}>"
        ins.append(f"{t}:${ident(p.name)}")
    if name in REDUCE_AXES_AS_INPUT:
        ins.append(f"AnyTypeOf<[TensorOf<[I64]>, NoneType]>:${ident('axes')}")
    for p in s.outputs:
        o = option(p)
        t = param_type(s, p, o == "opt", later)
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
    prefix, mnemonic = ("ML", "ml." + name) if ml else ("", name)
    lines.append(f"def Onnx_{prefix}{name}Op : Onnx_Op<\"{mnemonic}\", [{', '.join(traits)}]> {{")
    lines.append(f"  let summary = \"ONNX {name} ({s.domain}, since opset {version})\";")
    lines.append("  let arguments = (ins" + ("" if not ins + attrs else "\n    " + ",\n    ".join(ins + attrs)) + ");")
    lines.append("  let results = (outs" + ("" if not outs else "\n    " + ",\n    ".join(outs)) + ");")
    if regions:
        lines.append("  let regions = (region " + ", ".join(regions) + ");")
    if name in VERIFIED and not ml:
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


def ml_schemas(all_schemas):
    """The implemented version of every ai.onnx.ml op (its newest version up to
    ML_MAX_OPSET that is not deprecated) and the history of each."""
    latest, history = {}, {}
    for s in all_schemas:
        if s.domain != ML_DOMAIN or s.since_version > ML_MAX_OPSET:
            continue
        history.setdefault(s.name, []).append(s)
        if s.deprecated:
            continue
        if s.name not in latest or latest[s.name].since_version < s.since_version:
            latest[s.name] = s
    history = {n: sorted(h, key=lambda s: s.since_version)
               for n, h in history.items() if n in latest}
    return latest, history


def schema_table(latest, history, ops, macro, header):
    inc = header + [
        f"// {macro}(name, latestSince, {{allSince...}}, {{compatibleSince...}},",
        "//         {{inputName, option}...}, {{attrName, kind}...}, {{outTypeInput, outTypeStr}...})", ""]
    for n in ops:
        s = latest[n]
        hist = history[n]
        all_since = [h.since_version for h in hist]
        older = [h for h in hist if h.since_version <= s.since_version]
        later = [h for h in hist if h.since_version > s.since_version and not h.deprecated]
        compat = [h.since_version for h in older if compatible(h, s)
                  and not (n in SEMANTIC_BREAKS and h.since_version < SEMANTIC_BREAKS[n])]
        if n in REDUCE_AXES_AS_INPUT:
            compat = []  # versions up to 17 carry attribute axes: normalized on import
        compat += [h.since_version for h in later if later_compatible(h, s)]
        if n in REDUCE_AXES_AS_INPUT:
            # The table describes the form the dialect defines (opset 18's).
            ins_sig, attr_sig = reduce_form(s)
            ins = ", ".join(f"{{\"{p}\", '{OPTION_CODE[o]}'}}" for p, o in ins_sig)
            attrs = ", ".join(f"{{\"{a}\", AttrKind::{KIND[attr_sig[a][0]]}}}"
                              for a in sorted(attr_sig))
        else:
            ins = ", ".join(f"{{\"{p.name}\", '{OPTION_CODE[option(p)]}'}}" for p in s.inputs)
            attrs = ", ".join(f"{{\"{a}\", AttrKind::{KIND[s.attributes[a].type]}}}"
                              for a in sorted(s.attributes))
        outs = ", ".join(out_rule(s, p) for p in s.outputs)
        inc.append(f"{macro}({n}, {s.since_version}, ({', '.join(map(str, all_since))}), "
                   f"({', '.join(map(str, compat))}), ({ins}), ({attrs}), ({outs}))")
    return inc


def main():
    onnx_version, all_schemas = load_schemas()
    latest, history = schemas(all_schemas)
    ops = sorted(n for n in latest if n not in REPLACED)
    header = ["// Generated by utils/gen_onnx_dialect.py from the ONNX "
              f"{onnx_version} operator schemas (opset {MAX_OPSET}). Do not edit.", ""]
    td = list(header)
    for n in ops:
        gen_op(latest[n], td, [h for h in history[n]
                               if h.since_version > latest[n].since_version])
    inc = schema_table(latest, history, ops, "ONNX_OP", header[:1])
    ml_latest, ml_history = ml_schemas(all_schemas)
    ml_ops = sorted(ml_latest)
    ml_header = ["// Generated by utils/gen_onnx_dialect.py from the ONNX "
                 f"{onnx_version} operator schemas ({ML_DOMAIN} opset {ML_MAX_OPSET}). "
                 "Do not edit.", ""]
    ml_td = list(ml_header)
    for n in ml_ops:
        gen_op(ml_latest[n], ml_td)
    ml_inc = schema_table(ml_latest, ml_history, ml_ops, "ONNX_ML_OP", ml_header[:1])
    outputs = {"dialects/onnx/OnnxOps.gen.td": td, "dialects/onnx/OnnxSchema.gen.inc": inc,
               "dialects/onnx/OnnxMLOps.gen.td": ml_td,
               "dialects/onnx/OnnxMLSchema.gen.inc": ml_inc}
    for path, lines in outputs.items():
        text = "\n".join(lines) + ("\n" if path.endswith(".inc") else "")
        with open(os.path.join(ROOT, path), "w") as f:
            f.write(text)
    print(f"{len(ops)} ops, {len(ml_ops)} ai.onnx.ml ops", file=sys.stderr)
    # The schemas' function bodies, for ops the importer expands (compiler/Functions.cpp).
    import gen_schema_functions
    with open(SCHEMAS) as f:
        gen_schema_functions.generate(json.load(f)["schemas"], ROOT, onnx_version, MAX_OPSET)

if __name__ == "__main__":
    main()
