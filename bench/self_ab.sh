#!/usr/bin/env bash
# storebench against itself: the same file run with two sets of flags, A and
# B, alternately (ABBA…, so neither always runs first), and the median of the
# paired ratio B/A by IOPS with its 95 % interval (the sign-test order
# statistics, as in bench/fio_compare.sh). For asking whether one knob — the
# hiccup meter's period, CPU placement, a method option — moves throughput,
# without a third program's noise in between.
#
#   bench/self_ab.sh DATA_DIR PAIRS SECONDS "COMMON FLAGS" "A FLAGS" "B FLAGS"
#   e.g. bench/self_ab.sh /var/tmp/sb-fio 30 2 "--method io_uring --iodepth 1 --threads 1" "" "--hiccup-period 10ms"
#
# The data set must be prepared (storebench prepare --backend file …); every
# run is a warm randread of 4 KiB blocks (--cache asis after one read-through).
set -euo pipefail
[ $# -eq 6 ] || { echo "usage: $0 DATA_DIR PAIRS SECONDS \"COMMON FLAGS\" \"A FLAGS\" \"B FLAGS\"" >&2; exit 2; }
DATA=$1 PAIRS=$2 SECS=$3 COMMON=$4 A=$5 B=$6
BUILD=$(dirname "$0")/../build/release
SB=${STOREBENCH:-$BUILD/storebench}
[ -x "$SB" ] || { echo "storebench binary not found at $SB (set STOREBENCH=…)"; exit 2; }
[[ $PAIRS =~ ^[0-9]+$ && $PAIRS -ge 1 ]] || { echo "PAIRS must be a whole number ≥ 1: got '$PAIRS'"; exit 2; }
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
cat "$DATA"/data-*.bin >/dev/null

run() {  # flags
  # shellcheck disable=SC2086
  "$SB" run --backend file --data "$DATA" --workload randread --block-size 4k $COMMON $1 --cache asis \
    --duration "${SECS}s" --quiet --json "$TMP/r.json" >/dev/null
  python3 -c "import json,sys; t=json.load(open(sys.argv[1]))['totals']; print(t['ops']/t['elapsed_s'])" "$TMP/r.json"
}

for i in $(seq "$PAIRS"); do
  if [ $((i % 2)) = 1 ]; then a=$(run "$A"); b=$(run "$B"); else b=$(run "$B"); a=$(run "$A"); fi
  echo "$a $b" | tee -a "$TMP/pairs" | sed "s/^/pair $i A B IOPS: /" >&2
done
python3 - "$TMP/pairs" "$A" "$B" "$(dirname "$0")" <<'PY'
import statistics, sys
sys.path.insert(0, sys.argv[4])
from median_interval import median_interval
pairs = [tuple(map(float, l.split())) for l in open(sys.argv[1])]
q = sorted(b / a for a, b in pairs)
n, ci = len(q), median_interval(q)
ci = f"[{ci[0]:.3f}-{ci[1]:.3f}]" if ci else "[- : fewer than 6 pairs]"
print(f"A: '{sys.argv[2]}'  B: '{sys.argv[3]}'")
print(f"median IOPS A {statistics.median(a for a, _ in pairs):,.0f}  B {statistics.median(b for _, b in pairs):,.0f}")
print(f"B/A paired: median {statistics.median(q):.3f} {ci} (min {q[0]:.3f}, max {q[-1]:.3f}); B ahead in {sum(x > 1 for x in q)}/{n}")
PY
