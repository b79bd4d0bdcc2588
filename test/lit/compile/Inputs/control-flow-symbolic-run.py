"""Runs scan-seq.onnx compiled with its symbolic dim `seq` (a shared library
of the generated code, through the C ABI with ctypes) on each dataset of
OUT_DIR/scan-seq, and compares with the outputs ONNX Runtime wrote there.

Usage: control-flow-symbolic-run.py LIBRARY OUT_DIR
Prints one line per dataset: `seq N: ok` or what differs.
"""
import ctypes
import glob
import os
import sys

import numpy as np
import onnx
from onnx import numpy_helper

lib = ctypes.CDLL(sys.argv[1])
lib.scan_seq_arena_size.restype = ctypes.c_size_t
lib.scan_seq_arena_size.argtypes = [ctypes.c_int64]
f32p = ctypes.POINTER(ctypes.c_float)
lib.scan_seq_run.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int64, f32p, f32p, f32p,
                             f32p]


def read(path):
    t = onnx.TensorProto()
    with open(path, "rb") as f:
        t.ParseFromString(f.read())
    return numpy_helper.to_array(t)


def ptr(a):
    return a.ctypes.data_as(f32p)


for d in sorted(glob.glob(os.path.join(sys.argv[2], "scan-seq", "test_data_set_*"))):
    a0, xs = read(os.path.join(d, "input_0.pb")), read(os.path.join(d, "input_1.pb"))
    want_a, want_ys = read(os.path.join(d, "output_0.pb")), read(os.path.join(d, "output_1.pb"))
    seq = xs.shape[0]
    size = lib.scan_seq_arena_size(seq)
    arena = np.zeros(size + 64, np.uint8)
    offset = (-arena.ctypes.data) % 64
    a = np.zeros(4, np.float32)
    ys = np.zeros((seq, 4), np.float32)
    status = lib.scan_seq_run(arena.ctypes.data + offset, size, seq, ptr(np.ascontiguousarray(a0)),
                              ptr(np.ascontiguousarray(xs)), ptr(a), ptr(ys))
    ok = status == 0 and np.allclose(a, want_a, atol=1e-5) and np.allclose(ys, want_ys, atol=1e-5)
    print("seq %d: %s" % (seq, "ok" if ok else "status %d, a %s, ys %s" % (status, a, ys)))
