#!/usr/bin/python3
"""A stand-in for `onnxcc verify` that tests run_conformance.py without the
compiler: it acts out the word in the test folder's `behaviour` file."""
import os
import sys
import time

folder = sys.argv[3]
with open(os.path.join(folder, "behaviour")) as f:
    behaviour = f.read().strip()
if behaviour == "pass":
    print("test_data_set_0 y: max abs diff 0, max rel diff 0, PASS")
    sys.exit(0)
if behaviour == "fail":
    print("test_data_set_0 y: max abs diff 0.5, max rel diff 0.25, FAIL (1 of 4 values "
          "out of tolerance; worst at element 2: got 2.5, expected 2)")
    print("test_data_set_0 z: max abs diff 0, max rel diff 0, PASS")
    print("FAIL: 2 outputs in 1 dataset")
    sys.exit(1)
if behaviour == "unsupported":
    sys.stderr.write("onnxcc: error: compile: node 'n0' (Foo, ai.onnx 13): not supported\n")
    sys.exit(1)
if behaviour == "crash":
    sys.stderr.write("onnxcc: error: run: the harness (test_data_set_0) crashed (Segmentation fault)\n")
    sys.exit(1)
if behaviour == "sleep":
    time.sleep(60)
sys.exit(3)
