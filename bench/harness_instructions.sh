#!/usr/bin/env bash
# User-space instructions per op of storebench's file randread and of the bare
# floor loop (bench/file_floor.cc), by callgrind: each program runs twice, with
# N1 and N2 ops, and (Ir(N2) - Ir(N1)) / (N2 - N1) is the marginal count per op
# — startup, cache warming and teardown cancel. Only instructions inside the
# worker's loop count (callgrind --toggle-collect: storebench's RunWorkerLoop,
# the floor's RunSync/RunUring), so the reporter thread's per-interval work,
# which grows with the slowed-down wall time, is left out. Callgrind counts only user-space
# instructions, so this is the harness plus the generator plus libc's syscall
# stubs, never the kernel's read.
#
#   bench/harness_instructions.sh [DATA_DIR] [METHOD] [N1] [N2]
#   defaults:                     /var/tmp/sb-floor pread 20000 100000
# METHOD is a storebench method (pread, read, io_uring, mmap); read runs with
# --buffer 0 (lseek + exact read, as the floor's read loop does).
# STOREBENCH=… and FLOOR=… pick other binaries (e.g. a build before a change).
set -euo pipefail
DATA=${1:-/var/tmp/sb-floor}
METHOD=${2:-pread}
N1=${3:-20000}
N2=${4:-100000}
BUILD=$(dirname "$0")/../build/release
SB=${STOREBENCH:-$BUILD/storebench}
FLOOR=${FLOOR:-$BUILD/bench/file_floor}
command -v valgrind >/dev/null || { echo "valgrind is not installed (apt-get install valgrind)"; exit 2; }
FILE="$DATA/data-00000.bin"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
extra=""; floor_method=$METHOD
[ "$METHOD" = read ] && extra="--buffer 0"
[ "$METHOD" = pread_threadpool ] && floor_method=preadv2

ir() {  # out-file, "glob[,glob]", command…: Ir inside those functions (inclusive) over the run
  local out=$1 fns=$2 toggles=(); shift 2
  IFS=, read -ra globs <<<"$fns"
  for g in "${globs[@]}"; do toggles+=(--toggle-collect="$g"); done
  valgrind --tool=callgrind "${toggles[@]}" --callgrind-out-file="$out" "$@" >/dev/null 2>"$out.log"
  awk '/^summary:/ {print $2}' "$out"
}
cat "$FILE" >/dev/null
for n in "$N1" "$N2"; do
  sb=$(ir "$TMP/sb.$n" '*RunWorkerLoop*' "$SB" run --backend file --data "$DATA" --workload randread --block-size 4k --method "$METHOD" \
    $extra --cache asis --threads 1 --ops "$n" --quiet --json "$TMP/sb.$n.json")
  fl=$(ir "$TMP/fl.$n" '*RunSync*,*RunUring*' "$FLOOR" --method "$floor_method" --ops "$n" "$FILE")
  echo "$n $sb $fl" >>"$TMP/ir"
done
python3 - "$METHOD" "$TMP/ir" <<'PY'
import sys
m = sys.argv[1]
(n1, sb1, fl1), (n2, sb2, fl2) = [map(int, line.split()) for line in open(sys.argv[2])]
sb, fl = (sb2 - sb1) / (n2 - n1), (fl2 - fl1) / (n2 - n1)
print(f"{m}: user-space instructions per op (marginal, {n1} -> {n2} ops): storebench {sb:.0f}, floor {fl:.0f}, "
      f"harness {sb - fl:.0f}")
PY
