#!/usr/bin/env python3
"""Runs prebuilt `onnxcc verify` harnesses on their datasets and compares.

Usage:
  check_outputs.py CASES_DIR [--atol A] [--rtol R] [--json OUT.json]
                   [--jobs N] [--timeout S]
  check_outputs.py --print-dim-params MODEL.onnx > CASE/dim_params.json

Meant for a machine with no onnxcc and no compiler (a lent GPU machine): the
harnesses are built elsewhere with `onnxcc verify MODEL DATASET --keep DIR`
(DIR/run is the harness) and carried over with their datasets. Needs Python 3,
numpy and the onnx package (any recent version: only TensorProto and, for
symbolic models, the graph inputs of a model are read).

CASES_DIR holds one folder per case (or is itself one case when it holds
`run`). A case folder holds:
  run                 the generic harness of `onnxcc verify` (compiler/Verify.cpp)
  test_data_set_*/    input_K.pb / output_K.pb (ONNX TensorProto), K from 0;
                      or input_K.pb / output_K.pb in the case folder itself
  tolerance           optional: "ATOL RTOL", overriding --atol/--rtol
  model.onnx or dim_params.json
                      only for models with symbolic dims, see below

Each case follows what `onnxcc verify` does with a harness:
  * `run --describe` gives the tensor table: `in|out DTYPE ELEM_SIZE RANK
    DIMS... HEXNAME` lines (-1 for a symbolic or data-decided dim), `sym
    HEXNAME` lines for the symbolic dims in the order the harness takes them,
    and `kind`/`mapin`/`keys` lines for sequences, optionals and maps (cases
    that have those are skipped: this script does not handle them).
  * For each dataset, the inputs are written as raw little-endian files
    (strings: each followed by a NUL) and the harness is run as
        run IN0 IN1 ... -- OUT0 OUT1 ...
    or, with symbolic dims,
        run --dims=D0,D1,... SHAPE:IN0 ... -- SHAPE:OUT0 ...
    where SHAPE is the tensor's dims joined by 'x' (empty for a scalar), an
    output's taken from the expected output. Each symbol's value comes from
    the input dims that name it: the dim_params of the model's
    (non-initializer) inputs, read from CASE/model.onnx, else from
    CASE/dim_params.json (a JSON list, per model input, of its dims'
    dim_params, "" where a dim has none; `--print-dim-params` writes it).
    Without either, the symbols are matched to the inputs' -1 dims in order,
    which is only possible (and then exact, since the harness lists the
    symbols in input order) when there are as many -1 input dims as symbols;
    otherwise the case is an error.
  * A data-decided output dim comes back in OUTk.dims and must equal the
    expected shape. Values compare as verify does: integers and bools
    exactly, strings exactly, floats with |actual - expected| <= atol +
    rtol * |expected|, NaN equal to NaN and infinities to themselves.
    float8/float4 types are not handled (skipped).

A harness that exits with status 4 found no CUDA GPU or driver: the case is
an error and the harness's stderr is printed. Any other non-zero exit, a
crash, or a run longer than --timeout seconds is an error too.

Prints, in case-name order, one line per case:
  PASS name
  FAIL name: output 'y' max abs diff D (N of M values off; ...)
  ERROR name: first line of the harness's stderr (or what went wrong)
  SKIP name: reason
and then `N passed, M failed, K errors, S skipped`. --json writes a list of
{"name", "status" (pass/fail/error/skip), "detail"}. The exit status is 1
when a case failed or had an error, else 0.
"""
import argparse
import concurrent.futures
import json
import os
import re
import subprocess
import sys
import tempfile

import numpy as np
import onnx

