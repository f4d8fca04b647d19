#!/usr/bin/env bash
# storebench vs fio on the same file, same block size, same cache state, run
# alternately (A B B A …) for several rounds; prints the median IOPS of each
# and the ratio storebench/fio per pairing.
#
#   bench/fio_compare.sh [DATA_DIR] [SIZE] [ROUNDS] [SECONDS]
#   defaults:            /var/tmp/sb-fio 2G  3        5
#
# Pairings (fio engine → storebench method):
#   psync 1 and 2 jobs → pread, 1 and 2 threads          (warm)
#   pvsync2            → pread_threadpool (preadv2 RWF_NOWAIT inline) (warm)
#   io_uring qd1, qd32 → io_uring --iodepth 1, 32          (warm)
#   io_uring qd32 O_DIRECT, cache evicted → io_uring --direct --iodepth 32 (cold)
# Warm: the file is read through before each run and fio gets invalidate=0
# (fio's default invalidate=1 would evict it). Cold: storebench --cache cold,
# fio invalidate=1 — both evict with posix_fadvise(DONTNEED).
set -euo pipefail
DATA=${1:-/var/tmp/sb-fio}
SIZE=${2:-2G}
ROUNDS=${3:-3}
SECS=${4:-5}
SB=${STOREBENCH:-$(dirname "$0")/../build/release/storebench}
command -v fio >/dev/null || { echo "fio is not installed (apt-get install fio)"; exit 2; }
[ -x "$SB" ] || { echo "storebench binary not found at $SB (set STOREBENCH=…)"; exit 2; }

"$SB" prepare --backend file --data "$DATA" --files 1 --file-size "$SIZE"
FILE="$DATA/data-00000.bin"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

# name | storebench flags | fio flags | cache (warm|cold)
CASES=(
  "psync-1job|--method pread --threads 1|--ioengine=psync --numjobs=1|warm"
  "psync-2jobs|--method pread --threads 2|--ioengine=psync --numjobs=2|warm"
  "pvsync2|--method pread_threadpool --threads 1|--ioengine=pvsync2 --numjobs=1|warm"
  "io_uring-qd1|--method io_uring --iodepth 1|--ioengine=io_uring --iodepth=1|warm"
  "io_uring-qd32|--method io_uring --iodepth 32|--ioengine=io_uring --iodepth=32|warm"
  "io_uring-qd32-direct-cold|--method io_uring --iodepth 32 --direct|--ioengine=io_uring --iodepth=32 --direct=1|cold"
)

run_sb() {  # flags cache out
  "$SB" run --backend file --data "$DATA" --workload randread --block-size 4k $1 --cache "$2" \
    --duration "${SECS}s" --quiet --json "$3" >/dev/null
  python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(d['totals']['ops']/d['totals']['elapsed_s'])" "$3"
}

run_fio() {  # flags cache out
  local inv=0
  if [ "$2" = warm ]; then cat "$FILE" >/dev/null; else inv=1; fi
  fio --name=cmp --filename="$FILE" --rw=randread --bs=4k --size="$SIZE" --time_based --runtime="$SECS" \
    --invalidate=$inv --group_reporting --output-format=json $1 >"$3"
  python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(d['jobs'][0]['read']['iops'])" "$3"
}

for r in $(seq 1 "$ROUNDS"); do
  for c in "${CASES[@]}"; do
    IFS='|' read -r name sbf fiof cache <<<"$c"
    if (( r % 2 )); then order="sb fio"; else order="fio sb"; fi
    for tool in $order; do
      if [ "$tool" = sb ]; then v=$(run_sb "$sbf" "$cache" "$TMP/sb.json"); else v=$(run_fio "$fiof" "$cache" "$TMP/fio.json"); fi
      echo "$name $tool $v" >>"$TMP/results"
      echo "round $r $name $tool $(printf '%.0f' "$v") IOPS" >&2
    done
  done
done

echo
echo "load average during the runs: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) cores"
python3 - "$TMP/results" <<'PY'
import statistics, sys
rows = {}
for line in open(sys.argv[1]):
    name, tool, v = line.split()
    rows.setdefault(name, {}).setdefault(tool, []).append(float(v))
print(f"{'case':28} {'storebench IOPS':>16} {'fio IOPS':>12} {'ratio':>7}   (medians of {len(next(iter(rows.values()))['sb'])} rounds)")
for name, t in rows.items():
    s, f = statistics.median(t['sb']), statistics.median(t['fio'])
    print(f"{name:28} {s:16,.0f} {f:12,.0f} {s/f:7.3f}")
# The two runs of one round are adjacent in time: their ratio cancels most of the drift between rounds.
print(f"\n{'case':28} {'paired ratio':>12} {'min':>6} {'max':>6}   (storebench / fio within each round)")
for name, t in rows.items():
    rs = [s / f for s, f in zip(t['sb'], t['fio'])]
    print(f"{name:28} {statistics.median(rs):12.3f} {min(rs):6.3f} {max(rs):6.3f}")
PY
