#!/usr/bin/env python3
"""Random valid ONNX graphs for differential testing of onnxcc against ONNX Runtime.

In the style of NNSmith (Liu et al., ASPLOS 2023): a graph grows forward, one
node at a time; each new node picks operands among the values built so far
(so values are reused and the graph is a DAG, not only a chain) and chooses
attributes and new operands (graph inputs or initializers) that satisfy the
op's shape and type constraints, so every graph is valid by construction.

Beside the shape and dtype, every value carries
  - an interval [lo, hi] that bounds its elements, so that domain-restricted
    ops get domain-safe operands (Log/Sqrt of values >= 0.01, Div by values
    away from 0, Pow of bases in [0.1, 10], Exp of values <= 8, ...), and
    values that grew large are not fed into further arithmetic (where the
    cancellation of large values would make a comparison ill-conditioned);
  - an `exact` flag: the value is bit-identical in any correct
    implementation (inputs, initializers and values computed from them by
    data movement and selection only). Discontinuous ops (Floor, Sign,
    comparisons, ArgMax, TopK, Cast to integers, Mod...) take only exact
    operands, since a rounding difference of one ulp before them could flip
    their result.

Tolerance rule (difftest.py passes it to `onnxcc verify`): integers and bools
exact; float32 and float64 |a - e| <= 1e-4 + 1e-3 |e|; a model that computes
anything in float16 is compared with 1e-2 + 1e-2 |e| (float16's own ulp is
1e-3 relative, and ORT and onnxcc may round intermediates differently).

`--seed S` gives one model, byte for byte the same for the same seed and
--components. A model holds `--components K` disjoint random graphs (own
inputs, initializers and outputs, names prefixed gI_), all at the model's one
opset, so that one onnxcc compile and one C++ build check K graphs.
The inputs of the dataset are written beside the model (test_data_set_0/
input_K.pb); difftest.py adds ONNX Runtime's outputs.

usage: gen_graph.py --seed S [--components K] [-o MODEL.onnx] [--dataset DIR]
"""
import argparse
import math
import os
import random
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

F32, U8, I32, I64, BOOL, F16, F64 = (TensorProto.FLOAT, TensorProto.UINT8, TensorProto.INT32,
                                     TensorProto.INT64, TensorProto.BOOL, TensorProto.FLOAT16,
                                     TensorProto.DOUBLE)
NUMPY = {F32: np.float32, U8: np.uint8, I32: np.int32, I64: np.int64, BOOL: np.bool_,
         F16: np.float16, F64: np.float64}
FLOATS = (F32, F64, F16)
INTS = (I32, I64)

MIN_OPSET, MAX_OPSET = 7, 17
MAX_ELEMS = 2048  # per value: keeps graphs cheap to run and to compare
BIG = 100.0  # values bounded beyond this are not fed into more arithmetic

# Tolerances (see the module docstring).
TOL_F32 = (1e-4, 1e-3)
TOL_F16 = (1e-2, 1e-2)


class Skip(Exception):
    """An op builder cannot apply here; the generator tries another."""


class Value:
    def __init__(self, name, dtype, shape, lo, hi, exact):
        self.name, self.dtype, self.shape = name, dtype, tuple(int(d) for d in shape)
        self.lo, self.hi, self.exact = float(lo), float(hi), exact
        self.uses = 0
        self.terminal = False  # an output only: no node reads it

    @property
    def rank(self):
        return len(self.shape)

    @property
    def size(self):
        return int(np.prod(self.shape)) if self.shape else 1

    @property
    def mag(self):
        return max(abs(self.lo), abs(self.hi))


def numel(shape):
    return int(np.prod(shape)) if shape else 1


def broadcast(*shapes):
    rank = max(len(s) for s in shapes)
    out = []
    for i in range(rank):
        dims = [s[i - rank + len(s)] for s in shapes if i - rank + len(s) >= 0]
        big = [d for d in dims if d != 1]
        if len(set(big)) > 1:
            raise Skip()
        out.append(big[0] if big else 1)
    return tuple(out)


def interval_mul(a, b):
    prods = [a[0] * b[0], a[0] * b[1], a[1] * b[0], a[1] * b[1]]
    prods = [0.0 if math.isnan(p) else p for p in prods]
    return min(prods), max(prods)


class Builder:
    """One random graph (a component of the model)."""

    def __init__(self, rng, nprng, opset, prefix, allow_f16, allow_empty, allow_symbolic):
        self.rng, self.np, self.opset, self.prefix = rng, nprng, opset, prefix
        self.allow_f16, self.allow_empty, self.allow_symbolic = allow_f16, allow_empty, allow_symbolic
        self.nodes, self.inputs, self.inits, self.values = [], [], [], []
        self.symbols = {}  # concrete size -> dim_param
        self.counter = 0
        self.used_f16 = False

    # --- names, operands -------------------------------------------------

    def fresh(self, what):
        self.counter += 1
        return "%s%s%d" % (self.prefix, what, self.counter)

    def random_shape(self, rank=None, max_elems=256):
        rank = self.rng.choice([0, 1, 1, 2, 2, 3, 3, 4, 4]) if rank is None else rank
        for _ in range(20):
            shape = [self.rng.choice([1, 1, 2, 3, 4, 5, 6, 8]) for _ in range(rank)]
            if numel(shape) <= max_elems:
                return tuple(shape)
        return tuple([1] * rank)

    def random_data(self, dtype, shape, lo, hi):
        if dtype == BOOL:
            return self.np.random(shape) < 0.5
        if dtype in (I32, I64, U8):
            return self.np.integers(int(lo), int(hi) + 1, size=shape).astype(NUMPY[dtype])
        data = self.np.uniform(lo, hi, size=shape)
        return data.astype(NUMPY[dtype])

    def default_range(self, dtype):
        if dtype == BOOL:
            return 0, 1
        if dtype == U8:
            return 0, 20
        if dtype in INTS:
            return self.rng.choice([(-5, 5), (1, 6), (0, 9)])
        return self.rng.choice([(-2.0, 2.0), (-1.0, 1.0), (0.1, 2.0), (-3.0, 3.0), (0.5, 4.0)])

    def add_input(self, dtype, shape, lo=None, hi=None, init=None):
        """A new graph input (or, with init True, an initializer) with data in [lo, hi]."""
        if lo is None:
            lo, hi = self.default_range(dtype)
        data = self.random_data(dtype, shape, lo, hi)
        if init is None:
            init = self.rng.random() < 0.4
        if data.size:
            lo, hi = float(data.min()), float(data.max())
        if init:
            name = self.fresh("w")
            self.inits.append(numpy_helper.from_array(data, name))
        else:
            name = self.fresh("in")
            self.inputs.append((name, dtype, tuple(shape), data))
        v = Value(name, dtype, shape, lo, hi, True)
        if dtype == F16:
            self.used_f16 = True
        self.values.append(v)
        return v

    def const(self, array, dtype=I64, as_node=None):
        """A constant operand (shapes, axes, pads...): an initializer or a Constant node."""
        data = np.array(array, dtype=NUMPY[dtype])
        if as_node is None:
            as_node = self.rng.random() < 0.2
        if self.opset < 9 and dtype not in FLOATS:
            as_node = False  # Constant-1 holds float types only
        name = self.fresh("c")
        tensor = numpy_helper.from_array(data, name)
        if as_node:
            self.nodes.append(helper.make_node("Constant", [], [name], name=self.fresh("n_Constant_"),
                                               value=tensor))
        else:
            self.inits.append(tensor)
        return name

    def pick(self, pred=lambda v: True, recent=True):
        cands = [v for v in self.values if pred(v)]
        if not cands:
            raise Skip()
        if recent and self.rng.random() < 0.6:
            return cands[-1 - min(int(self.rng.expovariate(0.7)), len(cands) - 1)]
        return self.rng.choice(cands)

    def usable(self, v, dtypes=None, exact=False, nonempty=True, min_rank=0, max_rank=6):
        if v.terminal:
            return False
        if dtypes is not None and v.dtype not in dtypes:
            return False
        if exact and not v.exact:
            return False
        if nonempty and v.size == 0:
            return False
        if v.dtype in FLOATS and v.mag > BIG and not v.exact:
            return False
        return min_rank <= v.rank <= max_rank

    def emit(self, op, inputs, outs, **attrs):
        """Adds a node; outs is a list of (dtype, shape, lo, hi, exact)."""
        values = []
        for dtype, shape, lo, hi, exact in outs:
            if numel(shape) > MAX_ELEMS:
                raise Skip()
            if dtype == F16:
                self.used_f16 = True
                if max(abs(lo), abs(hi)) > 6e4:
                    raise Skip()
            values.append(Value(self.fresh("v"), dtype, shape, lo, hi, exact))
        names = [v if isinstance(v, str) else v.name for v in inputs]
        for v in inputs:
            if isinstance(v, Value):
                v.uses += 1
        self.nodes.append(helper.make_node(op, names, [v.name for v in values],
                                           name=self.fresh("n_" + op + "_"), **attrs))
        self.values.extend(values)
        return values

    def operand_like(self, shape, dtype, lo=None, hi=None, exact=False, broadcastable=True):
        """A second operand for an elementwise op: an existing value of a
        compatible shape, or a new input/initializer, maybe of a shape that
        broadcasts with `shape` (size-1 dims, fewer dims, or more dims)."""
        if self.rng.random() < 0.35:
            def ok(v):
                if v.dtype != dtype or (exact and not v.exact) or v.terminal:
                    return False
                if lo is not None and (v.lo < lo or v.hi > hi):
                    return False
                if dtype in FLOATS and v.mag > BIG and not v.exact:
                    return False
                try:
                    out = broadcast(shape, v.shape) if broadcastable else None
                except Skip:
                    return False
                return (out == tuple(shape)) if not broadcastable else numel(out) <= MAX_ELEMS
            cands = [v for v in self.values if ok(v)]
            if cands:
                return self.rng.choice(cands)
        s = list(shape)
        if broadcastable:
            r = self.rng.random()
            if r < 0.3:
                s = [d if self.rng.random() < 0.6 else 1 for d in s]
            elif r < 0.45 and s:
                s = s[self.rng.randint(0, len(s)):]
            elif r < 0.55 and len(s) < 5:
                s = [self.rng.choice([1, 2, 3])] + s
        return self.add_input(dtype, tuple(s), lo, hi)

    def maybe_symbolic(self, shape):
        """dims of a new graph input: some become dim_param symbols (one
        symbol per concrete size in a component)."""
        dims = []
        for d in shape:
            if self.allow_symbolic and self.rng.random() < 0.3:
                if d not in self.symbols:
                    self.symbols[d] = "%sS%d" % (self.prefix, len(self.symbols))
                dims.append(self.symbols[d])
            else:
                dims.append(d)
        return dims

    # --- growth ------------------------------------------------------------

    def seed_inputs(self):
        for _ in range(self.rng.choice([1, 1, 2, 3])):
            dtype = self.rng.choice([F32] * 8 + [F64, I32, I64, BOOL] + ([F16] if self.allow_f16 else []))
            shape = list(self.random_shape())
            if self.allow_empty and shape and self.rng.random() < 0.3:
                shape[self.rng.randrange(len(shape))] = 0
            self.add_input(dtype, tuple(shape), init=False)

    def build(self, num_nodes):
        self.seed_inputs()
        ops = [op for op in OPS if op[1] <= self.opset <= op[2]]
        weights = [op[3] for op in ops]
        made = tries = 0
        while made < num_nodes and tries < num_nodes * 30:
            tries += 1
            name, _, _, _, fn = self.rng.choices(ops, weights)[0]
            mark = (len(self.nodes), len(self.inputs), len(self.inits), len(self.values),
                    self.counter, self.used_f16)
            try:
                fn(self)
                made += 1
            except Skip:
                # Roll back whatever the builder added before it gave up.
                del self.nodes[mark[0]:], self.inputs[mark[1]:], self.inits[mark[2]:]
                del self.values[mark[3]:]
                self.used_f16 = mark[5]
        produced = [v for v in self.values if v.name not in {i[0] for i in self.inputs}
                    and v.name not in {t.name for t in self.inits}]
        if not produced:
            raise Skip()
        outs = [v for v in produced if v.uses == 0]
        outs += [v for v in produced if v.uses and self.rng.random() < 0.15]
        # Keep program order.
        order = {v.name: i for i, v in enumerate(self.values)}
        return sorted(set(outs), key=lambda v: order[v.name])


