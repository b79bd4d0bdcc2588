#!/usr/bin/python3
"""Checks of target.test on `onnxcc target-info`'s output.

  check_target.py features INFO      the Halide target names
      avx512_sapphirerapids only when the features include AVX512-FP16 and
      AMX (Halide's code for it uses both).
  check_target.py stamp INFO STAMP   the command in verify's pipeline stamp
      runs the generator for INFO's Halide target, without the runtime.
"""
import sys


def read_info(path):
    info = {}
    for line in open(path).read().splitlines():
        key, _, value = line.partition(": ")
        info[key] = value
    return info


def main():
    info = read_info(sys.argv[2])
    target = info["halide-target"]
    if sys.argv[1] == "features":
        features = set(info["features"].split())
        if "sapphirerapids" in target and not {"avx512fp16", "amx-tile"} <= features:
            sys.exit("sapphirerapids without AVX512-FP16/AMX: " + target)
        return
    words = open(sys.argv[3]).read().split()
    want = "target=" + target + "-no_runtime"
    if want not in words:
        sys.exit("%s not in the stamp: %s" % (want, " ".join(words)))


main()
