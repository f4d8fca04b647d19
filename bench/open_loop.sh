#!/usr/bin/env bash
# Open loop on a busy host: does the client make the tail it reports?
#
#   bench/open_loop.sh [BINARY] [ROUNDS]
#
# 1. RocksDB readrandom on the default job's data set shape (200,000 keys of
#    20 B, 400 B values, 8 MiB block cache), 2 threads: the closed-loop
#    capacity is measured first in this script, then an open loop at 70% of it
#    for {partitioned, shared} x {spin, adaptive}, variants alternating, ROUNDS
#    rounds: response p99 / service p99 (goal for shared+adaptive: <= 5).
# 2. Null backend, spin:13us, 2 threads, at 50% and 70% of its measured
#    capacity, the same four variants, without and with a CPU hog process (one
#    unpinned busy loop): response p99, run-queue wait, hiccup p99.
# 3. What shared dispatch costs: the null backend (service 0) open loop at
#    1 M/s and 5 M/s, 1 and 2 threads, shared vs partitioned: achieved rate.
# Every figure is the median over ROUNDS; variants run alternately.
set -euo pipefail
SB=${1:-build/release/storebench}
ROUNDS=${2:-5}
DB=${DB:-/var/tmp/sb-openloop-db}
OUT=$(mktemp -d)
trap 'kill ${HOG:-0} 2>/dev/null || true; rm -rf "$OUT"' EXIT

echo "# $(date -u +%FT%TZ) $(nproc) cpus, $(uname -r), $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "# binary: $("$SB" --version)"

med() { python3 -c 'import sys,statistics; v=[float(x) for x in sys.argv[1:]]; print(statistics.median(v) if v else float("nan"))' "$@"; }
field() { python3 - "$1" "$2" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
expr = sys.argv[2]
print(eval(expr, {"d": d}))
PY
}

variants=("partitioned spin" "partitioned adaptive" "shared spin" "shared adaptive")

# table PREFIX: one row per variant, medians over the rounds of $OUT/PREFIX-DISPATCH-WAIT.N.json.
table() {
  printf '%-22s %12s %12s %8s %14s %12s\n' variant resp_p99_us svc_p99_us ratio runq_wait_ms hiccup_p99_us
  for v in "${variants[@]}"; do
    set -- $v
    local r=() s=() q=() h=() f
    for round in $(seq 1 "$ROUNDS"); do
      f="$OUT/$PREFIX-$1-$2.$round.json"
      r+=("$(field "$f" 'd["latency"]["response"]["p99_ns"]/1e3')")
      s+=("$(field "$f" 'd["latency"]["service"]["p99_ns"]/1e3')")
      q+=("$(field "$f" 'd["workers"]["runqueue_wait_ns"]/1e6')")
      h+=("$(field "$f" 'd["platform"]["hiccup"]["p99_ns"]/1e3')")
    done
    local R S
    R=$(med "${r[@]}"); S=$(med "${s[@]}")
    printf '%-22s %12.1f %12.1f %8.1f %14.1f %12.1f\n' "$1+$2" "$R" "$S" "$(python3 -c "print($R/$S)")" \
      "$(med "${q[@]}")" "$(med "${h[@]}")"
  done
}

run() {  # run NAME ARGS... -> $OUT/NAME.N.json, N = round
  local name=$1; shift
  "$SB" run --quiet --json "$OUT/$name.$round.json" "$@" >/dev/null
}

# --- 1. RocksDB -------------------------------------------------------------
run_help=$("$SB" run --help 2>/dev/null || true)
if [[ $run_help == *--cf-options* ]]; then
  "$SB" prepare --backend rocksdb --data "$DB" --num 200000 --key-size 20 --value-size 400 >/dev/null
  rdb=(--backend rocksdb --data "$DB" --workload readrandom --cache-size 8M --threads 2)
  caps=()
  for round in 1 2 3; do
    run cap "${rdb[@]}" --duration 3s --warmup 1s
    caps+=("$(field "$OUT/cap.$round.json" 'd["throughput"]["ops_per_sec"]')")
  done
  cap=$(med "${caps[@]}")
  rate=$(python3 -c "print(int($cap * 0.7))")
  echo
  echo "## RocksDB readrandom, 2 threads, open loop at 70% of the closed-loop capacity ($cap ops/s -> $rate ops/s)"
  for round in $(seq 1 "$ROUNDS"); do
    for v in "${variants[@]}"; do
      set -- $v
      run "rdb-$1-$2" "${rdb[@]}" --duration 4s --warmup 1s --schedule "constant:$rate" --dispatch "$1" --wait "$2"
    done
  done
  PREFIX=rdb table
fi

# --- 2. Null backend, with and without a CPU hog -----------------------------
null=(--backend null --service-time spin:13us --threads 2)
caps=()
for round in 1 2 3; do
  run ncap "${null[@]}" --duration 2s
  caps+=("$(field "$OUT/ncap.$round.json" 'd["throughput"]["ops_per_sec"]')")
done
ncap=$(med "${caps[@]}")
for hog in none hog; do
  HOG=
  if [[ $hog == hog ]]; then
    python3 -c 'while True: pass' &
    HOG=$!
  fi
  for frac in 0.5 0.7; do
    rate=$(python3 -c "print(int($ncap * $frac))")
    echo
    echo "## null spin:13us, 2 threads, ${frac} of capacity ($ncap -> $rate ops/s), CPU hog: $hog"
    for round in $(seq 1 "$ROUNDS"); do
      for v in "${variants[@]}"; do
        set -- $v
        run "null-$hog-$frac-$1-$2" "${null[@]}" --duration 2s --schedule "constant:$rate" --dispatch "$1" --wait "$2"
      done
    done
    PREFIX="null-$hog-$frac" table
  done
  if [[ -n $HOG ]]; then kill "$HOG"; wait "$HOG" 2>/dev/null || true; HOG=; fi
done

# --- 3. The cost of shared dispatch ---------------------------------------------
echo
echo "## dispatch cost: null backend (no service time), achieved arrivals/s (median of $ROUNDS)"
printf '%-8s %-10s %14s %14s %8s\n' threads target partitioned shared ratio
for threads in 1 2; do
  for target in 1000000 5000000; do
    for round in $(seq 1 "$ROUNDS"); do
      for d in partitioned shared; do
        run "cost-$threads-$target-$d" --backend null --threads "$threads" --duration 2s --schedule "constant:$target" --dispatch "$d"
      done
    done
    p=(); s=()
    for round in $(seq 1 "$ROUNDS"); do
      p+=("$(field "$OUT/cost-$threads-$target-partitioned.$round.json" 'd["throughput"]["ops_per_sec"]')")
      s+=("$(field "$OUT/cost-$threads-$target-shared.$round.json" 'd["throughput"]["ops_per_sec"]')")
    done
    P=$(med "${p[@]}"); S=$(med "${s[@]}")
    printf '%-8s %-10s %14.0f %14.0f %8.3f\n' "$threads" "$target" "$P" "$S" "$(python3 -c "print($S/$P)")"
  done
done
