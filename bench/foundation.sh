#!/usr/bin/env bash
# Foundation figures (docs/performance.md): record-path cost and driver
# throughput/scaling/schedule accuracy on the null backend, each printed with
# its ratio against a baseline measured in the same run.
#   bench/foundation.sh [REPS]
set -euo pipefail
cd "$(dirname "$0")/.."
reps=${1:-5}
[[ -x build/release/bench/record_cost ]] || scripts/build.sh release
echo "# $(date -u +%FT%TZ) $(uname -r), $(nproc) CPUs: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2)"
echo "## record path"
build/release/bench/record_cost --reps "$reps"
echo
echo "## driver"
build/release/bench/driver_bench --reps "$reps" --seconds 2
