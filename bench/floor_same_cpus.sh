#!/usr/bin/env bash
# storebench vs its floor, both at once on the same CPUs, per CPU-second of
# the reading threads. Run one after the other (bench/fio_compare.sh), the two
# see a shared host differently from one second to the next (a single round's
# storebench/floor by IOPS ranges 0.7–1.15 here), so a 5 % question drowns.
# Here each round starts the floor (bench/file_floor) pinned to the case's
# CPUs, then storebench with --cpus on the same CPUs, and stops the floor
# (SIGINT) when storebench ends: the scheduler hands each CPU to one and then
# the other every few milliseconds, so whatever the host does falls on both
# alike. The figure is reads per CPU-second of the threads that read —
# storebench's workers.cpu_ns (schedstat, the workers alone: the reporter and
# the hiccup meter excluded, as the floor has neither) against the floor's
# user + sys (its only other thread sleeps) — which a CPU-bound read loop
# turns into IOPS when it has the CPU to itself.
# The cold O_DIRECT io_uring qd32 case is bound by the device, not the CPU:
# there both keep 32 reads in flight on the same device at once and the
# figure is reads per second over the same span — storebench runs 2 s longer
# (100 ms intervals, --hlog for their wall-clock start) and its reads are
# counted over exactly the floor's span (start_epoch_s + elapsed_s),
# interpolated inside the two edge intervals. A client that keeps its queue
# as full as the bare loop gets half of the device, as the loop does.
#
#   bench/floor_same_cpus.sh [DATA_DIR] [SIZE] [ROUNDS] [SECONDS] [CASE_FILTER]
#   defaults:                /var/tmp/sb-fio 2G  9        3        (all cases)
#
# One-thread cases alternate between CPU 0 and CPU 1 from round to round (the
# reporter and hiccup meter go to the other CPU, which the floor never uses);
# two-thread cases use CPUs 0,1 for both. Biases, both against storebench:
# the floor also runs alone for storebench's set-up and exit (~0.2 s per
# round), and storebench's larger working set pays more to refill the caches
# after each switch between the two.
# FLOOR_EXTRA=--timed compares against the floor that also reads the clock
# twice and records a histogram value per read (sync methods; the io_uring
# and cold cases are skipped then): what storebench adds beyond measuring. The file is read through before each
# round, since the host may reclaim page cache between rounds.
set -euo pipefail
DATA=${1:-/var/tmp/sb-fio}
SIZE=${2:-2G}
ROUNDS=${3:-9}
SECS=${4:-3}
FILTER=${5:-.}
BUILD=$(dirname "$0")/../build/release
SB=${STOREBENCH:-$BUILD/storebench}
FLOOR=${FLOOR:-$BUILD/bench/file_floor}
[ -x "$SB" ] || { echo "storebench binary not found at $SB (set STOREBENCH=…)"; exit 2; }
[ -x "$FLOOR" ] || { echo "floor binary not found at $FLOOR (cmake --build build/release --target file_floor, or FLOOR=…)"; exit 2; }
[ "$(nproc)" -ge 2 ] || { echo "needs 2 CPUs (the 1-thread cases put storebench's reporter on the other)"; exit 2; }

"$SB" prepare --backend file --data "$DATA" --files 1 --file-size "$SIZE" >/dev/null
FILE="$DATA/data-00000.bin"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

# name | storebench flags | floor flags | threads
CASES=(
  "pread-1thread|--method pread|--method pread|1"
  "pread-2threads|--method pread|--method pread|2"
  "read-1thread|--method read --buffer 0|--method read|1"
  "read-2threads|--method read --buffer 0|--method read|2"
  "io_uring-qd1|--method io_uring --iodepth 1|--method io_uring --iodepth 1|1"
  "io_uring-qd1-2threads|--method io_uring --iodepth 1|--method io_uring --iodepth 1|2"
  "io_uring-qd32-direct-cold|--method io_uring --iodepth 32 --direct|--method io_uring --iodepth 32 --direct|1"
)

