#!/usr/bin/python3
"""Runs a fixed sample of the ONNX node tests through `onnxcc verify` with the
generated code built under AddressSanitizer and UndefinedBehaviorSanitizer.

Usage:
  /usr/bin/python3 sanitized_sample.py ONNXCC [--data DIR] [--expected DIR]
      [--count N] [--bound B] [--jobs N] [--timeout S] [--cache DIR] [--cxx-opt FLAGS]

The sample: COUNT node tests (default 200) spread evenly over the sorted list
of those test/conformance/expected/node.txt expects to pass, so that every
one has generated code that builds and runs. Each is compiled, its harness
built with FLAGS (default -O1 -g1 -fsanitize=address,undefined
-fno-sanitize-recover=all -fno-omit-frame-pointer), run on every dataset and
compared. A test is clean when verify passes and no sanitizer report appears,
neither from onnxcc (when it is a sanitizer build itself) nor from the
harness (its stderr files in the --cache folder). One line per test, then
  sanitized sample: N tests, N clean, N failed
Exits 1 when a test is not clean.
"""
import argparse
import concurrent.futures
import os
import signal
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
SRC_ROOT = os.path.normpath(os.path.join(HERE, "..", "..", "..", ".."))
# The expectation files are read as the conformance runner reads them.
sys.path.insert(0, os.path.join(SRC_ROOT, "test", "conformance"))
from run_conformance import read_expected, read_out_of_scope, resolve_program  # noqa: E402
DEFAULT_DATA = "/usr/share/libonnx-testdata/data"
DEFAULT_EXPECTED = os.path.join(SRC_ROOT, "test", "conformance", "expected")
DEFAULT_FLAGS = ("-O1 -g1 -fsanitize=address,undefined -fno-sanitize-recover=all "
                 "-fno-omit-frame-pointer")
MARKERS = ("AddressSanitizer", "LeakSanitizer", "UndefinedBehaviorSanitizer",
           "runtime error:")
SANITIZER_ENV = {
    "ASAN_OPTIONS": "detect_leaks=1:abort_on_error=0",
    "UBSAN_OPTIONS": "print_stacktrace=1:halt_on_error=1",
}


def expected_passing(expected_dir):
    out_of_scope = read_out_of_scope(expected_dir)
    return sorted(test for test, status in read_expected(expected_dir, "node").items()
                  if status == "pass" and "node/" + test not in out_of_scope)


def sample(tests, count):
    """`count` tests evenly spread over `tests` (all of them when fewer)."""
    if count >= len(tests):
        return list(tests)
    return [tests[i * len(tests) // count] for i in range(count)]


def sanitizer_lines(text):
    return [line.strip() for line in text.splitlines() if any(m in line for m in MARKERS)]


def run_one(args, test):
    folder = os.path.join(args.data, "node", test)
    keep = os.path.join(args.cache, test)
    command = [args.onnxcc, "verify", os.path.join(folder, "model.onnx"), folder,
               "--cxx-opt=" + args.cxx_opt, "--keep", keep]
    # The bound the conformance runner gives data-dependent dims that nothing
    # in the model bounds (Range over run-time limits), so that the sample
    # runs the tests as the runner does.
    if args.bound:
        command += ["--bound", args.bound]
    env = dict(os.environ, **SANITIZER_ENV)
    proc = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, errors="replace", env=env,
                            start_new_session=True)
    try:
        stdout, stderr = proc.communicate(timeout=args.timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()
        return "timed out after %gs" % args.timeout
    reports = sanitizer_lines(stdout + "\n" + stderr)
    # The harness's stderr of its last run (verify keeps them in the folder).
    if os.path.isdir(keep):
        for name in sorted(os.listdir(keep)):
            if name.endswith(".err"):
                with open(os.path.join(keep, name), errors="replace") as f:
                    reports += ["%s: %s" % (name, l) for l in sanitizer_lines(f.read())]
    if reports:
        return "sanitizer report: " + reports[0] + (
            " (+%d more lines)" % (len(reports) - 1) if len(reports) > 1 else "")
    if proc.returncode != 0 or "PASS:" not in stdout:
        first = next((l.strip() for l in (stderr + stdout).splitlines() if l.strip()), "")
        return "exit status %d: %s" % (proc.returncode, first)
    return None


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("onnxcc")
    parser.add_argument("--data", default=DEFAULT_DATA)
    parser.add_argument("--expected", default=DEFAULT_EXPECTED)
    parser.add_argument("--count", type=int, default=200)
    parser.add_argument("--bound", default="*=256",
                        help="onnxcc verify --bound for every test (as run_conformance.py)")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--timeout", type=float, default=300)
    parser.add_argument("--cache", help="keep each test's folder here (default: a temporary "
                        "folder, removed at the end)")
    parser.add_argument("--cxx-opt", default=DEFAULT_FLAGS,
                        help="flags of the harness builds (default: %s)" % DEFAULT_FLAGS)
    args = parser.parse_args()

    args.onnxcc = resolve_program(args.onnxcc)
    tests = sample(expected_passing(args.expected), args.count)
    temp = None
    if not args.cache:
        temp = tempfile.TemporaryDirectory(prefix="onnxcc-sanitized-")
        args.cache = temp.name
    args.cache = os.path.abspath(args.cache)

    start = time.time()
    with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
        results = dict(zip(tests, pool.map(lambda t: run_one(args, t), tests)))
    failed = 0
    for test in tests:
        problem = results[test]
        if problem:
            failed += 1
            print("FAIL node/%s: %s" % (test, problem))
        else:
            print("CLEAN node/%s" % test)
    print("sanitized sample: %d tests, %d clean, %d failed (%.0fs, %d jobs)"
          % (len(tests), len(tests) - failed, failed, time.time() - start, args.jobs))
    if temp:
        temp.cleanup()
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