# The element types, as the harness names them: (bytes per element in the
# raw files, how values compare). Indexed like TensorProto.DataType.
DTYPES = [
    ("undefined", 0, None),
    ("float32", 4, "float"),
    ("uint8", 1, "unsigned"),
    ("int8", 1, "signed"),
    ("uint16", 2, "unsigned"),
    ("int16", 2, "signed"),
    ("int32", 4, "signed"),
    ("int64", 8, "signed"),
    ("string", 8, "string"),
    ("bool", 1, "bool"),
    ("float16", 2, "half"),
    ("float64", 8, "float"),
    ("uint32", 4, "unsigned"),
    ("uint64", 8, "unsigned"),
    ("complex64", 8, "complex"),
    ("complex128", 16, "complex"),
    ("bfloat16", 2, "bfloat"),
    ("float8e4m3fn", 1, None),
    ("float8e4m3fnuz", 1, None),
    ("float8e5m2", 1, None),
    ("float8e5m2fnuz", 1, None),
    ("uint4", 1, "unsigned"),
    ("int4", 1, "signed"),
    ("float4e2m1", 1, None),
    ("float8e8m0", 1, None),
    ("uint2", 1, "unsigned"),
    ("int2", 1, "signed"),
]
DTYPE_BY_NAME = {name: (size, kind) for name, size, kind in DTYPES}
# Sub-byte integers: elements per byte in a TensorProto (one per byte in the
# raw files, sign-extended for the signed ones).
PER_BYTE = {"uint4": 2, "int4": 2, "uint2": 4, "int2": 4}

DEFAULT_ATOL = 1e-7  # compiler/Verify.h: VerifyOptions
DEFAULT_RTOL = 1e-3
NO_GPU_STATUS = 4  # the CUDA harness's exit status for "no CUDA GPU / driver"


class CaseError(Exception):
    """Ends a case as an error (bad dataset, harness failure)."""


class CaseSkip(Exception):
    """Ends a case as skipped (something this script does not handle)."""


def fmt(value):
    return "%.6g" % value


def format_shape(shape):
    return "[" + ",".join(str(d) for d in shape) + "]"


def display(name_bytes):
    return name_bytes.decode("utf-8", "backslashreplace")


# ---------------------------------------------------------------------------
# TensorProto files, read as verify's tensorOf reads them
# ---------------------------------------------------------------------------

class Tensor:
    def __init__(self, dtype, shape, data, strings=None):
        self.dtype = dtype      # harness dtype name
        self.shape = shape      # list of ints
        self.data = data        # raw little-endian bytes, as the harness takes them
        self.strings = strings  # list of bytes for a string tensor


def narrowed(values, elem_size, unsigned=False):
    """`values` (a repeated integer field) truncated to elem_size
    little-endian bytes each, as TensorProto packs narrow types into
    int32_data."""
    array = np.asarray(list(values), dtype=np.uint64 if unsigned else np.int64)
    return array.astype("<u8").view(np.uint8).reshape(-1, 8)[:, :elem_size].tobytes()