echo "storebench $("$SB" --version 2>/dev/null | head -1) | $(nproc) CPUs | $(uname -r) | $ROUNDS rounds x ${SECS}s | $(date -u +%FT%TZ)"
printf '%-26s %12s %12s %8s %17s   %s\n' case "floor" "storebench" "sb/floor" "[min..max]" "per round (reads per CPU-s; cold: per s)"
for spec in "${CASES[@]}"; do
  IFS='|' read -r name sbflags flflags threads <<<"$spec"
  [[ "$name" =~ $FILTER ]] || continue
  [[ -n "${FLOOR_EXTRA:-}" && "$name" == io_uring* ]] && continue
  : >"$TMP/rows"
  for r in $(seq "$ROUNDS"); do
    if [[ "$name" == *cold ]]; then
      # shellcheck disable=SC2086
      "$SB" run --backend file --data "$DATA" --workload randread --block-size 4k $sbflags --threads "$threads" \
        --cache cold --duration "$((SECS + 2))s" --interval 100ms --quiet --json "$TMP/sb.json" --hlog "$TMP/sb.hlog" \
        >/dev/null &
      sb=$!
      sleep 1
      # shellcheck disable=SC2086
      "$FLOOR" $flflags --threads "$threads" --block-size 4096 --seconds "$SECS" "$FILE" >"$TMP/floor.json"
      wait "$sb"
      python3 - "$TMP/floor.json" "$TMP/sb.json" "$TMP/sb.hlog" >>"$TMP/rows" <<'PY'
import json, re, sys
f = json.load(open(sys.argv[1])); s = json.load(open(sys.argv[2]))
start = float(re.search(r"#\[StartTime: ([0-9.]+)", open(sys.argv[3]).read()).group(1))
lo, hi = f["start_epoch_s"], f["start_epoch_s"] + f["elapsed_s"]
ops = 0.0  # storebench's reads inside [lo, hi], pro rata inside the edge intervals
for i in s["intervals"]:
    b, e = start + i["t_s"] - i["length_s"], start + i["t_s"]
    if e > b: ops += i["ops"] * max(0.0, min(e, hi) - max(b, lo)) / (e - b)
print(f["ops"] / f["elapsed_s"], ops / f["elapsed_s"], ops / f["ops"])
PY
      continue
    fi
    if [ "$threads" = 1 ]; then cpus=$((r % 2)); else cpus=0,1; fi
    cat "$FILE" >/dev/null
    # shellcheck disable=SC2086
    taskset -c "$cpus" "$FLOOR" $flflags ${FLOOR_EXTRA:-} --threads "$threads" --block-size 4096 --seconds 600 "$FILE" >"$TMP/floor.json" &
    floor=$!
    sleep 0.1
    # shellcheck disable=SC2086
    "$SB" run --backend file --data "$DATA" --workload randread --block-size 4k $sbflags --threads "$threads" \
      --cpus "$cpus" --cache asis --duration "${SECS}s" --quiet --json "$TMP/sb.json" >/dev/null
    kill -INT "$floor"
    wait "$floor"
    python3 - "$TMP/floor.json" "$TMP/sb.json" >>"$TMP/rows" <<'PY'
import json, sys
f = json.load(open(sys.argv[1])); s = json.load(open(sys.argv[2]))
floor = f["ops"] / (f["user_s"] + f["sys_s"])
sb = s["totals"]["ops"] / (s["workers"]["cpu_ns"] / 1e9)
print(floor, sb, sb / floor)
PY
  done
  python3 - "$name" "$TMP/rows" <<'PY'
import statistics as st, sys
rows = [[float(x) for x in line.split()] for line in open(sys.argv[2])]
ratios = [r[2] for r in rows]
print(f"{sys.argv[1]:26s} {st.median(r[0] for r in rows):12.0f} {st.median(r[1] for r in rows):12.0f} "
      f"{st.median(ratios):8.3f}    [{min(ratios):.3f}..{max(ratios):.3f}]   " + " ".join(f"{x:.3f}" for x in ratios))
PY
done
