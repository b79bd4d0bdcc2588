#!/usr/bin/python3
"""Writes the C example's model and the PyTorch reference of its output.

mlp.onnx: a two-layer perceptron with a symbolic batch, input "features"
float32[batch, 6], outputs "hidden" float32[batch, 8] (the ReLU layer) and
"probabilities" float32[batch, 3]; weights from a fixed seed.
expected.txt: what `c_api` (main.c) prints, the numbers computed by PyTorch
in double precision on the inputs main.c makes (features[b][i] = ((b*6+i) % 7) / 7 - 0.5).

Usage: /usr/bin/python3 examples/c_api/make_mlp.py
"""
import os

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
BATCH, FEATURES, HIDDEN, CLASSES = 3, 6, 8, 3


class Mlp(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = torch.nn.Linear(FEATURES, HIDDEN)
        self.fc2 = torch.nn.Linear(HIDDEN, CLASSES)

    def forward(self, features):
        hidden = torch.relu(self.fc1(features))
        return hidden, torch.softmax(self.fc2(hidden), dim=1)


def main():
    torch.manual_seed(0)
    model = Mlp().eval()
    torch.onnx.export(model, torch.zeros(1, FEATURES), os.path.join(HERE, "mlp.onnx"),
                      input_names=["features"], output_names=["hidden", "probabilities"],
                      dynamic_axes={"features": {0: "batch"}, "hidden": {0: "batch"},
                                    "probabilities": {0: "batch"}},
                      opset_version=13)
    x = torch.tensor([[((b * FEATURES + i) % 7) / 7.0 - 0.5 for i in range(FEATURES)]
                      for b in range(BATCH)], dtype=torch.float64)
    with torch.no_grad():
        hidden, probs = model.double()(x)
    lines = ["input features float32 [-1, %d]" % FEATURES,
             "output hidden float32 [-1, %d]" % HIDDEN,
             "output probabilities float32 [-1, %d]" % CLASSES,
             "batch %d" % BATCH]
    for b in range(BATCH):
        lines.append("hidden[%d] %s" % (b, " ".join("%.6e" % v for v in hidden[b])))
        lines.append("probabilities[%d] %s" % (b, " ".join("%.6e" % v for v in probs[b])))
    with open(os.path.join(HERE, "expected.txt"), "w") as f:
        f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
