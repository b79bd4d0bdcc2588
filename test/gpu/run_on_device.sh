#!/bin/bash
# The device check of --target cuda, run on a lent GPU machine by the device
# tool (the note of issue 21 carries its output). Everything is built on the
# CPU machine first and packed into .gpu/cases.tgz (an ignored folder the
# tool carries) by test/gpu/prepare.sh.
#
# On the GPU machine this script checks the node tests' outputs against
# ONNX's (check_outputs.py) and the zoo's against PyTorch's, and times the zoo
# at batch 1 against PyTorch eager (and CUDA graphs) on the same GPU. Results
# go to $OUT (the tool brings them back). The device tool's call:
#   run(command="export PYTHONUNBUFFERED=1; bash test/gpu/run_on_device.sh 2>&1 | tee $OUT/log.txt",
#       carry=[".gpu"], timeout_s=540)
set -u
PY=${PYTHON:-python3}
OUT=${OUT:-/tmp/onnxcc-gpu-out}
mkdir -p "$OUT"
W=/tmp/onnxcc-gpu
rm -rf "$W" && mkdir -p "$W"
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader | tee "$OUT/gpu.txt"
tar xzf .gpu/cases.tgz -C "$W" || exit 1
wc -l < "$W/manifest.txt"

start=$(date +%s)
echo "== node tests"
timeout 300 $PY test/gpu/check_outputs.py "$W/cases" --jobs 12 --timeout 60 \
  --json "$OUT/node.json" > "$OUT/node.txt" 2>&1
grep -v '^PASS' "$OUT/node.txt" | head -60
echo "node tests took $(( $(date +%s) - start )) s"

echo "== zoo parity"
timeout 120 $PY test/gpu/check_outputs.py "$W/zoo" --jobs 3 --timeout 100 \
  --json "$OUT/zoo.json" 2>&1 | tee "$OUT/zoo.txt"

echo "== latency, batch 1 (onnxcc --target cuda)"
# graphs: every run replays the CUDA graph captured by the first; launches:
# every run launches its kernels (ONNXCC_CUDA_GRAPHS=0).
for m in "$W"/zoo/*/; do
  name=$(basename "$m")
  for g in 1 0; do
    (cd "$m" && ONNXCC_CUDA_GRAPHS=$g timeout 60 ./latency --warmup=20 --iters=200 \
       | sed "s|latency ./latency|latency $name $([ $g = 1 ] && echo graphs || echo launches)|")
  done
done 2>&1 | tee "$OUT/latency_onnxcc.txt"

echo "== latency, batch 1 (PyTorch)"
timeout 200 $PY test/gpu/torch_latency.py --json "$OUT/latency_torch.json" 2>&1 \
  | tee "$OUT/latency_torch.txt"
echo "device check took $(( $(date +%s) - start )) s"
