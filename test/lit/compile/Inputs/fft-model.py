"""Writes OUT/fft17.onnx (opset 17: DFT with the axis attribute, STFT) and
OUT/fft20.onnx (opset 20: DFT with axis and dft_length inputs), each with
OUT/<model>/test_data_set_0 holding its inputs and the outputs numpy.fft
computes for them (float64, rounded to float32).

The lengths reach every path of the FFT kernels: powers of two (256, 1024,
4096), the Whisper window 400 = 4 * 4 * 5 * 5, 420 = 3 * 5 * 7 * 4 (an odd
radix-7 stage), the primes 401 and 1021 (Bluestein); real and complex
input, forward, inverse, one-sided (RFFT) and IRFFT, zero-padding and
truncation by dft_length, the axis first, in the middle and last, batches
of one and more lines. Inputs are scaled so that every output has an RMS
near 1 (forward: 1 / sqrt(n); inverse: sqrt(n)), so that one absolute
tolerance fits them all.

usage: fft-model.py OUT
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

out = sys.argv[1]
rng = np.random.default_rng(11)


def rand(shape, scale):
    return (rng.standard_normal(shape) * scale).astype(np.float32)


def cplx(a):
    """[..., 2] float array -> complex128."""
    a = a.astype(np.float64)
    return a[..., 0] + 1j * a[..., 1]


def stack(z):
    """complex array -> [..., 2] float32."""
    return np.stack([z.real, z.imag], axis=-1).astype(np.float32)


class Model:
    def __init__(self, name, opset):
        self.name, self.opset = name, opset
        self.inputs, self.outputs, self.nodes, self.inits = [], [], [], []
        self.feeds, self.expected = {}, {}

    def input(self, name, value):
        self.inputs.append(
            helper.make_tensor_value_info(name, TensorProto.FLOAT, list(value.shape)))
        self.feeds[name] = value
        return name

    def const(self, name, value):
        self.inits.append(numpy_helper.from_array(np.asarray(value), name))
        return name

    def node(self, op, ins, name, expected, **attrs):
        self.nodes.append(helper.make_node(op, ins, [name], name=name + "_node", **attrs))
        self.outputs.append(
            helper.make_tensor_value_info(name, TensorProto.FLOAT, list(expected.shape)))
        self.expected[name] = expected.astype(np.float32)

    def dft(self, name, x, n=None, axis=-2, inverse=0, onesided=0, pass_length=False):
        """DFT of input `x` (already added) along `axis`; numpy's answer."""
        xv = self.feeds[x]
        rank = xv.ndim
        ax = axis % rank
        z = cplx(xv) if xv.shape[-1] == 2 else xv[..., 0].astype(np.float64)
        ins = [x]
        if n is not None or pass_length:
            ins.append(self.const(name + "_len", np.array(n, dtype=np.int64)))
        else:
            ins.append("")
        attrs = {"inverse": inverse, "onesided": onesided}
        if self.opset >= 20:
            ins.append(self.const(name + "_axis", np.array(axis, dtype=np.int64)))
        else:
            attrs["axis"] = axis
        while ins and ins[-1] == "":
            ins.pop()
        if inverse and onesided:
            length = n if n is not None else 2 * (xv.shape[ax] - 1)
            y = np.fft.irfft(z, n=length, axis=ax)[..., None]
        elif inverse:
            y = stack(np.fft.ifft(z, n=n, axis=ax))
        elif onesided:
            y = stack(np.fft.rfft(z, n=n, axis=ax))
        else:
            y = stack(np.fft.fft(z, n=n, axis=ax))
        self.node("DFT", ins, name, y, **attrs)

    def save(self):
        graph = helper.make_graph(self.nodes, self.name, self.inputs, self.outputs, self.inits)
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", self.opset)])
        model.ir_version = 8 if self.opset <= 17 else 9
        # (This onnx, 1.12, knows opsets up to 17; its shape inference
        # counts 99 frames for the audio STFT, where the spec's
        # (16000 - 400) // 160 + 1 is 98.)
        if self.opset <= 17:
            onnx.checker.check_model(model)
        onnx.save(model, os.path.join(out, self.name + ".onnx"))
        data = os.path.join(out, self.name, "test_data_set_0")
        os.makedirs(data, exist_ok=True)
        for i, value in enumerate(self.inputs):
            t = numpy_helper.from_array(self.feeds[value.name], value.name)
            open(os.path.join(data, "input_%d.pb" % i), "wb").write(t.SerializeToString())
        for i, value in enumerate(self.outputs):
            t = numpy_helper.from_array(self.expected[value.name], value.name)
            open(os.path.join(data, "output_%d.pb" % i), "wb").write(t.SerializeToString())