# --- op builders ---------------------------------------------------------------
# Each takes the Builder and adds nodes, or raises Skip.

def float_types(b, f16=True, f64=True):
    ts = [F32, F32, F32]
    if f64:
        ts.append(F64)
    if f16 and b.allow_f16:
        ts.append(F16)
    return ts


UNARY = {
    # name: (min opset, pred(lo, hi) on the operand or None, f(lo, hi) -> out bounds, exact kept,
    #        needs exact operand, ints allowed)
    "Abs": (6, None, lambda l, h: (0.0 if l <= 0 <= h else min(abs(l), abs(h)), max(abs(l), abs(h))), True, False, True),
    "Neg": (6, None, lambda l, h: (-h, -l), True, False, True),
    "Relu": (6, None, lambda l, h: (max(l, 0.0), max(h, 0.0)), True, False, False),
    "Sigmoid": (6, None, lambda l, h: (0.0, 1.0), False, False, False),
    "Tanh": (6, None, lambda l, h: (-1.0, 1.0), False, False, False),
    "Exp": (6, lambda l, h: h <= 8, lambda l, h: (math.exp(l), math.exp(h)), False, False, False),
    "Log": (6, lambda l, h: l >= 0.01, lambda l, h: (math.log(l), math.log(h)), False, False, False),
    "Sqrt": (6, lambda l, h: l >= 0.01, lambda l, h: (math.sqrt(l), math.sqrt(h)), False, False, False),
    "Reciprocal": (6, lambda l, h: l >= 0.1 or h <= -0.1, lambda l, h: (min(1 / l, 1 / h), max(1 / l, 1 / h)), False, False, False),
    "Floor": (6, None, lambda l, h: (math.floor(l), math.floor(h)), True, True, False),
    "Ceil": (6, None, lambda l, h: (math.ceil(l), math.ceil(h)), True, True, False),
    "Round": (11, None, lambda l, h: (round(l) - 1, round(h) + 1), True, True, False),
    "Sign": (9, None, lambda l, h: (-1.0, 1.0), True, True, True),
    "Sin": (7, None, lambda l, h: (-1.0, 1.0), False, False, False),
    "Cos": (7, None, lambda l, h: (-1.0, 1.0), False, False, False),
    "Tan": (7, lambda l, h: -1.2 <= l and h <= 1.2, lambda l, h: (math.tan(l), math.tan(h)), False, False, False),
    "Atan": (7, None, lambda l, h: (-1.6, 1.6), False, False, False),
    "Asin": (7, lambda l, h: -0.9 <= l and h <= 0.9, lambda l, h: (-1.6, 1.6), False, False, False),
    "Acos": (7, lambda l, h: -0.9 <= l and h <= 0.9, lambda l, h: (0.0, 3.2), False, False, False),
    "Sinh": (9, lambda l, h: -5 <= l and h <= 5, lambda l, h: (math.sinh(l), math.sinh(h)), False, False, False),
    "Cosh": (9, lambda l, h: -5 <= l and h <= 5, lambda l, h: (1.0, max(math.cosh(l), math.cosh(h))), False, False, False),
    "Asinh": (9, None, lambda l, h: (math.asinh(l), math.asinh(h)), False, False, False),
    "Acosh": (9, lambda l, h: l >= 1.1, lambda l, h: (math.acosh(l), math.acosh(h)), False, False, False),
    "Atanh": (9, lambda l, h: -0.9 <= l and h <= 0.9, lambda l, h: (-1.5, 1.5), False, False, False),
    "Erf": (9, None, lambda l, h: (-1.0, 1.0), False, False, False),
    "Softplus": (6, lambda l, h: h <= 20, lambda l, h: (0.0, max(h, 0.0) + 0.7), False, False, False),
    "Softsign": (6, None, lambda l, h: (-1.0, 1.0), False, False, False),
    "Elu": (6, None, lambda l, h: (min(l, 0.0) - 1, max(h, 0.0)), False, False, False),
    "Selu": (6, None, lambda l, h: (-1.8, max(h, 0.0) * 1.06), False, False, False),
    "LeakyRelu": (6, None, lambda l, h: (min(l, 0.0), max(h, 0.0)), False, False, False),
    "HardSigmoid": (6, None, lambda l, h: (0.0, 1.0), False, False, False),
    "HardSwish": (14, None, lambda l, h: (-0.4, max(h, 0.0)), False, False, False),
    "Celu": (12, None, lambda l, h: (min(l, 0.0) - 1, max(h, 0.0)), False, False, False),
    "ThresholdedRelu": (10, None, lambda l, h: (0.0, max(h, 0.0)), True, True, False),
    "Identity": (1, None, lambda l, h: (l, h), True, False, True),
}


# ORT's CPU kernels of most activations exist for float32 only.
UNARY_F64 = {"Abs", "Neg", "Relu", "Sigmoid", "Tanh", "Exp", "Log", "Sqrt", "Reciprocal", "Floor",
             "Ceil", "Round", "Sign", "Sin", "Cos", "Identity"}
UNARY_F16 = {"Abs", "Neg", "Relu", "Sigmoid", "Tanh", "Identity"}


def make_unary(name):
    since, pred, bounds, keeps_exact, needs_exact, ints = UNARY[name]

    def build(b):
        dtypes = [F32] + ([F64] if name in UNARY_F64 else []) + \
            ([F16] if name in UNARY_F16 and b.allow_f16 else []) + (list(INTS) if ints else [])

        def ok(v):
            if not b.usable(v, dtypes, exact=needs_exact, nonempty=False):
                return False
            return pred is None or pred(v.lo, v.hi)
        v = b.pick(ok)
        attrs = {}
        if name in ("Elu", "Celu"):
            attrs["alpha"] = b.rng.choice([0.5, 1.0, 1.5])
        elif name == "LeakyRelu":
            attrs["alpha"] = b.rng.choice([0.01, 0.1, 0.3])
        elif name == "HardSigmoid":
            attrs["alpha"], attrs["beta"] = b.rng.choice([(0.2, 0.5), (0.5, 0.3)])
        elif name == "ThresholdedRelu":
            attrs["alpha"] = b.rng.choice([0.5, 1.0])
        if name == "Celu" and v.dtype != F32:
            raise Skip()
        lo, hi = bounds(v.lo, v.hi)
        b.emit(name, [v], [(v.dtype, v.shape, lo, hi, keeps_exact and v.exact)], **attrs)
    return build


