#!/usr/bin/python3
"""Runs `onnxcc compile` on every case of a corpus written by make_corpus.py.

Usage: run_corpus.py --onnxcc PATH CORPUS [--jobs N] [--only NAME...] [--keep]

Each case runs in a fresh temporary folder (its TMPDIR too) under a time limit
and an address-space limit, as `onnxcc compile MODEL -o TMP/out`. A case is ok
when the process ended by itself (no signal, no timeout) and:
  reject             exit status non-zero and stderr exactly one line, an
                     `onnxcc: error:` line matching the case's regex;
  compile-or-reject  exit status 0, or a rejection as clean as the above
                     (its line need not match anything in particular);
and no file appeared, vanished or changed outside TMP/out: neither in the
temporary folder nor in the case's own folder nor at the top of the corpus.

A case with "xfail" in the manifest (or "xfail_sanitized", when the binary
is built with ASan or UBSan) is a known failure: its failure prints
XFAIL and does not count; if it passes it prints XPASS and counts as failed,
so that the manifest is kept up to date.

Prints one line per case and the summary
  robustness: N cases, N ok, 0 failed
and exits 1 if any case failed.
"""
import argparse
import concurrent.futures
import json
import os
import re
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
import time

MEMORY_LIMIT = 4 << 30      # bytes of address space per compile
FILE_SIZE_LIMIT = 1 << 30   # bytes any one written file may reach
SANITIZER_SLOWDOWN = 4        # time limits are multiplied by this for a sanitizer build
BAD_STDERR = ("Assertion", "LLVM ERROR", "PLEASE submit", "Stack dump", "terminate called",
              "Segmentation", "AddressSanitizer", "runtime error", "[libprotobuf")


def sanitizers(binary):
    """(ASan, any sanitizer) of the binary. AddressSanitizer reserves
    terabytes of address space: an ASan build gets its allocation limit from
    ASAN_OPTIONS instead of RLIMIT_AS."""
    with open(binary, "rb") as f:
        data = f.read()
    asan = b"__asan_init" in data
    return asan, asan or b"__ubsan_handle" in data


def limit_resources(asan):
    if not asan:
        resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))
    resource.setrlimit(resource.RLIMIT_FSIZE, (FILE_SIZE_LIMIT, FILE_SIZE_LIMIT))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    os.setsid()  # so that a timeout can end the whole process group


def snapshot(folder, skip=None):
    """Path -> (kind, size, mtime) of everything under `folder`, symlinks not
    followed; `skip` (a path) is left out with all it holds."""
    state = {}
    for dirpath, dirnames, filenames in os.walk(folder):
        if skip is not None:
            dirnames[:] = [d for d in dirnames if os.path.join(dirpath, d) != skip]
        for name in dirnames + filenames:
            path = os.path.join(dirpath, name)
            if path == skip:
                continue
            st = os.lstat(path)
            kind = "link" if os.path.islink(path) else ("dir" if os.path.isdir(path) else "file")
            state[path] = (kind, st.st_size if kind == "file" else 0,
                           st.st_mtime_ns if kind == "file" else 0)
    return state


def diff(before, after):
    changes = []
    for path in sorted(set(before) | set(after)):
        if path not in before:
            changes.append("created " + path)
        elif path not in after:
            changes.append("removed " + path)
        elif before[path] != after[path]:
            changes.append("changed " + path)
    return changes


