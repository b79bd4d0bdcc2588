#!/usr/bin/python3
"""Writes the text classifier example's model, sample inputs and PyTorch references.

text_encoder.onnx: token embedding (vocabulary 100, d=32), a 2-layer
nn.TransformerEncoder (4 heads, feed-forward 64), mean over the sequence and a
linear layer to 2 classes with softmax. Input "ids" int64[batch, seq] with the
batch and the sequence length left symbolic, output "probabilities"
float32[batch, 2].
Weights from a fixed seed.
sequences.txt: token sequences of different lengths, one a line.
expected.txt: what `classify_text sequences.txt` must print, from PyTorch
(double precision).

Usage: /usr/bin/python3 examples/text_classifier/make_text_model.py
"""
import os

import numpy as np
import torch

HERE = os.path.dirname(os.path.abspath(__file__))
VOCAB = 100


class TextClassifier(torch.nn.Module):
    def __init__(self, d=32, heads=4, ff=64, layers=2, classes=2):
        super().__init__()
        self.embed = torch.nn.Embedding(VOCAB, d)
        layer = torch.nn.TransformerEncoderLayer(d, heads, ff, dropout=0.0, batch_first=True)
        self.encoder = torch.nn.TransformerEncoder(layer, layers)
        self.head = torch.nn.Linear(d, classes)

    def forward(self, ids):
        return torch.softmax(self.head(self.encoder(self.embed(ids)).mean(1)), dim=1)


def main():
    torch.set_num_threads(1)
    torch.manual_seed(0)
    model = TextClassifier().eval()
    torch.onnx.export(model, torch.zeros(1, 4, dtype=torch.int64),
                      os.path.join(HERE, "text_encoder.onnx"), input_names=["ids"],
                      output_names=["probabilities"], dynamic_axes={"ids": {0: "batch", 1: "seq"},
                                    "probabilities": {0: "batch"}},
                      opset_version=14)
    rng = np.random.RandomState(0)
    sequences = [rng.randint(0, VOCAB, size=n) for n in (7, 19)]
    with open(os.path.join(HERE, "sequences.txt"), "w") as f:
        for ids in sequences:
            f.write(" ".join(str(i) for i in ids) + "\n")
    model = model.double()
    lines = []
    for ids in sequences:
        with torch.no_grad():
            probs = model(torch.from_numpy(ids).long()[None])[0].numpy()
        lines.append("length %d class %d probabilities %s" % (
            len(ids), int(np.argmax(probs)), " ".join("%.6e" % p for p in probs)))
    with open(os.path.join(HERE, "expected.txt"), "w") as f:
        f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
