#!/bin/bash
# Builds here (no GPU needed) everything test/gpu/run_on_device.sh runs on a
# lent GPU, and packs it into .gpu/cases.tgz (an ignored folder: name it in
# the device tool's `carry`). About 10 minutes on 2 cores:
#   1. every node-1.23 test through `onnxcc verify --target cuda` (compiled,
#      PTX written, harness built; status `built` where no GPU is),
#   2. the zoo with compressible weights (make_device_models.py) through the
#      same, plus a latency binary per model (latency_main.cpp),
#   3. pack_cases.py.
# Usage: test/gpu/prepare.sh [ONNXCC] (default build/bin/onnxcc)
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
onnxcc=$(realpath "${1:-$root/build/bin/onnxcc}")
py=${PYTHON:-/usr/bin/python3}
work=${ONNXCC_GPU_WORK:-/tmp/onnxcc-gpu-prepare}
data=$(realpath "$root/../shared/onnx/node-1.23")
rm -rf "$work" && mkdir -p "$work"
"$py" "$root/test/conformance/run_conformance.py" "$onnxcc" --suites node-1.23 --target cuda \
  --jobs 2 --timeout 300 --cache "$work/cache" --results "$work/results.txt" | tail -4
"$py" "$root/test/gpu/make_device_models.py" "$work/zoo-models"
for m in "$work"/zoo-models/*/; do
  name=$(basename "$m")
  keep="$work/zoo/$name"
  # verify builds the harness, then stops with status 4 (no GPU here).
  "$onnxcc" verify --target cuda "$m/model.onnx" "$m" --keep "$keep" > /dev/null 2>&1 || true
  test -x "$keep/run" || { echo "prepare.sh: $name did not build"; exit 1; }
  cp -r "$m"/test_data_set_* "$m/tolerance" "$keep/"
  c++ -O2 -std=c++17 -DMODEL=model '-DMODEL_HEADER="model.h"' -I "$keep" "$keep/model.cpp" \
    "$root/test/gpu/latency_main.cpp" -o "$keep/latency" -ldl -lpthread
done
mkdir -p "$root/.gpu"
"$py" "$root/test/gpu/pack_cases.py" --results "$work/results.txt" --cache "$work/cache" \
  --data "$data" --zoo "$work/zoo" --out "$root/.gpu/cases.tgz"
