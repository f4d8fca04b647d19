#!/usr/bin/env bash
# What the live progress line costs the run: null backend, closed loop, the
# same run with --progress never, --progress always (stderr to a file: plain
# lines) and on a pseudo-terminal (script(1): the line redrawn in place every
# interval), variants alternating, ROUNDS rounds, medians of ops/s and the
# ratio to never. --interval 100ms draws ten times as often as the default.
#
#   bench/progress_cost.sh [BINARY] [ROUNDS] [THREADS]
set -euo pipefail
SB=$(realpath "${1:-build/release/storebench}")
ROUNDS=${2:-5}
THREADS=${3:-1}
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
ARGS=(--backend null --threads "$THREADS" --duration 3s --warmup 500ms --interval 100ms)

echo "# $(date -u +%FT%TZ) $(nproc) cpus, $(uname -r), load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "# binary: $("$SB" --version)"
echo "# $SB run ${ARGS[*]} --progress {never,always,auto on a pty}; $ROUNDS rounds alternating"

ops() { python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["throughput"]["ops_per_sec"])' "$1"; }
med() { python3 -c 'import sys,statistics; print(statistics.median(float(x) for x in sys.argv[1:]))' "$@"; }

variants=(never always tty)
for round in $(seq 1 "$ROUNDS"); do
  for v in "${variants[@]}"; do
    f="$OUT/$v.$round.json"
    case $v in
      never) "$SB" run "${ARGS[@]}" --progress never --json "$f" >/dev/null 2>"$OUT/$v.err" ;;
      always) "$SB" run "${ARGS[@]}" --progress always --json "$f" >/dev/null 2>"$OUT/$v.err" ;;
      tty) script -qec "$(printf '%q ' "$SB" run "${ARGS[@]}" --json "$f")" /dev/null >"$OUT/$v.screen" ;;
    esac
  done
done
grep -q 'measuring' "$OUT/tty.screen" || { echo "the pty run drew no progress line" >&2; exit 1; }

base=""
printf '%-8s %14s %14s %14s %8s\n' variant median_ops_s min max vs_never
for v in "${variants[@]}"; do
  vals=()
  for round in $(seq 1 "$ROUNDS"); do vals+=("$(ops "$OUT/$v.$round.json")"); done
  m=$(med "${vals[@]}")
  [ -z "$base" ] && base=$m
  printf '%-8s %14.0f %14.0f %14.0f %8.3f\n' "$v" "$m" \
    "$(printf '%s\n' "${vals[@]}" | sort -g | head -1)" "$(printf '%s\n' "${vals[@]}" | sort -g | tail -1)" \
    "$(python3 -c "print($m/$base)")"
done
