#!/usr/bin/env bash
# Does an open loop make the engine serve slower than the closed loop that
# measured its capacity? Alternates, per round, a closed loop of the default
# job (RocksDB readrandom, 1 worker, 8 s) with open loops at 0.9 of that
# round's closed-loop rate under each wait policy, each a separate process,
# and prints each open loop's mean service time against its round's closed
# loop (the baseline measured in the same round), with whether it sustained
# its rate. A ratio that stays above 1 across rounds is the open loop's own
# cost; ratios on both sides of 1 are the host moving between processes.
#
# Usage: bench/closed_vs_open_service.sh [STOREBENCH_BINARY] [ROUNDS] [WAIT ...]
#   defaults: build/run/storebench, 3 rounds, adaptive spin
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${1:-build/run/storebench}
rounds=${2:-3}
shift $(( $# > 2 ? 2 : $# )) || true
waits=("$@")
[ ${#waits[@]} -gt 0 ] || waits=(adaptive spin)
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
# The default job's data set and engine settings, as one run command (storebench run --default-job --print-job).
"$bin" prepare --backend rocksdb --data ./storebench-data/rocksdb-default --num 200000 --key-size 20 \
  --value-size 400 --fill random >/dev/null
job=(--backend rocksdb --data ./storebench-data/rocksdb-default --num 200000 --key-size 20 --value-size 400
     --fill random --cache-size 8M --workload readrandom --threads 1 --warmup 1s --duration 8s --quiet)
mean() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(d['latency']['service']['mean_ns'])" "$1"; }
for r in $(seq 1 "$rounds"); do
  "$bin" run "${job[@]}" --json "$out/closed$r.json"
  cap=$(python3 -c "import json,sys; print(int(json.load(open(sys.argv[1]))['throughput']['ops_per_sec']))" \
        "$out/closed$r.json")
  line=$(printf "round %d: closed loop %d ops/s, service mean %.0f ns" "$r" "$cap" "$(mean "$out/closed$r.json")")
  for w in "${waits[@]}"; do
    "$bin" run "${job[@]}" --schedule "constant:$((cap * 90 / 100))" --wait "$w" --json "$out/$w$r.json"
    line+=$(python3 - "$out/closed$r.json" "$out/$w$r.json" "$w" <<'PY'
import json, sys
c, o = (json.load(open(p)) for p in sys.argv[1:3])
ratio = o['latency']['service']['mean_ns'] / c['latency']['service']['mean_ns']
print(f"; open --wait {sys.argv[3]}: {ratio:.3f}x the closed loop's mean "
      f"({'sustained' if o['schedule']['sustained'] else 'not sustained'}, p99 {o['latency']['response']['p99_ns'] / 1e6:.2f} ms)", end='')
PY
)
  done
  echo "$line"
done
