"""A reader of ONNX's textual function syntax, enough for the schema function
bodies of schemas-1.23.json (onnx 1.12's Python has no function parser).

    <domain: "", opset_import: ["" : 18]>
    Name <attr1, attr2>(in1, in2) => (out1)
    {
       out = Op <name: type = value, other: type = @ref> (a, b)
       x, y = If (c) <then_branch: graph = g () => (t) { ... }, ...>
    }

parse_function(text) returns an onnx.FunctionProto; attribute references
(`@name`) become ref_attr_name, subgraphs GraphProtos.
"""
import re

import onnx
from onnx import helper

_TOKEN = re.compile(r"""
    (?P<ws>\s+)
  | (?P<string>"(?:[^"\\]|\\.)*")
  | (?P<number>[-+]?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?)
  | (?P<ident>[A-Za-z_][A-Za-z0-9_.]*)
  | (?P<arrow>=>)
  | (?P<punct>[<>(){}\[\],:=@])
""", re.VERBOSE)

_ELEM = {
    "float": onnx.TensorProto.FLOAT, "double": onnx.TensorProto.DOUBLE,
    "float16": onnx.TensorProto.FLOAT16, "bfloat16": onnx.TensorProto.BFLOAT16,
    "int8": onnx.TensorProto.INT8, "int16": onnx.TensorProto.INT16,
    "int32": onnx.TensorProto.INT32, "int64": onnx.TensorProto.INT64,
    "uint8": onnx.TensorProto.UINT8, "uint16": onnx.TensorProto.UINT16,
    "uint32": onnx.TensorProto.UINT32, "uint64": onnx.TensorProto.UINT64,
    "bool": onnx.TensorProto.BOOL, "string": onnx.TensorProto.STRING,
}

_ATTR_TYPE = {
    "int": onnx.AttributeProto.INT, "float": onnx.AttributeProto.FLOAT,
    "string": onnx.AttributeProto.STRING, "ints": onnx.AttributeProto.INTS,
    "floats": onnx.AttributeProto.FLOATS, "strings": onnx.AttributeProto.STRINGS,
    "tensor": onnx.AttributeProto.TENSOR, "graph": onnx.AttributeProto.GRAPH,
}


class ParseError(Exception):
    pass


def _tokens(text):
    pos, out = 0, []
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if not m:
            raise ParseError(f"unexpected character {text[pos]!r} at {pos}")
        pos = m.end()
        if m.lastgroup != "ws":
            out.append((m.lastgroup, m.group()))
    return out


