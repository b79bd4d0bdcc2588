#!/usr/bin/env python3
"""Runs every minimized difftest finding under regressions/ through `onnxcc verify`.

Each folder holds model.onnx (minimize.py's output), test_data_set_0/ (its
inputs and the outputs ONNX Runtime computed) and args.txt (verify's
tolerance). Prints one line per folder; exits 1 when any does not pass.

usage: run_regressions.py ONNXCC [REGRESSIONS_DIR]
"""
import os
import subprocess
import sys


def main():
    if len(sys.argv) not in (2, 3):
        sys.exit(__doc__.strip().splitlines()[-1])
    onnxcc = sys.argv[1]
    root = sys.argv[2] if len(sys.argv) == 3 else os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                                               "regressions")
    failed = 0
    names = sorted(d for d in os.listdir(root) if os.path.isdir(os.path.join(root, d)))
    for name in names:
        d = os.path.join(root, name)
        args = open(os.path.join(d, "args.txt")).read().split() if os.path.exists(os.path.join(d, "args.txt")) else []
        p = subprocess.run([onnxcc, "verify", os.path.join(d, "model.onnx"), os.path.join(d, "test_data_set_0"),
                            "--cxx-opt", "-O1"] + args, capture_output=True, text=True, timeout=600)
        ok = p.returncode == 0
        last = (p.stdout + p.stderr).strip().splitlines()
        # expect.txt: lines verify must print (e.g. that symbolic dims stayed symbolic).
        expect = os.path.join(d, "expect.txt")
        for line in open(expect).read().splitlines() if os.path.exists(expect) else []:
            if ok and line not in p.stdout.splitlines():
                ok, last = False, ["missing: " + line]
        failed += not ok
        print("%s %s%s" % ("PASS" if ok else "FAIL", name, "" if ok else ": " + (last[-1] if last else "")))
    print("%d of %d regressions pass" % (len(names) - failed, len(names)))
    return 1 if failed or not names else 0


if __name__ == "__main__":
    sys.exit(main())
