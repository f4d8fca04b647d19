#!/usr/bin/env bash
# Scale-out over Open MPI: what running as N ranks costs.
#
#   bench/scale_out.sh [BINARY] [ROUNDS]
#
# 1. Overhead: the null backend closed loop, 2 ranks x 1 thread (mpirun -n 2)
#    against 1 process x 2 threads, alternating, ROUNDS rounds of 2 s: the
#    median ratio of merged throughput (goal >= 0.95), and the start skew
#    bound the ranks measured (goal < 50 us on one host).
# 2. The live merge: 2, 4 and 8 ranks (oversubscribed on this host), 100 ms
#    intervals: bytes each rank sends per interval and rank 0's time per merged
#    interval.
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
printf '%-6s %14s %18s %18s\n' ranks intervals bytes/rank/interval rank0_us/interval
for n in 2 4 8; do
  "${MPIRUN[@]}" -n "$n" "$SB" run --backend null --threads 1 --duration 3s --interval 100ms --quiet \
    --json "$OUT/merge.$n.json"
  printf '%-6s %14s %18s %18.1f\n' "$n" "$(get "$OUT/merge.$n.json" 'd["mpi"]["live_merge"]["intervals"]')" \
    "$(get "$OUT/merge.$n.json" 'd["mpi"]["live_merge"]["bytes_per_rank_interval"]')" \
    "$(get "$OUT/merge.$n.json" 'd["mpi"]["live_merge"]["ns_per_interval"]/1e3')"
done
