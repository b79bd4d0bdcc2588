#!/usr/bin/env python3
"""Differential testing of onnxcc against ONNX Runtime on random graphs.

For each seed of a range, gen_graph.py makes a model of --components random
graphs; ONNX Runtime (ort_run.js: npm onnxruntime-node, CPU, graph
optimizations off, one node process for the whole run) computes its outputs
on the seeded inputs, which become an ONNX backend dataset; then
`onnxcc verify MODEL DATASET` compiles the model, builds it with c++ and
compares. A model that does not pass is split into its components, each
checked alone, so that every finding names one graph (SEED:COMPONENT).

Statuses of a graph:
  pass            every output within tolerance (gen_graph.py states the rule)
  mismatch        an output out of tolerance, or of another shape/dtype
  onnxcc-crash    onnxcc died on a signal, or printed an assertion,
                  a stack dump or a sanitizer report
  onnxcc-hang     onnxcc verify ran past --timeout
  onnxcc-refused  ORT ran the graph, onnxcc said no (the message is kept)
  build-failed    the generated C++ did not compile
  run-failed      the generated code failed at run time (crash, bad status)
  skipped-by-ort  ORT refused the graph: a generator bug (counted, not a finding)
Every status but pass and skipped-by-ort is a finding. The exit status is 1
when a finding is not matched by a line of the known-findings file
(`STATUS REGEX`, the regex searched in the finding's detail, which ends with
the graph's op types; `#` starts a comment).

Beside the statuses it counts `symbolic-fallback`: a graph with dim_param
inputs that onnxcc could not compile with symbolic dims, so that verify
compiled it with the dataset's dims instead (README: "Symbolic dims"); the
messages are listed, and they fail nothing.

usage: difftest.py --onnxcc build/bin/onnxcc --seeds 0:1000 [-j 2] [--components 8]
"""
import argparse
import collections
import concurrent.futures
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import gen_graph  # noqa: E402

import onnx  # noqa: E402
from onnx import helper  # noqa: E402

FINDINGS = ("mismatch", "onnxcc-crash", "onnxcc-hang", "onnxcc-refused", "build-failed",
            "run-failed", "symbolic-refused")
STATUSES = ("pass",) + FINDINGS + ("skipped-by-ort",)
CRASH_MARKS = ("Assertion", "PLEASE submit a bug report", "Stack dump", "AddressSanitizer",
               "UndefinedBehaviorSanitizer", "runtime error:", "LeakSanitizer", "Segmentation fault")


class OrtServer:
    """One node process running ort_run.js; requests are serialized."""

    def __init__(self, ort_dir):
        self.ort_dir, self.proc, self.lock = ort_dir, None, threading.Lock()

    def _start(self):
        env = dict(os.environ)
        if self.ort_dir:
            env["ONNXCC_ORT_DIR"] = self.ort_dir
        self.proc = subprocess.Popen(["node", os.path.join(HERE, "ort_run.js")], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
                                     env=env)

    def run(self, model, dataset):
        with self.lock:
            if self.proc is None or self.proc.poll() is not None:
                self._start()
            try:
                self.proc.stdin.write("%s\t%s\n" % (model, dataset))
                self.proc.stdin.flush()
                reply = self.proc.stdout.readline()
            except BrokenPipeError:
                reply = ""
            if not reply:
                self.proc = None
                return "error ORT's process died"
            return reply.strip()

    def close(self):
        if self.proc and self.proc.poll() is None:
            self.proc.stdin.close()
            self.proc.wait(timeout=30)


def component_model(model, datas, prefix):
    """The component(s) of `model` whose names start with `prefix` (a tuple
    of prefixes for several), with their inputs."""
    graph = model.graph
    keep = [k for k, vi in enumerate(graph.input) if vi.name.startswith(prefix)]
    name = graph.name + "_" + prefix.rstrip("_") if isinstance(prefix, str) else graph.name
    sub = helper.make_graph([n for n in graph.node if n.name.startswith(prefix)], name,
                            [graph.input[k] for k in keep],
                            [o for o in graph.output if o.name.startswith(prefix)],
                            [t for t in graph.initializer if t.name.startswith(prefix)])
    m = helper.make_model(sub, producer_name=model.producer_name, opset_imports=model.opset_import)
    m.ir_version = model.ir_version
    return m, [datas[k] for k in keep]


def op_types(model):
    return sorted({n.op_type for n in model.graph.node if n.op_type != "Constant"})


def has_dim_params(model):
    return any(d.dim_param for vi in model.graph.input for d in vi.type.tensor_type.shape.dim)


