#!/usr/bin/env bash
# What the client costs per RocksDB Get, counted in instructions (repeatable,
# unlike wall-clock time on a shared machine): storebench and Debian's db_bench
# (rocksdb-tools 7.8.3) run readrandom on the same DB with the same options
# under `valgrind --tool=callgrind --separate-threads=yes`, each at two op
# counts; the difference between the two runs divided by the difference in ops
# is the marginal cost of one op, free of start-up and DB-open costs. On the
# worker thread the cost splits into the engine (inclusive cost of
# rocksdb::DBImpl::Get, the entry point both tools reach) and the client
# (everything else on that thread: key generation, timing, recording). The
# other threads' marginal cost (reporters, RocksDB's background threads) is
# printed too: it follows time (one interval report a second), not ops, and
# under valgrind a run lasts far longer than natively, so storebench's is also
# given per interval report.
#
# Then the whole process as cachegrind sees it (`valgrind --tool=cachegrind
# --cache-sim=yes`: every thread, start-up and DB open cancelled by the same
# two op counts): marginal instructions, data reads and writes, D1 and LL
# misses per op, and the ratios storebench / db_bench. That counts all the
# work either tool makes the machine do per op, the engine's included.
#
# Usage: bench/rocksdb_harness_cost.sh [STOREBENCH_BINARY]
# Environment: DB [a temporary directory; filled with 100k keys when missing]
#              N1 [5000]  N2 [25000]
#              TOOLS ["callgrind cachegrind": the comparisons to run]
#              SB_INTERVAL [1s: storebench's --interval; its interval report is
#                work per second, not per op, which valgrind's slowdown (about 50x)
#                makes look like per-op work: a value longer than the run shows
#                the per-op work alone]
set -euo pipefail
SB=${1:-${STOREBENCH:-build/release/storebench}}
DB_BENCH=${DB_BENCH:-/usr/bin/db_bench}
N1=${N1:-5000}
N2=${N2:-25000}
TOOLS=${TOOLS:-callgrind cachegrind}
SB_INTERVAL=${SB_INTERVAL:-1s}
TMP=$(mktemp -d /tmp/rocksdb_harness_cost.XXXXXX)
trap 'rm -rf "$TMP"' EXIT
DB=${DB:-$TMP/db}
[[ -x $SB ]] || { echo "storebench binary '$SB' not found (build it, or pass its path)" >&2; exit 2; }
[[ -x $DB_BENCH ]] || { echo "$DB_BENCH not found: apt-get install rocksdb-tools" >&2; exit 2; }
command -v valgrind >/dev/null || { echo "valgrind not found: apt-get install valgrind" >&2; exit 2; }

shape=(--num 100000 --key-size 20 --value-size 400)
db_shape=(--num=100000 --key_size=20 --value_size=400)
[[ -e $DB/CURRENT ]] || "$SB" prepare --backend rocksdb --data "$DB" "${shape[@]}" --fill random >/dev/null
sb_run=("$SB" run --backend rocksdb --data "$DB" "${shape[@]}" --cache-size 8388608 --workload readrandom --threads 1
        --interval "$SB_INTERVAL" --quiet)
db_run=("$DB_BENCH" --benchmarks=readrandom --use_existing_db=1 --db="$DB" "${db_shape[@]}" --cache_size=8388608
        --threads=1 --histogram=1 --report_interval_seconds=1 --report_file="$TMP/report.tsv")
echo "storebench: $SB run --backend rocksdb --data DB ${shape[*]} --cache-size 8388608 --workload readrandom --threads 1 --ops N --interval $SB_INTERVAL"
echo "db_bench:   $DB_BENCH --benchmarks=readrandom --use_existing_db=1 --db=DB ${db_shape[*]} --cache_size=8388608 --threads=1 --reads=N --histogram=1 --report_interval_seconds=1"

if [[ " $TOOLS " == *" callgrind "* ]]; then
cg=(valgrind --tool=callgrind --separate-threads=yes)
for n in "$N1" "$N2"; do
  "${cg[@]}" --callgrind-out-file="$TMP/sb.$n" "${sb_run[@]}" --ops "$n" --json "$TMP/sb.$n.json" >/dev/null 2>&1
  "${cg[@]}" --callgrind-out-file="$TMP/db.$n" "${db_run[@]}" --reads="$n" >/dev/null 2>&1
done
echo "under: ${cg[*]}; N = $N1 and $N2"
python3 - "$TMP" "$N1" "$N2" <<'EOF'
import glob, json, re, subprocess, sys
tmp, n1, n2 = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
# The full-signature entry both tools call.
ENGINE = "rocksdb::DBImpl::Get(rocksdb::ReadOptions const&, rocksdb::ColumnFamilyHandle*, rocksdb::Slice const&, rocksdb::PinnableSlice*, std::"

