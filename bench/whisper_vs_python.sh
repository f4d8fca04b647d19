#!/usr/bin/env bash
# storebench's whisper update_many vs whisper.py 1.1.4's (Debian python3-whisper,
# /usr/bin/python3) on identical files and identical points, measured
# alternately in the same run: throughput (updates/s) and syscalls and bytes
# read per update. Prints per-round figures, medians and storebench/whisper.py ratios.
#
# Both sides run the same carbon flush sequence: metrics in turn (--metric-dist
# sequential, one thread), K consecutive 60 s points per flush continuing the
# metric's previous flush, the simulated clock of workloads.h, the values of
# PointValue(). The script checks after the first round that both sides left
# byte-identical files — the proof that they did the same work.
#
# Syscalls are counted the same way for both, by strace -c -f on separate
# passes (strace slows a process; throughput is measured without it), minus a
# zero-update pass of the same command (interpreter and start-up cost).
# Bytes read per update: storebench's own counters; whisper.py's rchar delta
# from /proc/self/io around its loop.
#
#   bench/whisper_vs_python.sh [BINARY] [METRICS] [UPDATES] [ROUNDS] [K] [WORKDIR]
set -euo pipefail

BIN=${1:-build/release/storebench}
METRICS=${2:-200}
UPDATES=${3:-20000}
ROUNDS=${4:-5}
K=${5:-10}
WORK=${6:-$(mktemp -d /tmp/wsp-vs-py.XXXXXX)}
PY=/usr/bin/python3
RETENTION=60s:1d,5m:30d,1h:5y

command -v strace >/dev/null || { echo "strace is needed (apt-get install strace)" >&2; exit 2; }
$PY -c 'import whisper' 2>/dev/null || { echo "$PY cannot import whisper (apt-get install python3-whisper)" >&2; exit 2; }
[ -x "$BIN" ] || { echo "no storebench binary at $BIN" >&2; exit 2; }

mkdir -p "$WORK"
PRISTINE=$WORK/pristine
"$BIN" prepare --backend whisper --data "$PRISTINE" --metrics "$METRICS" --retention "$RETENTION" >/dev/null