def classify(rc, out, err, timed_out):
    """(status, detail) of one `onnxcc verify` run."""
    text = out + err
    if timed_out:
        return "onnxcc-hang", "timed out"
    if rc < 0 or any(mark in text for mark in CRASH_MARKS):
        line = next((l for l in text.splitlines() if any(m in l for m in CRASH_MARKS)), "signal %d" % -rc)
        return "onnxcc-crash", line.strip()[:300]
    if rc == 0 and re.search(r"^PASS:", out, re.M):
        return "pass", ""
    m = re.search(r"onnxcc: error: (\w+): (.*)", err)
    if m:
        stage, msg = m.groups()
        status = {"compile": "onnxcc-refused", "build": "build-failed"}.get(stage, "run-failed")
        return status, msg.strip()[:400]
    fails = [l for l in out.splitlines() if "FAIL" in l and not l.startswith("FAIL:")]
    if fails:
        return "mismatch", fails[0].strip()[:400]
    return "onnxcc-crash", ("exit %d: " % rc) + (err.strip().splitlines() or [""])[-1][:300]


class Runner:
    def __init__(self, args):
        self.args = args
        self.ort = OrtServer(args.ort_dir)
        self.lock = threading.Lock()
        self.counts = collections.Counter()
        self.findings = []  # dicts
        self.fallbacks = collections.Counter()
        self.verify_seconds = 0.0
        self.models = 0

    def verify(self, model_path, dataset, tol, opt, workdir, cpu):
        cmd = [self.args.onnxcc, "verify", model_path, dataset, "--atol", repr(tol[0]),
               "--rtol", repr(tol[1]), "--cxx-opt", opt, "--target-cpu", cpu]
        if self.args.keep:
            cmd += ["--keep", os.path.join(workdir, "keep")]
        env = dict(os.environ, TMPDIR=workdir)
        start = time.time()
        try:
            p = subprocess.run(cmd, capture_output=True, text=True, timeout=self.args.timeout, env=env,
                               errors="replace")
            rc, out, err, to = p.returncode, p.stdout, p.stderr, False
        except subprocess.TimeoutExpired as e:
            rc, out, err, to = -9, (e.stdout or b"").decode(errors="replace") if isinstance(e.stdout, bytes) else (e.stdout or ""), "", True
        with self.lock:
            self.verify_seconds += time.time() - start
        return rc, out, err, to

    def symbolic_message(self, model_path, workdir):
        """Why `onnxcc compile` refuses the symbolic form of a model."""
        p = subprocess.run([self.args.onnxcc, "compile", model_path, "-o", os.path.join(workdir, "sym"), "-q"],
                           capture_output=True, text=True, timeout=self.args.timeout, errors="replace")
        if p.returncode == 0:
            return None
        msg = p.stderr.strip().splitlines()[-1] if p.stderr.strip() else "exit %d" % p.returncode
        # Strip the file and node names so that messages group.
        msg = re.sub(r"^onnxcc: error: [^:]*: ", "", msg)
        return re.sub(r"'g\d+_[^']*'", "'...'", msg)

    def check(self, model, datas, tol, opt, workdir, cpu):
        """Writes model and dataset, runs ORT then onnxcc; returns (status, detail, symbolic_ok)."""
        os.makedirs(workdir, exist_ok=True)
        path = os.path.join(workdir, "model.onnx")
        dataset = os.path.join(workdir, "test_data_set_0")
        shutil.rmtree(dataset, ignore_errors=True)
        with open(path, "wb") as f:
            f.write(model.SerializeToString())
        gen_graph.write_dataset(dataset, model, datas)
        reply = self.ort.run(path, dataset)
        if reply != "ok":
            return "skipped-by-ort", reply[6:].strip()[:300], True
        rc, out, err, to = self.verify(path, dataset, tol, opt, workdir, cpu)
        status, detail = classify(rc, out, err, to)
        symbolic_ok = True
        if status == "pass" and has_dim_params(model) and "symbolic dims:" not in out:
            symbolic_ok = False
            if self.args.strict_symbolic:
                msg = self.symbolic_message(path, workdir)
                if msg:
                    return "symbolic-refused", msg, False
        return status, detail, symbolic_ok

    def run_seed(self, seed):
        a = self.args
        workdir = os.path.join(a.work, "s%d" % seed)
        try:
            model, datas, info = gen_graph.make_model(seed, a.components)
        except Exception as e:  # a generator bug: count it like an ORT refusal
            self.record(seed, None, "skipped-by-ort", "generator: %s" % e, [], info=None)
            return
        # Mostly -O1 (fast to build); every few models at -O2, where the C++
        # compiler vectorizes and contracts differently.
        opt = "-O2" if seed % a.o2_every == 0 else a.cxx_opt
        # The kernels' header (Conv, Gemm, MatMul... with constant weights)
        # costs two thirds of a C++ build: only every few models use them;
        # the others lower every op to loop nests (--target-cpu none).
        cpu = a.target_cpu if seed % a.kernels_every == 0 else "none"
        status, detail, symbolic_ok = self.check(model, datas, info["tol"], opt, workdir, cpu)
        with self.lock:
            self.models += 1
        ncomp = len(info["components"])
        if status == "skipped-by-ort" and ncomp > 1:
            # Which graphs ORT refuses costs no C++ build: check the others
            # together again.
            ok = []
            for i, comp in enumerate(info["components"]):
                sub, subdatas = component_model(model, datas, comp["prefix"])
                cdir = os.path.join(workdir, "ort%d" % i)
                os.makedirs(cdir, exist_ok=True)
                path = os.path.join(cdir, "model.onnx")
                with open(path, "wb") as f:
                    f.write(sub.SerializeToString())
                gen_graph.write_dataset(os.path.join(cdir, "test_data_set_0"), sub, subdatas)
                reply = self.ort.run(path, os.path.join(cdir, "test_data_set_0"))
                shutil.rmtree(cdir, ignore_errors=True)
                if reply == "ok":
                    ok.append(comp)
                else:
                    self.record(seed, i, "skipped-by-ort", reply[6:].strip()[:300], op_types(sub), info, opt)
            if not ok:
                shutil.rmtree(workdir, ignore_errors=True)
                return
            model, datas = component_model(model, datas, tuple(c["prefix"] for c in ok))
            info = dict(info, components=ok)
            ncomp = len(ok)
            status, detail, symbolic_ok = self.check(model, datas, info["tol"], opt, workdir, cpu)
        if status == "pass":
            for comp in info["components"]:
                self.record(seed, int(comp["prefix"][1:-1]), "pass", "", [], info)
            if not symbolic_ok:
                self.note_fallback(seed, model, datas, info, workdir)
            shutil.rmtree(workdir, ignore_errors=True)
            return
        # Attribute the failure: every component alone.
        for comp in info["components"]:
            i = int(comp["prefix"][1:-1])
            sub, subdatas = component_model(model, datas, comp["prefix"])
            cdir = os.path.join(workdir, "c%d" % i)
            if ncomp == 1:
                st, det, sym_ok = status, detail, symbolic_ok
            else:
                st, det, sym_ok = self.check(sub, subdatas, info["tol"], opt, cdir, cpu)
            self.record(seed, i, st, det, op_types(sub), info, opt + " " + cpu)
            if st == "pass":
                if not sym_ok:
                    self.note_fallback(seed, sub, subdatas, info, cdir)
                shutil.rmtree(cdir, ignore_errors=True)
        if ncomp > 1 and all(f["status"] == "pass" for f in self.findings_of(seed)):
            # Only the packed model fails: keep it as a finding of its own.
            self.record(seed, "all", status, detail, op_types(model), info, opt + " " + cpu)
        if not any(f["status"] in FINDINGS for f in self.findings_of(seed)):
            shutil.rmtree(workdir, ignore_errors=True)

    def findings_of(self, seed):
        with self.lock:
            return [f for f in self.findings if f["seed"] == seed]

    def note_fallback(self, seed, model, datas, info, workdir):
        path = os.path.join(workdir, "model.onnx")
        if not os.path.exists(path):
            os.makedirs(workdir, exist_ok=True)
            with open(path, "wb") as f:
                f.write(model.SerializeToString())
        msg = self.symbolic_message(path, workdir)
        if msg:
            with self.lock:
                self.fallbacks[msg] += 1
            comp = int(model.graph.name.rsplit("_g", 1)[1]) if "_g" in model.graph.name else "all"
            self.record(seed, comp, "symbolic-fallback", msg, op_types(model), info, count=False)

    def record(self, seed, comp, status, detail, ops, info, opt=None, count=True):
        with self.lock:
            if comp != "all" and count:
                self.counts[status] += 1
            if count and self.args.progress and sum(self.counts.values()) % self.args.progress == 0:
                print("progress: %d graphs, %s" % (sum(self.counts.values()), dict(self.counts)), flush=True)
            if status != "pass":
                entry = {"seed": seed, "component": comp, "status": status, "detail": detail,
                         "ops": ops, "opset": info["opset"] if info else None, "opt": opt}
                self.findings.append(entry)
                if self.args.results:
                    with open(self.args.results, "a") as f:
                        f.write(json.dumps(entry) + "\n")
                if not self.args.quiet:
                    print("%s %s:%s %s [%s]" % (status, seed, comp, detail, " ".join(ops)), flush=True)