def op_binary_arith(b):
    name = b.rng.choice(["Add", "Sub", "Mul", "Div", "Add", "Mul"])
    dtypes = float_types(b) + list(INTS)
    a = b.pick(lambda v: b.usable(v, dtypes, nonempty=False))
    if a.dtype in INTS and a.mag > 1000:
        raise Skip()
    if name == "Div":
        if a.dtype in INTS:
            c = b.operand_like(a.shape, a.dtype, 1, 5)
        else:
            c = b.operand_like(a.shape, a.dtype, 0.5, 3.0)
        if b.rng.random() < 0.3 and c.lo > 0:
            lo, hi = a.lo / c.lo, a.hi / c.lo
        lo, hi = interval_mul((a.lo, a.hi), (1 / c.hi, 1 / c.lo))
    else:
        c = b.operand_like(a.shape, a.dtype)
        if a.dtype in FLOATS and c.mag > BIG and not c.exact:
            raise Skip()
        if name == "Add":
            lo, hi = a.lo + c.lo, a.hi + c.hi
        elif name == "Sub":
            lo, hi = a.lo - c.hi, a.hi - c.lo
        else:
            lo, hi = interval_mul((a.lo, a.hi), (c.lo, c.hi))
    shape = broadcast(a.shape, c.shape)
    if a.dtype in INTS and max(abs(lo), abs(hi)) > 2 ** 30:
        raise Skip()
    ops = [a, c] if b.rng.random() < 0.8 or name in ("Sub", "Div") else [c, a]
    b.emit(name, ops, [(a.dtype, shape, lo, hi, a.dtype in INTS)])


def op_pow(b):
    a = b.pick(lambda v: b.usable(v, [F32, F64]) and v.lo >= 0.1 and v.hi <= 10)
    if b.rng.random() < 0.5:
        e = b.add_input(a.dtype, b.rng.choice([(), (1,), a.shape[-1:] if a.shape else ()]), -2.0, 2.0, init=True)
    else:
        e = b.operand_like(a.shape, a.dtype, -2.0, 2.0)
    shape = broadcast(a.shape, e.shape)
    corners = [a.lo ** e.lo, a.lo ** e.hi, a.hi ** e.lo, a.hi ** e.hi, 1.0]
    b.emit("Pow", [a, e], [(a.dtype, shape, min(corners), max(corners), False)])


def op_variadic(b):
    name = b.rng.choice(["Max", "Min", "Sum", "Mean"])
    dtypes = [F32] + ([F64] if name != "Mean" and b.opset >= 8 else []) + \
        (list(INTS) if name in ("Max", "Min") and b.opset >= 12 else [])
    a = b.pick(lambda v: b.usable(v, dtypes, nonempty=False))
    n = b.rng.choice([1, 2, 2, 3])
    others = [b.operand_like(a.shape, a.dtype, broadcastable=b.opset >= 8) for _ in range(n - 1)]
    vals = [a] + others
    if a.dtype in FLOATS and any(v.mag > BIG and not v.exact for v in vals):
        raise Skip()
    shape = broadcast(*[v.shape for v in vals])
    if b.opset < 8 and any(v.shape != shape for v in vals):
        raise Skip()
    if name == "Max":
        lo, hi = max(v.lo for v in vals), max(v.hi for v in vals)
    elif name == "Min":
        lo, hi = min(v.lo for v in vals), min(v.hi for v in vals)
    elif name == "Sum":
        lo, hi = sum(v.lo for v in vals), sum(v.hi for v in vals)
    else:
        lo, hi = min(v.lo for v in vals), max(v.hi for v in vals)
    exact = all(v.exact for v in vals) and (name in ("Max", "Min") or n == 1)
    b.emit(name, vals, [(a.dtype, shape, lo, hi, exact)])


def op_compare(b):
    names = ["Equal", "Greater", "Less"] + (["GreaterOrEqual", "LessOrEqual"] if b.opset >= 12 else [])
    name = b.rng.choice(names)
    if name == "Equal":
        dtypes = list(INTS) + ([F32, F64] if b.opset >= 11 else [])
    else:
        dtypes = [F32, F64] + (list(INTS) if b.opset >= 9 else [])
    a = b.pick(lambda v: b.usable(v, dtypes, exact=True, nonempty=False))
    c = b.operand_like(a.shape, a.dtype, exact=True)
    shape = broadcast(a.shape, c.shape)
    b.emit(name, [a, c], [(BOOL, shape, 0, 1, True)])


def op_logical(b):
    name = b.rng.choice(["And", "Or", "Xor", "Not"])
    a = b.pick(lambda v: b.usable(v, [BOOL], nonempty=False))
    if name == "Not":
        b.emit("Not", [a], [(BOOL, a.shape, 0, 1, True)])
        return
    c = b.operand_like(a.shape, BOOL)
    b.emit(name, [a, c], [(BOOL, broadcast(a.shape, c.shape), 0, 1, True)])


def op_where(b):
    x = b.pick(lambda v: b.usable(v, float_types(b) + list(INTS), nonempty=False))
    cond = b.operand_like(x.shape, BOOL)
    y = b.operand_like(x.shape, x.dtype)
    shape = broadcast(cond.shape, x.shape, y.shape)
    b.emit("Where", [cond, x, y], [(x.dtype, shape, min(x.lo, y.lo), max(x.hi, y.hi),
                                    x.exact and y.exact)])


def op_mod(b):
    a = b.pick(lambda v: b.usable(v, list(INTS) + [F32], exact=True))
    if a.dtype in INTS:
        c = b.operand_like(a.shape, a.dtype, 1, 7, exact=True)
        fmod = b.rng.choice([0, 1])
    else:
        c = b.operand_like(a.shape, a.dtype, 0.5, 3.0, exact=True)
        fmod = 1
    m = c.mag
    b.emit("Mod", [a, c], [(a.dtype, broadcast(a.shape, c.shape), -m, m, True)], fmod=fmod)


def op_clip(b):
    v = b.pick(lambda v: b.usable(v, [F32] + ([F64] + list(INTS) if b.opset >= 12 else []), nonempty=False))
    lo = v.lo + (v.hi - v.lo) * b.rng.random() * 0.5
    hi = lo + (v.hi - lo) * (0.3 + 0.7 * b.rng.random())
    if v.dtype in INTS:
        lo, hi = math.floor(lo), math.ceil(hi)
    if b.opset < 11:
        if v.dtype != F32:
            raise Skip()
        b.emit("Clip", [v], [(v.dtype, v.shape, lo, hi, v.exact)], min=float(lo), max=float(hi))
        return
    which = b.rng.choice(["both", "min", "max", "none"])
    args = [v, b.const(np.array(lo), v.dtype) if which in ("both", "min") else ""]
    if which in ("both", "max"):
        args.append(b.const(np.array(hi), v.dtype))
    while args[-1] == "":
        args.pop()
    out_lo = lo if which in ("both", "min") else v.lo
    out_hi = hi if which in ("both", "max") else v.hi
    if which == "max":
        out_lo = min(out_lo, hi)
    if which == "min":
        out_hi = max(out_hi, lo)
    b.emit("Clip", args, [(v.dtype, v.shape, out_lo, out_hi, v.exact)])


def op_cast(b):
    v = b.pick(lambda v: b.usable(v, nonempty=False))
    targets = [F32, F64, I32, I64, BOOL, U8] + ([F16] if b.allow_f16 else [])
    to = b.rng.choice([t for t in targets if t != v.dtype])
    lo, hi, exact = v.lo, v.hi, v.exact
    if v.dtype in FLOATS and to in (I32, I64, U8, BOOL) and not v.exact:
        raise Skip()
    if to == U8 and (v.lo < 0 or v.hi > 255):
        raise Skip()
    if to in INTS and v.dtype in FLOATS:
        lo, hi = math.trunc(lo) - 1, math.trunc(hi) + 1
    if to == BOOL:
        lo, hi = 0, 1
    if v.dtype == BOOL:
        lo, hi = 0, 1
    if to == F16 and v.mag > 6e4:
        raise Skip()
    b.emit("Cast", [v], [(to, v.shape, lo, hi, exact)], to=to)


