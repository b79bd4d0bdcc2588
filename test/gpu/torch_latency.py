#!/usr/bin/env python3
"""Times PyTorch eager (and CUDA graphs, and ONNX Runtime's CUDA EP) at batch 1.

Usage:
  python3 test/gpu/torch_latency.py [--json OUT.json] [--tf32]
      [--models resnet18,mobilenet_v2,text-encoder] [--warmup 20] [--iters 200]
      [--no-graphs] [--no-cudnn-benchmark] [--onnx-dir DIR] [--device cuda|cpu]
  python3 test/gpu/torch_latency.py --device cpu --json /tmp/smoke.json   (smoke test)

The reference numbers for onnxcc's CUDA target. Models, float32, eval mode,
under torch.no_grad(), weights as initialized from torch.manual_seed(0)
(timing does not depend on the values):
  resnet18, mobilenet_v2  torchvision (weights=None), input float32[1, 3, 224, 224]
  text-encoder            the Encoder of test/models/make_dynamic_model.py
                          (imported from there) with its text-encoder arguments
                          (4 layers, d=256, 4 heads, feed-forward 1024,
                          vocabulary 1000), input int64 ids [1, 64]
These are the shapes test/gpu/make_device_models.py exports.

On CUDA each model is run --warmup times (default 20), then --iters times
(default 200), each iteration timed between two CUDA events on the current
stream and synchronized before the next starts; the table gives the median
and the 90th percentile in milliseconds. Columns:
  eager   the module called from Python (launch overhead included: the end
          event is recorded after the last launch)
  graph   the same captured once into a torch.cuda.CUDAGraph and replayed
          (--no-graphs to leave out; "n/a" when capture fails)
  ort     ONNX Runtime with CUDAExecutionProvider, when onnxruntime has it and
          --onnx-dir holds NAME/model.onnx (make_device_models.py's output);
          inputs and outputs bound on the GPU (I/O binding), timed with the
          host clock around each synchronous run. Otherwise it prints
          "ORT CUDA EP: not available" (or why it was not timed).
TF32 is off unless --tf32 (strict fp32 matmuls and convolutions; on
PyTorch 2.9 and later through torch.backends.*.fp32_precision, before that
torch.backends.cuda.matmul.allow_tf32 and torch.backends.cudnn.allow_tf32).
cudnn.benchmark is on unless --no-cudnn-benchmark (the warm-up runs pick the
algorithms). The whole run takes well under 90 s on an H200.

--device cpu is a smoke test for machines without a GPU: host-clock timing,
no graphs, no ORT, and by default 1 warm-up and 3 timed iterations.

--json writes {"environment": {...}, "settings": {...}, "results": [{"model",
"input", "eager_ms", "graph_ms", "ort_ms", ...}], "ort": {...}}, each *_ms
{"median", "p90", "mean", "min", "max", "iters"} or null.
"""
import argparse
import importlib.util
import json
import os
import platform
import statistics
import sys
import time

import torch
import torchvision

HERE = os.path.dirname(os.path.abspath(__file__))
MODELS = ("resnet18", "mobilenet_v2", "text-encoder")
TEXT_SEQUENCE = 64
TEXT_VOCAB = 1000


