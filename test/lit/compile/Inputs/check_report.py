"""Checks the JSON of `onnxcc compile --report` for report-model.py's model
compiled with kernels (argv[1]) and without (argv[2])."""
import json
import sys

EXPECTED = {"conv": 147456, "scores": 8192, "pool": 2048, "mean": 64, "fc": 48}

for path, kernels in ((sys.argv[1], True), (sys.argv[2], False)):
    report = json.load(open(path))
    assert report["flops"] == sum(EXPECTED.values()), report["flops"]
    ops = report["heavy_ops"]
    assert {op["node"]: op["flops"] for op in ops} == EXPECTED, ops
    assert [op["flops"] for op in ops] == sorted(EXPECTED.values(), reverse=True), ops
    assert abs(sum(op["share"] for op in ops) - 1) < 1e-9, ops
    conv = next(op for op in ops if op["node"] == "conv")
    assert conv["onnx_op_types"] == ["Conv"] and conv["op_type"] == "FusedConv", conv
    if kernels:
        assert conv["kernel"] and not conv["loops"] and conv["path"].startswith("conv"), conv
    else:
        assert all(op["path"] == "loops" and not op["kernel"] for op in ops), ops
    print("%s: ok" % path)
