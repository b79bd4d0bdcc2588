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
  # Model format: protobuf and the ONNX schema (onnx.proto).
  libprotobuf-dev protobuf-compiler libonnx-dev
  libfmt-dev ninja-build cmake g++
  # Tests: the ONNX backend test data, and python for model generation.
  libonnx-testdata python3-onnx python3-torch python3-torchvision
  python3-protobuf python3-numpy
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

missing=()
for package in "${PACKAGES[@]}"; do
  is_installed "$package" || missing+=("$package")
done
if [[ ${#missing[@]} -eq 0 ]]; then
  log "all ${#PACKAGES[@]} packages are installed"
  exit 0
fi
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