def load_encoder_class():
    """The Encoder module of test/models/make_dynamic_model.py (the repo's
    test/models/ folder travels with the repo)."""
    path = os.path.join(HERE, "..", "models", "make_dynamic_model.py")
    spec = importlib.util.spec_from_file_location("make_dynamic_model", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.Encoder


def build(name, device):
    """(module, example input) on `device`."""
    torch.manual_seed(0)
    if name == "text-encoder":
        model = load_encoder_class()(vocab=TEXT_VOCAB, d=256, heads=4, ff=1024, layers=4)
        example = torch.randint(0, TEXT_VOCAB, (1, TEXT_SEQUENCE), dtype=torch.int64)
    else:
        model = getattr(torchvision.models, name)(weights=None)
        example = torch.randn(1, 3, 224, 224)
    return model.eval().to(device), example.to(device)


def summary(times_ms):
    if not times_ms:
        return None
    ordered = sorted(times_ms)
    # The nearest-rank 90th percentile.
    p90 = ordered[min(len(ordered) - 1, max(0, -(-9 * len(ordered) // 10) - 1))]
    return {"median": statistics.median(ordered), "p90": p90,
            "mean": statistics.fmean(ordered), "min": ordered[0], "max": ordered[-1],
            "iters": len(ordered)}


def time_cuda(step, warmup, iters):
    """Per-iteration milliseconds of step(), between CUDA events."""
    for _ in range(warmup):
        step()
    torch.cuda.synchronize()
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    times = []
    for _ in range(iters):
        start.record()
        step()
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end))
    return times


def time_host(step, warmup, iters, sync=None):
    """Per-iteration milliseconds of step() by the host clock."""
    for _ in range(warmup):
        step()
    if sync:
        sync()
    times = []
    for _ in range(iters):
        begin = time.perf_counter()
        step()
        if sync:
            sync()
        times.append((time.perf_counter() - begin) * 1e3)
    return times


def time_graph(model, example, warmup, iters):
    """Captures model(example) into a CUDA graph and times its replays."""
    static_input = example.clone()
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):  # warm-up runs before capture, on a side stream
        for _ in range(3):
            model(static_input)
    torch.cuda.current_stream().wait_stream(side)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        static_output = model(static_input)
    graph.replay()
    torch.cuda.synchronize()
    # The replayed graph must compute what eager does.
    eager = model(static_input)
    if not torch.allclose(static_output, eager, rtol=1e-3, atol=1e-4):
        raise RuntimeError("the replayed graph's output differs from eager's")
    return time_cuda(graph.replay, warmup, iters)


def set_tf32(enabled):
    """Sets TF32 for matmuls and cuDNN; returns what was set (for the JSON).
    PyTorch 2.9 and later have per-backend fp32_precision settings and
    deprecate the allow_tf32 flags (mixing the two can raise), so the new
    ones are used where they exist."""
    def has(obj, name):  # torch.backends.cuda.matmul raises AssertionError, not AttributeError
        try:
            return obj is not None and hasattr(obj, name)
        except Exception:
            return False

    matmul, cudnn = torch.backends.cuda.matmul, torch.backends.cudnn
    if has(matmul, "fp32_precision"):
        mode = "tf32" if enabled else "ieee"
        done = {}
        for label, backend in (("cuda.matmul", matmul), ("cudnn.conv", getattr(cudnn, "conv", None)),
                               ("cudnn.rnn", getattr(cudnn, "rnn", None))):
            if has(backend, "fp32_precision"):
                backend.fp32_precision = mode
                done[label + ".fp32_precision"] = backend.fp32_precision
        return done
    matmul.allow_tf32 = enabled
    cudnn.allow_tf32 = enabled
    return {"cuda.matmul.allow_tf32": matmul.allow_tf32, "cudnn.allow_tf32": cudnn.allow_tf32}


def ort_status(args):
    """(onnxruntime module or None, a note for the table/JSON)."""
    if args.device != "cuda":
        return None, "not timed on --device cpu"
    try:
        import onnxruntime
    except ImportError:
        return None, "ORT CUDA EP: not available (no onnxruntime)"
    if "CUDAExecutionProvider" not in onnxruntime.get_available_providers():
        return None, "ORT CUDA EP: not available"
    if not args.onnx_dir:
        return None, "ORT CUDA EP: available, but no --onnx-dir given"
    return onnxruntime, "ORT CUDA EP: onnxruntime %s" % onnxruntime.__version__


def time_ort(ort, path, example, tf32, warmup, iters):
    """ORT CUDA EP latency of the model at `path` with inputs bound on the GPU."""
    options = ort.SessionOptions()
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    cuda_options = {"device_id": 0, "use_tf32": 1 if tf32 else 0,
                    "cudnn_conv_algo_search": "EXHAUSTIVE"}
    try:
        session = ort.InferenceSession(path, options, providers=[
            ("CUDAExecutionProvider", cuda_options), "CPUExecutionProvider"])
    except Exception:  # an older ORT without use_tf32
        cuda_options.pop("use_tf32")
        session = ort.InferenceSession(path, options, providers=[
            ("CUDAExecutionProvider", cuda_options), "CPUExecutionProvider"])
    if session.get_providers()[0] != "CUDAExecutionProvider":
        raise RuntimeError("the session runs on %s" % session.get_providers())
    binding = session.io_binding()
    value = ort.OrtValue.ortvalue_from_numpy(example.cpu().numpy(), "cuda", 0)
    binding.bind_ortvalue_input(session.get_inputs()[0].name, value)
    for output in session.get_outputs():
        binding.bind_output(output.name, "cuda", 0)

    def step():
        session.run_with_iobinding(binding)
    return time_host(step, warmup, iters, sync=binding.synchronize_outputs)


def fmt(stats, key):
    return "%.3f" % stats[key] if stats else "-"


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--json", help="write the results here")
    parser.add_argument("--device", choices=("cuda", "cpu"), default="cuda")
    parser.add_argument("--models", default=",".join(MODELS),
                        help="comma-separated, of %s" % ", ".join(MODELS))
    parser.add_argument("--warmup", type=int, help="untimed runs (default 20; cpu: 1)")
    parser.add_argument("--iters", type=int, help="timed runs (default 200; cpu: 3)")
    parser.add_argument("--tf32", action="store_true", help="allow TF32 (default: strict fp32)")
    parser.add_argument("--no-graphs", action="store_true", help="leave out CUDA graphs")
    parser.add_argument("--no-cudnn-benchmark", action="store_true",
                        help="leave torch.backends.cudnn.benchmark off")
    parser.add_argument("--onnx-dir", help="NAME/model.onnx for ORT (make_device_models.py)")
    args = parser.parse_args()
    names = [n for n in args.models.split(",") if n]
    unknown = [n for n in names if n not in MODELS]
    if unknown:
        parser.error("unknown model(s) %s" % ", ".join(unknown))
    cuda = args.device == "cuda"
    warmup = args.warmup if args.warmup is not None else (20 if cuda else 1)
    iters = args.iters if args.iters is not None else (200 if cuda else 3)
    if cuda and not torch.cuda.is_available():
        sys.exit("torch_latency.py: no CUDA device (torch %s, built for CUDA %s); "
                 "--device cpu runs the smoke test" % (torch.__version__, torch.version.cuda))
    began = time.perf_counter()
    device = torch.device(args.device)

    environment = {"torch": torch.__version__, "torchvision": torchvision.__version__,
                   "python": platform.python_version(), "device": args.device}
    settings = {"warmup": warmup, "iters": iters, "tf32": args.tf32}
    if cuda:
        environment.update({"gpu": torch.cuda.get_device_name(0), "cuda": torch.version.cuda,
                            "cudnn": torch.backends.cudnn.version()})
        settings["tf32_flags"] = set_tf32(args.tf32)
        torch.backends.cudnn.benchmark = not args.no_cudnn_benchmark
        settings["cudnn_benchmark"] = torch.backends.cudnn.benchmark
        settings["graphs"] = not args.no_graphs
    ort, ort_note = ort_status(args)
    if ort:
        environment["onnxruntime"] = ort.__version__

    results = []
    for name in names:
        model, example = build(name, device)
        row = {"model": name, "input": list(example.shape), "input_dtype": str(example.dtype),
               "eager_ms": None, "graph_ms": None, "ort_ms": None}
        with torch.no_grad():
            if cuda:
                row["eager_ms"] = summary(time_cuda(lambda: model(example), warmup, iters))
                if not args.no_graphs:
                    try:
                        row["graph_ms"] = summary(time_graph(model, example, warmup, iters))
                    except Exception as e:  # capture is not possible for every module
                        row["graph_error"] = "%s: %s" % (type(e).__name__, str(e).split("\n")[0])
                        torch.cuda.synchronize()
            else:
                row["eager_ms"] = summary(time_host(lambda: model(example), warmup, iters))
        if ort:
            path = os.path.join(args.onnx_dir, name, "model.onnx")
            try:
                row["ort_ms"] = summary(time_ort(ort, path, example, args.tf32, warmup, iters))
            except Exception as e:
                row["ort_error"] = "%s: %s" % (type(e).__name__, str(e).split("\n")[0])
        results.append(row)
        model = example = None  # free this model's memory before the next one
        if cuda:
            torch.cuda.empty_cache()
    elapsed = time.perf_counter() - began

    gpu = environment.get("gpu", "cpu")
    print("torch %s on %s, %s, %d warm-up + %d timed iterations, ms per iteration"
          % (torch.__version__, gpu, "TF32" if args.tf32 else "strict fp32", warmup, iters))
    header = "%-13s %-14s %10s %10s %10s %10s %10s %10s" % (
        "model", "input", "eager med", "eager p90", "graph med", "graph p90", "ort med",
        "ort p90")
    print(header)
    print("-" * len(header))
    for row in results:
        print("%-13s %-14s %10s %10s %10s %10s %10s %10s" % (
            row["model"], "x".join(str(d) for d in row["input"]),
            fmt(row["eager_ms"], "median"), fmt(row["eager_ms"], "p90"),
            fmt(row["graph_ms"], "median"), fmt(row["graph_ms"], "p90"),
            fmt(row["ort_ms"], "median"), fmt(row["ort_ms"], "p90")))
        for key in ("graph_error", "ort_error"):
            if key in row:
                print("  %s %s: %s" % (row["model"], key.replace("_", " "), row[key]))
    print(ort_note)
    print("total %.1f s" % elapsed)
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"environment": environment, "settings": settings, "results": results,
                       "ort": {"note": ort_note}, "seconds": elapsed}, f, indent=1)
            f.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