cat > "$WORK/flush.py" <<'PY'
# whisper.py side: the flush sequence of storebench's whisper worker (workloads.cc), one thread.
import json, os, sys, time, whisper
data, updates, k = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
m = json.load(open(os.path.join(data, "storebench-whisper.json")))
metrics, start = m["metrics"], m["start"]
step, points0 = m["archives"][0]
a0 = start - start % step
first_retention = step * points0
paths = ["%s/servers/host-%04d/cpu/metric-%07d.wsp" % (data, i // 256, i) for i in range(metrics)]
nxt = [a0 - step * (k - 1)] * metrics
def rchar():
    for line in open("/proc/self/io"):
        if line.startswith("rchar:"):
            return int(line.split()[1])
r0, t0 = rchar(), time.perf_counter()
for op in range(updates):
    metric = op % metrics
    sim = start + op * k * step // metrics
    if nxt[metric] + (k - 1) * step < sim - (first_retention - k * step):
        nxt[metric] = sim - sim % step - (k - 1) * step
    pts = [(nxt[metric] + i * step, float((metric + 1) * 1000000 + (nxt[metric] + i * step - a0) // step))
           for i in range(k)]
    nxt[metric] += k * step
    whisper.update_many(paths[metric], pts, now=max(sim, pts[-1][0]))
t1, r1 = time.perf_counter(), rchar()
print(json.dumps({"updates_per_s": updates / (t1 - t0) if updates else 0,
                  "bytes_read_per_update": (r1 - r0 - 0) / updates if updates else 0}))
PY

fresh() { rm -rf "$1"; cp -a "$PRISTINE" "$1"; }
sb() {  # sb DATA UPDATES JSON [extra flags]: a saturating open loop runs exactly UPDATES flushes
  local data=$1 n=$2 json=$3; shift 3
  "$BIN" run --backend whisper --data "$data" --workload update --points-per-update "$K" --metric-dist sequential \
    --threads 1 --ops "$n" --schedule constant:10M --seed 1 --quiet --json "$json" "$@" >/dev/null
}
py() { $PY "$WORK/flush.py" "$1" "$2" "$K"; }
# File syscalls counted by strace -c -f for a command.
FILE_CALLS='openat|open|close|read|pread64|write|pwrite64|lseek|fstat|newfstatat|flock|fadvise64|ioctl'
strace_count() {
  strace -f -c -o "$WORK/strace.txt" "$@" >/dev/null
  awk -v re="^($FILE_CALLS)\$" '$NF ~ re { n += ($4 ~ /^[0-9]+$/ && NF >= 5) ? $4 : 0 } END { print n + 0 }' \
    "$WORK/strace.txt"
}
by_kind() {
  awk -v re="^($FILE_CALLS)\$" '$NF ~ re && NF >= 5 { printf "%s=%s ", $NF, $4 }' "$WORK/strace.txt"
}
median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
jq_get() { $PY -c 'import json,sys; d=json.load(open(sys.argv[1])); print(eval("d"+sys.argv[2]))' "$@"; }

echo "# whisper update_many: storebench (exact pread/pwrite) vs whisper.py 1.1.4"
echo "# $METRICS metrics, $RETENTION, K=$K points per update_many, $UPDATES updates per pass, $ROUNDS rounds"
echo "# host: $(nproc) cpus, $(uname -r), python $($PY -c 'import sys; print(sys.version.split()[0])'), whisper $($PY -c 'import whisper; print(whisper.__version__)' 2>/dev/null || echo 1.1.4)"

# Identical work: the same flushes leave byte-identical files.
fresh "$WORK/a"; fresh "$WORK/b"
sb "$WORK/a" "$UPDATES" "$WORK/sb.json"
py "$WORK/b" "$UPDATES" >/dev/null
if diff -r -q "$WORK/a/servers" "$WORK/b/servers" >/dev/null; then
  echo "identical files after $UPDATES updates through each: yes"
else
  echo "identical files after $UPDATES updates through each: NO — the comparison is void" >&2
  exit 1
fi

# Syscalls per update by strace, for both, minus their zero-update passes.
SC_N=$((UPDATES < 2000 ? UPDATES : 2000))
fresh "$WORK/a"; sb_base=$(strace_count "$BIN" run --backend whisper --data "$WORK/a" --workload update \
  --points-per-update "$K" --metric-dist sequential --threads 1 --ops 1 --schedule constant:10M --quiet)
fresh "$WORK/a"; sb_all=$(strace_count "$BIN" run --backend whisper --data "$WORK/a" --workload update \
  --points-per-update "$K" --metric-dist sequential --threads 1 --ops $((SC_N + 1)) --schedule constant:10M --quiet)
sb_kinds=$(by_kind)
fresh "$WORK/b"; py_base=$(strace_count $PY "$WORK/flush.py" "$WORK/b" 0 "$K")
fresh "$WORK/b"; py_all=$(strace_count $PY "$WORK/flush.py" "$WORK/b" "$SC_N" "$K")
py_kinds=$(by_kind)
sb_sc=$($PY -c "print(($sb_all - $sb_base) / $SC_N)")
py_sc=$($PY -c "print(($py_all - $py_base) / $SC_N)")
echo "strace, file syscalls per update: storebench $sb_sc, whisper.py $py_sc (ratio $($PY -c "print(round($sb_sc / $py_sc, 3))"))"
echo "  storebench pass totals: $sb_kinds"
echo "  whisper.py pass totals: $py_kinds"

# Throughput, alternately.
: > "$WORK/sb_rate"; : > "$WORK/py_rate"; : > "$WORK/sb_bytes"; : > "$WORK/py_bytes"; : > "$WORK/sb_sc"
for r in $(seq 1 "$ROUNDS"); do
  fresh "$WORK/a"; fresh "$WORK/b"
  sb "$WORK/a" "$UPDATES" "$WORK/sb.json"
  sbr=$(jq_get "$WORK/sb.json" '["throughput"]["ops_per_sec"]')
  sbb=$(jq_get "$WORK/sb.json" '["whisper"]["bytes_read_per_update"]')
  sbs=$(jq_get "$WORK/sb.json" '["whisper"]["syscalls_per_update"]')
  pyj=$(py "$WORK/b" "$UPDATES")
  pyr=$(echo "$pyj" | $PY -c 'import json,sys; print(json.load(sys.stdin)["updates_per_s"])')
  pyb=$(echo "$pyj" | $PY -c 'import json,sys; print(json.load(sys.stdin)["bytes_read_per_update"])')
  echo "$sbr" >> "$WORK/sb_rate"; echo "$pyr" >> "$WORK/py_rate"
  echo "$sbb" >> "$WORK/sb_bytes"; echo "$pyb" >> "$WORK/py_bytes"; echo "$sbs" >> "$WORK/sb_sc"
  printf 'round %d: storebench %.0f updates/s (%.1f syscalls, %.0f B read per update), whisper.py %.0f updates/s (%.0f B read per update)\n' \
    "$r" "$sbr" "$sbs" "$sbb" "$pyr" "$pyb"
done
msr=$(median < "$WORK/sb_rate"); mpr=$(median < "$WORK/py_rate")
msb=$(median < "$WORK/sb_bytes"); mpb=$(median < "$WORK/py_bytes"); mss=$(median < "$WORK/sb_sc")
echo "median: storebench $msr updates/s, whisper.py $mpr updates/s, ratio $($PY -c "print(round($msr / $mpr, 2))")x"
echo "median bytes read per update: storebench $msb, whisper.py $mpb (ratio $($PY -c "print(round($msb / $mpb, 3))"))"
echo "storebench's own count: $mss syscalls per update (strace: $sb_sc)"
rm -rf "$WORK/a" "$WORK/b"
