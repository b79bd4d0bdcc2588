#!/usr/bin/python3
"""Runs `onnxcc import` on every model of the ONNX backend test suites.

Usage:
  /usr/bin/python3 test/conformance/import_suite.py ONNXCC [--data DIR]
      [--jobs N] [--timeout S] [--min-imported PERCENT] [--results FILE]
      [--filter SUBSTRING]

Each model lands in one class:
  imported  exit status 0;
  rejected  exit status 1 with exactly one non-empty stderr line that starts
            with "error:" or "onnxcc: error:" (the importer said no, clearly);
  crashed   anything else: a signal, another exit status, several lines or
            an assertion / stack dump on stderr, a timeout.
Prints the counts per suite and in total, lists the crashed models, and writes
every rejected and crashed model with its message to the results file. Exits
1 if anything crashed or if fewer than --min-imported percent imported.
"""
import argparse
import collections
import concurrent.futures
import os
import signal
import subprocess
import sys

SUITES = ("node", "pytorch-converted", "pytorch-operator", "simple")
DEFAULT_DATA = "/usr/share/libonnx-testdata/data"
CRASH_MARKERS = ("Assertion", "Stack dump", "PLEASE submit")
ERROR_PREFIXES = ("error:", "onnxcc: error:")


def find_models(data_dir, name_filter):
    """(suite, test name, path) of every model, in a fixed order."""
    models = []
    for suite in SUITES:
        suite_dir = os.path.join(data_dir, suite)
        if not os.path.isdir(suite_dir):
            continue
        for test in sorted(os.listdir(suite_dir)):
            path = os.path.join(suite_dir, test, "model.onnx")
            if os.path.isfile(path) and (not name_filter or name_filter in test):
                models.append((suite, test, path))
    return models


def classify(returncode, stderr):
    """("imported" | "rejected" | "crashed", message) for one run."""
    lines = stderr.splitlines()
    nonempty = [line for line in lines if line.strip()]
    first = nonempty[0].strip() if nonempty else ""
    if any(marker in stderr for marker in CRASH_MARKERS):
        return "crashed", first or "crash marker on stderr"
    if returncode == 0:
        return "imported", ""
    if returncode < 0:
        try:
            name = signal.Signals(-returncode).name
        except ValueError:
            name = "signal %d" % -returncode
        return "crashed", "killed by %s%s" % (name, (": " + first) if first else "")
    if returncode != 1:
        return "crashed", "exit status %d%s" % (returncode, (": " + first) if first else "")
    if len(nonempty) != 1:
        detail = "%d lines on stderr" % len(nonempty) if nonempty else "no message on stderr"
        return "crashed", "exit status 1 with %s%s" % (detail, (": " + first) if first else "")
    if not first.startswith(ERROR_PREFIXES):
        return "crashed", "exit status 1 with a message that is not an error: " + first
    return "rejected", first


def run_one(onnxcc, path, timeout):
    try:
        proc = subprocess.run([onnxcc, "import", path], stdin=subprocess.DEVNULL,
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                              timeout=timeout)
    except subprocess.TimeoutExpired:
        return "crashed", "timed out after %gs" % timeout
    except OSError as error:
        return "crashed", "could not run %s: %s" % (onnxcc, error)
    stderr = proc.stderr.decode("utf-8", errors="replace")
    return classify(proc.returncode, stderr)


def parse_args(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("onnxcc", help="path to the onnxcc binary")
    parser.add_argument("--data", default=DEFAULT_DATA,
                        help="directory holding the suites (default: %(default)s)")
    parser.add_argument("--jobs", type=int, default=2, help="parallel imports (default: 2)")
    parser.add_argument("--timeout", type=float, default=60.0,
                        help="seconds per model before it counts as crashed (default: 60)")
    parser.add_argument("--min-imported", type=float, default=95.0,
                        help="percent of all models that must import (default: 95)")
    parser.add_argument("--results", default="import-suite-results.txt",
                        help="file that lists every rejected and crashed model")
    parser.add_argument("--filter", default="",
                        help="only models whose test name contains this")
    return parser.parse_args(argv)


def main(argv):
    args = parse_args(argv)
    if not os.access(args.onnxcc, os.X_OK):
        print("error: %s is not an executable" % args.onnxcc, file=sys.stderr)
        return 2
    models = find_models(args.data, args.filter)
    if not models:
        print("error: no models under %s" % args.data, file=sys.stderr)
        return 2

    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        outcomes = list(pool.map(lambda m: run_one(args.onnxcc, m[2], args.timeout),
                                 models))

    counts = collections.OrderedDict(
        (suite, collections.Counter()) for suite in SUITES)
    total = collections.Counter()
    listed = {"rejected": [], "crashed": []}
    for (suite, test, _), (kind, message) in zip(models, outcomes):
        counts[suite][kind] += 1
        total[kind] += 1
        if kind in listed:
            listed[kind].append("%s/%s: %s" % (suite, test, message))

    row = "{:<20} {:>8} {:>9} {:>9} {:>8}"
    print(row.format("suite", "imported", "rejected", "crashed", "total"))
    for suite, counter in counts.items():
        if sum(counter.values()):
            print(row.format(suite, counter["imported"], counter["rejected"],
                             counter["crashed"], sum(counter.values())))
    print(row.format("total", total["imported"], total["rejected"], total["crashed"],
                     len(models)))

    with open(args.results, "w") as results:
        for kind in ("crashed", "rejected"):
            results.write("# %s: %d\n" % (kind, len(listed[kind])))
            for line in listed[kind]:
                results.write(line + "\n")
    print("rejected and crashed models are listed in %s" % os.path.abspath(args.results))

    if listed["crashed"]:
        print("crashed (%d):" % len(listed["crashed"]))
        for line in listed["crashed"]:
            print("  " + line)

    percent = 100.0 * total["imported"] / len(models)
    failed = False
    if listed["crashed"]:
        print("FAIL: %d models crashed the importer" % len(listed["crashed"]))
        failed = True
    if percent < args.min_imported:
        print("FAIL: %.1f%% imported, below the %.1f%% required"
              % (percent, args.min_imported))
        failed = True
    if not failed:
        print("PASS: %.1f%% imported, none crashed" % percent)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
