#!/usr/bin/env python3
"""Fails when an op of the onnx dialect appears in no lit test.

Usage: check_op_coverage.py SCHEMA_INC LIT_DIR

SCHEMA_INC is dialects/onnx/OnnxSchema.gen.inc (one ONNX_OP(Name, ...) line per
op); an op counts as tested when some test/lit/**/*.mlir mentions it as
"onnx.<Op>" (generic form) or onnx.<Op> (custom form).
"""
import os
import re
import sys


def schema_ops(path):
    with open(path, encoding="utf-8") as f:
        return re.findall(r"^ONNX_OP\((\w+),", f.read(), re.M)


def mentioned_ops(lit_dir):
    found = set()
    for root, _, files in os.walk(lit_dir):
        for name in files:
            if not name.endswith(".mlir"):
                continue
            with open(os.path.join(root, name), encoding="utf-8") as f:
                found.update(re.findall(r"\bonnx\.(\w+)", f.read()))
    return found


def main():
    if len(sys.argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    ops = schema_ops(sys.argv[1])
    if not ops:
        print(f"no ONNX_OP entries in {sys.argv[1]}", file=sys.stderr)
        return 2
    found = mentioned_ops(sys.argv[2])
    missing = [op for op in ops if op not in found]
    if missing:
        print(f"{len(missing)} of {len(ops)} onnx ops appear in no lit test:",
              file=sys.stderr)
        for op in missing:
            print(f"  onnx.{op}", file=sys.stderr)
        return 1
    print(f"all {len(ops)} onnx ops appear in a lit test")
    return 0


if __name__ == "__main__":
    sys.exit(main())
