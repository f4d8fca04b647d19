#!/usr/bin/env bash
# What a Prometheus scrape costs a run (issue 57): the default job's RocksDB
# read load run with no endpoint (A) and with --metrics-listen scraped every
# 100 ms (B), alternated A B A B …, then `storebench compare`. Two loads:
#   open    an open loop at 0.95 of the closed loop's capacity (the default job's phase 2): response latency
#   closed  the closed loop (throughput is the sensitive figure there)
# The scraper is Debian's prometheus, on the same machine, scraping one port
# every 100 ms through both groups: in A nothing listens there (a refused
# connection), in B the run serves it. So both groups carry the scraper's own
# CPU, and the difference is what serving the page costs the run. After each
# B run, Prometheus is asked how many scrapes of it succeeded.
#
# Usage: bench/scrape_cost.sh [STOREBENCH_BINARY]   Environment: ROUNDS [5] DURATION [8s] OUT [new dir under /tmp]
set -euo pipefail
SB=$(realpath "${1:-build/release/storebench}")
ROUNDS=${ROUNDS:-5}
DURATION=${DURATION:-8s}
OUT=${OUT:-$(mktemp -d /tmp/scrape_cost.XXXXXX)}
PY=/usr/bin/python3
mkdir -p "$OUT"
command -v prometheus >/dev/null || { echo "prometheus is not installed (scripts/setup.sh --test)" >&2; exit 2; }
free_port() { "$PY" -c "import socket; s = socket.socket(); s.bind(('127.0.0.1', 0)); print(s.getsockname()[1])"; }
PORT=$(free_port)
WEB=$(free_port)
cat >"$OUT/prometheus.yml" <<YML
global:
  scrape_interval: 100ms
  scrape_timeout: 90ms
scrape_configs:
  - job_name: storebench
    static_configs:
      - targets: ['127.0.0.1:$PORT']
YML
prometheus --config.file="$OUT/prometheus.yml" --storage.tsdb.path="$OUT/tsdb" \
  --web.listen-address="127.0.0.1:$WEB" >"$OUT/prometheus.log" 2>&1 &
PROMETHEUS=$!
trap 'kill $PROMETHEUS 2>/dev/null || true' EXIT
scrapes() {  # scrapes SECONDS: successful scrapes of the target in the last SECONDS
  curl -s "http://127.0.0.1:$WEB/api/v1/query" --data-urlencode "query=sum_over_time(up[${1}s])" |
    "$PY" -c "import json,sys; r=json.load(sys.stdin)['data']['result']; print(int(float(r[0]['value'][1])) if r else 0)"
}
cd "$(dirname "$0")/.."
echo "== $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//'), $(nproc) CPUs; $("$SB" --version | head -1)"

# The default job's data set (prepared by its first run) and its capacity.
"$SB" --quiet --json "$OUT/default.json"
RATE=$("$PY" -c "import json,sys; print(round(json.load(open(sys.argv[1]))['two_phase']['target_ops_per_sec']))" \
  "$OUT/default.json")
echo "== the default job's phase-2 rate: $RATE ops/s (0.95 of its measured capacity)"
"$SB" run --default-job --print-job >"$OUT/default-job.json"
job() {  # job LOAD -> a job file: the default job, one phase, LOAD's schedule
  "$PY" - "$OUT/default-job.json" "$1" "$RATE" "$DURATION" >"$OUT/job-$1.json" <<'PYEOF'
import json, sys
j = json.load(open(sys.argv[1]))
j["two_phase"] = ""
j["schedule"] = "" if sys.argv[2] == "closed" else f"constant:{sys.argv[3]}"
j["duration"] = sys.argv[4]
print(json.dumps(j))
PYEOF
}


for load in open closed; do
  job "$load"
  for ((r = 1; r <= ROUNDS; r++)); do
    "$SB" run --job "$OUT/job-$load.json" --quiet --json "$OUT/$load-A-$r.json"
    "$SB" run --job "$OUT/job-$load.json" --quiet --metrics-listen "127.0.0.1:$PORT" --json "$OUT/$load-B-$r.json"
    sleep 0.3  # the last scrapes of the run reach Prometheus' answer
    scrapes "$(( ${DURATION%s} + 3 ))" >"$OUT/$load-B-$r.scrapes"
  done
  echo "== $load: scrapes of the B runs that succeeded: $(for f in "$OUT"/$load-B-*.scrapes; do printf "%s " "$(cat "$f")"; done)"
  A=$(ls "$OUT"/$load-A-*.json | paste -sd,)
  B=$(ls "$OUT"/$load-B-*.json | paste -sd,)
  echo
  echo "== $load loop: A = no endpoint, B = served to Prometheus every 100 ms ($ROUNDS runs each, alternated)"
  "$SB" compare "$A" "$B" --json "$OUT/compare-$load.json" | tee "$OUT/compare-$load.txt"
done
echo "raw results: $OUT"
