#!/usr/bin/python3
"""Runs the ONNX backend test suites through `onnxcc verify`.

Usage:
  /usr/bin/python3 test/conformance/run_conformance.py ONNXCC [--data DIR]
      [--jobs N] [--timeout S] [--filter REGEX] [--results FILE]
      [--cache DIR] [--cxx-opt FLAG] [--expected DIR] [--update-expected]
      [--suites S,...] [--data-1.23 DIR]

Every test of the suites node, pytorch-converted, pytorch-operator and simple
(ONNX 1.12, Debian's libonnx-testdata), or of the suites --suites names
(node-1.23: ONNX 1.23's node tests, opsets up to 28, from ../shared/onnx), is
compiled, built, run on all of its test_data_set_* folders and compared, and
lands in one class:
  pass         every output of every dataset within tolerance;
  fail         verify ran and some output differs (the worst line is kept);
  unsupported  the compiler rejected the model (verify's "compile:" error);
  error        anything else: the generated code does not build, the harness
               crashes, a bad dataset, a timeout, a crash of onnxcc itself.
The results file gets one `suite/test: status [message]` line per test.

Expectations live in expected/<suite>.txt (`test status` per line, status
pass, fail or unsupported; an error is expected as fail). A run exits 1 when
a test expected to pass does not; tests that pass but were not expected to
are listed (an improvement, not a failure: rerun with --update-expected).
Tests in expected/out-of-scope.txt are not run; each entry gives its reason.
"""
import argparse
import atexit
import filecmp
import collections
import concurrent.futures
import os
import re
import signal
import subprocess
import sys
import shutil
import tempfile
import time

SUITES_1_12 = ("node", "pytorch-converted", "pytorch-operator", "simple")
SUITES = SUITES_1_12 + ("node-1.23",)
DEFAULT_DATA = "/usr/share/libonnx-testdata/data"
HERE = os.path.dirname(os.path.abspath(__file__))
# The checkout's ../shared (next to the repository, as CI lays it out).
DEFAULT_DATA_1_23 = os.path.normpath(os.path.join(HERE, "..", "..", "..", "shared", "onnx",
                                                  "node-1.23"))
DEFAULT_EXPECTED = os.path.join(HERE, "expected")
STATUSES = ("pass", "fail", "unsupported", "error", "built")
# built: --target cuda compiled the test and built its harness, and there was
# no GPU to run it (a GPU turns it into pass or fail).
EXPECTABLE = ("pass", "fail", "unsupported", "built")
ERROR_PREFIX = "onnxcc: error: "
CRASH_MARKERS = ("Assertion", "Stack dump", "PLEASE submit")


def resolve_program(name):
    """`name` itself when it is a path, else the program found on PATH; exits
    when there is none."""
    if os.sep in name:
        return name
    found = shutil.which(name)
    if not found:
        sys.exit("%s not found" % name)
    return found


def read_out_of_scope(expected_dir):
    """{suite/test: reason}; every entry must say why it is left out."""
    path = os.path.join(expected_dir, "out-of-scope.txt")
    entries = {}
    if not os.path.isfile(path):
        return entries
    with open(path) as f:
        for number, line in enumerate(f, 1):
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            parts = line.split(None, 1)
            if len(parts) != 2:
                sys.exit("%s:%d: an out-of-scope test needs a reason: %s" % (path, number, line))
            entries[parts[0]] = parts[1]
    return entries


def expected_file(expected_dir, suite, target="cpp"):
    """The expectations of one suite: <suite>.txt for the cpp target,
    <suite>.<target>.txt for another code generator."""
    return os.path.join(expected_dir, suite + ("" if target == "cpp" else "." + target) + ".txt")


def read_expected(expected_dir, suite, target="cpp"):
    """{test: status} of one suite."""
    path = expected_file(expected_dir, suite, target)
    expected = {}
    if not os.path.isfile(path):
        return expected
    with open(path) as f:
        for number, line in enumerate(f, 1):
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            parts = line.split()
            if len(parts) != 2 or parts[1] not in EXPECTABLE:
                sys.exit("%s:%d: expected 'test pass|fail|unsupported': %s" % (path, number, line))
            expected[parts[0]] = parts[1]
    return expected


def write_expected(expected_dir, suite, expected, target="cpp"):
    path = expected_file(expected_dir, suite, target)
    with open(path, "w") as f:
        f.write("# Expected `onnxcc verify%s` status of every %s test "
                "(run_conformance.py --update-expected).\n"
                % ("" if target == "cpp" else " --target " + target, suite))
        for test in sorted(expected):
            f.write("%s %s\n" % (test, expected[test]))


