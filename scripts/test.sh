#!/usr/bin/env bash
# test.sh - sets up, builds (scripts/build.sh) and runs every lit test
# (ninja check-onnxcc) once, in the strongest build that can run it: first
# on an AddressSanitizer + UndefinedBehaviorSanitizer build in build-asan/,
# then on the release build, which runs the tests the sanitizer run could
# not (UNSUPPORTED: asan, the heavy whole-suite sweeps), the tests with
# parts only a release build runs (`%if !asan`), and any test that did not
# pass sanitized. The generated code is built the same way in both runs, so
# a test that passed sanitized has nothing left to show in release.
# ONNXCC_SKIP_SANITIZERS=1 skips the sanitizer build and runs every test on
# the release build. Exits non-zero if anything fails.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${ONNXCC_BUILD_DIR:-$root/build}

log=$(mktemp)
trap 'rm -f "$log"' EXIT

# Prints lit's totals from the run logged in $log as one "N passed, N failed" line.
summarize() {
  local passed failed
  passed=$(sed -n 's/^ *Passed *: *\([0-9]*\).*/\1/p' "$log" | tail -1)
  failed=$(sed -n 's/^ *Failed *: *\([0-9]*\).*/\1/p' "$log" | tail -1)
  echo "$1: ${passed:-0} passed, ${failed:-0} failed"
}

# Totals of the backend suites from the results files the lit tests wrote.
print_suite_totals() {
  local output="$1/test/lit/conformance/Output"
  local results="$output/backend-suites.test.tmp-results.txt"
  [[ -f "$results" ]] || return 0
  echo "ONNX backend tests through onnxcc verify (suite: pass/total run, out of scope," \
    "run once as node-1.23's byte-identical twin):"
  awk -F'[/: ]+' '/^[a-z0-9.-]+\/test_/ { if ($3 == "duplicate") { dup[$1]++; next }
                                      if ($3 == "out-of-scope") { out[$1]++; next }
                                      total[$1]++; if ($3 == "pass") pass[$1]++ }
       END { for (s in total) printf "  %-18s %4d / %4d  (%d out of scope, %d twins)\n", s,
                                     pass[s], total[s], out[s], dup[s] }' "$results" | sort
}

"$root/scripts/build.sh"

if [[ "${ONNXCC_SKIP_SANITIZERS:-0}" == 1 ]]; then
  echo "test.sh: sanitizer run skipped (ONNXCC_SKIP_SANITIZERS=1): every test on the release build"
  ninja -C "$build" check-onnxcc 2>&1 | tee "$log"
  print_suite_totals "$build"
  summarize "lit"
  exit 0
fi

asan=${ONNXCC_ASAN_BUILD_DIR:-$root/build-asan}
# -O1 with line tables only: reports keep their file:line stacks, and the
# build takes about a fifth less time than RelWithDebInfo's -O2 -g.
cmake -G Ninja -S "$root" -B "$asan" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_C_FLAGS_RELWITHDEBINFO="-O1 -gline-tables-only -DNDEBUG" \
  -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -gline-tables-only -DNDEBUG" \
  -DCMAKE_C_COMPILER=clang-22 -DCMAKE_CXX_COMPILER=clang++-22 \
  -DONNXCC_SANITIZE=address,undefined -DONNXCC_FUZZ=ON
ninja -C "$asan" onnxcc onnxcc-opt
status=0
ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
  LIT_OPTS="${LIT_OPTS:-} --show-pass" ninja -C "$asan" check-onnxcc 2>&1 | tee "$log" || status=1
summarize "sanitizers"

# The tests that passed sanitized, less those with release-only parts.
sanitized=()
while read -r test; do
  grep -qE '%if[^%]*asan' "$root/test/lit/$test" || sanitized+=("$test")
done < <(sed -n '/^Passed Tests/,/^$/s/^  onnxcc :: //p' "$log")
filter_out=""
if ((${#sanitized[@]})); then
  alternatives=$(printf '%s\n' "${sanitized[@]}" | sed 's/[].*^$()+?{}|\\[]/\\&/g' | paste -sd '|')
  filter_out="^onnxcc :: ($alternatives)\$"
fi
echo "test.sh: release run: the tests the sanitizer run did not pass or has no part of" \
  "(${#sanitized[@]} passed sanitized, not run again)"
[[ -z "$filter_out" ]] || export LIT_FILTER_OUT="$filter_out"
ninja -C "$build" check-onnxcc 2>&1 | tee "$log" || status=1
print_suite_totals "$build"
summarize "lit"
exit "$status"
