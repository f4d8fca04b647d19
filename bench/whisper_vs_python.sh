#!/usr/bin/env bash
# storebench's whisper update_many vs whisper.py 1.1.4's (Debian python3-whisper,
# /usr/bin/python3) on identical files and identical points, measured
# alternately in the same run: throughput (updates/s) and syscalls and bytes
# read per update, for storebench's --io minimal and --io exact, for each
# number of points per update K. Prints per-round figures, medians and
# storebench/whisper.py ratios.
#
# All sides run the same carbon flush sequence: metrics in turn (--metric-dist
# sequential, one thread), K consecutive 60 s points per flush continuing the
# metric's previous flush, the simulated clock of workloads.h, the values of
# PointValue(). For each K the script first checks that every side left
# byte-identical files — the proof that they did the same work.
#
# Syscalls are counted the same way for all, by strace -c -f on separate
# passes (strace slows a process; throughput is measured without it), minus a
# zero-update pass of the same command (interpreter and start-up cost).
# Bytes read per update: storebench's own counters; whisper.py's rchar delta
# from /proc/self/io around its loop. The data set is warm (page cache) and
# every side runs one thread.
#
#   bench/whisper_vs_python.sh [BINARY] [METRICS] [UPDATES] [ROUNDS] [KS] [WORKDIR]
#   KS: comma-separated points per update, default 1,10,60
set -euo pipefail