def run_case(onnxcc, asan, root, case, keep, slowdown=1):
    """`slowdown` scales the case's time limit (a sanitizer build runs
    several times slower than the release build the limits are written for)."""
    timeout = case["timeout"] * slowdown
    model = os.path.join(root, case["model"])
    case_dir = os.path.join(root, case["name"])
    work = tempfile.mkdtemp(prefix="onnxcc-rob-")
    out = os.path.join(work, "out")
    problems = []
    detail = stderr_excerpt = ""
    try:
        before_case = snapshot(case_dir)
        before_root = set(os.listdir(root))
        before_work = snapshot(work)
        env = dict(os.environ, TMPDIR=work, TMP=work, TEMP=work)
        if asan:
            env["ASAN_OPTIONS"] = ":".join(filter(None, [
                env.get("ASAN_OPTIONS"), "max_allocation_size_mb=%d" % (MEMORY_LIMIT >> 20),
                "allocator_may_return_null=0"]))
        cmd = [onnxcc, "compile", model, "-o", out] + case.get("args", [])
        start = time.monotonic()
        proc = subprocess.Popen(cmd, cwd=work, env=env, stdin=subprocess.DEVNULL,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                preexec_fn=lambda: limit_resources(asan))
        try:
            stdout, stderr = proc.communicate(timeout=timeout)
            timed_out = False
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            stdout, stderr = proc.communicate()
            timed_out = True
        seconds = time.monotonic() - start
        rc = proc.returncode
        err = stderr.decode("utf-8", "replace")
        lines = err.splitlines()
        first = lines[0] if lines else ""
        if len(first) > 200:
            first = first[:200] + "...(%d chars)" % len(first)
        if timed_out:
            problems.append("timed out after %ds" % timeout)
        elif rc < 0:
            problems.append("killed by signal %s" % signal.Signals(-rc).name)
        elif rc == 0:
            if case["expect"] == "reject":
                problems.append("accepted; expected a rejection")
            elif err.strip():
                problems.append("exit 0 but wrote to stderr")
        else:
            if len(lines) != 1:
                problems.append("stderr has %d lines, expected one" % len(lines))
            if not first.startswith("onnxcc: error: "):
                problems.append("stderr is not an 'onnxcc: error:' line")
            for bad in BAD_STDERR:
                if bad in err:
                    problems.append("stderr contains '%s'" % bad)
            if case["expect"] == "reject" and lines and not re.search(case["error"], lines[0]):
                problems.append("error does not match /%s/" % case["error"])
        changes = diff(before_case, snapshot(case_dir)) + \
            diff(before_work, snapshot(work, skip=out)) + \
            ["created " + os.path.join(root, n) for n in set(os.listdir(root)) - before_root]
        if changes:
            problems.append("files outside the output folder: " + ", ".join(changes[:5]))
        outcome = ("timed out" if timed_out else "compiled" if rc == 0 else
                   "rejected" if rc > 0 else "crashed")
        detail = "%s in %.1fs" % (outcome, seconds)
        if rc and rc > 0:
            detail += ": " + first
        if problems and lines:
            stderr_excerpt = "".join("\n    stderr: " + l[:300] for l in lines[:12])
        else:
            stderr_excerpt = ""
    finally:
        if not keep:
            shutil.rmtree(work, ignore_errors=True)
    return problems, detail, stderr_excerpt


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--onnxcc", required=True, help="the onnxcc binary")
    parser.add_argument("--jobs", type=int, default=2, help="parallel compiles (at most 2)")
    parser.add_argument("--only", nargs="*", help="run only these cases")
    parser.add_argument("--keep", action="store_true", help="keep the temporary folders")
    parser.add_argument("corpus", help="folder make_corpus.py wrote")
    args = parser.parse_args()
    onnxcc = shutil.which(args.onnxcc) or args.onnxcc
    onnxcc = os.path.abspath(onnxcc)
    root = os.path.abspath(args.corpus)
    with open(os.path.join(root, "manifest.jsonl")) as f:
        cases = [json.loads(l) for l in f if l.strip()]
    if args.only:
        cases = [c for c in cases if c["name"] in args.only]
    jobs = max(1, min(args.jobs, 2))
    asan, sanitized = sanitizers(onnxcc)
    # The slow cases first, so that they overlap with the many quick ones.
    order = sorted(cases, key=lambda c: -c["timeout"])
    # ASan+UBSan make the compiler 3-5x slower, and CI runs two lit tests at
    # once: the limits stay meaningful (a hang still ends) without turning
    # into a measure of the sanitizers' overhead.
    slowdown = SANITIZER_SLOWDOWN if sanitized else 1
    results = {}
    with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as pool:
        futures = {pool.submit(run_case, onnxcc, asan, root, c, args.keep, slowdown): c["name"] for c in order}
        for future in concurrent.futures.as_completed(futures):
            results[futures[future]] = future.result()
    ok = failed = xfailed = 0
    for case in cases:
        problems, detail, stderr_excerpt = results[case["name"]]
        if sanitized and case.get("xfail_sanitized"):
            case["xfail"] = case["xfail_sanitized"]
        if case.get("xfail"):
            if problems:
                xfailed += 1
                status = "XFAIL"
                detail += " (known failure: %s; %s)" % (case["xfail"], "; ".join(problems))
            else:
                failed += 1
                status = "XPASS"
                detail += " (marked xfail: %s)" % case["xfail"]
        elif problems:
            failed += 1
            status = "FAIL"
            detail = "; ".join(problems) + " -- " + detail
        else:
            ok += 1
            status = "ok"
        print("%-5s %-32s %-17s %s%s" % (status, case["name"], case["expect"], detail,
                                         stderr_excerpt))
    summary = "robustness: %d cases, %d ok, %d failed" % (len(cases), ok, failed)
    if xfailed:
        summary += ", %d known failures" % xfailed
    print(summary)
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
