#!/usr/bin/python3
"""Exports the models users deploy, with an ONNX backend-test dataset each.

Usage: /usr/bin/python3 test/models/make_user_models.py NAME OUTDIR [--small]

Writes OUTDIR/model.onnx and OUTDIR/test_data_set_0/{input_K,output_K}.pb, the
outputs computed by PyTorch (numpy for stft_dft): the reference that
`onnxcc verify` and bench/run.py compare with. The architectures are written
here in PyTorch (no `transformers` on the machine), at the shapes of the real
models, with random weights and inputs from fixed seeds, so that every run
writes the same tensors. --small shrinks every dim (layers, widths, vocabulary,
sequence, image) to a model that exports in a second, for the lit tests; the
graph has the same ops.

NAME is one of

  bert_base     BERT-base: 12 post-LN layers, d 768, 12 heads, feed-forward
                3072 (erf GELU), vocabulary 30522, inputs input_ids,
                attention_mask (the last 28 of 128 tokens are padding),
                token_type_ids int64[batch, seq]; outputs last_hidden_state
                [1, 128, 768] and pooler_output [1, 768]. Opset 14 (the
                LayerNorms are decomposed), dims batch and seq symbolic, as
                Hugging Face's exports have them.
  minilm_l6     a MiniLM-L6 sentence embedder (all-MiniLM-L6-v2's shape): the
                BERT encoder with 6 layers, d 384, 12 heads, feed-forward
                1536, then mean pooling over the attention mask and L2
                normalization; output sentence_embedding [1, 384]. Opset 14.
  vit_b16       ViT-B/16: 16x16 patches of a 224x224 image (a Conv), class
                token, learned positions, 12 pre-LN layers of d 768, 12
                heads, MLP 3072, head of 1000 classes. Opset 17.
  whisper_tiny_encoder  Whisper-tiny's audio encoder: mel [1, 80, 3000],
                Conv1d 80->384 k3 and Conv1d 384->384 k3 stride 2 (GELU
                each), sinusoidal positions, 4 pre-LN layers of d 384 with 6
                heads (Q and K each scaled by d_head^-0.25, K without bias),
                final LayerNorm; output [1, 1500, 384]. Opset 17.
  gpt2_decode   one decode step of GPT-2 small: 12 layers, d 768, 12 heads,
                vocabulary 50257 (tied LM head); inputs input_ids [1, 1],
                attention_mask [1, 128] and past_key_values.L.key/value
                [1, 12, 127, 64] for each layer; outputs logits [1, 1, 50257]
                and present.L.key/value [1, 12, 128, 64]. Opset 14.
  melspec       Whisper's log-mel front end on 30 s of 16 kHz audio: reflect
                padding, the STFT as a Conv1d with fixed Hann-windowed cos/sin
                weights (n_fft 400, hop 160), power, an 80-band mel filter
                bank (MatMul), log10, dynamic-range clamp; input
                audio [1, 480000], output [1, 80, 3000]. Opset 17.
  stft_dft      audio features with the opset-20 signal ops (built with
                onnx.helper, numpy reference): STFT (frame 400, hop 160, Hann
                window) of signal [1, 16000, 1], power, 40 mel bands, log,
                then a DFT along the mel axis (its real part over 40);
                output [1, 98, 40].
  gru_classifier  a text classifier: Embedding (10000 x 128), a 2-layer
                bidirectional GRU of 256, Linear over the last layer's two
                final states; input ids int64[1, 64], output [1, 4]. Opset 14.
  unet_bn       a small UNet (3 levels, 32-64-128 channels, 128x128 image):
                Conv + BatchNormalization + Relu blocks, MaxPool, ConvTranspose
                2x2 stride 2 up, skip Concats; exported with the
                BatchNormalization nodes kept (TrainingMode.PRESERVE, no
                constant folding), as a user's export has them. Opset 17.
  unet_groupnorm  the same UNet with GroupNormalization (8 groups, opset 21's
                per-channel scale and bias) and SiLU, as diffusion UNets have
                it; exported through a custom op that becomes a standard
                GroupNormalization node of opset 21.
  const_weights_cnn  a small CNN classifier exported at opset 9, every
                weight then turned into a Constant node and a bias of one
                repeated value into ConstantOfShape, as old exporters and
                converters write them (no initializers at all); input
                [1, 3, 64, 64], output [1, 10].
"""
import math
import os
import sys
import warnings

import numpy as np
import onnx
from onnx import helper, numpy_helper, TensorProto
import torch
import torch.nn.functional as F


# --- Shared pieces -------------------------------------------------------------

