#!/usr/bin/env bash
# How long a stop takes: a closed loop of THREADS busy workers on the null
# backend, a CPU hog at nice 19 on every CPU (a loaded host), SIGTERM once the
# measured window runs, and the time from the signal to the process's exit —
# with the results written. A baseline of 64 workers runs alternately in the
# same rounds.
#
#   bench/stop_latency.sh [BINARY] [ROUNDS=5] [THREADS=4096]
set -euo pipefail
SB=$(realpath "${1:-build/release/storebench}")
ROUNDS=${2:-5}
THREADS=${3:-4096}
OUT=$(mktemp -d)
hogs=()
trap '((${#hogs[@]})) && kill "${hogs[@]}" 2>/dev/null; rm -rf "$OUT"' EXIT
for _ in $(seq "$(nproc)"); do nice -n 19 sh -c 'while :; do :; done' & hogs+=($!); done

echo "# $(date -u +%FT%TZ) $(nproc) cpus, $(uname -r), nice-19 hog on every cpu"
echo "# binary: $("$SB" --version)"
echo "# $SB run --backend null --threads {64,$THREADS} --duration 120s --warmup 0s --progress always --json J; SIGTERM 2 s into the window"

# one THREADS: prints "seconds-from-signal-to-exit exit-code json-ok"
one() {
  local t=$1 j="$OUT/r.json" err="$OUT/err"
  rm -f "$j"
  "$SB" run --backend null --threads "$t" --duration 120s --warmup 0s --interval 1s --progress always --json "$j" \
    >/dev/null 2>"$err" &
  local pid=$!
  # The first progress line is drawn when the workers have started.
  for _ in $(seq 6000); do grep -q "measuring\|ops" "$err" 2>/dev/null && break; sleep 0.01; done
  sleep 2
  local t0 t1 rc=0
  t0=$(date +%s.%N)
  kill -TERM "$pid"
  wait "$pid" || rc=$?
  t1=$(date +%s.%N)
  local ok=no
  python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["totals"]["interrupted"]' "$j" 2>/dev/null && ok=yes
  echo "$(python3 -c "print(f'{$t1 - $t0:.3f}')") $rc $ok"
}

declare -A all
for r in $(seq "$ROUNDS"); do
  for t in 64 "$THREADS"; do
    line=$(one "$t")
    echo "round $r threads $t: stop took ${line%% *} s (exit, results: ${line#* })"
    all[$t]+="${line%% *} "
  done
done
for t in 64 "$THREADS"; do
  python3 - "$t" ${all[$t]} <<'PY'
import statistics, sys
t, xs = sys.argv[1], [float(x) for x in sys.argv[2:]]
print(f"threads {t}: stop median {statistics.median(xs):.3f} s, max {max(xs):.3f} s over {len(xs)} rounds")
PY
done
