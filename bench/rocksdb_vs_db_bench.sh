#!/usr/bin/env bash
# storebench's rocksdb backend beside Debian's db_bench (rocksdb-tools 7.8.3):
# readrandom on the same DB with the same options, both with interval
# reporting on (db_bench --report_interval_seconds=1, storebench --interval 1s),
# alternating the two tools (and their order, round by round) at each thread
# count, several rounds. Prints every run, then medians and the ratios
# storebench/db_bench for ops/s and latency percentiles, and found/not-found;
# then, per thread count, `storebench compare --paired`: the median of the
# rounds' paired ratios storebench/db_bench and its distribution-free CI.
#
# Usage: bench/rocksdb_vs_db_bench.sh [STOREBENCH_BINARY]
# Environment (defaults in brackets):
#   DB [/tmp/storebench-rocksdb-bench]  NUM [5000000]  KEY_SIZE [20]  VALUE_SIZE [400]
#   CACHE [8388608]  THREADS ["1 2 8 32"]  DURATION [10]  ROUNDS [3]
#   FILL [storebench|db_bench: which tool fills the DB when it is missing; storebench]
#   FILL_BENCH [fillrandom|fillseq: the fill, for either tool; fillrandom]  CONFIDENCE [95]
#   OUT [a new directory under /tmp for the raw outputs]
set -euo pipefail

SB=${1:-${STOREBENCH:-build/release/storebench}}
DB_BENCH=${DB_BENCH:-/usr/bin/db_bench}
DB=${DB:-/tmp/storebench-rocksdb-bench}
NUM=${NUM:-5000000}
KEY_SIZE=${KEY_SIZE:-20}
VALUE_SIZE=${VALUE_SIZE:-400}
CACHE=${CACHE:-8388608}
THREADS=${THREADS:-"1 2 8 32"}
DURATION=${DURATION:-10}
ROUNDS=${ROUNDS:-3}
FILL=${FILL:-storebench}
FILL_BENCH=${FILL_BENCH:-fillrandom}
CONFIDENCE=${CONFIDENCE:-95}
OUT=${OUT:-$(mktemp -d /tmp/rocksdb_vs_db_bench.XXXXXX)}

[[ -x $SB ]] || { echo "storebench binary '$SB' not found (build it, or pass its path)" >&2; exit 2; }
[[ -x $DB_BENCH ]] || { echo "$DB_BENCH not found: apt-get install rocksdb-tools" >&2; exit 2; }
mkdir -p "$OUT"

echo "== machine"
echo "cpu: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//'), $(nproc) online"
echo "memory: $(free -g | awk '/Mem:/ {print $2 " GiB"}'), kernel $(uname -r)"
echo "filesystem of $(dirname "$DB"): $(df -T "$(dirname "$DB")" | awk 'NR==2 {print $2 " on " $1}')"
echo "db_bench: $($DB_BENCH --version 2>&1 | head -1); storebench: $SB"
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"

shape=(--num "$NUM" --key-size "$KEY_SIZE" --value-size "$VALUE_SIZE")
db_shape=(--num="$NUM" --key_size="$KEY_SIZE" --value_size="$VALUE_SIZE")
if [[ ! -e $DB/CURRENT ]]; then
  echo "== filling $DB ($NUM keys, $FILL_BENCH, with $FILL)"
  start=$(date +%s)
  if [[ $FILL == db_bench ]]; then
    "$DB_BENCH" --benchmarks="$FILL_BENCH" --db="$DB" "${db_shape[@]}" --cache_size="$CACHE" >"$OUT/fill.txt" 2>&1
  else
    "$SB" prepare --backend rocksdb --data "$DB" "${shape[@]}" --fill "${FILL_BENCH#fill}" | tee "$OUT/fill.txt"
  fi
  echo "filled in $(( $(date +%s) - start )) s"
