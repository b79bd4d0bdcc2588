#!/usr/bin/python3
"""Checks `onnxcc optimize` on every ONNX backend test with ONNX Runtime.

Usage:
  /usr/bin/python3 test/conformance/optimize_roundtrip.py ONNXCC --ort-dir DIR
      [--data DIR] [--suites S,...] [--data-1.23 DIR] [--jobs N]
      [--filter REGEX] [--work DIR] [--results FILE] [--min-pass N]

For every test of the backend suites (the out-of-scope ones left out) the
model is optimized by onnxcc, then ONNX Runtime (npm onnxruntime-node from
--ort-dir) runs the original and the optimized model on the test's datasets
and compares with the expected outputs. Each test lands in one class:
  pass        both models match the expected outputs;
  fail        the original matches, the optimized model does not or does not
              load: a bug of the graph passes or of the exporter;
  peer        ONNX Runtime does not run the original model correctly (the
              check says nothing then);
  unsupported onnxcc cannot import the model (its compile conformance covers
              that);
  twin        a 1.12 node test that node-1.23, run in the same call, holds
              byte for byte (model and data): it runs once, as node-1.23's.
Exits 1 when any test fails, or fewer than --min-pass pass; prints the
totals per class.
"""
import argparse
import collections
import concurrent.futures
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import run_conformance  # noqa: E402  (find_tests, out-of-scope list)

ORT_RUNNER = os.path.join(HERE, "..", "models", "ort_datasets.js")


def optimize(onnxcc, folder, out):
    try:
        proc = subprocess.run([onnxcc, "optimize", os.path.join(folder, "model.onnx"), "-o", out],
                              capture_output=True, text=True, timeout=300)
    except subprocess.TimeoutExpired:
        return "onnxcc optimize timed out"
    if proc.returncode == 0:
        return None
    lines = (proc.stderr or proc.stdout).strip().splitlines()
    return lines[-1] if lines else "exit status %d" % proc.returncode


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("onnxcc")
    parser.add_argument("--ort-dir", required=True)
    parser.add_argument("--data", default=run_conformance.DEFAULT_DATA)
    parser.add_argument("--suites", default=",".join(run_conformance.SUITES_1_12),
                        help="comma-separated suites (default the ONNX 1.12 ones; also "
                             "node-1.23, whose models use opsets up to 28)")
    parser.add_argument("--data-1.23", dest="data_1_23",
                        default=run_conformance.DEFAULT_DATA_1_23)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--filter")
    parser.add_argument("--work")
    parser.add_argument("--results")
    parser.add_argument("--min-pass", type=int, default=0,
                        help="fail when fewer tests pass (a drop means a model stopped "
                             "importing or ONNX Runtime stopped running originals)")
    args = parser.parse_args()

    out_of_scope = run_conformance.read_out_of_scope(run_conformance.DEFAULT_EXPECTED)
    pattern = re.compile(args.filter) if args.filter else None
    suites = [s for s in args.suites.split(",") if s]
    unknown = [s for s in suites if s not in run_conformance.SUITES]
    if unknown:
        sys.exit("unknown suite %s (known: %s)" % (", ".join(unknown),
                                                  ", ".join(run_conformance.SUITES)))
    suite_dirs = run_conformance.suite_folders(args.data, suites, args.data_1_23)
    tests, _ = run_conformance.find_tests(args.data, pattern, out_of_scope, suite_dirs)
    # The 1.12 node tests that node-1.23 holds byte for byte run once, as
    # node-1.23's.
    twins = run_conformance.find_duplicates(tests, suite_dirs)
    tests = [t for t in tests if (t[0], t[1]) not in twins]
    work = args.work or tempfile.mkdtemp(prefix="onnxcc-optimize-")
    os.makedirs(work, exist_ok=True)

    status, detail = {}, {}
    optimized = {}
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        futures = {}
        for suite, test, folder in tests:
            key = suite + "/" + test
            out = os.path.join(work, suite + "__" + test + ".onnx")
            futures[pool.submit(optimize, args.onnxcc, folder, out)] = (key, folder, out)
        for future in concurrent.futures.as_completed(futures):
            key, folder, out = futures[future]
            error = future.result()
            if error:
                status[key], detail[key] = "unsupported", error
            else:
                optimized[key] = (folder, out)

    # One runtime process for many models; when the runtime itself crashes on
    # a model, that model counts as an error and the rest run in a new one.
    env = dict(os.environ, ONNXCC_ORT_DIR=os.path.abspath(args.ort_dir))
    runs = collections.defaultdict(dict)
    pending = sorted(optimized)
    listing = os.path.join(work, "list.txt")
    while pending:
        with open(listing, "w") as f:
            for key in pending:
                folder, out = optimized[key]
                f.write("%s\t%s\t%s\t%s\n" % (key, folder, os.path.join(folder, "model.onnx"), out))
        proc = subprocess.run(["node", ORT_RUNNER, listing], capture_output=True, text=True,
                              env=env)
        for line in proc.stdout.splitlines():
            key, index, result, *rest = line.split(" ", 3)
            runs[key][int(index)] = (result, " ".join(rest))
        if proc.returncode == 0:
            break
        done = [k for k in pending if len(runs[k]) == 2]
        crashed = pending[len(done)] if len(done) < len(pending) else None
        if crashed is None or any(k not in done for k in pending[:len(done)]):
            sys.exit("optimize_roundtrip: the ONNX Runtime runner failed: " +
                     proc.stderr.strip().splitlines()[-1:][0] if proc.stderr.strip() else "")
        index = len(runs[crashed])
        runs[crashed][index] = ("error", "ONNX Runtime crashed (status %d)" % proc.returncode)
        if index == 0:
            runs[crashed][1] = ("error", "not run")
        pending = pending[len(done) + 1:]
    for key in optimized:
        original = runs[key].get(0, ("error", "no result"))
        mine = runs[key].get(1, ("error", "no result"))
        if original[0] != "pass":
            status[key], detail[key] = "peer", original[1]
        elif mine[0] != "pass":
            status[key], detail[key] = "fail", "%s: %s" % (mine[0], mine[1])
        else:
            status[key], detail[key] = "pass", ""

    for (suite, test), twin in twins.items():
        status[suite + "/" + test] = "twin"
        detail[suite + "/" + test] = "of " + twin
    if args.results:
        with open(args.results, "w") as f:
            for key in sorted(status):
                f.write(("%s: %s %s" % (key, status[key], detail[key])).rstrip() + "\n")
    for key in sorted(status):
        if status[key] == "fail":
            print("FAIL %s: %s" % (key, detail[key]))
    counts = collections.Counter(status.values())
    print("optimize round trip through ONNX Runtime: " +
          ", ".join("%d %s" % (counts[c], c) for c in ("pass", "fail", "peer", "unsupported")) +
          (" (%d run once as node-1.23's twins)" % counts["twin"] if twins else ""))
    if counts["pass"] < args.min_pass:
        print("FAIL: %d tests pass, expected at least %d" % (counts["pass"], args.min_pass))
        return 1
    return 1 if counts["fail"] else 0


if __name__ == "__main__":
    sys.exit(main())