def op_matmul(b):
    a = b.pick(lambda v: b.usable(v, [F32, F64], min_rank=1, max_rank=4) and v.mag <= 10)
    k = a.shape[-1]
    if a.rank == 1:
        bshape = (k, b.rng.choice([1, 2, 3, 4, 5])) if b.rng.random() < 0.7 else (k,)
    else:
        n = b.rng.choice([1, 2, 3, 4, 6, 8])
        batch = list(a.shape[:-2])
        r = b.rng.random()
        if r < 0.3:
            batch = []
        elif r < 0.5:
            batch = [d if b.rng.random() < 0.5 else 1 for d in batch]
        bshape = tuple(batch) + (k, n) if b.rng.random() < 0.85 else (k,)
    c = b.add_input(a.dtype, bshape, -1.0, 1.0)
    if a.rank == 1 and len(bshape) == 1:
        out = ()
    elif a.rank == 1:
        out = bshape[:-2] + bshape[-1:]
    elif len(bshape) == 1:
        out = a.shape[:-1]
    else:
        out = broadcast(a.shape[:-2], bshape[:-2]) + (a.shape[-2], bshape[-1])
    m = k * a.mag * c.mag
    ops = [a, c]
    b.emit("MatMul", ops, [(a.dtype, out, -m, m, False)])


def op_gemm(b):
    a = b.pick(lambda v: b.usable(v, [F32, F64], min_rank=2, max_rank=2) and v.mag <= 10)
    trans_a = b.rng.choice([0, 1])
    m_, k = (a.shape[1], a.shape[0]) if trans_a else a.shape
    n = b.rng.choice([1, 2, 3, 4, 8])
    trans_b = b.rng.choice([0, 1])
    w = b.add_input(a.dtype, (n, k) if trans_b else (k, n), -1.0, 1.0)
    alpha = b.rng.choice([1.0, 1.0, 0.5, 2.0])
    beta = b.rng.choice([1.0, 1.0, 0.5])
    args = [a, w]
    m = alpha * k * a.mag * w.mag
    if b.opset < 11 or b.rng.random() < 0.7:
        cshape = b.rng.choice([(m_, n), (n,), (1, n), (m_, 1), ()])
        if b.opset < 7 and cshape != (m_, n):
            cshape = (m_, n)
        c = b.add_input(a.dtype, cshape, -1.0, 1.0)
        args.append(c)
        m += beta
    b.emit("Gemm", args, [(a.dtype, (m_, n), -m, m, False)], alpha=alpha, beta=beta,
           transA=trans_a, transB=trans_b)


