#!/usr/bin/env bash
# The seed experiment of DESIGN.md problem 2 on this machine: a whisper data
# set larger than the page cache a memory-limited cgroup allows, updated by
# carbon-style flushes with exact-size I/O, Python's 8 KiB buffer and a 4 KiB
# buffer. Per mode: a priming run from a cold cache (fills the cgroup's cache
# to its steady state), then a measured run with another seed; prints
# syscalls and bytes per update, the residency after, device reads and the
# page-cache hit ratio (JSON cache.hit_ratio, see docs/whisper.md).
#
# Needs root and the memory controller: cgroup v2 (memory.max) or v1
# (memory.limit_in_bytes); the cgroup is made inside this shell's own one.
#   [MODES="--buffer 0,--buffer 8k --fadvise-random"] bench/whisper_cache_footprint.sh [BINARY] [DATA] [METRICS] [LIMIT] [OPS]
set -euo pipefail
BIN=${1:-build/release/storebench}
DATA=${2:-/var/tmp/wsp-footprint}
METRICS=${3:-6000}
LIMIT=${4:-256M}
OPS=${5:-30000}
PY=/usr/bin/python3

if [ -f /sys/fs/cgroup/cgroup.controllers ]; then
  CG=/sys/fs/cgroup$(awk -F: '$1 == "0" { print $3 }' /proc/self/cgroup)/sb-wsp; LIMIT_FILE=memory.max
else
  CG=/sys/fs/cgroup/memory$(awk -F: '$2 == "memory" { print $3 }' /proc/self/cgroup)/sb-wsp
  LIMIT_FILE=memory.limit_in_bytes
fi
mkdir -p "$CG"
trap 'rmdir "$CG" 2>/dev/null || true' EXIT
bytes=$($PY -c "import sys; s=sys.argv[1]; m={'K':1<<10,'M':1<<20,'G':1<<30}; print(int(s[:-1])*m[s[-1]] if s[-1] in m else int(s))" "$LIMIT")
echo "$bytes" > "$CG/$LIMIT_FILE"

"$BIN" prepare --backend whisper --data "$DATA" --metrics "$METRICS" --retention 60s:1d,5m:30d,1h:5y
in_cgroup() { sh -c 'echo $$ > "$1/cgroup.procs"; shift; exec "$@"' sh "$CG" "$@"; }
echo "# cgroup $CG, $LIMIT_FILE = $LIMIT; $OPS uniform updates of K=10 points per run"
IFS=, read -r -a MODES <<< "${MODES:---buffer 0,--buffer 8k,--buffer 4k}"
for mode in "${MODES[@]}"; do
  json=$(mktemp /tmp/wsp-footprint.XXXXXX.json)
  in_cgroup "$BIN" run --backend whisper --data "$DATA" --workload update --ops "$OPS" --seed 1 --cache cold \
    --quiet $mode
  in_cgroup "$BIN" run --backend whisper --data "$DATA" --workload update --ops "$OPS" --seed 2 --cache asis \
    --quiet --json "$json" $mode
  $PY - "$json" "$mode" <<'PY'
import json, sys
d = json.load(open(sys.argv[1])); w, io, c = d["whisper"], d["io"], d["cache"]
print("%-11s %5.1f syscalls/update  read %6.0f B/update (asked %3.0f)  resident after %6.1f MiB of %.1f GiB  "
      "device read %7.1f MiB  read amplification %7.1f  hit ratio %.3f  %6.0f updates/s  p99 %.2f ms" % (
      sys.argv[2], w["syscalls_per_update"], w["bytes_read_per_update"], w["requested_bytes_per_update"],
      c["after"]["resident_bytes"] / 2**20, c["dataset_bytes"] / 2**30, io["device_read_bytes"] / 2**20,
      io["read_amplification"], c["hit_ratio"], d["throughput"]["ops_per_sec"],
      d["latency"]["service"]["p99_ns"] / 1e6))
PY
  rm -f "$json"
done
