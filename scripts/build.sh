#!/usr/bin/env bash
# build.sh - installs the dependencies (setup.sh), then configures and builds
# onnxcc into build/ (or $ONNXCC_BUILD_DIR) with Debian's clang 22 and Ninja.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${ONNXCC_BUILD_DIR:-$root/build}

"$root/scripts/setup.sh"
cmake -G Ninja -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_C_COMPILER=clang-22 -DCMAKE_CXX_COMPILER=clang++-22
ninja -C "$build"