class _Parser:
    def __init__(self, text):
        self.toks = _tokens(text)
        self.i = 0

    def peek(self, value=None):
        if self.i >= len(self.toks):
            return None if value is None else False
        kind, v = self.toks[self.i]
        return v if value is None else v == value

    def next(self):
        if self.i >= len(self.toks):
            raise ParseError("unexpected end of text")
        self.i += 1
        return self.toks[self.i - 1]

    def expect(self, value):
        kind, v = self.next()
        if v != value:
            raise ParseError(f"expected {value!r}, got {v!r}")

    def ident(self):
        kind, v = self.next()
        if kind != "ident":
            raise ParseError(f"expected a name, got {v!r}")
        return v

    def names(self, close):
        """Comma-separated names (possibly empty ones) up to `close`."""
        out = []
        while not self.peek(close):
            out.append(self.ident())
            if self.peek(","):
                self.next()
        self.expect(close)
        return out

    def literal(self):
        kind, v = self.next()
        if kind == "string":
            return bytes(v[1:-1], "utf-8").decode("unicode_escape").encode("utf-8")
        if kind == "number":
            return float(v) if re.search(r"[.eE]", v) else int(v)
        raise ParseError(f"expected a literal, got {v!r}")

    def tensor(self):
        elem = _ELEM[self.ident()]
        dims = []
        if self.peek("["):
            self.next()
            while not self.peek("]"):
                dims.append(int(self.literal()))
                if self.peek(","):
                    self.next()
            self.next()
        self.expect("{")
        values = []
        while not self.peek("}"):
            values.append(self.literal())
            if self.peek(","):
                self.next()
        self.next()
        return helper.make_tensor("", elem, dims, values)

    def attribute(self):
        name = self.ident()
        self.expect(":")
        type_name = self.ident()
        self.expect("=")
        a = onnx.AttributeProto()
        a.name = name
        a.type = _ATTR_TYPE[type_name]
        if self.peek("@"):
            self.next()
            a.ref_attr_name = self.ident()
            return a
        if type_name == "int":
            a.i = int(self.literal())
        elif type_name == "float":
            a.f = float(self.literal())
        elif type_name == "string":
            a.s = self.literal()
        elif type_name in ("ints", "floats", "strings"):
            self.expect("[")
            values = []
            while not self.peek("]"):
                values.append(self.literal())
                if self.peek(","):
                    self.next()
            self.next()
            if type_name == "ints":
                a.ints.extend(int(v) for v in values)
            elif type_name == "floats":
                a.floats.extend(float(v) for v in values)
            else:
                a.strings.extend(values)
        elif type_name == "tensor":
            a.t.CopyFrom(self.tensor())
        elif type_name == "graph":
            a.g.CopyFrom(self.graph())
        return a

    def value_infos(self):
        """Graph inputs/outputs: `name` or `elemtype name`."""
        self.expect("(")
        out = []
        while not self.peek(")"):
            first = self.ident()
            if first in _ELEM and not self.peek(",") and not self.peek(")"):
                name = self.ident()
                out.append(helper.make_tensor_value_info(name, _ELEM[first], None))
            else:
                vi = onnx.ValueInfoProto()
                vi.name = first
                out.append(vi)
            if self.peek(","):
                self.next()
        self.next()
        return out

    def attributes(self):
        attrs = []
        if self.peek("<"):
            self.next()
            while not self.peek(">"):
                attrs.append(self.attribute())
                if self.peek(","):
                    self.next()
            self.next()
        return attrs

    def node(self):
        outputs = []
        while not self.peek("="):
            outputs.append(self.ident())
            if self.peek(","):
                self.next()
        self.expect("=")
        op = self.ident()
        domain = ""
        if "." in op:
            domain, op = op.rsplit(".", 1)
        attrs = self.attributes()
        self.expect("(")
        inputs = []
        while not self.peek(")"):
            if self.peek(","):
                inputs.append("")
            else:
                inputs.append(self.ident())
            if self.peek(","):
                self.next()
        self.next()
        # Attributes may also follow the inputs (If, Loop).
        attrs += self.attributes()
        n = onnx.NodeProto()
        n.op_type = op
        n.domain = domain
        n.input.extend(inputs)
        n.output.extend(outputs)
        n.attribute.extend(attrs)
        return n

    def nodes(self):
        self.expect("{")
        out = []
        while not self.peek("}"):
            out.append(self.node())
        self.next()
        return out

    def graph(self):
        g = onnx.GraphProto()
        g.name = self.ident()
        g.input.extend(self.value_infos())
        self.expect("=>")
        g.output.extend(self.value_infos())
        g.node.extend(self.nodes())
        return g

    def function(self):
        f = onnx.FunctionProto()
        self.expect("<")
        while not self.peek(">"):
            key = self.ident()
            self.expect(":")
            if key == "domain":
                f.domain = self.literal().decode()
            elif key == "opset_import":
                self.expect("[")
                while not self.peek("]"):
                    domain = self.literal().decode()
                    self.expect(":")
                    f.opset_import.add(domain=domain, version=int(self.literal()))
                    if self.peek(","):
                        self.next()
                self.next()
            else:
                raise ParseError(f"unknown function key {key}")
            if self.peek(","):
                self.next()
        self.next()
        f.name = self.ident()
        if self.peek("<"):
            self.next()
            f.attribute.extend(self.names(">"))
        self.expect("(")
        f.input.extend(self.names(")"))
        self.expect("=>")
        self.expect("(")
        f.output.extend(self.names(")"))
        f.node.extend(self.nodes())
        if self.peek() is not None:
            raise ParseError(f"text after the function body: {self.peek()!r}")
        return f


def parse_function(text):
    return _Parser(text).function()