fi
echo "DB: $(du -sh "$DB" | cut -f1) in $DB; warming the page cache"
cat "$DB"/*.sst >/dev/null

run_db_bench() {  # threads round
  local t=$1 r=$2 f="$OUT/db_bench_t$1_r$2"
  "$DB_BENCH" --benchmarks=readrandom --use_existing_db=1 --db="$DB" "${db_shape[@]}" --cache_size="$CACHE" \
    --threads="$t" --duration="$DURATION" --histogram=1 --report_interval_seconds=1 --report_file="$f.tsv" \
    --seed=$((1000 + r)) >"$f.txt" 2>&1
}
run_storebench() {  # threads round
  local t=$1 r=$2 f="$OUT/storebench_t$1_r$2"
  "$SB" run --backend rocksdb --data "$DB" "${shape[@]}" --cache-size "$CACHE" --workload readrandom \
    --threads "$t" --duration "${DURATION}s" --interval 1s --seed $((1000 + r)) --quiet --json "$f.json" >"$f.txt" 2>&1
}

echo "== readrandom: threads {$THREADS}, ${DURATION} s per run, $ROUNDS rounds, tools alternating"
echo "db_bench:   $DB_BENCH --benchmarks=readrandom --use_existing_db=1 --db=$DB ${db_shape[*]} --cache_size=$CACHE --threads=T --duration=$DURATION --histogram=1 --report_interval_seconds=1"
echo "storebench: $SB run --backend rocksdb --data $DB ${shape[*]} --cache-size $CACHE --workload readrandom --threads T --duration ${DURATION}s --interval 1s"
for r in $(seq 1 "$ROUNDS"); do
  for t in $THREADS; do
    if (( r % 2 )); then run_db_bench "$t" "$r"; run_storebench "$t" "$r"
    else run_storebench "$t" "$r"; run_db_bench "$t" "$r"; fi
    echo "round $r, $t threads: done"
  done
done

python3 - "$OUT" "$ROUNDS" $THREADS <<'EOF'
import json, re, statistics, sys
out, rounds, threads = sys.argv[1], int(sys.argv[2]), [int(t) for t in sys.argv[3:]]

def db_bench(t, r):
    text = open(f"{out}/db_bench_t{t}_r{r}.txt").read()
    m = re.search(r"readrandom\s*:\s*([\d.]+) micros/op (\d+) ops/sec.*?\((\d+) of (\d+) found\)", text)
    p = re.search(r"Percentiles: P50: ([\d.]+) P75: ([\d.]+) P99: ([\d.]+) P99.9: ([\d.]+) P99.99: ([\d.]+)", text)
    if not m or not p:
        sys.exit(f"cannot parse {out}/db_bench_t{t}_r{r}.txt")
    return {"ops": float(m[2]), "p50": float(p[1]), "p99": float(p[3]), "p999": float(p[4]),
            "found": int(m[3]) / int(m[4])}

def storebench(t, r):
    j = json.load(open(f"{out}/storebench_t{t}_r{r}.json"))
    lat = j["latency"]["response"]
    return {"ops": j["throughput"]["ops_per_sec"], "p50": lat["p50_ns"] / 1e3, "p99": lat["p99_ns"] / 1e3,
            "p999": lat["p999_ns"] / 1e3, "found": j["rocksdb"]["found_ratio"]}

print("\n== every run (ops/s; latency in us)")
print(f"{'round':>5} {'thr':>4}  {'tool':<10} {'ops/s':>9} {'p50':>7} {'p99':>7} {'p99.9':>8} {'found':>6}")
rows = {}
for r in range(1, rounds + 1):
    for t in threads:
        for name, fn in (("db_bench", db_bench), ("storebench", storebench)):
            v = fn(t, r)
            rows.setdefault((name, t), []).append(v)
            print(f"{r:>5} {t:>4}  {name:<10} {v['ops']:>9.0f} {v['p50']:>7.1f} {v['p99']:>7.1f} {v['p999']:>8.1f} "
                  f"{100 * v['found']:>5.1f}%")

med = lambda name, t, k: statistics.median(v[k] for v in rows[(name, t)])
print(f"\n== medians over {rounds} rounds; ratio = storebench / db_bench (latency in us)")
print(f"{'thr':>4} {'db_bench ops/s':>15} {'storebench ops/s':>17} {'ratio':>6} | "
      f"{'p50 db/sb':>13} {'ratio':>6} | {'p99 db/sb':>15} {'ratio':>6} | {'p99.9 db/sb':>17} {'ratio':>6} | "
      f"{'found db/sb':>13}")
for t in threads:
    d = {k: med("db_bench", t, k) for k in ("ops", "p50", "p99", "p999", "found")}
    s = {k: med("storebench", t, k) for k in ("ops", "p50", "p99", "p999", "found")}
    print(f"{t:>4} {d['ops']:>15.0f} {s['ops']:>17.0f} {s['ops'] / d['ops']:>6.2f} | "
          f"{d['p50']:>6.1f}/{s['p50']:<6.1f} {s['p50'] / d['p50']:>6.2f} | "
          f"{d['p99']:>7.1f}/{s['p99']:<7.1f} {s['p99'] / d['p99']:>6.2f} | "
          f"{d['p999']:>8.1f}/{s['p999']:<8.1f} {s['p999'] / d['p999']:>6.2f} | "
          f"{100 * d['found']:>5.1f}%/{100 * s['found']:<5.1f}%")
# Runs of one round and thread count are adjacent in time, so their ratio cancels
# most of the machine's drift between rounds; its median is the steadier figure.
print(f"\n== paired: storebench / db_bench ops/s within each round (adjacent runs)")
print(f"{'thr':>4} {'median':>7} {'min':>6} {'max':>6}   per round")
for t in threads:
    rs = [s["ops"] / d["ops"] for s, d in zip(rows[("storebench", t)], rows[("db_bench", t)])]
    print(f"{t:>4} {statistics.median(rs):>7.3f} {min(rs):>6.3f} {max(rs):>6.3f}   " + " ".join(f"{x:.3f}" for x in rs))
print("\ndb_bench's found ratio is one thread's: its Stats::Merge keeps a single thread's message, so at\n"
      "T threads it covers about 1/T of the reads; storebench's counts every read of every worker.")
print(f"raw outputs: {out}")
EOF
for t in $THREADS; do
  echo
  echo "== storebench compare --paired, $t thread(s): round r's db_bench and storebench runs are a pair"
  db_runs=$(seq -f "$OUT/db_bench_t${t}_r%g.txt" 1 "$ROUNDS" | paste -sd,)
  sb_runs=$(seq -f "$OUT/storebench_t${t}_r%g.json" 1 "$ROUNDS" | paste -sd,)
  "$SB" compare --paired --confidence "$CONFIDENCE" "$db_runs" "$sb_runs" --json "$OUT/compare_t$t.json" |
    sed -n '/^Throughput, paired/,/^$/p'
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
