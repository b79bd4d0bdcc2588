#!/usr/bin/python3
"""Packs what test/gpu/run_on_device.sh needs into one archive.

Usage: pack_cases.py --results R --cache C --data D --zoo Z --out OUT.tgz

  R  the results file of `run_conformance.py --target cuda --cache C
     --results R` run here (no GPU): the tests whose status is `built`
     were compiled and their harness built, and are packed;
  D  the folder of those tests (their datasets and model.onnx);
  Z  a folder of zoo cases, each Z/NAME with `run` (the harness that
     `onnxcc verify --target cuda --keep` built), `latency` (test/gpu/
     latency_main.cpp built against the same generated code), its
     test_data_set_* and tolerance (test/gpu/make_device_models.py).

Harness binaries are stripped; the archive holds cases/TEST/... and
zoo/NAME/..., and a list of what is in it (manifest.txt).
"""
import argparse
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile


def copy_case(src_run, data_dir, dst, extra=()):
    os.makedirs(dst)
    shutil.copy(src_run, os.path.join(dst, "run"))
    subprocess.run(["strip", os.path.join(dst, "run")], check=True)
    for entry in sorted(os.listdir(data_dir)):
        path = os.path.join(data_dir, entry)
        if entry.startswith("test_data_set_") and os.path.isdir(path):
            shutil.copytree(path, os.path.join(dst, entry))
        elif entry in ("tolerance",) + tuple(extra):
            shutil.copy(path, os.path.join(dst, entry))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--results", required=True)
    parser.add_argument("--cache", required=True)
    parser.add_argument("--data", required=True)
    parser.add_argument("--zoo")
    parser.add_argument("--out", required=True)
    args = parser.parse_args()
    built = []
    with open(args.results) as f:
        for line in f:
            name, _, rest = line.partition(": ")
            if rest.split(" ", 1)[0].strip() == "built":
                built.append(name)
    if not built:
        sys.exit("no test of %s is `built`" % args.results)
    with tempfile.TemporaryDirectory() as work:
        manifest = []
        for name in built:
            suite, test = name.split("/", 1)
            copy_case(os.path.join(args.cache, suite, test, "run"),
                      os.path.join(args.data, test), os.path.join(work, "cases", test),
                      extra=("model.onnx",))
            manifest.append("case " + test)
        if args.zoo:
            for model in sorted(os.listdir(args.zoo)):
                src = os.path.join(args.zoo, model)
                dst = os.path.join(work, "zoo", model)
                copy_case(os.path.join(src, "run"), src, dst)
                shutil.copy(os.path.join(src, "latency"), os.path.join(dst, "latency"))
                subprocess.run(["strip", os.path.join(dst, "latency")], check=True)
                manifest.append("zoo " + model)
        with open(os.path.join(work, "manifest.txt"), "w") as f:
            f.write("\n".join(manifest) + "\n")
        with tarfile.open(args.out, "w:gz", compresslevel=9) as tar:
            for entry in ("cases", "zoo", "manifest.txt"):
                if os.path.exists(os.path.join(work, entry)):
                    tar.add(os.path.join(work, entry), arcname=entry)
    print("%s: %d tests, %d bytes" % (args.out, len(built), os.path.getsize(args.out)))


if __name__ == "__main__":
    main()
