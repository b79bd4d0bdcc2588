#!/usr/bin/python3
"""Exports a recurrent text classifier from PyTorch with a dataset.

Usage: /usr/bin/python3 test/models/make_rnn_text_model.py {gru|lstm} OUTDIR

The model: an embedding of a 10000-word vocabulary into 128 dims, a 2-layer
bidirectional GRU (or LSTM) of hidden size 128 over the batch-first token
ids, and a linear head (4 classes) on the last layer's final states of both
directions. Input "ids" int64[1, 64] (static shapes). Writes
OUTDIR/model.onnx and OUTDIR/test_data_set_0/{input_0,output_0}.pb, the
output computed by PyTorch.
"""
import os
import sys
import warnings

import numpy as np
from onnx import numpy_helper
import torch


class TextRnn(torch.nn.Module):
    def __init__(self, cell, vocab=10000, dim=128, hidden=128):
        super().__init__()
        self.embed = torch.nn.Embedding(vocab, dim)
        rnn = torch.nn.GRU if cell == "gru" else torch.nn.LSTM
        self.rnn = rnn(dim, hidden, num_layers=2, bidirectional=True, batch_first=True)
        self.head = torch.nn.Linear(2 * hidden, 4)

    def forward(self, ids):
        _, state = self.rnn(self.embed(ids))
        h = state if isinstance(self.rnn, torch.nn.GRU) else state[0]
        # The last layer's forward and backward final states.
        return self.head(torch.cat([h[-2], h[-1]], dim=1))


def main():
    if len(sys.argv) != 3 or sys.argv[1] not in ("gru", "lstm"):
        sys.exit("usage: make_rnn_text_model.py {gru|lstm} OUTDIR")
    cell, outdir = sys.argv[1], sys.argv[2]
    os.makedirs(os.path.join(outdir, "test_data_set_0"), exist_ok=True)
    torch.manual_seed(0)
    model = TextRnn(cell).eval()
    ids = torch.randint(0, 10000, (1, 64))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(model, ids, os.path.join(outdir, "model.onnx"), input_names=["ids"],
                          output_names=["y"], opset_version=14)
    with torch.no_grad():
        y = model(ids)
    folder = os.path.join(outdir, "test_data_set_0")
    with open(os.path.join(folder, "input_0.pb"), "wb") as f:
        f.write(numpy_helper.from_array(ids.numpy(), "ids").SerializeToString())
    with open(os.path.join(folder, "output_0.pb"), "wb") as f:
        f.write(numpy_helper.from_array(y.numpy().astype(np.float32), "y").SerializeToString())


if __name__ == "__main__":
    main()
