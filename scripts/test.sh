#!/usr/bin/env bash
# The whole test suite: install what is missing, then build and run every test
# in the release build, again under AddressSanitizer + UndefinedBehaviorSanitizer,
# and the concurrency tests under ThreadSanitizer. Every stage runs even when
# an earlier one failed; each prints its result and wall time, the tests it
# skipped with their reasons and the tests it failed with the lines that say
# why (scripts/test_summary.py), and the script exits
# non-zero when any stage failed.
#
#   scripts/test.sh --quick   the daily loop: the release build and its
#                             in-process tests (label "unit"), no set-up, no
#                             end-to-end, sanitizer or browser stages; ~28 s
#                             after an incremental build on a 2-CPU machine
set -uo pipefail
cd "$(dirname "$0")/.."
if [[ ${1:-} == --quick ]]; then
  t0=$SECONDS
  scripts/build.sh release || exit 1
  # One process per test executable (sharded when large), not one per test: scripts/quick_tests.py.
  python3 scripts/quick_tests.py build/release unit || { echo "test.sh --quick: FAILED in $((SECONDS - t0)) s" >&2; exit 1; }
  echo "test.sh --quick: passed in $((SECONDS - t0)) s (the whole suite: scripts/test.sh)"
  exit 0
elif [[ $# -gt 0 ]]; then
  echo "test.sh: unknown argument '$1'; accepted: --quick, or none for the whole suite" >&2
  exit 2
fi
scripts/setup.sh --test || exit 1
jobs=$(nproc)

failed=()
summary=()
skipped=()
stage() {  # stage NAME PRESET [BUILD ARGS...]
  local name=$1 preset=$2 rc=0 t0=$SECONDS
  shift 2
  echo "== $name"
  if scripts/build.sh "$preset" "$@"; then
    ctest --preset "$preset" -j "$jobs" || rc=$?
  else
    rc=1
  fi
  local took=$((SECONDS - t0))
  if ((rc == 0)); then summary+=("$name: passed in ${took} s"); else summary+=("$name: FAILED in ${took} s"); failed+=("$name"); fi
  skipped+=("$(scripts/test_summary.py "build/$preset" "$name")")
  if [[ $preset == asan ]]; then  # the test preset excludes label "timing" (CMakeLists.txt says why)
    local left_out
    left_out=$(ctest --test-dir build/asan -N -L '^timing$' | sed -n 's/^ *Test *#[0-9]*: //p')
    skipped+=("$name: not run (label timing; the release stage runs them): ${left_out//$'\n'/, }")
  fi
}

stage "release: all tests" release
stage "asan+ubsan: all tests" asan
stage "tsan: concurrency tests" tsan --target concurrency_tests

echo "== skipped tests (each with the reason it gave) and failed tests (with why)"
printf '%s\n' "${skipped[@]}"
echo "== stages"
printf '%s\n' "${summary[@]}"
if ((${#failed[@]})); then
  echo "test.sh: failed stages: ${failed[*]}" >&2
  exit 1
fi
