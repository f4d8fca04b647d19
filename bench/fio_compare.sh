#!/usr/bin/env bash
# storebench vs its floor vs fio on the same file, same block size, same cache
# state, run alternately for several rounds; prints the median IOPS of each,
# storebench/floor and storebench/fio of the medians, the same ratios paired
# within each round (adjacent runs, so the machine's drift cancels), and
# storebench/floor in ops per CPU-second (user + sys of each process), which
# other processes' load on a shared machine disturbs far less than IOPS.
#
#   bench/fio_compare.sh [DATA_DIR] [SIZE] [ROUNDS] [SECONDS] [CASE_FILTER]
#   defaults:            /var/tmp/sb-fio 2G  3        5        (all cases)
#
# The floor is bench/file_floor (built with the project): a bare loop of the
# same calls at the same offsets (storebench's generator and seeds), nothing
# else — storebench/floor is the share of each read the harness leaves.
# Pairings (storebench method → floor loop → fio engine):
#   pread 1 and 2 threads      → pread            → psync            (warm)
#   read --buffer 0, 1 and 2   → lseek + read     → sync             (warm)
#   pread_threadpool           → preadv2(RWF_NOWAIT) → pvsync2       (warm)
#   mmap                       → memcpy from mmap → mmap             (warm)
#   io_uring qd1 (1, 2 threads), qd32 → io_uring  → io_uring         (warm)
#   io_uring qd32 O_DIRECT, cache evicted → io_uring --direct → io_uring direct=1 (cold)
# Warm: the file is read through before each run and fio gets invalidate=0
# (fio's default invalidate=1 would evict it). Cold: storebench --cache cold;
# fio invalidate=1; the floor after posix_fadvise(DONTNEED) — all three evict
# the same way. CASE_FILTER (a regex on case names) runs a subset; TOOLS="sb floor"
# leaves fio out (more rounds of storebench/floor in the same time).
# Beside each paired median the summary prints its 95 % confidence interval:
# the order statistics x(k)..x(n+1-k) that bracket the median with at least
# 95 % probability for any distribution of the per-round ratios (the binomial
# sign-test interval; needs 6 rounds or more) — what the rounds can and cannot
# tell apart on a noisy host.
set -euo pipefail
DATA=${1:-/var/tmp/sb-fio}
SIZE=${2:-2G}
ROUNDS=${3:-3}
SECS=${4:-5}
FILTER=${5:-.}
read -r -a TOOLS <<<"${TOOLS:-sb floor fio}"
BUILD=$(dirname "$0")/../build/release
SB=${STOREBENCH:-$BUILD/storebench}
FLOOR=${FLOOR:-$BUILD/bench/file_floor}
[[ " ${TOOLS[*]} " == *" fio "* ]] && ! command -v fio >/dev/null && { echo "fio is not installed (apt-get install fio)"; exit 2; }
[[ " ${TOOLS[*]} " == *" sb "* && " ${TOOLS[*]} " == *" floor "* ]] || { echo "TOOLS must name sb and floor (and may name fio): got '${TOOLS[*]}'"; exit 2; }
[ -x "$SB" ] || { echo "storebench binary not found at $SB (set STOREBENCH=…)"; exit 2; }
[ -x "$FLOOR" ] || { echo "floor binary not found at $FLOOR (cmake --build build/release --target file_floor, or FLOOR=…)"; exit 2; }

"$SB" prepare --backend file --data "$DATA" --files 1 --file-size "$SIZE"
FILE="$DATA/data-00000.bin"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

# name | storebench flags | floor flags | fio flags | cache (warm|cold)
CASES=(
  "pread-1thread|--method pread --threads 1|--method pread --threads 1|--ioengine=psync --numjobs=1|warm"
  "pread-2threads|--method pread --threads 2|--method pread --threads 2|--ioengine=psync --numjobs=2|warm"
  "read-1thread|--method read --buffer 0 --threads 1|--method read --threads 1|--ioengine=sync --numjobs=1|warm"
  "read-2threads|--method read --buffer 0 --threads 2|--method read --threads 2|--ioengine=sync --numjobs=2|warm"
  "preadv2-nowait|--method pread_threadpool --threads 1|--method preadv2 --threads 1|--ioengine=pvsync2 --numjobs=1|warm"
  "mmap|--method mmap --threads 1|--method mmap --threads 1|--ioengine=mmap --numjobs=1|warm"
  "io_uring-qd1|--method io_uring --iodepth 1 --threads 1|--method io_uring --iodepth 1 --threads 1|--ioengine=io_uring --iodepth=1 --numjobs=1|warm"
  "io_uring-qd1-2threads|--method io_uring --iodepth 1 --threads 2|--method io_uring --iodepth 1 --threads 2|--ioengine=io_uring --iodepth=1 --numjobs=2|warm"
  "io_uring-qd32|--method io_uring --iodepth 32|--method io_uring --iodepth 32|--ioengine=io_uring --iodepth=32|warm"
  "io_uring-qd32-direct-cold|--method io_uring --iodepth 32 --direct|--method io_uring --iodepth 32 --direct|--ioengine=io_uring --iodepth=32 --direct=1|cold"
)

warm() { cat "$FILE" >/dev/null; }
evict() { python3 -c "import os,sys; fd=os.open(sys.argv[1], os.O_RDONLY); os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)" "$FILE"; }