def init_weights(model, seed, std=0.02):
    """BERT-style initialization from `seed`: linear and embedding weights
    N(0, std), biases N(0, std) (not zero, so that adding them is tested),
    LayerNorm/GroupNorm scales 1 + N(0, 0.1) and shifts N(0, 0.1)."""
    g = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for m in model.modules():
            if isinstance(m, (torch.nn.Linear, torch.nn.Embedding)):
                m.weight.copy_(torch.randn(m.weight.shape, generator=g) * std)
                if getattr(m, "bias", None) is not None:
                    m.bias.copy_(torch.randn(m.bias.shape, generator=g) * std)
            elif isinstance(m, (torch.nn.LayerNorm, torch.nn.GroupNorm)):
                m.weight.copy_(1 + torch.randn(m.weight.shape, generator=g) * 0.1)
                m.bias.copy_(torch.randn(m.bias.shape, generator=g) * 0.1)


def gelu_tanh(x):
    """GPT-2's gelu_new."""
    return 0.5 * x * (1.0 + torch.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * x.pow(3))))


def additive_mask(mask):
    """[batch, seq] of 0/1 to what is added to the attention scores, as
    Hugging Face's models make it: 0 to keep, float32's minimum to drop."""
    return (1.0 - mask[:, None, None, :].to(torch.float32)) * torch.finfo(torch.float32).min


