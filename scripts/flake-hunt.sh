#!/usr/bin/env bash
# Runs the release test suite N times as CI does (ctest -j $(nproc) on the
# release build) and prints each test that failed or skipped, with its count.
#
#   scripts/flake-hunt.sh N [--load] [CTEST ARGS...]
#
# --load also runs a CPU hog at nice 19 on every CPU for the whole hunt, as a
# busy CI machine would. The build must exist (scripts/test.sh or
# scripts/build.sh release). Exit code: 1 when any run had a failure.
set -uo pipefail
cd "$(dirname "$0")/.."
n=${1:?usage: scripts/flake-hunt.sh N [--load] [CTEST ARGS...]}
[[ $n =~ ^[1-9][0-9]*$ ]] || { echo "flake-hunt: N: expected a whole number >= 1, got '$n'" >&2; exit 2; }
shift
load=0
if [[ ${1:-} == --load ]]; then load=1; shift; fi
[[ -f build/release/CTestTestfile.cmake ]] || { echo "flake-hunt: no release build with tests (run scripts/build.sh release)" >&2; exit 2; }
logs=$(mktemp -d)
hogs=()
cleanup() { ((${#hogs[@]})) && kill "${hogs[@]}" 2>/dev/null; rm -rf "$logs"; }
trap cleanup EXIT
if ((load)); then
  for _ in $(seq "$(nproc)"); do nice -n 19 sh -c 'while :; do :; done' & hogs+=($!); done
fi
echo "# $(date -u +%FT%TZ) $n runs, $(nproc) cpus, load hog: $((load ? 1 : 0)), $(git rev-parse --short HEAD)"
bad=0
for i in $(seq "$n"); do
  t0=$SECONDS
  ctest --preset release -j "$(nproc)" "$@" >"$logs/run$i.log" 2>&1 || bad=1
  echo "run $i: $(grep -E '^[0-9]+% tests passed' "$logs/run$i.log" || echo 'no summary') ($((SECONDS - t0)) s)"
done
echo "# failed (test: runs)"
cat "$logs"/run*.log | grep -E 'Test +#[0-9]+: .*\*\*\*(Failed|Timeout|Exception)' | sed -E 's/.*Test +#[0-9]+: ([^ ]+) .*/\1/' | sort | uniq -c | sort -rn || true
echo "# skipped (test: runs)"
cat "$logs"/run*.log | grep -E 'Test +#[0-9]+: .*\*\*\*Skipped' | sed -E 's/.*Test +#[0-9]+: ([^ ]+) .*/\1/' | sort | uniq -c | sort -rn || true
exit $bad
