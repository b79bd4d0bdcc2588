#!/usr/bin/python3
"""Writes the seed corpus of onnxcc-fuzz.

Usage: make_seeds.py OUTDIR [--max-len N] [--no-robustness]

OUTDIR gets one file per seed:
  node-TEST.onnx     the model of each ONNX backend node test
                     (/usr/share/libonnx-testdata/data/node/TEST/model.onnx)
  hostile-CASE.onnx  the models of the hostile-model corpus
                     (test/robustness/make_corpus.py; needs python onnx)
  text-NAME.onnxtxt  the text-format models of test/lit/import: they start
                     with '#' (their RUN lines), which makes onnxcc-fuzz read
                     them as text
Files longer than --max-len bytes (default 65536, the -max_len of the runs)
are left out: libFuzzer would only read their first bytes. The output is the
same on every run. To shrink it to the inputs that add coverage:
  onnxcc-fuzz -merge=1 MIN_DIR OUTDIR
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile

NODE_TESTS = "/usr/share/libonnx-testdata/data/node"
SRC_ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))


def copy_seed(src, dst, max_len, counts, kind):
    if os.path.getsize(src) > max_len:
        counts["too long"] = counts.get("too long", 0) + 1
        return
    shutil.copyfile(src, dst)
    counts[kind] = counts.get(kind, 0) + 1


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("outdir")
    ap.add_argument("--max-len", type=int, default=65536)
    ap.add_argument("--no-robustness", action="store_true",
                    help="leave out the hostile-model corpus (it needs python onnx)")
    args = ap.parse_args()
    if os.path.exists(args.outdir):
        shutil.rmtree(args.outdir)
    os.makedirs(args.outdir)
    counts = {}

    if os.path.isdir(NODE_TESTS):
        for test in sorted(os.listdir(NODE_TESTS)):
            src = os.path.join(NODE_TESTS, test, "model.onnx")
            if os.path.isfile(src):
                copy_seed(src, os.path.join(args.outdir, "node-%s.onnx" % test), args.max_len,
                          counts, "node")

    import_dir = os.path.join(SRC_ROOT, "test", "lit", "import")
    for name in sorted(os.listdir(import_dir)):
        if name.endswith(".onnxtxt"):
            copy_seed(os.path.join(import_dir, name),
                      os.path.join(args.outdir, "text-" + name), args.max_len, counts, "text")

    if not args.no_robustness:
        with tempfile.TemporaryDirectory() as tmp:
            corpus = os.path.join(tmp, "corpus")
            subprocess.run([sys.executable,
                            os.path.join(SRC_ROOT, "test", "robustness", "make_corpus.py"),
                            corpus], check=True, stdout=subprocess.DEVNULL)
            with open(os.path.join(corpus, "manifest.jsonl")) as f:
                cases = [json.loads(line) for line in f]
            for case in cases:
                model = case["model"]
                ext = ".onnxtxt" if model.endswith(".onnxtxt") else ".onnx"
                src = os.path.join(corpus, model)
                dst = os.path.join(args.outdir, "hostile-%s%s" % (case["name"], ext))
                if ext == ".onnxtxt":
                    # onnxcc-fuzz reads an input as text when it starts with '#'.
                    with open(src, "rb") as f:
                        data = b"# text\n" + f.read()
                    if len(data) <= args.max_len:
                        with open(dst, "wb") as f:
                            f.write(data)
                        counts["hostile"] = counts.get("hostile", 0) + 1
                    continue
                copy_seed(src, dst, args.max_len, counts, "hostile")

    total = sum(v for k, v in counts.items() if k != "too long")
    print("seeds: %d in %s (%s)" % (total, args.outdir,
                                    ", ".join("%s %d" % kv for kv in sorted(counts.items()))))


if __name__ == "__main__":
    main()
