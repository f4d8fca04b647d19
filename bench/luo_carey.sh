#!/usr/bin/env bash
# Luo & Carey (PVLDB 13, p449, section 3.2): a closed loop hides an LSM-tree's
# write stalls; an open loop at a high fraction of the closed loop's maximum
# shows them as latency. This runs that experiment on Debian's RocksDB 7.8.3
# with storebench's --two-phase (phase 1: closed loop, its capacity; phase 2:
# open loop at FRACTION of it), small memtables and L0 triggers so stalls come
# within seconds, and beside it a read-only control (readrandom, same DB and
# options) in which nothing stalls; both at FRACTION and at a lower one
# (CONTROL_FRACTION): this host's capacity moves by up to ±20% from one second
# to the next (docs/rocksdb.md), so at 95% of the median second a read-only
# open loop also queues in the slow seconds, a queue with no stall behind it;
# at the lower fraction only the writes' stalls remain.
# Rounds alternate the runs, each on a fresh copy of the prepared DB. Per run it prints:
#   - closed-loop (phase 1) versus open-loop (phase 2) percentiles;
#   - per interval of phase 2, the correlation of the largest start lag with
#     RocksDB's own stall time (rocksdb.stall.micros, per interval);
#   - the tail's causes (queueing behind the engine, engine CPU, client, platform);
# then the medians over the rounds and the ratio open/closed at p99.
#
# Usage: bench/luo_carey.sh [STOREBENCH_BINARY]
# Environment (defaults in brackets):
#   DB [/tmp/storebench-luo-carey]  NUM [500000]  KEY_SIZE [20]  VALUE_SIZE [400]
#   DURATION [15s]  WARMUP [2s]  FRACTION [0.95]  CONTROL_FRACTION [0.7]  ROUNDS [3]
#   OUT [a new directory under /tmp for the raw outputs]
set -euo pipefail

SB=${1:-${STOREBENCH:-build/release/storebench}}
DB=${DB:-/tmp/storebench-luo-carey}
NUM=${NUM:-500000}
KEY_SIZE=${KEY_SIZE:-20}
VALUE_SIZE=${VALUE_SIZE:-400}
DURATION=${DURATION:-15s}
WARMUP=${WARMUP:-2s}
FRACTION=${FRACTION:-0.95}
CONTROL_FRACTION=${CONTROL_FRACTION:-0.7}
ROUNDS=${ROUNDS:-3}
OUT=${OUT:-$(mktemp -d /tmp/luo_carey.XXXXXX)}
PY=/usr/bin/python3

[[ -x $SB ]] || { echo "storebench binary '$SB' not found (build it, or pass its path)" >&2; exit 2; }
"$SB" run --backend rocksdb --help >/dev/null 2>&1 || { echo "'$SB' has no rocksdb backend (apt-get install librocksdb-dev, rebuild)" >&2; exit 2; }
mkdir -p "$OUT"

CF="write_buffer_size=4194304;level0_file_num_compaction_trigger=4;level0_slowdown_writes_trigger=8;level0_stop_writes_trigger=12;max_bytes_for_level_base=16777216;target_file_size_base=4194304"
DBO="max_background_jobs=2"

echo "== machine"
echo "cpu: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//'), $(nproc) online"
echo "memory: $(free -g | awk '/Mem:/ {print $2 " GiB"}'), kernel $(uname -r)"
echo "filesystem of $(dirname "$DB"): $(df -T "$(dirname "$DB")" | awk 'NR==2 {print $2 " on " $1}')"
echo "storebench: $SB ($("$SB" --version | head -1))"
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"

if [[ ! -e $DB/CURRENT ]]; then
  echo "== preparing $DB"
  "$SB" prepare --backend rocksdb --data "$DB" --num "$NUM" --key-size "$KEY_SIZE" --value-size "$VALUE_SIZE" | tee "$OUT/prepare.txt"
fi

