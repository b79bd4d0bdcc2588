#!/usr/bin/env bash
# test.sh - sets up, builds (scripts/build.sh) and runs every lit test
# (ninja check-onnxcc). Exits non-zero if anything fails.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${ONNXCC_BUILD_DIR:-$root/build}

"$root/scripts/build.sh"
ninja -C "$build" check-onnxcc
