#!/usr/bin/env python3
"""The open loop's own capacity, as a fraction of the closed loop's, measured alternately.

    bench/open_loop_capacity.py [--binary B] [--rounds N] [--seconds S] [--cases null1,null2,rocksdb1,rocksdb2]

Each round, for each case: a closed loop measures the capacity C (median of its
1 s intervals' ops/s, as --two-phase does), then open loops at constant rates
f*C for f in FRACTIONS run right after it, lowest first; the open loop's
capacity in that round is the highest f whose run sustained its rate
(`schedule.sustained`: achieved >= 99% of offered, <= 1% of ops left due) and
whose backlog did not grow (last interval's backlog <= 1% of an interval's
ops).

With --bracket (the default) every open loop is bracketed by closed loops:
closed, open at f*C(before), closed again (which is the next step's before).
A host whose capacity moves by the second (RocksDB on this VM: 71k to 86k
from one round to the next) otherwise fails a step because the engine got
slower, not because the client fell behind. A step whose two bracketing
capacities differ by more than --tolerance (5%) is inconclusive and is
repeated, up to --tries times; one still inconclusive is shown as "??" and
neither passes nor fails (a pass while the capacity rose is luck too). --no-bracket is the earlier method. Cases: null `spin:10us` and RocksDB readrandom on the default job's data
set, 1 and 2 workers. Prints every round and the median per case; the goal is
>= 0.95 in each. Also prints, per case and fraction, the median of observed
p99 / ideal p99 and response p99 / service p99.
"""
import argparse, json, os, statistics, subprocess, sys, tempfile, time

FRACTIONS = [0.90, 0.95, 0.97, 0.99]

def run(sb, args, out):
    subprocess.run([sb, "run", "--quiet", "--json", out, *args], check=True, stdout=subprocess.DEVNULL)
    with open(out) as f:
        return json.load(f)

def capacity(doc):
    rates = [i["ops_per_sec"] for i in doc["intervals"] if i["length_s"] >= 0.5]
    return statistics.median(rates) if rates else doc["throughput"]["ops_per_sec"]

def held(doc):
    s = doc["schedule"]
    if not s.get("sustained", False):
        return False
    iv = [i for i in doc["intervals"] if i["length_s"] >= 0.5]
    if not iv:
        return True
    per_interval = doc["totals"]["ops"] / max(1, len(iv))
    return iv[-1]["backlog"] <= 0.01 * per_interval

def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--binary", default="build/release/storebench")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--seconds", type=int, default=3)
    ap.add_argument("--cases", default="null1,null2,rocksdb1,rocksdb2")
    ap.add_argument("--db", default="/var/tmp/sb-capacity-db")
    ap.add_argument("--bracket", action=argparse.BooleanOptionalAction, default=True)
    ap.add_argument("--tolerance", type=float, default=0.05)
    ap.add_argument("--tries", type=int, default=3)
    a = ap.parse_args()
    sb = a.binary
    cases = {
        "null1": ["--backend", "null", "--service-time", "spin:10us", "--threads", "1"],
        "null2": ["--backend", "null", "--service-time", "spin:10us", "--threads", "2"],
        "rocksdb1": ["--backend", "rocksdb", "--data", a.db, "--workload", "readrandom", "--cache-size", "8M", "--threads", "1"],
        "rocksdb2": ["--backend", "rocksdb", "--data", a.db, "--workload", "readrandom", "--cache-size", "8M", "--threads", "2"],
    }
    chosen = a.cases.split(",")
    if any(c.startswith("rocksdb") for c in chosen) and not os.path.exists(a.db):
        subprocess.run([sb, "prepare", "--backend", "rocksdb", "--data", a.db, "--num", "200000", "--key-size", "20",
                        "--value-size", "400", "--fill", "random"], check=True, stdout=subprocess.DEVNULL)
    load = open("/proc/loadavg").read().split()[:3]
    print(f"# {time.strftime('%Y-%m-%dT%H:%M:%SZ', time.gmtime())} {os.cpu_count()} cpus, {os.uname().release}, "
          f"load {' '.join(load)}; {subprocess.run([sb, '--version'], capture_output=True, text=True).stdout.strip()}")
    print(f"# rounds {a.rounds}, {a.seconds} s per run, fractions {FRACTIONS}, "
          + (f"bracketed by closed loops (tolerance {100 * a.tolerance:.0f}%, {a.tries} tries)" if a.bracket
             else "one closed loop before the open loops"))
    best = {c: [] for c in chosen}
    ratios = {(c, f): [] for c in chosen for f in FRACTIONS}
    with tempfile.TemporaryDirectory() as tmp:
        for rnd in range(1, a.rounds + 1):
            for c in chosen:
                base = cases[c] + ["--duration", f"{a.seconds}s", "--warmup", "1s", "--interval", "1s"]
                cap = capacity(run(sb, base, os.path.join(tmp, "closed.json")))
                first_cap = cap
                top, line = 0.0, []
                for f in FRACTIONS:
                    for attempt in range(1, (a.tries if a.bracket else 1) + 1):
                        doc = run(sb, base + ["--schedule", f"constant:{f * cap:.0f}"], os.path.join(tmp, "open.json"))
                        before = cap
                        if not a.bracket:
                            moved = 0.0
                            break
                        cap = capacity(run(sb, base, os.path.join(tmp, "closed.json")))
                        moved = abs(cap - before) / before
                        if moved <= a.tolerance:
                            break
                    ok = held(doc)
                    conclusive = moved <= a.tolerance
                    lat = doc["latency"]
                    ideal99 = lat.get("ideal", {}).get("p99_ns", 0)
                    ratios[(c, f)].append((lat["response"]["p99_ns"] / max(1, ideal99),
                                           lat["response"]["p99_ns"] / max(1, lat["service"]["p99_ns"])))
                    verdict = "??" if not conclusive else ("ok" if ok else "NO")
                    extra = f",{attempt} tries,moved {100 * moved:.0f}%" if a.bracket and attempt > 1 else ""
                    line.append(f"{f:.2f}:{verdict}({100 * doc['schedule']['achieved_fraction']:.1f}%{extra})")
                    if ok and conclusive:
                        top = f
                best[c].append(top)
                print(f"round {rnd} {c:9s} closed {first_cap:9.0f} ops/s  " + " ".join(line) + f"  -> {top:.2f}", flush=True)
    print("\ncase      open-loop capacity / closed-loop (median of rounds; per round)")
    for c in chosen:
        print(f"{c:9s} {statistics.median(best[c]):.2f}  {best[c]}")
    print("\ncase      fraction  observed p99 / ideal p99   response p99 / service p99   (medians)")
    for c in chosen:
        for f in FRACTIONS:
            v = ratios[(c, f)]
            print(f"{c:9s} {f:.2f}      {statistics.median(x for x, _ in v):8.2f}               "
                  f"{statistics.median(y for _, y in v):8.2f}")

if __name__ == "__main__":
    sys.exit(main())