def split_heads(x, heads):
    b, s, d = x.shape
    return x.view(b, s, heads, d // heads).permute(0, 2, 1, 3)


def merge_heads(x):
    b, h, s, dh = x.shape
    return x.permute(0, 2, 1, 3).reshape(b, s, h * dh)


# --- BERT and the MiniLM sentence embedder -------------------------------------

class BertLayer(torch.nn.Module):
    def __init__(self, d, heads, ff):
        super().__init__()
        self.heads, self.head_dim = heads, d // heads
        self.query = torch.nn.Linear(d, d)
        self.key = torch.nn.Linear(d, d)
        self.value = torch.nn.Linear(d, d)
        self.attn_out = torch.nn.Linear(d, d)
        self.attn_norm = torch.nn.LayerNorm(d, eps=1e-12)
        self.intermediate = torch.nn.Linear(d, ff)
        self.output = torch.nn.Linear(ff, d)
        self.out_norm = torch.nn.LayerNorm(d, eps=1e-12)

    def forward(self, x, mask):
        q = split_heads(self.query(x), self.heads)
        k = split_heads(self.key(x), self.heads)
        v = split_heads(self.value(x), self.heads)
        scores = q @ k.transpose(-1, -2) / math.sqrt(self.head_dim) + mask
        context = merge_heads(torch.softmax(scores, -1) @ v)
        x = self.attn_norm(x + self.attn_out(context))
        return self.out_norm(x + self.output(F.gelu(self.intermediate(x))))


class Bert(torch.nn.Module):
    def __init__(self, vocab, d, layers, heads, ff, max_positions=512, pooling="cls"):
        super().__init__()
        self.words = torch.nn.Embedding(vocab, d)
        self.positions = torch.nn.Embedding(max_positions, d)
        self.token_types = torch.nn.Embedding(2, d)
        self.embed_norm = torch.nn.LayerNorm(d, eps=1e-12)
        self.layers = torch.nn.ModuleList(BertLayer(d, heads, ff) for _ in range(layers))
        self.pooling = pooling
        if pooling == "cls":
            self.pooler = torch.nn.Linear(d, d)
        self.register_buffer("position_ids", torch.arange(max_positions)[None, :])

    def forward(self, input_ids, attention_mask, token_type_ids):
        seq = input_ids.shape[1]
        x = (self.words(input_ids) + self.positions(self.position_ids[:, :seq]) +
             self.token_types(token_type_ids))
        x = self.embed_norm(x)
        mask = additive_mask(attention_mask)
        for layer in self.layers:
            x = layer(x, mask)
        if self.pooling == "cls":
            return x, torch.tanh(self.pooler(x[:, 0]))
        # sentence-transformers' mean pooling, then normalize.
        weights = attention_mask[:, :, None].to(torch.float32)
        summed = (x * weights).sum(1)
        counts = torch.clamp(weights.sum(1), min=1e-9)
        return F.normalize(summed / counts, p=2.0, dim=1)


def text_inputs(vocab, seq, padding, seed):
    g = torch.Generator().manual_seed(seed)
    ids = torch.randint(0, vocab, (1, seq), generator=g)
    mask = torch.ones(1, seq, dtype=torch.int64)
    mask[:, seq - padding:] = 0
    ids[:, seq - padding:] = 0  # [PAD]
    types = torch.zeros(1, seq, dtype=torch.int64)
    types[:, seq // 2:seq - padding] = 1  # a second segment
    return ids, mask, types


def make_bert(small):
    if small:
        model, seq, pad = Bert(vocab=100, d=32, layers=2, heads=4, ff=64), 16, 4
    else:
        model, seq, pad = Bert(vocab=30522, d=768, layers=12, heads=12, ff=3072), 128, 28
    init_weights(model, 1)
    inputs = text_inputs(model.words.num_embeddings, seq, pad, 2)
    names = ["input_ids", "attention_mask", "token_type_ids"]
    axes = {n: {0: "batch", 1: "seq"} for n in names}
    axes.update({"last_hidden_state": {0: "batch", 1: "seq"}, "pooler_output": {0: "batch"}})
    return dict(model=model, inputs=inputs, input_names=names,
                output_names=["last_hidden_state", "pooler_output"], dynamic_axes=axes,
                opset_version=14)


def make_minilm(small):
    if small:
        model, seq, pad = Bert(vocab=100, d=24, layers=2, heads=4, ff=48, pooling="mean"), 16, 5
    else:
        model, seq, pad = Bert(vocab=30522, d=384, layers=6, heads=12, ff=1536,
                               pooling="mean"), 128, 28
    init_weights(model, 3)
    inputs = text_inputs(model.words.num_embeddings, seq, pad, 4)
    names = ["input_ids", "attention_mask", "token_type_ids"]
    axes = {n: {0: "batch", 1: "seq"} for n in names}
    axes["sentence_embedding"] = {0: "batch"}
    return dict(model=model, inputs=inputs, input_names=names,
                output_names=["sentence_embedding"], dynamic_axes=axes, opset_version=14)


# --- ViT-B/16 ------------------------------------------------------------------

class VitBlock(torch.nn.Module):
    def __init__(self, d, heads, mlp):
        super().__init__()
        self.heads = heads
        self.norm1 = torch.nn.LayerNorm(d, eps=1e-6)
        self.qkv = torch.nn.Linear(d, 3 * d)
        self.proj = torch.nn.Linear(d, d)
        self.norm2 = torch.nn.LayerNorm(d, eps=1e-6)
        self.fc1 = torch.nn.Linear(d, mlp)
        self.fc2 = torch.nn.Linear(mlp, d)

    def forward(self, x):
        b, n, d = x.shape
        qkv = self.qkv(self.norm1(x)).reshape(b, n, 3, self.heads, d // self.heads)
        q, k, v = qkv.permute(2, 0, 3, 1, 4).unbind(0)
        attn = torch.softmax((q @ k.transpose(-2, -1)) * (d // self.heads) ** -0.5, -1)
        x = x + self.proj(merge_heads(attn @ v))
        return x + self.fc2(F.gelu(self.fc1(self.norm2(x))))


class Vit(torch.nn.Module):
    def __init__(self, image, patch, d, layers, heads, mlp, classes):
        super().__init__()
        self.patch = torch.nn.Conv2d(3, d, patch, stride=patch)
        tokens = (image // patch) ** 2 + 1
        self.cls = torch.nn.Parameter(torch.zeros(1, 1, d))
        self.pos = torch.nn.Parameter(torch.zeros(1, tokens, d))
        self.blocks = torch.nn.ModuleList(VitBlock(d, heads, mlp) for _ in range(layers))
        self.norm = torch.nn.LayerNorm(d, eps=1e-6)
        self.head = torch.nn.Linear(d, classes)

    def forward(self, x):
        x = self.patch(x).flatten(2).transpose(1, 2)
        x = torch.cat([self.cls.expand(x.shape[0], -1, -1), x], 1) + self.pos
        for block in self.blocks:
            x = block(x)
        return self.head(self.norm(x)[:, 0])


def make_vit(small):
    if small:
        model, image = Vit(32, 8, d=32, layers=2, heads=4, mlp=64, classes=10), 32
    else:
        model, image = Vit(224, 16, d=768, layers=12, heads=12, mlp=3072, classes=1000), 224
    init_weights(model, 5)
    g = torch.Generator().manual_seed(6)
    with torch.no_grad():
        model.cls.copy_(torch.randn(model.cls.shape, generator=g) * 0.02)
        model.pos.copy_(torch.randn(model.pos.shape, generator=g) * 0.02)
    x = torch.randn(1, 3, image, image, generator=g)
    return dict(model=model, inputs=(x,), input_names=["pixel_values"],
                output_names=["logits"], dynamic_axes=None, opset_version=17)


# --- Whisper-tiny's encoder ------------------------------------------------------

def sinusoids(length, channels, max_timescale=10000):
    """Whisper's positional embedding."""
    increment = math.log(max_timescale) / (channels // 2 - 1)
    inv = torch.exp(-increment * torch.arange(channels // 2))
    t = torch.arange(length)[:, None] * inv[None, :]
    return torch.cat([torch.sin(t), torch.cos(t)], dim=1)


class WhisperBlock(torch.nn.Module):
    def __init__(self, d, heads):
        super().__init__()
        self.heads = heads
        self.attn_ln = torch.nn.LayerNorm(d)
        self.query = torch.nn.Linear(d, d)
        self.key = torch.nn.Linear(d, d, bias=False)
        self.value = torch.nn.Linear(d, d)
        self.out = torch.nn.Linear(d, d)
        self.mlp_ln = torch.nn.LayerNorm(d)
        self.fc1 = torch.nn.Linear(d, 4 * d)
        self.fc2 = torch.nn.Linear(4 * d, d)

    def forward(self, x):
        h = self.attn_ln(x)
        scale = (x.shape[-1] // self.heads) ** -0.25
        q = split_heads(self.query(h), self.heads) * scale
        k = split_heads(self.key(h), self.heads) * scale
        v = split_heads(self.value(h), self.heads)
        x = x + self.out(merge_heads(torch.softmax(q @ k.transpose(-1, -2), -1) @ v))
        return x + self.fc2(F.gelu(self.fc1(self.mlp_ln(x))))


class WhisperEncoder(torch.nn.Module):
    def __init__(self, mels, frames, d, layers, heads):
        super().__init__()
        self.conv1 = torch.nn.Conv1d(mels, d, 3, padding=1)
        self.conv2 = torch.nn.Conv1d(d, d, 3, stride=2, padding=1)
        self.register_buffer("positions", sinusoids(frames // 2, d))
        self.blocks = torch.nn.ModuleList(WhisperBlock(d, heads) for _ in range(layers))
        self.ln_post = torch.nn.LayerNorm(d)

    def forward(self, mel):
        x = F.gelu(self.conv1(mel))
        x = F.gelu(self.conv2(x)).permute(0, 2, 1)
        x = x + self.positions
        for block in self.blocks:
            x = block(x)
        return self.ln_post(x)


def make_whisper(small):
    mels, frames = (16, 64) if small else (80, 3000)
    model = (WhisperEncoder(mels, frames, d=32, layers=2, heads=2) if small else
             WhisperEncoder(mels, frames, d=384, layers=4, heads=6))
    init_weights(model, 7)
    g = torch.Generator().manual_seed(8)
    # A log-mel spectrogram is about in [-1, 1.5] after Whisper's scaling.
    mel = torch.rand(1, mels, frames, generator=g) * 2.5 - 1
    return dict(model=model, inputs=(mel,), input_names=["input_features"],
                output_names=["last_hidden_state"], dynamic_axes=None, opset_version=17)


# --- A GPT-2 small decode step ----------------------------------------------------

class Gpt2Block(torch.nn.Module):
    def __init__(self, d, heads, positions):
        super().__init__()
        self.heads, self.head_dim = heads, d // heads
        self.ln_1 = torch.nn.LayerNorm(d)
        self.c_attn = torch.nn.Linear(d, 3 * d)
        self.c_proj = torch.nn.Linear(d, d)
        self.ln_2 = torch.nn.LayerNorm(d)
        self.c_fc = torch.nn.Linear(d, 4 * d)
        self.mlp_proj = torch.nn.Linear(4 * d, d)
        # Hugging Face's causal mask buffer, sliced at run time.
        self.register_buffer("bias", torch.tril(torch.ones(positions, positions, dtype=torch.bool))
                             [None, None])

    def forward(self, x, past_key, past_value, mask):
        q, k, v = self.c_attn(self.ln_1(x)).split(x.shape[-1], dim=2)
        q, k, v = (split_heads(t, self.heads) for t in (q, k, v))
        key = torch.cat([past_key, k], dim=-2)
        value = torch.cat([past_value, v], dim=-2)
        scores = q @ key.transpose(-1, -2) / math.sqrt(self.head_dim)
        q_len, kv_len = q.shape[-2], key.shape[-2]
        causal = self.bias[:, :, kv_len - q_len:kv_len, :kv_len]
        scores = torch.where(causal, scores, torch.tensor(torch.finfo(torch.float32).min))
        x = x + self.c_proj(merge_heads(torch.softmax(scores + mask, -1) @ value))
        x = x + self.mlp_proj(gelu_tanh(self.c_fc(self.ln_2(x))))
        return x, key, value


class Gpt2Decode(torch.nn.Module):
    def __init__(self, vocab, positions, d, layers, heads):
        super().__init__()
        self.wte = torch.nn.Embedding(vocab, d)
        self.wpe = torch.nn.Embedding(positions, d)
        self.blocks = torch.nn.ModuleList(Gpt2Block(d, heads, positions) for _ in range(layers))
        self.ln_f = torch.nn.LayerNorm(d)

    def forward(self, input_ids, attention_mask, *past):
        past_len = past[0].shape[-2]
        position_ids = torch.arange(past_len, past_len + input_ids.shape[1])[None, :]
        x = self.wte(input_ids) + self.wpe(position_ids)
        mask = additive_mask(attention_mask)
        presents = []
        for i, block in enumerate(self.blocks):
            x, key, value = block(x, past[2 * i], past[2 * i + 1], mask)
            presents += [key, value]
        logits = self.ln_f(x) @ self.wte.weight.t()  # the tied LM head
        return (logits, *presents)


def make_gpt2(small):
    if small:
        vocab, positions, d, layers, heads, past = 100, 32, 32, 2, 4, 7
    else:
        vocab, positions, d, layers, heads, past = 50257, 1024, 768, 12, 12, 127
    model = Gpt2Decode(vocab, positions, d, layers, heads)
    init_weights(model, 9)
    g = torch.Generator().manual_seed(10)
    ids = torch.randint(0, vocab, (1, 1), generator=g)
    mask = torch.ones(1, past + 1, dtype=torch.int64)
    cache = [torch.randn(1, heads, past, d // heads, generator=g) for _ in range(2 * layers)]
    names = ["input_ids", "attention_mask"]
    outputs = ["logits"]
    axes = {"input_ids": {0: "batch", 1: "seq"},
            "attention_mask": {0: "batch", 1: "total_seq"},
            "logits": {0: "batch", 1: "seq"}}
    for i in range(layers):
        for kind in ("key", "value"):
            names.append("past_key_values.%d.%s" % (i, kind))
            outputs.append("present.%d.%s" % (i, kind))
            axes[names[-1]] = {0: "batch", 2: "past_seq"}
            axes[outputs[-1]] = {0: "batch", 2: "total_seq"}
    return dict(model=model, inputs=(ids, mask, *cache), input_names=names,
                output_names=outputs, dynamic_axes=axes, opset_version=14)


# --- Audio front ends ----------------------------------------------------------------

def hann(n):
    """The periodic Hann window (torch.hann_window's default)."""
    return 0.5 - 0.5 * np.cos(2 * np.pi * np.arange(n) / n)


def mel_filters(sample_rate, n_fft, bands):
    """A triangular mel filter bank [n_fft/2 + 1, bands] (HTK mel scale)."""
    def mel(f):
        return 2595.0 * np.log10(1.0 + f / 700.0)

    def hz(m):
        return 700.0 * (10 ** (m / 2595.0) - 1.0)
    bins = np.linspace(0, sample_rate / 2, n_fft // 2 + 1)
    edges = hz(np.linspace(mel(0.0), mel(sample_rate / 2), bands + 2))
    bank = np.zeros((n_fft // 2 + 1, bands))
    for b in range(bands):
        lo, mid, hi = edges[b], edges[b + 1], edges[b + 2]
        bank[:, b] = np.maximum(0, np.minimum((bins - lo) / (mid - lo), (hi - bins) / (hi - mid)))
    return bank.astype(np.float32)


def audio(samples, seed):
    """A few tones and noise, amplitude about 0.3."""
    rng = np.random.default_rng(seed)
    t = np.arange(samples) / 16000.0
    x = sum(0.1 * np.sin(2 * np.pi * f * t) for f in (220.0, 440.0 * 1.5, 1234.5))
    return (x + 0.02 * rng.standard_normal(samples)).astype(np.float32)


class LogMel(torch.nn.Module):
    """Whisper's log_mel_spectrogram, its STFT written as a Conv1d."""

    def __init__(self, n_fft, hop, bands):
        super().__init__()
        self.n_fft, self.hop = n_fft, hop
        k = np.arange(n_fft // 2 + 1)[:, None]
        n = np.arange(n_fft)[None, :]
        window = hann(n_fft)[None, :]
        cos = np.cos(2 * np.pi * k * n / n_fft) * window
        sin = -np.sin(2 * np.pi * k * n / n_fft) * window
        basis = np.concatenate([cos, sin])[:, None, :].astype(np.float32)
        self.register_buffer("basis", torch.from_numpy(basis))
        self.register_buffer("filters", torch.from_numpy(mel_filters(16000, n_fft, bands).T.copy()))

    def forward(self, audio):
        x = F.pad(audio[:, None, :], (self.n_fft // 2, self.n_fft // 2), mode="reflect")
        spec = F.conv1d(x, self.basis, stride=self.hop)
        bins = self.n_fft // 2 + 1
        power = spec[:, :bins] ** 2 + spec[:, bins:] ** 2
        power = power[:, :, :-1]  # Whisper drops the last frame
        mel = self.filters @ power
        log_spec = torch.clamp(mel, min=1e-10).log10()
        log_spec = torch.maximum(log_spec, log_spec.amax(dim=(1, 2), keepdim=True) - 8.0)
        return (log_spec + 4.0) / 4.0


def make_melspec(small):
    samples = 16000 if small else 480000
    model = LogMel(400, 160, 80)
    x = torch.from_numpy(audio(samples, 11))[None, :]
    return dict(model=model, inputs=(x,), input_names=["audio"], output_names=["log_mel"],
                dynamic_axes=None, opset_version=17)


def write_stft_dft(outdir, small):
    """The opset-20 STFT + DFT model and its numpy reference."""
    samples, frame, hop, bands = (4000, 400, 160, 40) if small else (16000, 400, 160, 40)
    frames = (samples - frame) // hop + 1
    window = hann(frame).astype(np.float32)
    bank = mel_filters(16000, frame, bands)
    const = lambda name, array: helper.make_node(  # noqa: E731
        "Constant", [], [name], name=name, value=numpy_helper.from_array(array, name))
    nodes = [
        const("frame_step", np.array(hop, np.int64)),
        const("window", window),
        const("frame_length", np.array(frame, np.int64)),
        helper.make_node("STFT", ["signal", "frame_step", "window", "frame_length"], ["stft"],
                         name="stft", onesided=1),
        helper.make_node("ReduceSumSquare", ["stft", "last_axis"], ["power"], name="power",
                         keepdims=0),
        helper.make_node("MatMul", ["power", "mel_bank"], ["mel"], name="mel"),
        helper.make_node("Add", ["mel", "eps"], ["mel_eps"], name="floor"),
        helper.make_node("Log", ["mel_eps"], ["log_mel"], name="log"),
        helper.make_node("Unsqueeze", ["log_mel", "last_axis"], ["real"], name="as_real"),
        helper.make_node("DFT", ["real", "", "mel_axis"], ["spectrum"], name="dft", onesided=0),
        helper.make_node("Gather", ["spectrum", "zero"], ["spectrum_re"], name="real_part",
                         axis=3),
        helper.make_node("Mul", ["spectrum_re", "inv_bands"], ["features"], name="normalize"),
    ]
    inits = [
        numpy_helper.from_array(np.array([-1], np.int64), "last_axis"),
        numpy_helper.from_array(bank, "mel_bank"),
        numpy_helper.from_array(np.array(1e-6, np.float32), "eps"),
        numpy_helper.from_array(np.array(2, np.int64), "mel_axis"),
        numpy_helper.from_array(np.array(0, np.int64), "zero"),
        numpy_helper.from_array(np.array(1.0 / bands, np.float32), "inv_bands"),
    ]
    graph = helper.make_graph(
        nodes, "stft_dft",
        [helper.make_tensor_value_info("signal", TensorProto.FLOAT, [1, samples, 1])],
        [helper.make_tensor_value_info("features", TensorProto.FLOAT, [1, frames, bands])],
        inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 20)],
                              producer_name="make_user_models.py")
    model.ir_version = 9
    os.makedirs(os.path.join(outdir, "test_data_set_0"), exist_ok=True)
    onnx.save(model, os.path.join(outdir, "model.onnx"))

    signal = audio(samples, 12)
    # float64 reference of the same computation.
    starts = np.arange(frames) * hop
    framed = np.stack([signal[s:s + frame] for s in starts]).astype(np.float64) * window
    spec = np.fft.rfft(framed, n=frame, axis=-1)
    power = spec.real ** 2 + spec.imag ** 2
    log_mel = np.log(power @ bank.astype(np.float64) + np.float32(1e-6))
    features = np.fft.fft(log_mel, axis=-1).real / bands
    write_dataset(outdir, [("signal", signal.reshape(1, samples, 1))],
                  [("features", features[None].astype(np.float32))])


# --- Recurrent and convolutional ------------------------------------------------------

class GruClassifier(torch.nn.Module):
    def __init__(self, vocab, embed, hidden, classes):
        super().__init__()
        self.embed = torch.nn.Embedding(vocab, embed)
        self.gru = torch.nn.GRU(embed, hidden, num_layers=2, bidirectional=True,
                                batch_first=True)
        self.head = torch.nn.Linear(2 * hidden, classes)

    def forward(self, ids):
        _, h = self.gru(self.embed(ids))
        return self.head(torch.cat([h[-2], h[-1]], dim=1))


def make_gru(small):
    vocab, embed, hidden, seq = (50, 16, 24, 12) if small else (10000, 128, 256, 64)
    torch.manual_seed(13)  # the GRU's own (uniform) initialization
    model = GruClassifier(vocab, embed, hidden, 4)
    g = torch.Generator().manual_seed(14)
    ids = torch.randint(0, vocab, (1, seq), generator=g)
    return dict(model=model, inputs=(ids,), input_names=["ids"], output_names=["logits"],
                dynamic_axes=None, opset_version=14)


class GroupNormOp(torch.autograd.Function):
    """torch's GroupNorm, exported as one custom node (renamed to the
    standard GroupNormalization of opset 21 afterwards)."""

    @staticmethod
    def forward(ctx, x, scale, bias, groups, eps):
        return F.group_norm(x, groups, scale, bias, eps)

    @staticmethod
    def symbolic(g, x, scale, bias, groups, eps):
        y = g.op("user_models::GroupNormalization", x, scale, bias, num_groups_i=groups,
                 epsilon_f=eps)
        y.setType(x.type())  # the shape of x: the exporter infers on through it
        return y


class Norm(torch.nn.Module):
    def __init__(self, kind, channels):
        super().__init__()
        self.kind = kind
        self.norm = (torch.nn.BatchNorm2d(channels) if kind == "bn" else
                     torch.nn.GroupNorm(8, channels))

    def forward(self, x):
        if self.kind == "bn":
            return torch.relu(self.norm(x))
        y = GroupNormOp.apply(x, self.norm.weight, self.norm.bias, 8, self.norm.eps)
        return F.silu(y)


class UNet(torch.nn.Module):
    def __init__(self, kind, widths):
        super().__init__()
        c1, c2, c3 = widths

        def block(cin, cout):
            return torch.nn.Sequential(torch.nn.Conv2d(cin, cout, 3, padding=1), Norm(kind, cout),
                                       torch.nn.Conv2d(cout, cout, 3, padding=1), Norm(kind, cout))
        self.down1, self.down2, self.mid = block(3, c1), block(c1, c2), block(c2, c3)
        self.up2 = torch.nn.ConvTranspose2d(c3, c2, 2, stride=2)
        self.up2_norm = Norm(kind, c2)
        self.dec2 = block(2 * c2, c2)
        self.up1 = torch.nn.ConvTranspose2d(c2, c1, 2, stride=2)
        self.up1_norm = Norm(kind, c1)
        self.dec1 = block(2 * c1, c1)
        self.head = torch.nn.Conv2d(c1, 2, 1)

    def forward(self, x):
        s1 = self.down1(x)
        s2 = self.down2(F.max_pool2d(s1, 2))
        m = self.mid(F.max_pool2d(s2, 2))
        d2 = self.dec2(torch.cat([self.up2_norm(self.up2(m)), s2], 1))
        d1 = self.dec1(torch.cat([self.up1_norm(self.up1(d2)), s1], 1))
        return self.head(d1)


def make_unet(kind, small):
    widths, size = ((8, 16, 16), 32) if small else ((32, 64, 128), 128)
    torch.manual_seed(15)
    model = UNet(kind, widths)
    g = torch.Generator().manual_seed(16)
    with torch.no_grad():
        for m in model.modules():
            if isinstance(m, (torch.nn.BatchNorm2d, torch.nn.GroupNorm)):
                c = m.num_features if isinstance(m, torch.nn.BatchNorm2d) else m.num_channels
                m.weight.copy_(torch.rand(c, generator=g) + 0.5)
                m.bias.copy_(torch.randn(c, generator=g) * 0.1)
                if isinstance(m, torch.nn.BatchNorm2d):
                    m.running_mean.copy_(torch.randn(c, generator=g) * 0.1)
                    m.running_var.copy_(torch.rand(c, generator=g) + 0.5)
    x = torch.randn(1, 3, size, size, generator=g)
    spec = dict(model=model, inputs=(x,), input_names=["image"], output_names=["mask_logits"],
                dynamic_axes=None, opset_version=17)
    if kind == "bn":
        spec.update(do_constant_folding=False, training=torch.onnx.TrainingMode.PRESERVE)
    else:
        spec.update(custom_opsets={"user_models": 1}, rewrite=use_standard_group_norm)
    return spec


def use_standard_group_norm(model):
    """The custom node becomes ONNX's GroupNormalization; the default domain
    moves to opset 21 (the graph has no op that changed from 17 to 21)."""
    for node in model.graph.node:
        if node.domain == "user_models":
            node.domain = ""
    del model.opset_import[:]
    model.opset_import.append(helper.make_opsetid("", 21))
    model.ir_version = 10


class SmallCnn(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = torch.nn.Conv2d(3, 16, 3, padding=1)
        self.conv2 = torch.nn.Conv2d(16, 32, 3, padding=1)
        self.conv3 = torch.nn.Conv2d(32, 64, 3, padding=1)
        self.fc = torch.nn.Linear(64, 10)

    def forward(self, x):
        x = F.max_pool2d(torch.relu(self.conv1(x)), 2)
        x = F.max_pool2d(torch.relu(self.conv2(x)), 2)
        x = torch.relu(self.conv3(x))
        return self.fc(F.adaptive_avg_pool2d(x, 1).flatten(1))


def make_const_weights(small):
    torch.manual_seed(17)
    model = SmallCnn()
    with torch.no_grad():
        model.conv2.bias.fill_(0.05)  # one repeated value: ConstantOfShape
    g = torch.Generator().manual_seed(18)
    size = 16 if small else 64
    x = torch.randn(1, 3, size, size, generator=g)
    return dict(model=model, inputs=(x,), input_names=["input"], output_names=["logits"],
                dynamic_axes=None, opset_version=9, rewrite=weights_as_constants)


def weights_as_constants(model):
    """Every initializer becomes a Constant node (a tensor of one repeated
    value: ConstantOfShape), placed first in the graph."""
    nodes = []
    for init in model.graph.initializer:
        array = numpy_helper.to_array(init)
        if array.ndim == 1 and array.size > 1 and np.all(array == array.flat[0]):
            shape = numpy_helper.from_array(np.array(array.shape, np.int64),
                                            init.name + "_shape")
            nodes.append(helper.make_node("Constant", [], [shape.name], name=shape.name,
                                          value=shape))
            nodes.append(helper.make_node(
                "ConstantOfShape", [shape.name], [init.name], name=init.name + "_fill",
                value=numpy_helper.from_array(array.flat[:1].copy(), "value")))
        else:
            nodes.append(helper.make_node("Constant", [], [init.name], name=init.name + "_const",
                                          value=init))
    names = {i.name for i in model.graph.initializer}
    graph_inputs = [i for i in model.graph.input if i.name not in names]
    del model.graph.input[:]
    model.graph.input.extend(graph_inputs)
    del model.graph.initializer[:]
    rest = list(model.graph.node)
    del model.graph.node[:]
    model.graph.node.extend(nodes + rest)


# --- Export -----------------------------------------------------------------------

def write_dataset(outdir, inputs, outputs):
    folder = os.path.join(outdir, "test_data_set_0")
    os.makedirs(folder, exist_ok=True)
    for kind, pairs in (("input", inputs), ("output", outputs)):
        for k, (name, array) in enumerate(pairs):
            proto = numpy_helper.from_array(np.ascontiguousarray(array), name)
            with open(os.path.join(folder, "%s_%d.pb" % (kind, k)), "wb") as f:
                f.write(proto.SerializeToString())


def export(spec, outdir):
    model, inputs = spec.pop("model").eval(), spec.pop("inputs")
    rewrite = spec.pop("rewrite", None)
    os.makedirs(outdir, exist_ok=True)
    path = os.path.join(outdir, "model.onnx")
    with torch.no_grad(), warnings.catch_warnings():
        # Expected: the custom GroupNormalization node has no shape function
        # in the exporter (its symbolic sets the type) and torch 1.13 calls
        # its own graph-op helper deprecated.
        warnings.filterwarnings("ignore", message=".*(user_models::|_graph_op).*")
        torch.onnx.export(model, tuple(inputs), path, **spec)
        expected = model(*inputs)
    if isinstance(expected, torch.Tensor):
        expected = (expected,)
    if rewrite:
        proto = onnx.load(path)
        rewrite(proto)
        # The exporter cannot infer through a custom node: the outputs get
        # PyTorch's static shapes back.
        if not spec.get("dynamic_axes"):
            for output, value in zip(proto.graph.output, expected):
                shape = output.type.tensor_type.shape
                shape.ClearField("dim")
                for d in value.shape:
                    shape.dim.add().dim_value = d
        onnx.save(proto, path)
    # This onnx (1.12) knows opsets up to 17: a newer model is checked by
    # ONNX Runtime only (bench/run.py, the lit tests).
    if max(o.version for o in onnx.load(path).opset_import if o.domain in ("", "ai.onnx")) <= 17:
        onnx.checker.check_model(path)
    write_dataset(outdir, [(n, t.numpy()) for n, t in zip(spec["input_names"], inputs)],
                  [(n, t.numpy()) for n, t in zip(spec["output_names"], expected)])


MODELS = {
    "bert_base": make_bert,
    "minilm_l6": make_minilm,
    "vit_b16": make_vit,
    "whisper_tiny_encoder": make_whisper,
    "gpt2_decode": make_gpt2,
    "melspec": make_melspec,
    "stft_dft": None,
    "gru_classifier": make_gru,
    "unet_bn": lambda small: make_unet("bn", small),
    "unet_groupnorm": lambda small: make_unet("gn", small),
    "const_weights_cnn": make_const_weights,
}


def main():
    args = sys.argv[1:]
    small = "--small" in args
    args = [a for a in args if a != "--small"]
    if len(args) != 2 or args[0] not in MODELS:
        sys.exit("usage: make_user_models.py {%s} OUTDIR [--small]" % "|".join(MODELS))
    name, outdir = args
    torch.manual_seed(0)
    if name == "stft_dft":
        write_stft_dft(outdir, small)
    else:
        export(MODELS[name](small), outdir)


if __name__ == "__main__":
    main()