def read_tensor(path):
    proto = onnx.TensorProto()
    try:
        with open(path, "rb") as f:
            proto.ParseFromString(f.read())
    except Exception as e:  # protobuf's DecodeError, OSError
        raise CaseError("%s: not a TensorProto (%s)" % (path, e))
    where = os.path.join(os.path.basename(os.path.dirname(path)), os.path.basename(path))
    if proto.data_type >= len(DTYPES) or DTYPES[proto.data_type][2] is None:
        name = DTYPES[proto.data_type][0] if proto.data_type < len(DTYPES) else \
            "data type %d" % proto.data_type
        raise CaseSkip("%s: %s tensors are not supported" % (where, name))
    dtype, elem_size, kind = DTYPES[proto.data_type]
    if proto.data_location == onnx.TensorProto.EXTERNAL:
        raise CaseError("%s: external data is not supported" % where)
    shape = [int(d) for d in proto.dims]
    if any(d < 0 for d in shape):
        raise CaseError("%s: negative dimension" % where)
    count = int(np.prod(shape, dtype=np.int64)) if shape else 1
    has_raw = proto.HasField("raw_data")

    if dtype in PER_BYTE:
        per_byte = PER_BYTE[dtype]
        source = proto.raw_data if has_raw else narrowed(proto.int32_data, 1)
        packed = (count + per_byte - 1) // per_byte
        if len(source) != packed:
            raise CaseError("%s: %d packed bytes, shape %s of %s needs %d"
                            % (where, len(source), format_shape(shape), dtype, packed))
        bits = 8 // per_byte
        raw = np.frombuffer(source, dtype=np.uint8)
        values = np.empty(count, dtype=np.uint8)
        for k in range(per_byte):
            part = (raw >> (bits * k)) & ((1 << bits) - 1)
            values[k::per_byte] = part[: len(values[k::per_byte])]
        if kind == "signed":
            sign_bits = (0xFF << bits) & 0xFF
            values = np.where(values >> (bits - 1) != 0, values | sign_bits, values)
        return Tensor(dtype, shape, values.astype(np.uint8).tobytes())

    if kind == "string":
        if has_raw:
            raise CaseError("%s: a string tensor with raw_data" % where)
        strings = list(proto.string_data)
        if any(b"\0" in s for s in strings):
            raise CaseError("%s: a string with a NUL byte" % where)
        if len(strings) != count:
            raise CaseError("%s: %d values for shape %s" % (where, len(strings), format_shape(shape)))
        return Tensor(dtype, shape, b"".join(s + b"\0" for s in strings), strings)

    if has_raw:
        if len(proto.raw_data) != count * elem_size:
            raise CaseError("%s: raw_data holds %d bytes, shape %s of %s needs %d"
                            % (where, len(proto.raw_data), format_shape(shape), dtype,
                               count * elem_size))
        return Tensor(dtype, shape, proto.raw_data)

    # Typed fields: which one holds the values depends on the type.
    if dtype in ("float32", "complex64"):
        data = np.asarray(list(proto.float_data), dtype="<f4").tobytes()
        got = len(proto.float_data) // (2 if kind == "complex" else 1)
    elif dtype in ("float64", "complex128"):
        data = np.asarray(list(proto.double_data), dtype="<f8").tobytes()
        got = len(proto.double_data) // (2 if kind == "complex" else 1)
    elif dtype == "int64":
        data = narrowed(proto.int64_data, 8)
        got = len(proto.int64_data)
    elif dtype in ("uint32", "uint64"):
        data = narrowed(proto.uint64_data, elem_size, unsigned=True)
        got = len(proto.uint64_data)
    else:  # narrower ints, bool, float16, bfloat16: int32_data
        data = narrowed(proto.int32_data, elem_size)
        got = len(proto.int32_data)
    if got != count:
        raise CaseError("%s: %d values for shape %s" % (where, got, format_shape(shape)))
    return Tensor(dtype, shape, data)


# ---------------------------------------------------------------------------
# Comparison, as verify's compare()
# ---------------------------------------------------------------------------