run() {  # run NAME WORKLOAD FRACTION ROUND
  local name=$1 workload=$2 fraction=$3 round=$4 copy="$OUT/db-$1-$4"
  rm -rf "$copy"
  cp -a "$DB" "$copy"
  cat "$copy"/*.sst >/dev/null
  local cmd=("$SB" run --backend rocksdb --data "$copy" --workload "$workload" --threads 1 --duration "$DURATION"
             --warmup "$WARMUP" --two-phase "$fraction" --cf-options "$CF" --db-options "$DBO" --statistics
             --interval 1s --quiet --json "$OUT/$name-$round.json")
  if [[ $round == 1 ]]; then printf 'command:'; printf ' %q' "${cmd[@]}"; echo; fi
  "${cmd[@]}" >"$OUT/$name-$round.txt" 2>&1 || { echo "run failed:" >&2; cat "$OUT/$name-$round.txt" >&2; exit 1; }
  rm -rf "$copy"
}

# name workload fraction, rotated by one each round
specs=("overwrite overwrite $FRACTION" "readrandom readrandom $FRACTION" "overwrite-low overwrite $CONTROL_FRACTION"
       "readrandom-low readrandom $CONTROL_FRACTION")
for ((r = 1; r <= ROUNDS; r++)); do
  for ((k = 0; k < ${#specs[@]}; k++)); do
    read -r name workload fraction <<<"${specs[$(( (k + r - 1) % ${#specs[@]} ))]}"
    echo "== round $r: $workload at $fraction of the closed loop"
    run "$name" "$workload" "$fraction" "$r"
  done
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"

"$PY" - "$OUT" "$ROUNDS" <<'EOF'
import json, math, statistics, sys

out, rounds = sys.argv[1], int(sys.argv[2])

def ms(ns): return ns / 1e6
def us(ns): return ns / 1e3

def value(v):
    # A metric in the JSON is a number or {"value": …} with its unit.
    return v.get("value", v.get("count", 0)) if isinstance(v, dict) else v

def pearson(xs, ys):
    if len(xs) < 3: return float("nan")
    mx, my = statistics.fmean(xs), statistics.fmean(ys)
    sxy = sum((x - mx) * (y - my) for x, y in zip(xs, ys))
    sx = math.sqrt(sum((x - mx) ** 2 for x in xs)); sy = math.sqrt(sum((y - my) ** 2 for y in ys))
    return sxy / (sx * sy) if sx and sy else float("nan")

def ranks(v):
    order = sorted(range(len(v)), key=lambda i: v[i]); r = [0.0] * len(v); i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and v[order[j + 1]] == v[order[i]]: j += 1
        for k in range(i, j + 1): r[order[k]] = (i + j) / 2
        i = j + 1
    return r

def one(workload, rnd):
    d = json.load(open(f"{out}/{workload}-{rnd}.json"))
    p1 = d["two_phase"]["phase1"]
    c, o = p1["latency"]["response"], d["latency"]["response"]
    lags, stalls = [], []
    for i in d["intervals"]:
        b = i.get("backend", {})
        if "stall_micros" in b and i["ops"] > 0:
            lags.append(i["max_lag_ns"]); stalls.append(value(b["stall_micros"]) * 1000)
    ws = d.get("rocksdb", {}).get("write_stalls", {})
    held = d.get("platform", {}).get("cpu_held", {})
    causes = d.get("causes", {})
    f = {
        "closed_ops": p1["throughput"]["ops_per_sec"], "closed_p50": c["p50_ns"], "closed_p99": c["p99_ns"],
        "closed_max": c["max_ns"], "target": d["two_phase"]["target_ops_per_sec"],
        "capacity": d["two_phase"]["capacity_ops_per_sec"],
        "slowest": min([i["ops_per_sec"] for i in p1["intervals"] if i["length_s"] > 0.5] or [0]),
        "sustained": d["schedule"].get("sustained"),
        "open_ops": d["throughput"]["ops_per_sec"], "open_p50": o["p50_ns"], "open_p99": o["p99_ns"],
        "open_max": o["max_ns"], "service_p99": d["latency"]["service"]["p99_ns"],
        "ideal_p99": d["latency"].get("ideal", {}).get("p99_ns", 0),
        "max_backlog": max([i["max_backlog"] for i in d["intervals"]] or [0]),
        "r": pearson(lags, stalls), "rho": pearson(ranks(lags), ranks(stalls)) if lags else float("nan"),
        "stall_ms": value(ws.get("stall_micros", 0)) / 1e3, "intervals": len(lags),
        "stalled": [(ms(l), ms(s)) for l, s in zip(lags, stalls) if s > 0],
        "calm_lag_max": max([l for l, s in zip(lags, stalls) if s == 0] or [-1]),
        "engine_cpu_ms": ms(value(held.get("engine_ns", 0))), "client_cpu_ms": ms(value(held.get("client_ns", 0))),
        "others_cpu_ms": ms(value(held.get("others_ns", 0))),
        "runqueue_ms": ms(value(d.get("workers", {}).get("runqueue_wait_ns", 0))),
        "causes": causes,
    }
    return f

def shares(t):
    return ", ".join(f"{k} {100 * t[k]:.0f}%" for k in ("queueing", "engine", "client", "platform")) + \
        f" (largest: {t['largest']}; cpu_wait {100 * t['cpu_wait']:.0f}%)"

runs = {w: [one(w, r) for r in range(1, rounds + 1)] for w in ("overwrite", "readrandom", "overwrite-low", "readrandom-low")}
for w, fs in runs.items():
    print(f"\n== {w} (phase 2 at {fs[0]['target'] / fs[0]['capacity']:.2f} of the closed loop's median second): {rounds} rounds")
    for n, f in enumerate(fs, 1):
        print(f"round {n}: closed {f['closed_ops']:,.0f} ops/s p50 {us(f['closed_p50']):.1f} us p99 {us(f['closed_p99']):.1f} us"
              f" max {ms(f['closed_max']):.2f} ms | open at {f['target']:,.0f} ops/s: p50 {us(f['open_p50']):.1f} us"
              f" p99 {ms(f['open_p99']):.3f} ms max {ms(f['open_max']):.2f} ms (service p99 {us(f['service_p99']):.1f} us,"
              f" ideal client p99 {ms(f['ideal_p99']):.3f} ms, max backlog {f['max_backlog']:,.0f} ops;"
              f" {'sustained' if f['sustained'] else 'not sustained'})")
        print(f"  phase 1 capacity (median second) {f['capacity']:,.0f} ops/s, slowest second {f['slowest']:,.0f}"
              f" ({f['slowest'] / f['capacity']:.2f} of it; the target is {f['target'] / f['capacity']:.2f})")
        print(f"  rocksdb.stall.micros {f['stall_ms']:.0f} ms; per-interval max start lag vs stall_micros over"
              f" {f['intervals']} intervals: Pearson r {f['r']:.2f}, Spearman rho {f['rho']:.2f}")
        if f["stalled"]:
            print("  intervals with stalls (max lag ms / stall ms): " +
                  ", ".join(f"{l:.1f}/{s:.1f}" for l, s in sorted(f["stalled"], key=lambda p: -p[1])[:6]) +
                  ("; every interval had a stall" if f["calm_lag_max"] < 0 else
                   f"; largest max lag in an interval without a stall {ms(f['calm_lag_max']):.2f} ms"))
        print(f"  CPU held: engine {f['engine_cpu_ms']:.0f} ms, client {f['client_cpu_ms']:.0f} ms, other processes"
              f" {f['others_cpu_ms']:.0f} ms; worker on the run queue {f['runqueue_ms']:.0f} ms")
        for at in ("p99", "max"):
            if at in f["causes"]: print(f"  causes at {at}: {shares(f['causes'][at])}")
    med = lambda k: statistics.median(f[k] for f in fs)
    print(f"median: closed p99 {us(med('closed_p99')):.1f} us max {ms(med('closed_max')):.2f} ms;"
          f" open p99 {ms(med('open_p99')):.3f} ms max {ms(med('open_max')):.2f} ms;"
          f" open/closed p99 {statistics.median(f['open_p99'] / f['closed_p99'] for f in fs):.1f}x;"
          f" stall {med('stall_ms'):.0f} ms; Pearson r {statistics.median(f['r'] for f in fs):.2f}")
    nan = [f for f in fs if f["r"] != f["r"]]
    if nan: print(f"  (no correlation where RocksDB never stalled: {len(nan)} of {len(fs)} runs)")
    largest = [f["causes"]["p99"]["largest"] for f in fs if "p99" in f["causes"]]
    print(f"largest cause at p99, by round: {', '.join(largest)}")
EOF
echo "raw outputs: $OUT"