def fwd(n):
    return 1.0 / np.sqrt(n)


def inv(n):
    return np.sqrt(n)


# Opset 20: axis and dft_length as inputs.
m = Model("fft20", 20)
m.dft("real_256", m.input("x_real_256", rand((3, 256, 1), fwd(256))))
m.dft("rfft_400", m.input("x_rfft_400", rand((2, 400, 1), fwd(400))), onesided=1)
m.dft("prime_401", m.input("x_prime_401", rand((2, 401, 2), fwd(401))))
m.dft("inverse_1024", m.input("x_inverse_1024", rand((1, 1024, 2), inv(1024))), inverse=1)
m.dft("mixed_420_axis1", m.input("x_mixed_420", rand((2, 420, 3, 2), fwd(420))), axis=1)
m.dft("irfft_400", m.input("x_irfft_400", rand((3, 201, 2), inv(400) / np.sqrt(2))),
      inverse=1, onesided=1)
m.dft("padded_401", m.input("x_padded_300", rand((2, 300, 1), fwd(300))), n=401)
m.dft("truncated_1021", m.input("x_truncated_1030", rand((2, 1030, 2), fwd(1021))), n=1021)
m.dft("inverse_real_axis0", m.input("x_inverse_real", rand((256, 5, 1), inv(256))), axis=0,
      inverse=1)
m.dft("rfft_100_axis1", m.input("x_rfft_100", rand((4, 100, 3, 1), fwd(100))), axis=-3,
      onesided=1)
m.dft("complex_4096", m.input("x_complex_4096", rand((2, 4096, 2), fwd(4096))))
m.dft("irfft_1021_len", m.input("x_irfft_1021", rand((2, 511, 2), inv(1021) / np.sqrt(2))),
      n=1021, inverse=1, onesided=1)
m.save()

# Opset 17: DFT's axis attribute; STFT of 1 s of 16 kHz audio (Whisper's
# n_fft 400, hop 160, periodic Hann window) and of a complex signal.
m = Model("fft17", 17)
m.dft("rfft_256_axis1", m.input("x_rfft_256", rand((2, 256, 1), fwd(256))), axis=1,
      onesided=1)
m.dft("inverse_401", m.input("x_inverse_401", rand((2, 401, 2), inv(401))), axis=1, inverse=1)
# |X| of a Hann-windowed N(0, s^2) frame is about s sqrt(400 * 3 / 8).
audio = rand((2, 16000, 1), 1.0 / np.sqrt(400 * 3 / 8))
m.input("audio", audio)
hann = (0.5 - 0.5 * np.cos(2 * np.pi * np.arange(400) / 400)).astype(np.float32)
m.input("hann", hann)
frames = (16000 - 400) // 160 + 1
idx = np.arange(frames)[:, None] * 160 + np.arange(400)[None, :]
spec = np.fft.rfft(audio[:, idx, 0].astype(np.float64) * hann.astype(np.float64), axis=-1)
m.node("STFT", ["audio", m.const("hop", np.array(160, dtype=np.int64)), "hann"], "stft_audio",
       stack(spec), onesided=1)
signal = rand((1, 3000, 2), fwd(256))
m.input("signal", signal)
sframes = (3000 - 256) // 100 + 1
sidx = np.arange(sframes)[:, None] * 100 + np.arange(256)[None, :]
sspec = np.fft.fft(cplx(signal)[:, sidx], axis=-1)
m.node("STFT", ["signal", m.const("step", np.array(100, dtype=np.int64)), "",
                m.const("frame_length", np.array(256, dtype=np.int64))], "stft_complex",
       stack(sspec), onesided=0)
m.save()