def threads(tool, n):
    """(worker total, worker engine, other threads' total) of one run."""
    worker, others = None, 0
    for f in sorted(glob.glob(f"{tmp}/{tool}.{n}-*")):
        total = int(re.search(r"^summary: (\d+)", open(f).read(), re.M)[1])
        out = subprocess.run(["callgrind_annotate", "--inclusive=yes", f], capture_output=True, text=True).stdout
        engine = next((int(l.split()[0].replace(",", "")) for l in out.splitlines() if ENGINE in l), 0)
        if engine and (worker is None or engine > worker[1]):
            if worker: others += worker[0]
            worker = (total, engine)
        else:
            others += total
    if worker is None:
        sys.exit(f"no thread of {tool} at {n} ops reached {ENGINE}")
    return worker[0], worker[1], others

print(f"\nmarginal instructions per op (runs of {n1} and {n2} ops, 1 worker thread)")
print(f"{'tool':<11} {'worker thread':>13} {'in RocksDB':>11} {'client':>8} {'other threads':>14}")
rows = {}
for tool, name in (("sb", "storebench"), ("db", "db_bench")):
    a, b = threads(tool, n1), threads(tool, n2)
    per = [(y - x) / (n2 - n1) for x, y in zip(a, b)]
    rows[name] = per
    print(f"{name:<11} {per[0]:>13.0f} {per[1]:>11.0f} {per[0] - per[1]:>8.0f} {per[2]:>14.0f}")
s, d = rows["storebench"], rows["db_bench"]
intervals = [len(json.load(open(f"{tmp}/sb.{n}.json"))["intervals"]) for n in (n1, n2)]
if intervals[1] > intervals[0]:
    a, b = threads("sb", n1)[2], threads("sb", n2)[2]
    print(f"storebench's other threads per interval report: {(b - a) / (intervals[1] - intervals[0]):,.0f} instructions "
          f"({intervals[0]} and {intervals[1]} intervals)")
print(f"\nclient instructions per op, storebench / db_bench: {(s[0] - s[1]) / (d[0] - d[1]):.2f}")
print(f"client share of the worker thread: storebench {(s[0] - s[1]) / s[0]:.1%}, db_bench {(d[0] - d[1]) / d[0]:.1%}")
EOF
fi

if [[ " $TOOLS " == *" cachegrind "* ]]; then
cgs=(valgrind --tool=cachegrind --cache-sim=yes)
for n in "$N1" "$N2"; do
  "${cgs[@]}" --cachegrind-out-file="$TMP/cg.sb.$n" "${sb_run[@]}" --ops "$n" >/dev/null 2>&1
  "${cgs[@]}" --cachegrind-out-file="$TMP/cg.db.$n" "${db_run[@]}" --reads="$n" >/dev/null 2>&1
done
echo
echo "whole process under: ${cgs[*]}; N = $N1 and $N2"
python3 - "$TMP" "$N1" "$N2" <<'EOF'
import re, sys
tmp, n1, n2 = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
COLS = ["instructions", "data reads", "data writes", "D1 misses", "LL misses"]

def events(tool, n):
    """Whole-process totals of one run, from cachegrind's summary line."""
    text = open(f"{tmp}/cg.{tool}.{n}").read()
    e = dict(zip(re.search(r"^events: (.*)$", text, re.M)[1].split(),
                 map(int, re.search(r"^summary: (.*)$", text, re.M)[1].split())))
    return {"instructions": e["Ir"], "data reads": e["Dr"], "data writes": e["Dw"],
            "D1 misses": e["D1mr"] + e["D1mw"], "LL misses": e["ILmr"] + e["DLmr"] + e["DLmw"]}

print(f"\nmarginal per op, whole process (runs of {n1} and {n2} ops, 1 worker thread)")
print(f"{'tool':<11}" + "".join(f"{c:>13}" for c in COLS))
per = {}
for tool, name in (("sb", "storebench"), ("db", "db_bench")):
    a, b = events(tool, n1), events(tool, n2)
    per[name] = {c: (b[c] - a[c]) / (n2 - n1) for c in COLS}
    print(f"{name:<11}" + "".join(f"{per[name][c]:>13.2f}" for c in COLS))
s, d = per["storebench"], per["db_bench"]
print(f"{'sb / db':<11}" + "".join(f"{s[c] / d[c] if d[c] else float('nan'):>13.3f}" for c in COLS))
EOF
fi
