#!/usr/bin/env bash
# Scale-out over Open MPI: what running as N ranks costs.
#
#   bench/scale_out.sh [BINARY] [ROUNDS]
#
# 1. Overhead: the null backend closed loop, 2 ranks x 1 thread (mpirun -n 2)
#    against 1 process x 2 threads, alternating, ROUNDS rounds of 2 s: the
#    median ratio of merged throughput (goal >= 0.95), and the start skew
#    bound the ranks measured (goal < 50 us on one host).
# 2. The live merge: 2, 4, 8, 16 and 32 ranks (oversubscribed on this host),
#    1 s intervals: rank 0's CPU per merged interval and its share of a core,
#    the messages rank 0 receives per interval, the bytes each rank sends per
#    interval; fits of the CPU on log2(ranks) and on ranks, extrapolated to
#    1,000 ranks (goals: <= 2% of a core at 32 ranks, <= 10% at 1,000).
set -euo pipefail
SB=${1:-build/release/storebench}
ROUNDS=${2:-5}
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
MPIRUN=(mpirun --oversubscribe)

echo "# $(date -u +%FT%TZ) $(nproc) cpus, $(uname -r), $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "# binary: $("$SB" --version)"
get() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))" "$@"; }
med() { python3 -c 'import sys,statistics; print(statistics.median(float(x) for x in sys.argv[1:]))' "$@"; }

ratios=(); skews=()
for round in $(seq 1 "$ROUNDS"); do
  # Order swapped every round.
  for which in $( ((round % 2)) && echo "one mpi" || echo "mpi one"); do
    if [[ $which == one ]]; then
      "$SB" run --backend null --threads 2 --duration 2s --quiet --json "$OUT/one.$round.json"
    else
      "${MPIRUN[@]}" -n 2 "$SB" run --backend null --threads 1 --duration 2s --quiet --json "$OUT/mpi.$round.json"
    fi
  done
  one=$(get "$OUT/one.$round.json" 'd["throughput"]["ops_per_sec"]')
  mpi=$(get "$OUT/mpi.$round.json" 'd["throughput"]["ops_per_sec"]')
  ratios+=("$(python3 -c "print($mpi/$one)")")
  skews+=("$(get "$OUT/mpi.$round.json" 'd["mpi"]["start_skew_ns"]')")
  printf 'round %d: 1 process x 2 threads %.0f ops/s, 2 ranks x 1 thread %.0f ops/s, ratio %.3f, start skew <= %s ns\n' \
    "$round" "$one" "$mpi" "${ratios[-1]}" "${skews[-1]}"
done
echo "overhead: median ratio 2 ranks / 1 process = $(med "${ratios[@]}"), median start skew bound $(med "${skews[@]}") ns"

echo
# The live merge, per rank count: the null backend at 200 arrivals/s per rank
# (the workload is light: the merge is what is measured), 1 s intervals, 10 s,
# MERGE_ROUNDS runs each; the medians. rank 0's CPU is its reporter thread's
# CPU time while it merges and sends (CLOCK_THREAD_CPUTIME_ID, without the
# progress line's printing), so the other ranks sharing the cores do not
# count; messages are what rank 0 received per interval.
MERGE_ROUNDS=${MERGE_ROUNDS:-3}
SIZES=${SIZES:-"2 4 8 16 32"}
printf '%-6s %9s %14s %16s %16s %16s %12s\n' ranks children msgs/interval bytes/rank/ivl max_bytes/ivl rank0_cpu_us/ivl cpu_share_%
fit=()
for n in $SIZES; do
  cpu=(); share=(); bytes=(); maxb=(); msgs=()
  for round in $(seq 1 "$MERGE_ROUNDS"); do
    f="$OUT/merge.$n.$round.json"
    "${MPIRUN[@]}" -n "$n" "$SB" run --backend null --threads 1 --schedule "constant:$((n * 200))" --duration 10s \
      --interval 1s --quiet --json "$f"
    cpu+=("$(get "$f" 'd["mpi"]["live_merge"]["cpu_ns_per_interval"]/1e3')")
    share+=("$(get "$f" 'd["mpi"]["live_merge"]["cpu_share"]*100')")
    bytes+=("$(get "$f" 'd["mpi"]["live_merge"]["bytes_per_rank_interval"]')")
    maxb+=("$(get "$f" 'd["mpi"]["live_merge"]["max_bytes_per_rank_interval"]')")
    msgs+=("$(get "$f" 'd["mpi"]["live_merge"]["messages_per_interval"]')")
    children=$(get "$f" 'd["mpi"]["live_merge"]["tree_children"]')
  done
  printf '%-6s %9s %14.2f %16.0f %16.0f %16.1f %12.4f\n' "$n" "$children" "$(med "${msgs[@]}")" "$(med "${bytes[@]}")" \
    "$(med "${maxb[@]}")" "$(med "${cpu[@]}")" "$(med "${share[@]}")"
  fit+=("$n:$(med "${cpu[@]}")")
done
# Least squares of rank 0's CPU per interval on log2(ranks) (the tree's
# depth) and, as the pessimistic alternative, on the rank count itself; both
# extrapolated to 1,000 ranks at 1 s intervals.
python3 - "${fit[@]}" <<'PY'
import math, sys
pts = [(int(a), float(b)) for a, b in (p.split(":") for p in sys.argv[1:])]
def fit(f):
    xs = [f(n) for n, _ in pts]; ys = [y for _, y in pts]
    mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
    b = sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sum((x - mx) ** 2 for x in xs)
    a = my - b * mx
    res = sum((y - a - b * x) ** 2 for x, y in zip(xs, ys)) ** 0.5
    return a, b, res
for name, f in (("log2(ranks)", lambda n: math.log2(n)), ("ranks", lambda n: float(n))):
    a, b, res = fit(f)
    at = a + b * f(1000)
    print(f"fit cpu_us/interval = {a:.1f} + {b:.2f} * {name} (residual {res:.1f} us): "
          f"1,000 ranks -> {at:.0f} us per 1 s interval = {at / 1e4:.2f}% of a core")
PY