def load_known(path):
    known = []
    if path and os.path.exists(path):
        for line in open(path):
            line = line.split("#", 1)[0].strip()
            if line:
                status, _, regex = line.partition(" ")
                known.append((status, re.compile(regex.strip())))
    return known


def parse_seeds(text):
    lo, _, hi = text.partition(":")
    return range(int(lo), int(hi)) if hi else range(int(lo), int(lo) + 1)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__)
    ap.add_argument("--onnxcc", required=True)
    ap.add_argument("--seeds", default="0:100", help="START:END (END excluded), or one seed")
    ap.add_argument("--components", type=int, default=8, help="random graphs per model")
    ap.add_argument("-j", "--jobs", type=int, default=2)
    ap.add_argument("--ort-dir", default=os.environ.get("ONNXCC_ORT_DIR", os.path.join(HERE, "..", "..", ".deps", "onnxruntime-node")))
    ap.add_argument("--work", default=None, help="folder for the failing models (default: a temporary one)")
    ap.add_argument("--known", default=os.path.join(HERE, "known-findings.txt"))
    ap.add_argument("--results", default=None, help="append every non-pass graph as a JSON line")
    ap.add_argument("--timeout", type=float, default=300, help="seconds per onnxcc verify")
    ap.add_argument("--cxx-opt", default="-O1", help="optimization flag of the C++ build")
    ap.add_argument("--o2-every", type=int, default=8, help="every Nth seed builds with -O2")
    ap.add_argument("--target-cpu", default="native", help="of the seeds that use the kernels")
    ap.add_argument("--kernels-every", type=int, default=3,
                    help="every Nth seed uses the kernels (--target-cpu); the others none")
    ap.add_argument("--keep", action="store_true", help="keep onnxcc verify's work folders")
    ap.add_argument("-q", "--quiet", action="store_true", help="only the table")
    ap.add_argument("--progress", type=int, default=0, help="print the counts every N graphs")
    ap.add_argument("--strict-symbolic", action="store_true",
                    help="a graph onnxcc compiles only with fixed dims is a finding (symbolic-refused)")
    args = ap.parse_args()
    if not os.path.isdir(os.path.join(args.ort_dir, "node_modules", "onnxruntime-node")):
        sys.exit("%s: no onnxruntime-node under %s (scripts/setup.sh installs it; or --ort-dir)"
                 % (os.path.basename(__file__), args.ort_dir))
    if args.work is None:
        args.work = tempfile.mkdtemp(prefix="difftest-")
    os.makedirs(args.work, exist_ok=True)

    runner = Runner(args)
    seeds = parse_seeds(args.seeds)
    start = time.time()
    try:
        with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
            for fut in concurrent.futures.as_completed([pool.submit(runner.run_seed, s) for s in seeds]):
                fut.result()
    finally:
        runner.ort.close()
    wall = time.time() - start

    known = load_known(args.known)
    new = []
    print("\n%-16s %8s" % ("status", "graphs"))
    for status in STATUSES:
        print("%-16s %8d" % (status, runner.counts[status]))
    total = sum(runner.counts.values())
    print("%-16s %8d   (%d models of up to %d graphs, seeds %d:%d)" % ("total", total, runner.models,
          args.components, seeds.start, seeds.stop))
    if total:
        print("time: %.0f s wall, %.3f s per graph; onnxcc verify %.0f s in all (-j %d)"
              % (wall, wall / total, runner.verify_seconds, args.jobs))
    if runner.fallbacks:
        print("\nsymbolic-fallback (compiled with the dataset's dims instead): %d"
              % sum(runner.fallbacks.values()))
        for msg, n in runner.fallbacks.most_common():
            print("  %5d  %s" % (n, msg))
    findings = [f for f in runner.findings if f["status"] in FINDINGS]
    if findings:
        print("\nfindings:")
    for f in sorted(findings, key=lambda f: (f["status"], f["seed"], str(f["component"]))):
        detail = "%s [%s]" % (f["detail"], " ".join(f["ops"]))
        is_known = any(s == f["status"] and r.search(detail) for s, r in known)
        if not is_known:
            new.append(f)
        print("  %-15s %s:%s opset %s %s%s" % (f["status"], f["seed"], f["component"], f["opset"], detail,
                                              "  (known)" if is_known else ""))
    skipped = [f for f in runner.findings if f["status"] == "skipped-by-ort"]
    for f in skipped[:20]:
        print("  skipped-by-ort  %s:%s %s" % (f["seed"], f["component"], f["detail"]))
    print("\n%d new findings (not in %s)" % (len(new), os.path.relpath(args.known)))
    return 1 if new else 0


if __name__ == "__main__":
    sys.exit(main())