def as_float64(dtype, data):
    """The elements of raw `data` as float64 (complex: real and imaginary
    parts as separate elements)."""
    size, kind = DTYPE_BY_NAME[dtype]
    if kind == "half":
        return np.frombuffer(data, dtype="<f2").astype(np.float64)
    if kind == "bfloat":
        bits = np.frombuffer(data, dtype="<u2").astype(np.uint32) << 16
        return bits.view(np.float32).astype(np.float64)
    if kind == "float":
        return np.frombuffer(data, dtype="<f%d" % size).astype(np.float64)
    if kind == "complex":
        return np.frombuffer(data, dtype="<f%d" % (size // 2)).astype(np.float64)
    if kind == "signed":
        return np.frombuffer(data, dtype="<i%d" % size).astype(np.float64)
    return np.frombuffer(data, dtype="<u%d" % size).astype(np.float64)  # unsigned, bool


def compare(dtype, actual, expected, atol, rtol):
    """Compares the raw bytes of an output with the expected ones; returns
    (max abs diff, max rel diff, number of mismatches, (index, actual,
    expected) of the worst mismatch: the one furthest past its tolerance)."""
    size, kind = DTYPE_BY_NAME[dtype]
    a = as_float64(dtype, actual)
    b = as_float64(dtype, expected)
    inf = np.inf
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        if kind in ("signed", "unsigned", "bool"):
            unsigned = "<u%d" % size
            ok = np.frombuffer(actual, dtype=unsigned) == np.frombuffer(expected, dtype=unsigned)
            abs_diff = np.where(ok, 0.0, np.abs(a - b))
            rel_diff = np.where(ok, 0.0, np.where(b != 0, abs_diff / np.abs(b), inf))
            excess = abs_diff
        else:
            nan_a, nan_b = np.isnan(a), np.isnan(b)
            any_nan = nan_a | nan_b
            any_inf = (np.isinf(a) | np.isinf(b)) & ~any_nan
            plain = ~any_nan & ~any_inf
            tolerance = atol + rtol * np.abs(b)
            diff = np.abs(a - b)
            ok = np.where(any_nan, nan_a & nan_b, np.where(any_inf, a == b, diff <= tolerance))
            abs_diff = np.where(plain, diff, np.where(ok, 0.0, inf))
            rel_plain = np.where(b != 0, diff / np.abs(b), np.where(diff == 0, 0.0, inf))
            rel_diff = np.where(plain, rel_plain, np.where(ok, 0.0, inf))
            excess = np.where(plain, diff - tolerance, inf)
    bad = ~ok
    mismatches = int(bad.sum())
    max_abs = float(abs_diff.max()) if abs_diff.size else 0.0
    max_rel = float(rel_diff.max()) if rel_diff.size else 0.0
    worst = (0, 0.0, 0.0)
    if mismatches:
        index = int(np.argmax(np.where(bad, np.nan_to_num(excess, nan=inf), -inf)))
        worst = (index // 2 if kind == "complex" else index, float(a[index]), float(b[index]))
    return max_abs, max_rel, mismatches, worst


# ---------------------------------------------------------------------------
# The harness
# ---------------------------------------------------------------------------

class TensorInfo:
    def __init__(self, dtype, elem_size, shape, name):
        self.dtype, self.elem_size, self.shape, self.name = dtype, elem_size, shape, name


class Table:
    def __init__(self):
        self.inputs, self.outputs, self.symbols = [], [], []
        self.others = []  # kind/mapin/keys lines: sequences, optionals, maps


def run_harness(case, args, timeout, cwd, what):
    """Runs case's harness with `args`; returns its stdout, or raises
    CaseError with the first useful line of its stderr. `what` names the
    run in messages (--describe or the dataset)."""
    command = [os.path.join(case.dir, "run")] + args
    try:
        result = subprocess.run(command, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, timeout=timeout, cwd=cwd)
    except subprocess.TimeoutExpired:
        raise CaseError("the harness (%s) ran past %g s" % (what, timeout))
    except OSError as e:
        raise CaseError("cannot run %s: %s" % (command[0], e))
    if result.returncode == 0:
        return result.stdout
    stderr = result.stderr.decode("utf-8", "replace")
    lines = [line.strip() for line in stderr.splitlines() if line.strip()]
    first = next((line for line in lines if "error:" in line), lines[0] if lines else "")
    if result.returncode == NO_GPU_STATUS:
        case.stderr = stderr
        raise CaseError("no CUDA GPU / driver (exit status 4)" + (": " + first if first else ""))
    if result.returncode < 0:
        why = "the harness (%s) crashed (signal %d)" % (what, -result.returncode)
    else:
        why = "the harness (%s) failed with exit status %d" % (what, result.returncode)
    case.stderr = stderr
    raise CaseError(first + " [" + why + "]" if first else why)


def parse_table(text):
    """The tensor table of `run --describe`, parsed as describeHarness does."""
    table = Table()
    for line in text.decode("utf-8", "replace").split("\n"):
        if not line:
            continue
        parts = line.split(" ")
        kind = parts[0]
        try:
            if kind in ("kind", "mapin", "keys"):
                table.others.append(line)
                continue
            if kind == "sym":
                table.symbols.append(bytes.fromhex(" ".join(parts[1:])))
                continue
            if kind not in ("in", "out"):
                raise ValueError(kind)
            dtype, elem_size, rank = parts[1], int(parts[2]), int(parts[3])
            shape = [int(d) for d in parts[4:4 + rank]]
            if len(shape) != rank:
                raise ValueError("rank")
            name = bytes.fromhex(" ".join(parts[4 + rank:]))
        except (ValueError, IndexError):
            raise CaseError("cannot parse the tensor table line '%s'" % line)
        (table.inputs if kind == "in" else table.outputs).append(
            TensorInfo(dtype, elem_size, shape, name))
    return table


def has_boundary_values(table):
    """Whether the table has sequences or optionals (`kind in|out INDEX KIND
    MAX` lines with KIND != 0) or maps (`mapin`, `keys` lines)."""
    for line in table.others:
        parts = line.split(" ")
        if parts[0] != "kind" or len(parts) != 5 or parts[3] != "0":
            return True
    return False


# ---------------------------------------------------------------------------
# Datasets and symbolic dims
# ---------------------------------------------------------------------------

def dataset_files(folder):
    """(inputs, outputs): the input_K.pb / output_K.pb paths in K order; K
    must run from 0 without gaps."""
    found = {"input": [], "output": []}
    for file in os.listdir(folder):
        m = re.fullmatch(r"(input|output)_(\d+)\.pb", file)
        if m:
            found[m.group(1)].append((int(m.group(2)), os.path.join(folder, file)))
    result = []
    for which in ("input", "output"):
        files = sorted(found[which])
        for i, (k, path) in enumerate(files):
            if k != i:
                raise CaseError("%s: %s without the files before it"
                                % (os.path.basename(folder), os.path.basename(path)))
        result.append([path for _, path in files])
    return result


def find_datasets(case_dir):
    """[(name, inputs, outputs)]: the case folder itself when it holds .pb
    files, else its test_data_set_* folders in numeric order."""
    inputs, outputs = dataset_files(case_dir)
    if inputs or outputs:
        return [(os.path.basename(case_dir), inputs, outputs)]
    folders = []
    for name in os.listdir(case_dir):
        path = os.path.join(case_dir, name)
        m = re.fullmatch(r"test_data_set_(\d*)", name)
        if m and os.path.isdir(path):
            folders.append((int(m.group(1) or 0), name, path))
    datasets = []
    for _, name, path in sorted(folders):
        inputs, outputs = dataset_files(path)
        if not outputs:
            raise CaseError("%s: no output_K.pb files" % name)
        datasets.append((name, inputs, outputs))
    if not datasets:
        raise CaseError("no input_K.pb/output_K.pb files and no test_data_set_* folders")
    return datasets


def model_dim_params(model_path):
    """Per non-initializer graph input of the model, its dims' dim_params
    ("" where none), as verify's inputDimParams."""
    model = onnx.load(model_path, load_external_data=False)
    initializers = {init.name for init in model.graph.initializer}
    params = []
    for value in model.graph.input:
        if value.name in initializers:
            continue
        dims = []
        if value.type.HasField("tensor_type") and value.type.tensor_type.HasField("shape"):
            dims = [d.dim_param if d.HasField("dim_param") else ""
                    for d in value.type.tensor_type.shape.dim]
        params.append(dims)
    return params


def dim_params_for(case_dir, table):
    """The dim_params of the model's inputs (see the top of this file)."""
    model_path = os.path.join(case_dir, "model.onnx")
    json_path = os.path.join(case_dir, "dim_params.json")
    if os.path.exists(model_path):
        return [[p.encode() for p in dims] for dims in model_dim_params(model_path)]
    if os.path.exists(json_path):
        with open(json_path) as f:
            return [[p.encode() for p in dims] for dims in json.load(f)]
    symbolic = [(i, d) for i, info in enumerate(table.inputs)
                for d, dim in enumerate(info.shape) if dim < 0]
    if len(symbolic) != len(table.symbols):
        raise CaseError("symbolic dims %s: need model.onnx or dim_params.json to tell which "
                        "input dim is which" % ", ".join(display(s) for s in table.symbols))
    params = [[b""] * len(info.shape) for info in table.inputs]
    for (i, d), symbol in zip(symbolic, table.symbols):
        params[i][d] = symbol
    return params


# ---------------------------------------------------------------------------
# One case
# ---------------------------------------------------------------------------

class Case:
    def __init__(self, name, directory):
        self.name, self.dir = name, directory
        self.stderr = ""


def fits(actual, declared):
    return len(actual) == len(declared) and all(d < 0 or a == d for a, d in zip(actual, declared))


def shape_arg(shape, path):
    return "x".join(str(d) for d in shape) + ":" + path


def run_dataset(case, table, dim_params, dataset, atol, rtol, timeout, work):
    """Runs one dataset; returns (outputs compared, [failure texts], worst
    max abs diff)."""
    name, input_paths, output_paths = dataset
    if len(input_paths) != len(table.inputs):
        raise CaseError("%s has %d inputs, the model %d"
                        % (name, len(input_paths), len(table.inputs)))
    if len(output_paths) != len(table.outputs):
        raise CaseError("%s has %d outputs, the model %d"
                        % (name, len(output_paths), len(table.outputs)))
    symbolic = bool(table.symbols)
    symbol_values = [None] * len(table.symbols)
    args = []
    for i, (info, path) in enumerate(zip(table.inputs, input_paths)):
        tensor = read_tensor(path)
        file = os.path.basename(path)
        # ONNX 1.12's backend data keeps bfloat16 as uint16 bit patterns.
        if tensor.dtype != info.dtype and not (info.dtype == "bfloat16" and tensor.dtype == "uint16"):
            raise CaseError("%s/%s: %s, but input '%s' is %s"
                            % (name, file, tensor.dtype, display(info.name), info.dtype))
        if not fits(tensor.shape, info.shape):
            raise CaseError("%s/%s: shape %s, but input '%s' is %s"
                            % (name, file, format_shape(tensor.shape), display(info.name),
                               format_shape(info.shape)))
        for d, dim in enumerate(info.shape):
            if dim >= 0:
                continue
            param = dim_params[i][d] if i < len(dim_params) and d < len(dim_params[i]) else b""
            if not param or param not in table.symbols:
                raise CaseError("input '%s' dim %d is symbolic but names no symbol"
                                % (display(info.name), d))
            k = table.symbols.index(param)
            if symbol_values[k] is not None and symbol_values[k] != tensor.shape[d]:
                raise CaseError("%s/%s: dim '%s' is %d here and %d in an earlier input"
                                % (name, file, display(param), tensor.shape[d], symbol_values[k]))
            symbol_values[k] = tensor.shape[d]
        raw = os.path.join(work, "in%d.bin" % i)
        with open(raw, "wb") as f:
            f.write(tensor.data)
        args.append(shape_arg(tensor.shape, raw) if symbolic else raw)
    args.append("--")
    expected = [read_tensor(path) for path in output_paths]
    for i, info in enumerate(table.outputs):
        raw = os.path.join(work, "out%d.bin" % i)
        for stale in (raw, raw + ".dims", raw + ".seq"):
            if os.path.exists(stale):
                os.remove(stale)
        if not symbolic:
            args.append(raw)
            continue
        if not fits(expected[i].shape, info.shape):
            raise CaseError("%s: expected output '%s' has shape %s, the model declares %s"
                            % (name, display(info.name), format_shape(expected[i].shape),
                               format_shape(info.shape)))
        args.append(shape_arg(expected[i].shape, raw))
    if symbolic:
        for k, value in enumerate(symbol_values):
            if value is None:
                raise CaseError("no input gives the symbolic dim '%s'" % display(table.symbols[k]))
        args.insert(0, "--dims=" + ",".join(str(v) for v in symbol_values))

    run_harness(case, args, timeout, case.dir, name)

    failures, worst_abs = [], 0.0
    for i, (info, want) in enumerate(zip(table.outputs, expected)):
        label = "output '%s'" % display(info.name)
        if len(case.datasets) > 1:
            label += " (%s)" % name
        if want.dtype != info.dtype:
            failures.append("%s: dtype %s differs from expected %s" % (label, info.dtype, want.dtype))
            continue
        if not fits(want.shape, info.shape):
            failures.append("%s: shape %s differs from expected %s"
                            % (label, format_shape(info.shape), format_shape(want.shape)))
            continue
        raw = os.path.join(work, "out%d.bin" % i)
        if os.path.exists(raw + ".dims"):
            with open(raw + ".dims") as f:
                got = []
                for line in f.read().split("\n"):
                    if line.strip():
                        try:
                            got.append(int(line.strip()))
                        except ValueError:
                            got.append(-1)
            if got != want.shape:
                failures.append("%s: dims %s (computed from the data) differ from expected %s"
                                % (label, format_shape(got), format_shape(want.shape)))
                continue
        if not os.path.exists(raw):
            raise CaseError("the harness wrote no output '%s'" % display(info.name))
        with open(raw, "rb") as f:
            actual = f.read()
        if info.dtype == "string":
            got = actual.split(b"\0")
            if got and got[-1] == b"":
                got.pop()
            if len(got) != len(want.strings):
                raise CaseError("the harness wrote %d strings for output '%s', expected %d"
                                % (len(got), display(info.name), len(want.strings)))
            wrong = [k for k, (g, w) in enumerate(zip(got, want.strings)) if g != w]
            if wrong:
                k = wrong[0]
                failures.append("%s: %d of %d strings differ; first at element %d: got %r, "
                                "expected %r" % (label, len(wrong), len(got), k, got[k],
                                                 want.strings[k]))
            continue
        if len(actual) != len(want.data):
            raise CaseError("the harness wrote %d bytes for output '%s', expected %d"
                            % (len(actual), display(info.name), len(want.data)))
        max_abs, max_rel, mismatches, worst = compare(info.dtype, actual, want.data, atol, rtol)
        worst_abs = max(worst_abs, max_abs)
        if mismatches:
            total = int(np.prod(want.shape, dtype=np.int64)) if want.shape else 1
            if DTYPE_BY_NAME[info.dtype][1] == "complex":
                total *= 2
            failures.append("%s max abs diff %s, max rel diff %s (%d of %d values off; worst "
                            "at element %d: got %s, expected %s)"
                            % (label, fmt(max_abs), fmt(max_rel), mismatches, total, worst[0],
                               fmt(worst[1]), fmt(worst[2])))
    return len(table.outputs), failures, worst_abs


def check_case(case, atol, rtol, timeout):
    """Returns (status, detail)."""
    try:
        run_path = os.path.join(case.dir, "run")
        if not os.path.isfile(run_path):
            raise CaseError("no `run` harness in the case folder")
        if not os.access(run_path, os.X_OK):
            os.chmod(run_path, os.stat(run_path).st_mode | 0o111)
        tolerance_path = os.path.join(case.dir, "tolerance")
        if os.path.exists(tolerance_path):
            with open(tolerance_path) as f:
                words = f.read().split()
            try:
                atol, rtol = float(words[0]), float(words[1])
            except (ValueError, IndexError):
                raise CaseError("tolerance: expected 'ATOL RTOL'")
        case.datasets = find_datasets(case.dir)
        table = parse_table(run_harness(case, ["--describe"], timeout, case.dir, "--describe"))
        if has_boundary_values(table):
            raise CaseSkip("sequences, optionals or maps at the model's boundary")
        for which, infos in (("input", table.inputs), ("output", table.outputs)):
            for info in infos:
                if info.dtype not in DTYPE_BY_NAME or DTYPE_BY_NAME[info.dtype][1] is None:
                    raise CaseSkip("%s '%s' has dtype %s, which this script does not handle"
                                   % (which, display(info.name), info.dtype))
                if DTYPE_BY_NAME[info.dtype][0] != info.elem_size:
                    raise CaseError("%s '%s': dtype %s of %d bytes"
                                    % (which, display(info.name), info.dtype, info.elem_size))
                if which == "input" and not table.symbols and any(d < 0 for d in info.shape):
                    raise CaseError("input '%s' has the dynamic shape %s"
                                    % (display(info.name), format_shape(info.shape)))
        dim_params = dim_params_for(case.dir, table) if table.symbols else []
        outputs, failures, worst_abs = 0, [], 0.0
        with tempfile.TemporaryDirectory(prefix="check-outputs-") as work:
            for dataset in case.datasets:
                n, fails, dataset_abs = run_dataset(case, table, dim_params, dataset, atol,
                                                    rtol, timeout, work)
                outputs += n
                failures += fails
                worst_abs = max(worst_abs, dataset_abs)
        if failures:
            more = " (and %d more)" % (len(failures) - 1) if len(failures) > 1 else ""
            return "fail", failures[0] + more
        return "pass", "%d outputs in %d datasets, max abs diff %s" % (
            outputs, len(case.datasets), fmt(worst_abs))
    except CaseSkip as e:
        return "skip", str(e)
    except CaseError as e:
        return "error", str(e)
    except Exception as e:  # a bug here, or an unreadable file: one case's error
        return "error", "%s: %s" % (type(e).__name__, e)


def find_cases(cases_dir):
    if os.path.isfile(os.path.join(cases_dir, "run")):
        return [Case(os.path.basename(os.path.abspath(cases_dir)), os.path.abspath(cases_dir))]
    cases = []
    for name in sorted(os.listdir(cases_dir)):
        path = os.path.join(cases_dir, name)
        if os.path.isdir(path) and not name.startswith("."):
            cases.append(Case(name, os.path.abspath(path)))
    return cases


def main():
    parser = argparse.ArgumentParser(
        description="Run prebuilt onnxcc verify harnesses on their datasets and compare.")
    parser.add_argument("cases_dir", nargs="?", help="folder of case folders (or one case)")
    parser.add_argument("--atol", type=float, default=DEFAULT_ATOL,
                        help="absolute tolerance (default %g)" % DEFAULT_ATOL)
    parser.add_argument("--rtol", type=float, default=DEFAULT_RTOL,
                        help="relative tolerance (default %g)" % DEFAULT_RTOL)
    parser.add_argument("--json", help="write a list of {name, status, detail} here")
    parser.add_argument("--jobs", type=int, default=8, help="cases run at once (default 8)")
    parser.add_argument("--timeout", type=float, default=60,
                        help="seconds per harness run (default 60)")
    parser.add_argument("--print-dim-params", metavar="MODEL",
                        help="print the dim_params.json of MODEL (an .onnx file) and exit")
    args = parser.parse_args()
    if args.print_dim_params:
        json.dump(model_dim_params(args.print_dim_params), sys.stdout)
        print()
        return 0
    if not args.cases_dir or not os.path.isdir(args.cases_dir):
        parser.error("CASES_DIR must be a folder")

    cases = find_cases(args.cases_dir)
    counts = {"pass": 0, "fail": 0, "error": 0, "skip": 0}
    records = []
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        results = pool.map(lambda c: check_case(c, args.atol, args.rtol, args.timeout), cases)
        for case, (status, detail) in zip(cases, results):
            counts[status] += 1
            records.append({"name": case.name, "status": status, "detail": detail})
            if status == "pass":
                print("PASS %s" % case.name, flush=True)
                continue
            print("%s %s: %s" % (status.upper(), case.name, detail), flush=True)
            if status == "error" and case.stderr.strip():
                lines = case.stderr.rstrip().splitlines()
                for line in lines[:20]:
                    print("    | " + line)
                if len(lines) > 20:
                    print("    | ... (%d more lines)" % (len(lines) - 20))
    print("%d passed, %d failed, %d errors, %d skipped"
          % (counts["pass"], counts["fail"], counts["error"], counts["skip"]))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(records, f, indent=1)
            f.write("\n")
    return 1 if counts["fail"] or counts["error"] else 0


if __name__ == "__main__":
    sys.exit(main())
