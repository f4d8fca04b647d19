#!/usr/bin/env bash
# Does the search's bound cover the percentile it bounds? Coverage measured on
# the null backend, whose service-time distribution is known, over many runs.
#
#   bench/search_coverage.sh [BINARY] [RUNS] [RUN_DURATION] [DIR]
#
# For each service time (spin:20us fixed, spin-exp:20us exponential), one
# thread: the closed-loop capacity is measured first, then RUNS open-loop runs
# of RUN_DURATION at 70% of it (constant arrivals, under chrt -f 10 when
# allowed, as the search's own tests run). The "true" p99 of the response time
# at that rate is the p99 of every run pooled; bench/search_coverage (C++,
# the same histograms and bounds the search uses) then draws subsets of k runs
# and counts how often each method's one-sided 95% upper bound is at least
# the truth. Runs are kept in DIR (default: a temporary directory) so the
# analysis can be repeated: `search_coverage DIR/<service>`.
set -euo pipefail
SB=${1:-build/release/storebench}
RUNS=${2:-100}
DUR=${3:-1s}
DIR=${4:-$(mktemp -d)}
COV=${COV:-$(dirname "$SB")/bench/search_coverage}
RT=""
if chrt -f 10 true 2>/dev/null; then RT="chrt -f 10"; fi
echo "# $(date -u +%FT%TZ) $(nproc) cpus, $(uname -r), load $(cut -d' ' -f1-3 /proc/loadavg); binary $("$SB" --version | head -1); ${RT:-plain scheduling}"
for service in spin:20us spin-exp:20us; do
  d="$DIR/${service%%:*}"
  mkdir -p "$d"
  if [[ ! -f "$d/capacity.json" ]]; then
    $RT "$SB" run --backend null --service-time "$service" --threads 1 --duration 2s --quiet --json "$d/capacity.json"
  fi
  cap=$(python3 -c 'import json,sys; d = json.load(open(sys.argv[1])); print(round(d["totals"]["ops"] / d["totals"]["elapsed_s"]))' "$d/capacity.json")
  rate=$(python3 -c "print(round(0.7 * $cap))")
  echo "# $service: closed-loop capacity $cap ops/s; runs at $rate ops/s, $RUNS x $DUR"
  for ((i = 1; i <= RUNS; i++)); do
    f="$d/run-$i.json"
    [[ -f "$f" ]] && continue
    $RT "$SB" run --backend null --service-time "$service" --threads 1 --schedule "constant:$rate" \
      --duration "$DUR" --seed "$i" --quiet --json "$f"
    sleep 0.1  # as the search's --settle: keeps a real-time client clear of RT throttling
  done
  "$COV" "$d"
done