BIN=${1:-build/release/storebench}
METRICS=${2:-200}
UPDATES=${3:-20000}
ROUNDS=${4:-5}
KS=${5:-1,10,60}
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
sb() {  # sb IO DATA UPDATES JSON: a saturating open loop runs exactly UPDATES flushes
  local io=$1 data=$2 n=$3 json=$4
  "$BIN" run --backend whisper --data "$data" --workload update --points-per-update "$K" --metric-dist sequential \
    --threads 1 --ops "$n" --schedule constant:10M --seed 1 --quiet --json "$json" --io "$io" >/dev/null
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
calc() { $PY -c "print(round($1, ${2:-3}))"; }
sb_strace() {  # sb_strace IO N: storebench's file syscalls for N flushes, after the zero-flush pass
  fresh "$WORK/a"
  local base all
  base=$(strace_count "$BIN" run --backend whisper --data "$WORK/a" --workload update --points-per-update "$K" \
    --metric-dist sequential --threads 1 --ops 1 --schedule constant:10M --quiet --io "$1")
  fresh "$WORK/a"
  all=$(strace_count "$BIN" run --backend whisper --data "$WORK/a" --workload update --points-per-update "$K" \
    --metric-dist sequential --threads 1 --ops $(($2 + 1)) --schedule constant:10M --quiet --io "$1")
  calc "($all - $base) / $2" 2
}

echo "# whisper update_many: storebench (--io minimal, --io exact) vs whisper.py 1.1.4"
echo "# $METRICS metrics, $RETENTION, K in {$KS} points per update_many, $UPDATES updates per pass, $ROUNDS rounds"
echo "# host: $(nproc) cpus, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), kernel $(uname -r)," \
  "python $($PY -c 'import sys; print(sys.version.split()[0])'), whisper $($PY -c 'import whisper; print(whisper.__version__)' 2>/dev/null || echo 1.1.4)"

SUMMARY=$WORK/summary
: > "$SUMMARY"
IFS=, read -r -a KLIST <<< "$KS"
for K in "${KLIST[@]}"; do
  echo
  echo "## K=$K"
  # Identical work: the same flushes leave byte-identical files.
  fresh "$WORK/b"; py "$WORK/b" "$UPDATES" >/dev/null
  for io in minimal exact; do
    fresh "$WORK/a"; sb "$io" "$WORK/a" "$UPDATES" "$WORK/sb.json"
    if diff -r -q "$WORK/a/servers" "$WORK/b/servers" >/dev/null; then
      echo "identical files after $UPDATES updates through storebench --io $io and whisper.py: yes"
    else
      echo "identical files after $UPDATES updates through storebench --io $io and whisper.py: NO — the comparison is void" >&2
      exit 1
    fi
  done

  # Syscalls per update by strace, for all, minus their zero-update passes.
  SC_N=$((UPDATES < 2000 ? UPDATES : 2000))
  min_sc=$(sb_strace minimal "$SC_N"); min_kinds=$(by_kind)
  ex_sc=$(sb_strace exact "$SC_N"); ex_kinds=$(by_kind)
  fresh "$WORK/b"; py_base=$(strace_count $PY "$WORK/flush.py" "$WORK/b" 0 "$K")
  fresh "$WORK/b"; py_all=$(strace_count $PY "$WORK/flush.py" "$WORK/b" "$SC_N" "$K")
  py_kinds=$(by_kind)
  py_sc=$(calc "($py_all - $py_base) / $SC_N" 2)
  echo "strace, file syscalls per update: minimal $min_sc, exact $ex_sc, whisper.py $py_sc" \
    "(minimal/whisper.py $(calc "$min_sc / $py_sc"), exact/whisper.py $(calc "$ex_sc / $py_sc"))"
  echo "  minimal pass totals: $min_kinds"
  echo "  exact pass totals: $ex_kinds"
  echo "  whisper.py pass totals: $py_kinds"

  # Throughput, alternately: minimal, exact, whisper.py in every round.
  for f in min_rate ex_rate py_rate min_bytes ex_bytes py_bytes min_sc ex_sc; do : > "$WORK/$f"; done
  for r in $(seq 1 "$ROUNDS"); do
    fresh "$WORK/a"; sb minimal "$WORK/a" "$UPDATES" "$WORK/min.json"
    fresh "$WORK/a"; sb exact "$WORK/a" "$UPDATES" "$WORK/ex.json"
    fresh "$WORK/b"; pyj=$(py "$WORK/b" "$UPDATES")
    for side in min ex; do
      jq_get "$WORK/$side.json" '["throughput"]["ops_per_sec"]' >> "$WORK/${side}_rate"
      jq_get "$WORK/$side.json" '["whisper"]["bytes_read_per_update"]' >> "$WORK/${side}_bytes"
      jq_get "$WORK/$side.json" '["whisper"]["syscalls_per_update"]' >> "$WORK/${side}_sc"
    done
    echo "$pyj" | $PY -c 'import json,sys; print(json.load(sys.stdin)["updates_per_s"])' >> "$WORK/py_rate"
    echo "$pyj" | $PY -c 'import json,sys; print(json.load(sys.stdin)["bytes_read_per_update"])' >> "$WORK/py_bytes"
    printf 'round %d: minimal %.0f updates/s (%.2f syscalls, %.0f B read), exact %.0f updates/s (%.2f syscalls, %.0f B read), whisper.py %.0f updates/s (%.0f B read)\n' \
      "$r" "$(tail -1 "$WORK/min_rate")" "$(tail -1 "$WORK/min_sc")" "$(tail -1 "$WORK/min_bytes")" \
      "$(tail -1 "$WORK/ex_rate")" "$(tail -1 "$WORK/ex_sc")" "$(tail -1 "$WORK/ex_bytes")" \
      "$(tail -1 "$WORK/py_rate")" "$(tail -1 "$WORK/py_bytes")"
  done
  mmr=$(median < "$WORK/min_rate"); mer=$(median < "$WORK/ex_rate"); mpr=$(median < "$WORK/py_rate")
  mmb=$(median < "$WORK/min_bytes"); meb=$(median < "$WORK/ex_bytes"); mpb=$(median < "$WORK/py_bytes")
  mms=$(median < "$WORK/min_sc"); mes=$(median < "$WORK/ex_sc")
  echo "median updates/s: minimal $mmr, exact $mer, whisper.py $mpr" \
    "(minimal/whisper.py $(calc "$mmr / $mpr" 2)x, exact/whisper.py $(calc "$mer / $mpr" 2)x)"
  echo "median bytes read per update: minimal $mmb, exact $meb, whisper.py $mpb"
  echo "storebench's own count, syscalls per update: minimal $mms (strace $min_sc), exact $mes (strace $ex_sc)"
  printf '| %s | %s | %s | %s | %s | %s | %.0f | %.0f | %.0f | %s | %s |\n' "$K" "$min_sc" "$ex_sc" "$py_sc" \
    "$(calc "$min_sc / $py_sc")" "$(calc "$ex_sc / $py_sc")" "$mmr" "$mer" "$mpr" "$(calc "$mmr / $mpr" 2)" \
    "$(calc "$mer / $mpr" 2)" >> "$SUMMARY"
done
echo
echo "| K | syscalls/update minimal | exact | whisper.py | minimal/py | exact/py | updates/s minimal | exact | whisper.py | minimal/py | exact/py |"
echo "|---|---|---|---|---|---|---|---|---|---|---|"
cat "$SUMMARY"
rm -rf "$WORK/a" "$WORK/b"