def conv_out(size, k, s, p0, p1, d, ceil=False):
    eff = d * (k - 1) + 1
    num = size + p0 + p1 - eff
    if num < 0:
        raise Skip()
    return (-(-num // s) if ceil else num // s) + 1


def spatial_input(b, min_spatial=1, max_spatial=2, dtypes=(F32,)):
    return b.pick(lambda v: b.usable(v, list(dtypes), min_rank=2 + min_spatial,
                                     max_rank=2 + max_spatial) and v.mag <= 10)


def op_conv(b):
    x = spatial_input(b)
    n, c = x.shape[:2]
    spatial = x.shape[2:]
    nd = len(spatial)
    group = 1
    if c > 1 and b.rng.random() < 0.3:
        group = b.rng.choice([g for g in range(1, c + 1) if c % g == 0])
    m = group * b.rng.choice([1, 2, 3])
    ks = [b.rng.choice([1, 1, 2, 3]) for _ in range(nd)]
    strides = [b.rng.choice([1, 1, 2]) for _ in range(nd)]
    dil = [b.rng.choice([1, 1, 1, 2]) for _ in range(nd)]
    pads = [b.rng.choice([0, 0, 1, 2]) for _ in range(2 * nd)]
    pads = [min(p, ks[i % nd] * dil[i % nd] - 1) if ks[i % nd] > 1 else 0 for i, p in enumerate(pads)]
    out = [conv_out(spatial[i], ks[i], strides[i], pads[i], pads[i + nd], dil[i]) for i in range(nd)]
    w = b.add_input(F32, (m, c // group) + tuple(ks), -1.0, 1.0, init=b.rng.random() < 0.8)
    args = [x, w]
    bound = (c // group) * numel(ks) * x.mag * w.mag
    if b.rng.random() < 0.6:
        args.append(b.add_input(F32, (m,), -1.0, 1.0, init=True))
        bound += 1
    attrs = dict(kernel_shape=ks, strides=strides, dilations=dil, group=group)
    if b.rng.random() < 0.15 and all(s == 1 for s in strides) and all(d == 1 for d in dil):
        attrs["auto_pad"] = b.rng.choice(["SAME_UPPER", "SAME_LOWER", "VALID"])
        if attrs["auto_pad"] == "VALID":
            out = [spatial[i] - ks[i] + 1 for i in range(nd)]
            if min(out) < 1:
                raise Skip()
        else:
            out = list(spatial)
    else:
        attrs["pads"] = pads
    if b.rng.random() < 0.2:
        del attrs["kernel_shape"]
    b.emit("Conv", args, [(F32, (n, m) + tuple(out), -bound, bound, False)], **attrs)


def op_conv_transpose(b):
    x = spatial_input(b, 1, 2)
    n, c = x.shape[:2]
    spatial = x.shape[2:]
    nd = len(spatial)
    group = 1
    if c > 1 and b.rng.random() < 0.3:
        group = b.rng.choice([g for g in range(1, c + 1) if c % g == 0])
    mg = b.rng.choice([1, 2])
    ks = [b.rng.choice([1, 2, 3]) for _ in range(nd)]
    strides = [b.rng.choice([1, 2]) for _ in range(nd)]
    dil = [b.rng.choice([1, 1, 2]) for _ in range(nd)]
    pads = [b.rng.choice([0, 0, 1]) for _ in range(2 * nd)]
    outpad = [b.rng.choice([0, 0, 1]) if strides[i] > 1 else 0 for i in range(nd)]
    out = []
    for i in range(nd):
        o = strides[i] * (spatial[i] - 1) + outpad[i] + ((ks[i] - 1) * dil[i] + 1) - pads[i] - pads[i + nd]
        if o < 1:
            raise Skip()
        out.append(o)
    w = b.add_input(F32, (c, mg) + tuple(ks), -1.0, 1.0, init=True)
    args = [x, w]
    bound = c * numel(ks) * x.mag * w.mag
    if b.rng.random() < 0.5:
        args.append(b.add_input(F32, (mg * group,), -1.0, 1.0, init=True))
        bound += 1
    attrs = dict(kernel_shape=ks, strides=strides, dilations=dil, group=group, pads=pads)
    if any(outpad):
        attrs["output_padding"] = outpad
    b.emit("ConvTranspose", args, [(F32, (n, mg * group) + tuple(out), -bound, bound, False)], **attrs)


def op_pool(b):
    name = b.rng.choice(["MaxPool", "AveragePool", "MaxPool"])
    x = spatial_input(b, 1, 3 if b.rng.random() < 0.1 else 2)
    spatial = x.shape[2:]
    nd = len(spatial)
    ks = [b.rng.choice([1, 2, 2, 3]) for _ in range(nd)]
    strides = [b.rng.choice([1, 2, 2]) for _ in range(nd)]
    dil = [1] * nd
    if name == "MaxPool" and b.opset >= 10 and b.rng.random() < 0.2:
        dil = [b.rng.choice([1, 2]) for _ in range(nd)]
    pads = [b.rng.randint(0, (ks[i % nd] - 1) // 1) if ks[i % nd] > 1 else 0 for i in range(2 * nd)]
    pads = [min(p, ks[i % nd] - 1) for i, p in enumerate(pads)]
    if any(d != 1 for d in dil):
        # A dilated window can hold padding only, whose max the spec leaves
        # open: ORT says the lowest float, onnxcc -inf (seed 3115 of 378c599).
        pads = [0] * (2 * nd)
    ceil = b.opset >= 10 and b.rng.random() < 0.3
    terminal = False
    out = []
    for i in range(nd):
        o = conv_out(spatial[i], ks[i], strides[i], pads[i], pads[i + nd], dil[i], ceil)
        # The spec drops a last window that would start in the right padding
        # (ceil_mode), and so do ORT 1.30's kernels, but not its shape
        # inference: such a value is only an output, of unstated dims.
        if ceil and (o - 1) * strides[i] >= spatial[i] + pads[i]:
            o -= 1
            terminal = True
        out.append(o)
    attrs = dict(kernel_shape=ks, strides=strides, pads=pads)
    if ceil:
        attrs["ceil_mode"] = 1
    if any(d != 1 for d in dil):
        attrs["dilations"] = dil
    exact = False
    lo, hi = x.lo, x.hi
    if name == "AveragePool":
        if b.rng.random() < 0.4:
            attrs["count_include_pad"] = 1
            lo, hi = min(lo, 0.0), max(hi, 0.0)
        if ceil:
            lo, hi = min(lo, 0.0), max(hi, 0.0)
    else:
        exact = x.exact
        if any(pads):
            pass  # padding is -inf for MaxPool: windows always hold a real element here
    shape = x.shape[:2] + tuple(out)
    outs = [(F32, shape, lo, hi, exact)]
    # MaxPool's Indices (positions in the whole of X, batch and channel
    # included), when X's values have no ties whose pick the spec leaves open.
    if name == "MaxPool" and b.opset >= 8 and not x.exact and b.rng.random() < 0.25:
        outs.append((I64, shape, 0, max(numel(x.shape) - 1, 0), True))
        if b.opset >= 10 and b.rng.random() < 0.3:
            attrs["storage_order"] = 1
    values = b.emit(name, [x], outs, **attrs)
    for v in values:
        v.terminal = terminal


def op_global_pool(b):
    name = b.rng.choice(["GlobalAveragePool", "GlobalMaxPool"])
    x = spatial_input(b, 1, 3)
    b.emit(name, [x], [(F32, x.shape[:2] + (1,) * (x.rank - 2), x.lo, x.hi,
                        x.exact and name == "GlobalMaxPool")])


REDUCE = ["ReduceSum", "ReduceMean", "ReduceMax", "ReduceMin", "ReduceProd", "ReduceL1",
          "ReduceL2", "ReduceSumSquare", "ReduceLogSumExp", "ReduceLogSum"]


def op_reduce(b):
    name = b.rng.choice(REDUCE + ["ReduceSum", "ReduceMean", "ReduceMax"])
    dtypes = [F32, F64] + (list(INTS) if name in ("ReduceSum", "ReduceMax", "ReduceMin", "ReduceProd") else [])
    x = b.pick(lambda v: b.usable(v, dtypes, min_rank=1))
    rank = x.rank
    axes = sorted(b.rng.sample(range(rank), b.rng.randint(1, rank)))
    all_axes = b.rng.random() < 0.15
    if all_axes:
        axes = list(range(rank))
    n = numel([x.shape[a] for a in axes])
    keep = b.rng.choice([0, 1])
    mag = x.mag
    if name == "ReduceSum":
        lo, hi = n * min(x.lo, 0), n * max(x.hi, 0)
        lo, hi = min(lo, n * x.lo), max(hi, n * x.hi)
    elif name in ("ReduceMean", "ReduceMax", "ReduceMin"):
        lo, hi = x.lo, x.hi
    elif name == "ReduceProd":
        if mag ** n > 1e4 or (x.dtype in INTS and mag ** n > 2 ** 30):
            raise Skip()
        lo, hi = -mag ** n, mag ** n
    elif name == "ReduceL1":
        lo, hi = 0, n * mag
    elif name == "ReduceL2":
        if not x.exact and x.lo <= 0 <= x.hi:
            raise Skip()  # sqrt of a sum near 0 is ill-conditioned
        lo, hi = 0, math.sqrt(n) * mag
    elif name == "ReduceSumSquare":
        lo, hi = 0, n * mag * mag
    elif name == "ReduceLogSumExp":
        if x.hi > 20:
            raise Skip()
        lo, hi = x.lo, x.hi + math.log(n)
    else:  # ReduceLogSum
        if x.lo < 0.1:
            raise Skip()
        lo, hi = math.log(n * x.lo), math.log(n * x.hi)
    if keep:
        shape = tuple(1 if i in axes else d for i, d in enumerate(x.shape))
    else:
        shape = tuple(d for i, d in enumerate(x.shape) if i not in axes)
    ax = [a - rank if b.rng.random() < 0.3 else a for a in axes]
    attrs = {"keepdims": keep}
    args = [x]
    if name == "ReduceSum" and b.opset >= 13:
        if all_axes and b.rng.random() < 0.5:
            pass  # no axes input: reduce all (noop_with_empty_axes=0)
        else:
            args.append(b.const(ax))
    elif not (all_axes and b.rng.random() < 0.5):
        attrs["axes"] = ax
    exact = x.exact and name in ("ReduceMax", "ReduceMin")
    b.emit(name, args, [(x.dtype, shape, lo, hi, exact)], **attrs)


def op_arg(b):
    name = b.rng.choice(["ArgMax", "ArgMin"])
    x = b.pick(lambda v: b.usable(v, [F32, F64, I32], exact=True, min_rank=1))
    axis = b.rng.randrange(x.rank)
    keep = b.rng.choice([0, 1])
    attrs = {"axis": axis - x.rank if b.opset >= 11 and b.rng.random() < 0.3 else axis, "keepdims": keep}
    if b.opset >= 12 and b.rng.random() < 0.3:
        attrs["select_last_index"] = 1
    if x.dtype in INTS and x.size > 1:
        raise Skip()  # ties
    shape = tuple(1 if i == axis else d for i, d in enumerate(x.shape)) if keep else \
        tuple(d for i, d in enumerate(x.shape) if i != axis)
    b.emit(name, [x], [(I64, shape, 0, x.shape[axis] - 1, True)], **attrs)


def op_softmax(b):
    name = b.rng.choice(["Softmax", "LogSoftmax", "Softmax"])
    x = b.pick(lambda v: b.usable(v, [F32, F64], min_rank=1) and v.mag <= 30)
    axis = b.rng.randrange(x.rank)
    if b.opset >= 11 and b.rng.random() < 0.3:
        axis -= x.rank
    if b.opset < 13:
        n = numel(x.shape[axis:])
    else:
        n = x.shape[axis]
    lo, hi = (0.0, 1.0) if name == "Softmax" else (-(x.hi - x.lo) - math.log(max(n, 1)) - 1, 0.0)
    b.emit(name, [x], [(x.dtype, x.shape, lo, hi, False)], axis=axis)


def op_hardmax(b):
    x = b.pick(lambda v: b.usable(v, [F32], exact=True, min_rank=1))
    axis = b.rng.randrange(x.rank)
    b.emit("Hardmax", [x], [(F32, x.shape, 0.0, 1.0, True)], axis=axis)


def op_transpose(b):
    x = b.pick(lambda v: b.usable(v, nonempty=False, min_rank=1))
    perm = list(range(x.rank))
    b.rng.shuffle(perm)
    attrs = {"perm": perm} if b.rng.random() < 0.85 else {}
    if not attrs:
        perm = list(reversed(range(x.rank)))
    b.emit("Transpose", [x], [(x.dtype, tuple(x.shape[p] for p in perm), x.lo, x.hi, x.exact)], **attrs)


def factor_shape(b, total, rank):
    dims = []
    rest = total
    for _ in range(rank - 1):
        divs = [d for d in range(1, rest + 1) if rest % d == 0]
        d = b.rng.choice(divs)
        dims.append(d)
        rest //= d
    dims.append(rest)
    b.rng.shuffle(dims)
    return dims


def op_reshape(b):
    x = b.pick(lambda v: b.usable(v, nonempty=True))
    rank = b.rng.choice([1, 2, 3, 4])
    dims = factor_shape(b, x.size, rank)
    spec = list(dims)
    if b.rng.random() < 0.4:
        spec[b.rng.randrange(rank)] = -1
    if b.opset >= 5 and b.rng.random() < 0.3:
        # 0 copies the input's dim (allowzero=0).
        for i in range(min(rank, x.rank)):
            if dims[i] == x.shape[i] and spec[i] != -1 and b.rng.random() < 0.5:
                spec[i] = 0
    b.emit("Reshape", [x, b.const(spec)], [(x.dtype, tuple(dims), x.lo, x.hi, x.exact)])


def op_flatten(b):
    x = b.pick(lambda v: b.usable(v, nonempty=False, min_rank=1))
    axis = b.rng.randint(0, x.rank)
    attr = axis - x.rank if b.opset >= 11 and axis < x.rank and b.rng.random() < 0.3 else axis
    shape = (numel(x.shape[:axis]), numel(x.shape[axis:]))
    if x.dtype not in FLOATS and b.opset < 9:
        raise Skip()  # Flatten-1 takes float types only
    b.emit("Flatten", [x], [(x.dtype, shape, x.lo, x.hi, x.exact)], axis=attr)


def op_squeeze(b):
    x = b.pick(lambda v: b.usable(v, nonempty=False, min_rank=1) and 1 in v.shape)
    ones = [i for i, d in enumerate(x.shape) if d == 1]
    axes = sorted(b.rng.sample(ones, b.rng.randint(1, len(ones))))
    shape = tuple(d for i, d in enumerate(x.shape) if i not in axes)
    ax = [a - x.rank if b.opset >= 11 and b.rng.random() < 0.3 else a for a in axes]
    if b.opset >= 13:
        args = [x, b.const(ax)]
        attrs = {}
    else:
        args, attrs = [x], {"axes": ax}
    b.emit("Squeeze", args, [(x.dtype, shape, x.lo, x.hi, x.exact)], **attrs)


def op_unsqueeze(b):
    x = b.pick(lambda v: b.usable(v, nonempty=False, max_rank=4))
    k = b.rng.choice([1, 1, 2])
    out_rank = x.rank + k
    axes = sorted(b.rng.sample(range(out_rank), k))
    shape, it = [], iter(x.shape)
    for i in range(out_rank):
        shape.append(1 if i in axes else next(it))
    ax = [a - out_rank if b.opset >= 11 and b.rng.random() < 0.3 else a for a in axes]
    b.rng.shuffle(ax)
    if b.opset >= 13:
        args, attrs = [x, b.const(ax)], {}
    else:
        args, attrs = [x], {"axes": ax}
    b.emit("Unsqueeze", args, [(x.dtype, tuple(shape), x.lo, x.hi, x.exact)], **attrs)


def op_concat(b):
    x = b.pick(lambda v: b.usable(v, nonempty=False, min_rank=1))
    axis = b.rng.randrange(x.rank)
    parts = [x]
    for _ in range(b.rng.choice([1, 1, 2])):
        if b.rng.random() < 0.3:
            parts.append(x)  # the same value twice
            continue
        shape = list(x.shape)
        shape[axis] = b.rng.choice([1, 2, 3] + ([0] if b.allow_empty else []))
        same = [v for v in b.values if v.dtype == x.dtype and v.rank == x.rank and not v.terminal and
                all(v.shape[i] == x.shape[i] for i in range(x.rank) if i != axis) and
                (v.exact or v.mag <= BIG or v.dtype not in FLOATS)]
        if same and b.rng.random() < 0.4:
            parts.append(b.rng.choice(same))
        else:
            parts.append(b.add_input(x.dtype, tuple(shape)))
    shape = list(x.shape)
    shape[axis] = sum(p.shape[axis] for p in parts)
    attr = axis - x.rank if b.opset >= 11 and b.rng.random() < 0.3 else axis
    b.emit("Concat", parts, [(x.dtype, tuple(shape), min(p.lo for p in parts),
                              max(p.hi for p in parts), all(p.exact for p in parts))], axis=attr)


def op_split(b):
    x = b.pick(lambda v: b.usable(v, min_rank=1) and max(v.shape) >= 2)
    axes = [i for i, d in enumerate(x.shape) if d >= 2]
    axis = b.rng.choice(axes)
    d = x.shape[axis]
    k = b.rng.randint(2, min(d, 3))
    explicit = b.rng.random() < 0.6 or d % k != 0
    if explicit:
        cuts = sorted(b.rng.sample(range(1, d), k - 1))
        sizes = [e - s for s, e in zip([0] + cuts, cuts + [d])]
    else:
        sizes = [d // k] * k
    outs = []
    for s in sizes:
        shape = list(x.shape)
        shape[axis] = s
        outs.append((x.dtype, tuple(shape), x.lo, x.hi, x.exact))
    args, attrs = [x], {"axis": axis - x.rank if b.opset >= 11 and b.rng.random() < 0.3 else axis}
    if explicit:
        if b.opset >= 13:
            args.append(b.const(sizes))
        else:
            attrs["split"] = sizes
    b.emit("Split", args, outs, **attrs)


def op_slice(b):
    x = b.pick(lambda v: b.usable(v, nonempty=False, min_rank=1))
    axes = sorted(b.rng.sample(range(x.rank), b.rng.randint(1, x.rank)))
    starts, ends, steps, shape = [], [], [], list(x.shape)
    for a in axes:
        d = x.shape[a]
        step = 1 if b.opset < 10 else b.rng.choice([1, 1, 1, 2, -1, -2])
        if d == 0:
            starts.append(0); ends.append(0); steps.append(1); shape[a] = 0
            continue
        s = b.rng.randint(0, d - 1)
        if step > 0:
            e = b.rng.randint(s + 1, d)
            n = -(-(e - s) // step)
            # Sometimes out-of-range or negative forms of the same bounds.
            e_out = e if b.rng.random() < 0.8 else (d + 5 if e == d else e - d)
            s_out = s if b.rng.random() < 0.8 else s - d
        else:
            s = b.rng.randint(0, d - 1)
            e = b.rng.randint(-1, s - 1)
            n = -(-(s - e) // -step)
            e_out = e if e >= 0 else -d - 3
            s_out = s if b.rng.random() < 0.8 else s - d
        starts.append(s_out); ends.append(e_out); steps.append(step)
        shape[a] = n
    ax = [a - x.rank if b.opset >= 10 and b.rng.random() < 0.3 else a for a in axes]
    out = [(x.dtype, tuple(shape), x.lo, x.hi, x.exact)]
    if b.opset < 10:
        b.emit("Slice", [x], out, starts=starts, ends=ends, axes=ax)
        return
    args = [x, b.const(starts), b.const(ends)]
    if ax != list(range(x.rank)) or any(s != 1 for s in steps) or b.rng.random() < 0.5:
        args.append(b.const(ax))
        if any(s != 1 for s in steps) or b.rng.random() < 0.5:
            args.append(b.const(steps))
    b.emit("Slice", args, out)


def op_gather(b):
    x = b.pick(lambda v: b.usable(v, min_rank=1))
    axis = b.rng.randrange(x.rank)
    d = x.shape[axis]
    ishape = b.random_shape(rank=b.rng.choice([0, 1, 1, 2]), max_elems=8)
    lo = -d if b.opset >= 11 else 0
    idx = b.np.integers(lo, d, size=ishape)
    itype = b.rng.choice([I64, I32])
    if b.rng.random() < 0.8:
        iname = b.const(idx, itype)
    else:
        iv = b.add_input(itype, ishape, lo, d - 1, init=False)
        iname = iv
    shape = x.shape[:axis] + tuple(ishape) + x.shape[axis + 1:]
    attr = axis - x.rank if b.opset >= 11 and b.rng.random() < 0.3 else axis
    b.emit("Gather", [x, iname], [(x.dtype, shape, x.lo, x.hi, x.exact)], axis=attr)


def op_gather_elements(b):
    x = b.pick(lambda v: b.usable(v, min_rank=1))
    axis = b.rng.randrange(x.rank)
    ishape = [b.rng.randint(1, d) for d in x.shape]
    ishape[axis] = b.rng.randint(1, 4)
    d = x.shape[axis]
    idx = b.np.integers(-d, d, size=ishape)
    b.emit("GatherElements", [x, b.const(idx)], [(x.dtype, tuple(ishape), x.lo, x.hi, x.exact)], axis=axis)


def op_expand(b):
    x = b.pick(lambda v: b.usable(v, nonempty=False, max_rank=4))
    shape = [d if d != 1 or b.rng.random() < 0.5 else b.rng.choice([2, 3]) for d in x.shape]
    if b.rng.random() < 0.4:
        shape = [b.rng.choice([1, 2, 3])] + shape
    spec = [1 if (i >= len(shape) - x.rank and d == x.shape[i - len(shape) + x.rank] and b.rng.random() < 0.3)
            else d for i, d in enumerate(shape)]
    out = broadcast(tuple(x.shape), tuple(spec))
    b.emit("Expand", [x, b.const(spec)], [(x.dtype, out, x.lo, x.hi, x.exact)])


def op_tile(b):
    x = b.pick(lambda v: b.usable(v, nonempty=False, min_rank=1))
    reps = [b.rng.choice([1, 1, 2, 3]) for _ in range(x.rank)]
    b.emit("Tile", [x, b.const(reps)], [(x.dtype, tuple(d * r for d, r in zip(x.shape, reps)),
                                          x.lo, x.hi, x.exact)])


def op_pad(b):
    x = b.pick(lambda v: b.usable(v, [F32, F64, I32, I64] if b.opset >= 11 else [F32], min_rank=1))
    mode = b.rng.choice(["constant", "constant", "reflect", "edge"])
    pads = []
    for side in range(2):
        for d in x.shape:
            hi = d - 1 if mode == "reflect" else 3
            p = b.rng.choice([0, 0, 1, 2])
            if p > hi:
                p = hi
            if mode == "constant" and b.rng.random() < 0.15 and d > 1:
                p = -1  # negative pads crop
            pads.append(p)
    shape = tuple(d + pads[i] + pads[i + x.rank] for i, d in enumerate(x.shape))
    if min(shape) < 1:
        raise Skip()
    value = b.rng.choice([0.0, 1.5, -2.0]) if mode == "constant" else 0.0
    if x.dtype in INTS:
        value = float(int(value))
    lo, hi = (min(x.lo, value), max(x.hi, value)) if mode == "constant" else (x.lo, x.hi)
    out = [(x.dtype, shape, lo, hi, x.exact)]
    if b.opset < 11:
        b.emit("Pad", [x], out, mode=mode, pads=pads, value=value)
        return
    args = [x, b.const(pads)]
    if mode == "constant" and (value != 0 or b.rng.random() < 0.3):
        args.append(b.const(np.array(value), x.dtype))
    b.emit("Pad", args, out, mode=mode)


def op_batchnorm(b):
    x = spatial_input(b, 0, 3, dtypes=(F32,))
    c = x.shape[1]
    scale = b.add_input(F32, (c,), 0.5, 1.5, init=True)
    bias = b.add_input(F32, (c,), -1.0, 1.0, init=True)
    mean = b.add_input(F32, (c,), -1.0, 1.0, init=True)
    var = b.add_input(F32, (c,), 0.5, 2.0, init=True)
    eps = b.rng.choice([1e-5, 1e-3])
    m = (x.mag + 1) * 1.5 / math.sqrt(0.5) + 1
    attrs = {"epsilon": eps}
    if b.opset < 9:
        attrs["spatial"] = 1
    b.emit("BatchNormalization", [x, scale, bias, mean, var], [(F32, x.shape, -m, m, False)], **attrs)


def op_instancenorm(b):
    x = spatial_input(b, 1, 2, dtypes=(F32,))
    if numel(x.shape[2:]) < 2 or not x.exact:
        raise Skip()  # the variance of few or computed values is ill-conditioned
    c = x.shape[1]
    scale = b.add_input(F32, (c,), 0.5, 1.5, init=True)
    bias = b.add_input(F32, (c,), -1.0, 1.0, init=True)
    m = 1.5 * math.sqrt(numel(x.shape[2:])) + 1
    b.emit("InstanceNormalization", [x, scale, bias], [(F32, x.shape, -m, m, False)],
           epsilon=b.rng.choice([1e-5, 1e-2]))


def op_layernorm(b):
    x = b.pick(lambda v: b.usable(v, [F32], exact=True, min_rank=1))
    axis = b.rng.randrange(x.rank)
    norm_shape = x.shape[axis:]
    if numel(norm_shape) < 2:
        raise Skip()
    scale = b.add_input(F32, norm_shape, 0.5, 1.5, init=True)
    args = [x, scale]
    if b.rng.random() < 0.7:
        args.append(b.add_input(F32, norm_shape, -1.0, 1.0, init=True))
    m = 1.5 * math.sqrt(numel(norm_shape)) + 1
    b.emit("LayerNormalization", args, [(F32, x.shape, -m, m, False)],
           axis=axis - x.rank if b.rng.random() < 0.5 else axis, epsilon=b.rng.choice([1e-5, 1e-3]))


def op_lrn(b):
    x = spatial_input(b, 2, 2)  # ORT's LRN takes 4-D only
    size = b.rng.choice([1, 3, 5])
    b.emit("LRN", [x], [(F32, x.shape, -x.mag, x.mag, False)], size=size,
           alpha=b.rng.choice([1e-4, 1e-2]), beta=b.rng.choice([0.75, 0.5]), bias=b.rng.choice([1.0, 2.0]))


def op_resize(b):
    x = b.pick(lambda v: b.usable(v, [F32], min_rank=4, max_rank=4) and v.mag <= 10)
    mode = b.rng.choice(["nearest", "linear", "nearest", "cubic"] if b.opset >= 11 else ["nearest", "linear"])
    h, w = x.shape[2:]
    use_sizes = b.opset >= 11 and b.rng.random() < 0.4
    if use_sizes:
        oh, ow = b.rng.randint(1, 2 * h + 1), b.rng.randint(1, 2 * w + 1)
    else:
        sh = b.rng.choice([1.0, 2.0, 3.0, 0.5]) if h % 2 == 0 else b.rng.choice([1.0, 2.0, 3.0])
        sw = b.rng.choice([1.0, 2.0, 0.5]) if w % 2 == 0 else b.rng.choice([1.0, 2.0])
        oh, ow = int(math.floor(h * sh)), int(math.floor(w * sw))
        if oh < 1 or ow < 1:
            raise Skip()
    attrs = {"mode": mode}
    lo, hi = x.lo, x.hi
    if mode == "cubic":
        lo, hi = x.lo - 0.5 * (x.hi - x.lo), x.hi + 0.5 * (x.hi - x.lo)
    if b.opset >= 11:
        ctm = b.rng.choice(["half_pixel", "asymmetric", "align_corners", "pytorch_half_pixel"]
)
        attrs["coordinate_transformation_mode"] = ctm
        if mode == "nearest":
            attrs["nearest_mode"] = b.rng.choice(["round_prefer_floor", "floor", "ceil", "round_prefer_ceil"])
            if ctm != "asymmetric" and attrs["nearest_mode"].startswith("round"):
                # half_pixel-style coordinates of scaled grids land on x.5 ties,
                # where float rounding of the coordinate decides: keep floor/ceil.
                attrs["nearest_mode"] = b.rng.choice(["floor", "ceil"])
            if attrs["nearest_mode"] in ("floor", "ceil") and use_sizes:
                raise Skip()  # non-integer ratios put coordinates near integers
        if mode == "cubic":
            attrs["cubic_coeff_a"] = b.rng.choice([-0.75, -0.5])
        roi = b.const(np.array([], dtype=np.float32), F32) if b.opset < 13 or b.rng.random() < 0.3 else ""
        if use_sizes:
            args = [x, roi, b.const(np.array([], dtype=np.float32), F32) if b.opset < 13 else "",
                    b.const([x.shape[0], x.shape[1], oh, ow])]
        else:
            args = [x, roi, b.const(np.array([1, 1, sh, sw], dtype=np.float32), F32)]
    else:
        args = [x, b.const(np.array([1, 1, sh, sw], dtype=np.float32), F32)]
    b.emit("Resize", args, [(F32, x.shape[:2] + (oh, ow), lo, hi, mode == "nearest" and x.exact)], **attrs)


def op_depth_space(b):
    name = b.rng.choice(["DepthToSpace", "SpaceToDepth"])
    # ORT implements DepthToSpace/SpaceToDepth for float32 (and from opset 13 float64) only.
    x = b.pick(lambda v: b.usable(v, [F32, F64] if b.opset >= 13 else [F32], min_rank=4, max_rank=4))
    n, c, h, w = x.shape
    bs = b.rng.choice([2, 3])
    attrs = {"blocksize": bs}
    if name == "DepthToSpace":
        if c % (bs * bs):
            raise Skip()
        shape = (n, c // (bs * bs), h * bs, w * bs)
        if b.opset >= 11:
            attrs["mode"] = b.rng.choice(["DCR", "CRD"])
    else:
        if h % bs or w % bs:
            raise Skip()
        shape = (n, c * bs * bs, h // bs, w // bs)
    b.emit(name, [x], [(x.dtype, shape, x.lo, x.hi, x.exact)], **attrs)


def op_topk(b):
    x = b.pick(lambda v: b.usable(v, [F32, F64], exact=True, min_rank=1))
    axis = b.rng.randrange(x.rank)
    k = b.rng.randint(1, x.shape[axis])
    attrs = {"axis": axis - x.rank if b.opset >= 11 and b.rng.random() < 0.3 else axis}
    shape = list(x.shape)
    shape[axis] = k
    outs = [(x.dtype, tuple(shape), x.lo, x.hi, True), (I64, tuple(shape), 0, x.shape[axis] - 1, True)]
    if b.opset >= 11:
        attrs["largest"] = b.rng.choice([0, 1])
    if b.opset < 10:
        b.emit("TopK", [x], outs, k=k, **attrs)
    else:
        b.emit("TopK", [x, b.const([k])], outs, **attrs)


def op_trilu(b):
    x = b.pick(lambda v: b.usable(v, [F32, F64, I64], min_rank=2))  # ORT's Trilu types
    args = [x]
    if b.rng.random() < 0.6:
        args.append(b.const(np.array(b.rng.randint(-2, 2))))
    lo, hi = min(x.lo, 0), max(x.hi, 0)
    b.emit("Trilu", args, [(x.dtype, x.shape, lo, hi, x.exact)], upper=b.rng.choice([0, 1]))


def op_shape(b):
    x = b.pick(lambda v: b.usable(v, nonempty=False, min_rank=1))
    attrs = {}
    n = x.rank
    if b.opset >= 15 and b.rng.random() < 0.4:
        s = b.rng.randint(-n, n - 1)
        attrs["start"] = s
        st = s + n if s < 0 else s
        n = n - st
    (v,) = b.emit("Shape", [x], [(I64, (n,), 0, max(x.shape) if x.shape else 0, True)], **attrs)
    # Feed the shape into arithmetic sometimes, so it is not only an output.
    if b.rng.random() < 0.5:
        c = b.add_input(I64, (n,), 1, 3)
        b.emit("Mul", [v, c], [(I64, (n,), 0, v.hi * 3, True)])


def op_constant_of_shape(b):
    dims = list(b.random_shape(rank=b.rng.choice([1, 2, 3]), max_elems=64))
    dtype = b.rng.choice([F32, I64, I32])
    value = numpy_helper.from_array(np.array([b.rng.choice([0, 1, 3])], dtype=NUMPY[dtype]), "value")
    (v,) = b.emit("ConstantOfShape", [b.const(dims)], [(dtype, tuple(dims), 0, 3, True)], value=value)
    x = b.operand_like(tuple(dims), dtype)
    b.emit("Add", [v, x], [(dtype, broadcast(tuple(dims), x.shape), x.lo, x.hi + 3, dtype in INTS)])


def op_dropout(b):
    x = b.pick(lambda v: b.usable(v, [F32], nonempty=False))
    b.emit("Dropout", [x], [(F32, x.shape, x.lo, x.hi, x.exact)])


def op_prelu(b):
    x = b.pick(lambda v: b.usable(v, [F32], min_rank=1))
    if b.opset >= 9 and b.rng.random() < 0.5:
        sshape = tuple(d if b.rng.random() < 0.5 else 1 for d in x.shape[b.rng.randint(0, x.rank):])
    elif x.rank >= 2:
        sshape = (x.shape[1],) + (1,) * (x.rank - 2)
    else:
        sshape = (1,)
    if b.opset < 7:
        raise Skip()
    s = b.add_input(x.dtype, sshape, -0.5, 0.5, init=b.rng.random() < 0.7)
    if broadcast(x.shape, s.shape) != x.shape:
        raise Skip()
    m = x.mag
    b.emit("PRelu", [x, s], [(x.dtype, x.shape, -m, m, False)])


def op_einsum(b):
    a = b.pick(lambda v: b.usable(v, [F32], min_rank=2, max_rank=3) and v.mag <= 10)
    if a.rank == 2:
        eq, n = b.rng.choice([("ij,jk->ik", 1), ("ij->ji", 0), ("ij->i", 0), ("ij,ij->ij", 2)])
        m_, k = a.shape
        if n == 1:
            c = b.add_input(F32, (k, 3), -1.0, 1.0)
            out, m = (m_, 3), k * a.mag * c.mag
        elif n == 2:
            c = b.add_input(F32, a.shape, -1.0, 1.0)
            out, m = a.shape, a.mag * c.mag
        else:
            c = None
            out, m = ((k, m_), a.mag) if eq == "ij->ji" else ((m_,), k * a.mag)
    else:
        eq = "bij,bjk->bik"
        bb, m_, k = a.shape
        c = b.add_input(F32, (bb, k, 2), -1.0, 1.0)
        out, m = (bb, m_, 2), k * a.mag * c.mag
    b.emit("Einsum", [a] + ([c] if c is not None else []), [(F32, out, -m, m, eq == "ij->ji" and a.exact)],
           equation=eq)


def op_cumsum(b):
    x = b.pick(lambda v: b.usable(v, [F32, F64, I32, I64], min_rank=1) and (v.dtype in INTS or v.mag <= 10))
    axis = b.rng.randrange(x.rank)
    n = x.shape[axis]
    m = n * x.mag
    if x.dtype in INTS and m > 2 ** 30:
        raise Skip()
    ax = axis - x.rank if b.rng.random() < 0.3 else axis
    b.emit("CumSum", [x, b.const(np.array(ax), b.rng.choice([I64, I32]))],
           [(x.dtype, x.shape, min(0.0, n * x.lo), max(0.0, n * x.hi), x.dtype in INTS)],
           exclusive=b.rng.choice([0, 1]), reverse=b.rng.choice([0, 1]))


# (name, min opset, max opset, weight, builder)
OPS = [(n, UNARY[n][0], MAX_OPSET, 1.0 if n not in ("Relu", "Sigmoid", "Tanh", "Exp", "Abs", "Neg") else 2.0,
        make_unary(n)) for n in UNARY]
OPS += [
    ("binary", 7, MAX_OPSET, 10.0, op_binary_arith),
    ("Pow", 7, MAX_OPSET, 1.5, op_pow),
    ("variadic", 6, MAX_OPSET, 3.0, op_variadic),
    ("compare", 7, MAX_OPSET, 2.0, op_compare),
    ("logical", 7, MAX_OPSET, 1.5, op_logical),
    ("Where", 9, MAX_OPSET, 2.0, op_where),
    ("Mod", 10, MAX_OPSET, 1.0, op_mod),
    ("Clip", 6, MAX_OPSET, 2.0, op_clip),
    ("Cast", 6, MAX_OPSET, 3.0, op_cast),
    ("MatMul", 1, MAX_OPSET, 4.0, op_matmul),
    ("Gemm", 7, MAX_OPSET, 2.0, op_gemm),
    ("Conv", 1, MAX_OPSET, 4.0, op_conv),
    ("ConvTranspose", 1, MAX_OPSET, 2.0, op_conv_transpose),
    ("pool", 7, MAX_OPSET, 3.0, op_pool),
    ("globalpool", 1, MAX_OPSET, 1.0, op_global_pool),
    ("reduce", 1, MAX_OPSET, 5.0, op_reduce),
    ("arg", 1, MAX_OPSET, 1.5, op_arg),
    ("softmax", 1, MAX_OPSET, 2.0, op_softmax),
    ("Hardmax", 1, MAX_OPSET, 0.5, op_hardmax),
    ("Transpose", 1, MAX_OPSET, 3.0, op_transpose),
    ("Reshape", 5, MAX_OPSET, 3.0, op_reshape),
    ("Flatten", 1, MAX_OPSET, 1.5, op_flatten),
    ("Squeeze", 1, MAX_OPSET, 1.5, op_squeeze),
    ("Unsqueeze", 1, MAX_OPSET, 1.5, op_unsqueeze),
    ("Concat", 4, MAX_OPSET, 3.0, op_concat),
    ("Split", 2, MAX_OPSET, 1.5, op_split),
    ("Slice", 1, MAX_OPSET, 3.0, op_slice),
    ("Gather", 1, MAX_OPSET, 2.0, op_gather),
    ("GatherElements", 11, MAX_OPSET, 1.0, op_gather_elements),
    ("Expand", 8, MAX_OPSET, 1.5, op_expand),
    ("Tile", 6, MAX_OPSET, 1.0, op_tile),
    ("Pad", 2, MAX_OPSET, 2.0, op_pad),
    ("BatchNormalization", 7, MAX_OPSET, 1.5, op_batchnorm),
    ("InstanceNormalization", 6, MAX_OPSET, 1.0, op_instancenorm),
    ("LayerNormalization", 17, MAX_OPSET, 1.5, op_layernorm),
    ("LRN", 1, MAX_OPSET, 0.5, op_lrn),
    ("Resize", 10, MAX_OPSET, 2.0, op_resize),
    ("depthspace", 1, MAX_OPSET, 1.0, op_depth_space),
    ("TopK", 1, MAX_OPSET, 1.5, op_topk),
    ("Trilu", 14, MAX_OPSET, 1.0, op_trilu),
    ("Shape", 1, MAX_OPSET, 0.5, op_shape),
    ("ConstantOfShape", 9, MAX_OPSET, 0.5, op_constant_of_shape),
    ("Dropout", 7, MAX_OPSET, 0.3, op_dropout),
    ("PRelu", 7, MAX_OPSET, 1.0, op_prelu),
    ("Einsum", 12, MAX_OPSET, 1.0, op_einsum),
    ("CumSum", 11, MAX_OPSET, 1.0, op_cumsum),
]


def value_info(name, dtype, shape):
    return helper.make_tensor_value_info(name, dtype, shape)


def make_model(seed, components=1, opset=None):
    """Returns (ModelProto, [input arrays in graph-input order], info dict)."""
    rng = random.Random("difftest:%d" % seed)
    if opset is None:
        opset = rng.choice(list(range(MIN_OPSET, MAX_OPSET + 1)) + [13, 14, 15, 16, 17] * 2)
    allow_f16 = rng.random() < 0.15
    nodes, inputs, inits, outputs, datas = [], [], [], [], []
    comp_info = []
    for i in range(components):
        crng = random.Random("difftest:%d:%d" % (seed, i))
        nprng = np.random.default_rng([seed, i])
        prefix = "g%d_" % i
        for attempt in range(10):
            bld = Builder(crng, nprng, opset, prefix, allow_f16, allow_empty=crng.random() < 0.08,
                          allow_symbolic=crng.random() < 0.3)
            try:
                outs = bld.build(crng.randint(1, 12))
                break
            except Skip:
                continue
        else:
            raise RuntimeError("seed %d component %d: no graph" % (seed, i))
        nodes += bld.nodes
        inits += bld.inits
        symbolic = False
        for name, dtype, shape, data in bld.inputs:
            dims = bld.maybe_symbolic(shape)
            symbolic |= any(isinstance(d, str) for d in dims)
            inputs.append(value_info(name, dtype, dims))
            datas.append(data)
        for v in outs:
            unstated = symbolic or v.terminal or crng.random() < 0.2
            outputs.append(value_info(v.name, v.dtype, [None] * v.rank if unstated else list(v.shape)))
        comp_info.append({"prefix": prefix, "nodes": len(bld.nodes), "f16": bld.used_f16})
    graph = helper.make_graph(nodes, "difftest_%d" % seed, inputs, outputs, inits)
    model = helper.make_model(graph, producer_name="onnxcc-difftest",
                              opset_imports=[helper.make_opsetid("", opset)])
    model.ir_version = 8
    f16 = any(c["f16"] for c in comp_info)
    info = {"seed": seed, "opset": opset, "components": comp_info,
            "tol": TOL_F16 if f16 else TOL_F32}
    return model, datas, info


def write_dataset(dataset_dir, model, datas):
    os.makedirs(dataset_dir, exist_ok=True)
    for k, (vi, data) in enumerate(zip(model.graph.input, datas)):
        tensor = numpy_helper.from_array(data, vi.name)
        with open(os.path.join(dataset_dir, "input_%d.pb" % k), "wb") as f:
            f.write(tensor.SerializeToString())


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seed", type=int, required=True)
    ap.add_argument("--components", type=int, default=1)
    ap.add_argument("--opset", type=int, default=None)
    ap.add_argument("-o", "--output", default=None, help="model file (default: stdout)")
    ap.add_argument("--dataset", default=None, help="folder for input_K.pb (test_data_set_0)")
    ap.add_argument("--check", action="store_true", help="run onnx.checker on the model")
    args = ap.parse_args()
    model, datas, info = make_model(args.seed, args.components, args.opset)
    if args.check:
        onnx.checker.check_model(model)
        onnx.shape_inference.infer_shapes(model, check_type=True, strict_mode=True)
    data = model.SerializeToString()
    if args.output:
        with open(args.output, "wb") as f:
            f.write(data)
    else:
        sys.stdout.buffer.write(data)
    if args.dataset:
        write_dataset(args.dataset, model, datas)
    print("seed %d opset %d nodes %s tol %g/%g" % (args.seed, info["opset"],
          "+".join(str(c["nodes"]) for c in info["components"]), *info["tol"]), file=sys.stderr)


if __name__ == "__main__":
    main()
