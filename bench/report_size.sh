#!/usr/bin/env bash
# Size of `storebench report` pages and how long headless Chromium takes to
# draw them, for a long run and a big matrix, against a baseline measured in
# the same run: the report of a short run (5 intervals).
#
#   bench/report_size.sh [REPEATS]        default 3 renders per page (median kept)
#
# Inputs, all from the null backend:
#   baseline  run --duration 5s (1 s intervals: 5 intervals)
#   long      run --interval 1ms --duration 3.6s: ~3,600 intervals, as many as
#             a one-hour run with 1 s intervals has (the timeline's shape, not a
#             real hour: the intervals are 1 ms long)
#   matrix    matrix --repeat 10 --vary service-time=0,spin:1us,spin:2us,spin:4us
#             -- --duration 1s: 4 variants x 10 runs
# Times: "wall" is the chromium process (start, load, draw, exit); "draw" is
# the page's own performance.now() when its last chart is drawn (#sb-ready
# data-ms, real time: no --virtual-time-budget, and the page draws
# synchronously before its load event). Both include parsing the inlined
# Chart.js and data; "wall" is dominated by starting Chromium.
set -euo pipefail
REPEATS=${1:-3}
SB=${STOREBENCH:-$(dirname "$0")/../build/release/storebench}
[ -x "$SB" ] || { echo "storebench binary not found at $SB (set STOREBENCH=…)"; exit 2; }
command -v chromium >/dev/null || { echo "chromium is not installed (apt-get install chromium)"; exit 2; }
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

"$SB" run --backend null --duration 5s --quiet --json "$TMP/base.json"
"$SB" run --backend null --interval 1ms --duration 3.6s --quiet --json "$TMP/long.json"
"$SB" matrix --out "$TMP/m" --repeat 10 --vary service-time=0,spin:1us,spin:2us,spin:4us \
  -- --backend null --duration 1s > /dev/null

median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

declare -A WALL DRAW SIZE GEN
measure() {  # name inputs...
  local name=$1; shift
  local t0 t1
  t0=$(date +%s%N)
  "$SB" report "$@" -o "$TMP/$name.html" > /dev/null
  t1=$(date +%s%N)
  GEN[$name]=$(( (t1 - t0) / 1000000 ))
  SIZE[$name]=$(stat -c %s "$TMP/$name.html")
  local walls=() draws=()
  for ((i = 0; i < REPEATS; i++)); do
    t0=$(date +%s%N)
    chromium --headless --disable-gpu --no-sandbox --user-data-dir="$TMP/profile" \
      --dump-dom "file://$TMP/$name.html" > "$TMP/$name.dom" 2> /dev/null
    t1=$(date +%s%N)
    walls+=($(( (t1 - t0) / 1000000 )))
    local marker
    marker=$(grep -o '<div id="sb-ready"[^>]*>' "$TMP/$name.dom" || true)
    [[ $marker == *'data-errors="0"'* && $marker == *'data-empty=""'* ]] ||
      { echo "$name: the page did not draw cleanly: $marker"; exit 1; }
    draws+=($(sed -E 's/.*data-ms="([0-9]+)".*/\1/' <<< "$marker"))
  done
  WALL[$name]=$(printf '%s\n' "${walls[@]}" | median)
  DRAW[$name]=$(printf '%s\n' "${draws[@]}" | median)
}

measure base "$TMP/base.json"
measure long "$TMP/long.json"
measure matrix "$TMP/m"
intervals=$(python3 -c "import json,sys; print(len(json.load(open(sys.argv[1]))['intervals']))" "$TMP/long.json")

printf '%-8s %10s %9s %10s %9s %9s %10s %10s\n' page bytes "x base" "report ms" "wall ms" "draw ms" "wall/base" "draw/base"
for n in base long matrix; do
  awk -v n="$n" -v s="${SIZE[$n]}" -v sb="${SIZE[base]}" -v g="${GEN[$n]}" -v w="${WALL[$n]}" \
      -v wb="${WALL[base]}" -v d="${DRAW[$n]}" -v db="${DRAW[base]}" \
      'BEGIN { printf "%-8s %10d %9.1f %10d %9d %9d %10.2f %10.2f\n", n, s, s / sb, g, w, d, w / wb, d / (db ? db : 1) }'
done
echo "long: $intervals intervals; matrix: 4 variants x 10 runs; medians of $REPEATS renders"