def suite_folders(data_dir, suites=SUITES_1_12, data_1_23=DEFAULT_DATA_1_23):
    """{suite: folder}: the 1.12 suites under `data_dir`, node-1.23 at `data_1_23`."""
    return {s: data_1_23 if s == "node-1.23" else os.path.join(data_dir, s) for s in suites}


def same_files(a, b):
    """Whether folders a and b hold the same files (names, bytes), recursively."""
    for root, dirs, files in os.walk(a):
        other = os.path.join(b, os.path.relpath(root, a))
        if not os.path.isdir(other):
            return False
        if sorted(files) != sorted(f for f in os.listdir(other)
                                   if os.path.isfile(os.path.join(other, f))):
            return False
        for f in files:
            if not filecmp.cmp(os.path.join(root, f), os.path.join(other, f), shallow=False):
                return False
        dirs.sort()
    return True


def find_duplicates(tests, suite_dirs):
    """{(suite, test): twin} for the 1.12 node tests that node-1.23, run in
    the same call, holds byte for byte (model and data): ONNX regenerates
    only the tests of ops that changed, so about half of them are the same
    files, and running both runs the same test twice."""
    if "node" not in suite_dirs or "node-1.23" not in suite_dirs:
        return {}
    newer = suite_dirs["node-1.23"]
    return {(suite, test): "node-1.23/" + test for suite, test, folder in tests
            if suite == "node" and same_files(folder, os.path.join(newer, test))}


def find_tests(data_dir, pattern, out_of_scope, suite_dirs=None):
    """(suite, test, folder) of every test to run, in a fixed order, and the
    out-of-scope ones that the filter selects; `suite_dirs` maps each suite
    to run to its folder (default: the 1.12 suites under `data_dir`)."""
    tests, skipped = [], []
    for suite, suite_dir in (suite_dirs or suite_folders(data_dir)).items():
        if not os.path.isdir(suite_dir):
            continue
        for test in sorted(os.listdir(suite_dir)):
            folder = os.path.join(suite_dir, test)
            key = suite + "/" + test
            if not os.path.isfile(os.path.join(folder, "model.onnx")):
                continue
            if pattern and not pattern.search(key):
                continue
            if key in out_of_scope:
                skipped.append((suite, test))
                continue
            tests.append((suite, test, folder))
    return tests, skipped


def summarize_failure(stdout):
    """The worst FAIL line of verify's report, and how many more there are."""
    failures = [line.strip() for line in stdout.splitlines()
                if "FAIL" in line and not line.startswith("FAIL:")]
    if not failures:
        return "no output line says FAIL"
    more = " (+%d more)" % (len(failures) - 1) if len(failures) > 1 else ""
    return failures[0] + more


def classify(returncode, stdout, stderr):
    """(status, message) of one `onnxcc verify` run."""
    # Warnings (a branch that cannot run with these shapes, ...) come before
    # the one error line; they do not change what the error says.
    lines = [line.strip() for line in stderr.splitlines()
             if line.strip() and not line.strip().startswith("onnxcc: warning:")]
    first = lines[0] if lines else ""
    if any(marker in stderr for marker in CRASH_MARKERS):
        return "error", "onnxcc crashed: " + first
    if returncode < 0:
        try:
            name = signal.Signals(-returncode).name
        except ValueError:
            name = "signal %d" % -returncode
        return "error", "onnxcc killed by %s%s" % (name, (": " + first) if first else "")
    if returncode == 0:
        return "pass", ""
    # --target cuda where no GPU is: compiled and built, not run.
    if returncode == 4 and "no CUDA GPU" in stderr:
        return "built", "compiled and built; no CUDA GPU to run it"
    if returncode == 1 and not lines:
        return "fail", summarize_failure(stdout)
    if returncode != 1 or len(lines) != 1 or not first.startswith(ERROR_PREFIX):
        return "error", "exit status %d: %s" % (returncode, first or "no message")
    message = first[len(ERROR_PREFIX):]
    if message.startswith("compile: "):
        return "unsupported", message[len("compile: "):]
    return "error", message


