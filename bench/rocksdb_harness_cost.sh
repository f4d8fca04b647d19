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
# Usage: bench/rocksdb_harness_cost.sh [STOREBENCH_BINARY]
# Environment: DB [a temporary directory; filled with 100k keys when missing]
#              N1 [5000]  N2 [25000]
set -euo pipefail
SB=${1:-${STOREBENCH:-build/release/storebench}}
DB_BENCH=${DB_BENCH:-/usr/bin/db_bench}
N1=${N1:-5000}
N2=${N2:-25000}
TMP=$(mktemp -d /tmp/rocksdb_harness_cost.XXXXXX)
trap 'rm -rf "$TMP"' EXIT
DB=${DB:-$TMP/db}
[[ -x $SB ]] || { echo "storebench binary '$SB' not found (build it, or pass its path)" >&2; exit 2; }
[[ -x $DB_BENCH ]] || { echo "$DB_BENCH not found: apt-get install rocksdb-tools" >&2; exit 2; }
command -v valgrind >/dev/null || { echo "valgrind not found: apt-get install valgrind" >&2; exit 2; }

shape=(--num 100000 --key-size 20 --value-size 400)
db_shape=(--num=100000 --key_size=20 --value_size=400)
[[ -e $DB/CURRENT ]] || "$SB" prepare --backend rocksdb --data "$DB" "${shape[@]}" --fill random >/dev/null
cg=(valgrind --tool=callgrind --separate-threads=yes)
for n in "$N1" "$N2"; do
  "${cg[@]}" --callgrind-out-file="$TMP/sb.$n" "$SB" run --backend rocksdb --data "$DB" "${shape[@]}" \
    --cache-size 8388608 --workload readrandom --threads 1 --ops "$n" --interval 1s --quiet --json "$TMP/sb.$n.json" \
    >/dev/null 2>&1
  "${cg[@]}" --callgrind-out-file="$TMP/db.$n" "$DB_BENCH" --benchmarks=readrandom --use_existing_db=1 --db="$DB" \
    "${db_shape[@]}" --cache_size=8388608 --threads=1 --reads="$n" --histogram=1 --report_interval_seconds=1 \
    --report_file="$TMP/report.tsv" >/dev/null 2>&1
done

echo "storebench: $SB run --backend rocksdb --data DB ${shape[*]} --cache-size 8388608 --workload readrandom --threads 1 --ops N --interval 1s"
echo "db_bench:   $DB_BENCH --benchmarks=readrandom --use_existing_db=1 --db=DB ${db_shape[*]} --cache_size=8388608 --threads=1 --reads=N --histogram=1 --report_interval_seconds=1"
echo "both under: ${cg[*]}; N = $N1 and $N2"
python3 - "$TMP" "$N1" "$N2" <<'EOF'
import glob, json, re, subprocess, sys
tmp, n1, n2 = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
# The full-signature entry both tools reach (storebench through the 4-argument overload).
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