run_sb() {  # flags cache out
  "$SB" run --backend file --data "$DATA" --workload randread --block-size 4k $1 --cache "$2" \
    --duration "${SECS}s" --quiet --json "$3" >/dev/null
  python3 -c "import json,sys; d=json.load(open(sys.argv[1])); t=d['totals']; c=d['cpu']
print(t['ops']/t['elapsed_s'], t['ops']/(c['user_s']+c['sys_s']), d['file'].get('harness_ns_per_op', 0))" "$3"
}

run_floor() {  # flags cache out
  if [ "$2" = warm ]; then warm; else evict; fi
  "$FLOOR" $1 --block-size 4096 --seconds "$SECS" "$FILE" >"$3"
  python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(d['ops_per_s'], d['ops']/(d['user_s']+d['sys_s']))" "$3"
}

run_fio() {  # flags cache out
  local inv=0
  if [ "$2" = warm ]; then warm; else inv=1; fi
  fio --name=cmp --filename="$FILE" --rw=randread --bs=4k --size="$SIZE" --time_based --runtime="$SECS" \
    --invalidate=$inv --group_reporting --output-format=json $1 >"$3"
  python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(d['jobs'][0]['read']['iops'])" "$3"
}

# The tools' order rotates by round, so no tool always runs first or last.
for r in $(seq 1 "$ROUNDS"); do
  for c in "${CASES[@]}"; do
    IFS='|' read -r name sbf flf fiof cache <<<"$c"
    [[ $name =~ $FILTER ]] || continue
    n=${#TOOLS[@]}
    for i in $(seq 0 $((n - 1))); do
      tool=${TOOLS[$(( (i + n - (r - 1) % n) % n ))]}
      case $tool in
        sb) v=$(run_sb "$sbf" "$cache" "$TMP/sb.json") ;;
        floor) v=$(run_floor "$flf" "$cache" "$TMP/floor.json") ;;
        fio) v=$(run_fio "$fiof" "$cache" "$TMP/fio.json") ;;
      esac
      echo "$r $name $tool $v" >>"$TMP/results"
      echo "round $r $name $tool $v" >&2
    done
  done
done

echo
echo "load average after the runs: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) cores"
python3 - "$TMP/results" "$(dirname "$0")" <<'PY'
import statistics, sys
sys.path.insert(0, sys.argv[2])
from median_interval import median_interval
# name -> tool -> [per-round IOPS]; sb and floor also -> ops per CPU-second; sb -> harness ns/op
rows = {}
for line in open(sys.argv[1]):
    r, name, tool, v, *rest = line.split()
    t = rows.setdefault(name, {})
    t.setdefault(tool, []).append(float(v))
    if tool in ('sb', 'floor'):
        t.setdefault(tool + '_cpu', []).append(float(rest[0]))
    if tool == 'sb':
        t.setdefault('harness', []).append(float(rest[1]))
med = statistics.median
n = len(next(iter(rows.values()))['sb'])
has_fio = all('fio' in t for t in rows.values())

def paired(a, b, ci=False):
    rs = [x / y for x, y in zip(a, b)]
    text = f"{med(rs):.3f} ({min(rs):.3f}-{max(rs):.3f})"
    if ci:
        c = median_interval(rs)
        text += f" [{c[0]:.3f}-{c[1]:.3f}]" if c else " [-]"
    return text, rs

fio_head = f" {'fio':>11}" if has_fio else ""
print(f"IOPS, medians of {n} rounds; 'per CPU-s' = ops per second of the process's user+sys CPU time")
print(f"{'case':26} {'storebench':>11} {'floor':>11}{fio_head} {'sb/floor':>9}{' sb/fio' if has_fio else ''} "
      f"{'sb/floor per CPU-s':>19} {'harness ns/op':>14}")
for name, t in rows.items():
    s, fl = med(t['sb']), med(t['floor'])
    fio = f" {med(t['fio']):11,.0f}" if has_fio else ""
    sf = f" {s / med(t['fio']):6.3f}" if has_fio else ""
    print(f"{name:26} {s:11,.0f} {fl:11,.0f}{fio} {s/fl:9.3f}{sf} "
          f"{med(t['sb_cpu'])/med(t['floor_cpu']):19.3f} {med(t['harness']):14.0f}")
# The runs of one round are adjacent in time: their ratio cancels most of the drift between rounds.
print(f"\npaired ratios (runs of one round): median (min-max) [95 % interval of the median]")
print(f"{'case':26} {'sb/floor':>34}{' ' + format('sb/fio', '>20') if has_fio else ''} {'sb/floor per CPU-s':>34}"
      "   per round sb/floor")
for name, t in rows.items():
    a, ra = paired(t['sb'], t['floor'], ci=True)
    b = " " + format(paired(t['sb'], t['fio'])[0], '>20') if has_fio else ""
    c, _ = paired(t['sb_cpu'], t['floor_cpu'], ci=True)
    print(f"{name:26} {a:>34}{b} {c:>34}   " + " ".join(f"{x:.3f}" for x in ra))
print(f"\nper-round IOPS (storebench / floor{' / fio' if has_fio else ''}):")
for name, t in rows.items():
    cols = zip(t['sb'], t['floor'], t['fio']) if has_fio else zip(t['sb'], t['floor'])
    print(f"{name:26} " + "  ".join("/".join(f"{v:,.0f}" for v in c) for c in cols))
PY