# Tests whose data-dependent dims multiply, with the bound a user would
# give them instead of the default: AffineGrid's 3-D function body makes
# [N, D, H, W, 3] from four values of its `size` input, so 256 per dim sizes
# the output at 256^4 * 3 floats (51 GB) and the arena likewise.
TEST_BOUNDS = {
    "test_affine_grid_3d_expanded": "*=16",
    "test_affine_grid_3d_align_corners_expanded": "*=16",
}
DEFAULT_BOUND = "*=256"


def run_one(args, suite, test, folder):
    command = [args.onnxcc, "verify", os.path.join(folder, "model.onnx"), folder,
               "--cxx-opt=" + args.cxx_opt]
    # A dim that depends on the data and that nothing in the model bounds (a
    # Range or a window over a size given at run time) gets the bound a user
    # would give it.
    bound = args.bound
    if bound == DEFAULT_BOUND:
        bound = TEST_BOUNDS.get(test, bound)
    if bound:
        command += ["--bound", bound]
    if args.target != "cpp":
        command.append("--target=" + args.target)
    if args.cache:
        command += ["--keep", os.path.join(args.cache, suite, test)]
    if args.pch_cache:
        command += ["--pch-cache", args.pch_cache]
    # A session of its own: on a timeout the harness and the C++ compiler
    # that onnxcc started are killed with it.
    proc = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, errors="replace",
                            start_new_session=True)
    try:
        stdout, stderr = proc.communicate(timeout=args.timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()
        return "error", "timed out after %gs" % args.timeout
    status, message = classify(proc.returncode, stdout, stderr)
    # The model's path is the same for every test: keep the message short.
    return status, message.replace(os.path.join(folder, "model.onnx") + ": ", "")


def print_table(results, skipped, duplicates=()):
    counts = collections.defaultdict(collections.Counter)
    for (suite, _), (status, _) in results.items():
        counts[suite][status] += 1
    for suite, _ in skipped:
        counts[suite]["out-of-scope"] += 1
    for suite, _ in duplicates:
        counts[suite]["duplicate"] += 1
    # `built` (--target cuda without a GPU) only when some test is.
    statuses = tuple(s for s in STATUSES
                     if s != "built" or any(st == "built" for st, _ in results.values()))
    columns = statuses + ("out-of-scope",) + (("duplicate",) if duplicates else ()) + ("total",)
    width = max(len(s) for s in SUITES + ("total",))
    print("%-*s %s" % (width, "suite", " ".join("%12s" % c for c in columns)))
    total = collections.Counter()
    for suite in SUITES:
        if suite not in counts:
            continue
        row = counts[suite]
        row["total"] = sum(row[c] for c in columns[:-1])
        total.update(row)
        print("%-*s %s" % (width, suite, " ".join("%12d" % row[c] for c in columns)))
    print("%-*s %s" % (width, "total", " ".join("%12d" % total[c] for c in columns)))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("onnxcc", help="the onnxcc binary")
    parser.add_argument("--data", default=DEFAULT_DATA, help="backend test data folder")
    parser.add_argument("--jobs", type=int, default=2, help="tests run in parallel")
    parser.add_argument("--timeout", type=float, default=120, help="seconds per test")
    parser.add_argument("--filter", help="run only suite/test names this regex finds")
    parser.add_argument("--bound", default=DEFAULT_BOUND,
                        help="onnxcc verify --bound for every test (default *=256: data-"
                             "dependent dims nothing else bounds, each of them; a Pad whose "
                             "three dims all depend on the data then needs 256^3 elements; "
                             "empty for none)")
    parser.add_argument("--results", help="write one line per test to this file")
    parser.add_argument("--cache", help="keep every test's generated code and binary "
                        "here; a later run rebuilds only what changed")
    parser.add_argument("--cxx-opt", default="-O1",
                        help="optimization flag of the harness builds (default -O1)")
    parser.add_argument("--expected", default=DEFAULT_EXPECTED,
                        help="folder of <suite>.txt expectations and out-of-scope.txt")
    parser.add_argument("--target", default="cpp", choices=("cpp", "halide", "cuda"),
                        help="code generator verify builds with (default cpp); the "
                        "expectations of another are <suite>.<target>.txt")
    parser.add_argument("--update-expected", action="store_true",
                        help="rewrite the expectations of the tests run")
    parser.add_argument("--suites", default=",".join(SUITES_1_12),
                        help="comma-separated suites to run (default the ONNX 1.12 ones; "
                        "also: node-1.23)")
    parser.add_argument("--data-1.23", dest="data_1_23", default=DEFAULT_DATA_1_23,
                        help="folder of the node-1.23 suite's test_* folders")
    parser.add_argument("--run-duplicates", action="store_true",
                        help="also run the node tests that node-1.23, run in the same call, "
                        "holds byte for byte (by default they are listed as duplicates)")
    args = parser.parse_args()
    suites = [s for s in args.suites.split(",") if s]
    unknown = [s for s in suites if s not in SUITES]
    if unknown:
        sys.exit("unknown suite %s (known: %s)" % (", ".join(unknown), ", ".join(SUITES)))
    suite_dirs = suite_folders(args.data, suites, args.data_1_23)

    args.onnxcc = resolve_program(args.onnxcc)
    if args.cache:
        args.cache = os.path.abspath(args.cache)
    # One precompiled onnxcc_rt.h for all the harness builds (GCC): about
    # 0.3 s less of each build's 0.7 s at -O1. Kept in the cache, else in a
    # folder of this run.
    args.pch_cache = None
    if args.target == "cpp":
        if args.cache:
            args.pch_cache = os.path.join(args.cache, "pch")
        else:
            args.pch_cache = tempfile.mkdtemp(prefix="onnxcc-pch-")
            atexit.register(shutil.rmtree, args.pch_cache, True)
    pattern = re.compile(args.filter) if args.filter else None
    out_of_scope = read_out_of_scope(args.expected)
    tests, skipped = find_tests(args.data, pattern, out_of_scope, suite_dirs)
    if not tests:
        sys.exit("no tests under %s%s" % (", ".join(suite_dirs.values()),
                                          " match the filter" if pattern else ""))

    duplicates = {} if args.run_duplicates else find_duplicates(tests, suite_dirs)
    tests = [t for t in tests if (t[0], t[1]) not in duplicates]

    start = time.time()
    results = {}
    with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
        futures = {pool.submit(run_one, args, suite, test, folder): (suite, test)
                   for suite, test, folder in tests}
        for future in concurrent.futures.as_completed(futures):
            results[futures[future]] = future.result()
    elapsed = time.time() - start

    if args.results:
        with open(args.results, "w") as f:
            for (suite, test) in sorted(results):
                status, message = results[(suite, test)]
                f.write("%s/%s: %s%s\n" % (suite, test, status, " " + message if message else ""))
            for suite, test in skipped:
                f.write("%s/%s: out-of-scope %s\n" % (suite, test, out_of_scope[suite + "/" + test]))
            for (suite, test), twin in sorted(duplicates.items()):
                f.write("%s/%s: duplicate of %s (the same model and data)\n" % (suite, test, twin))

    print_table(results, skipped, duplicates)
    print("%d tests in %.0fs with %d jobs" % (len(results), elapsed, args.jobs))

    regressions, improvements, unexpected = [], [], []
    for suite in SUITES:
        expected = read_expected(args.expected, suite, args.target)
        ran = {test: status for (s, test), (status, _) in results.items() if s == suite}
        if not ran:
            continue
        if args.target != "cpp":
            on_cpp = read_expected(args.expected, suite)
            passing = [t for t in ran if on_cpp.get(t) == "pass"]
            print("%s: %d of the %d tests run that pass on cpp pass on %s" % (
                suite, sum(ran[t] == "pass" for t in passing), len(passing), args.target))
        for test, status in sorted(ran.items()):
            want = expected.get(test)
            got = status if status != "error" else "fail"
            if want == "pass" and status != "pass":
                regressions.append((suite, test))
            elif want == "built" and status not in ("built", "pass"):
                regressions.append((suite, test))
            elif status == "pass" and want != "pass":
                improvements.append((suite, test, want or "not listed"))
            elif want is not None and want != got:
                unexpected.append((suite, test, want, status))
        if args.update_expected:
            for test, status in ran.items():
                expected[test] = status if status != "error" else "fail"
            write_expected(args.expected, suite, expected, args.target)

    for suite, test, want in improvements:
        print("newly passing: %s/%s (expected %s)" % (suite, test, want))
    for suite, test, want, got in unexpected:
        print("changed: %s/%s %s, expected %s" % (suite, test, got, want))
    for suite, test in regressions:
        status, message = results[(suite, test)]
        print("REGRESSION: %s/%s %s %s" % (suite, test, status, message))
    if args.update_expected:
        print("expectations updated in %s" % args.expected)
        return 0
    if regressions:
        print("%d tests expected to pass do not" % len(regressions))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
