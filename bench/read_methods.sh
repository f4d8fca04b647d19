#!/usr/bin/env bash
# The ClickHouse read-method experiments on this machine (docs/read-methods.md):
#  1. a multi-file column scan: methods × prefetch × warm/cold;
#  2. two concurrent scans of different files with priorities 0 and 1;
#  3. point reads of several columns together vs one by one.
# Each variant runs ROUNDS times, interleaved; tables print medians.
#
#   bench/read_methods.sh [DATA_DIR] [ROUNDS]     (defaults /var/tmp/sb-ch 3)
# The data set is 8 files × 256 MiB (2 GiB), made here if missing.
set -euo pipefail
DATA=${1:-/var/tmp/sb-ch}
ROUNDS=${2:-3}
SB=${STOREBENCH:-$(dirname "$0")/../build/release/storebench}
"$SB" prepare --backend file --data "$DATA" --files 8 --file-size 256M
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
run() {  # label, then storebench run flags; appends "label<TAB>json" to $TMP/rows
  local label=$1; shift
  local out="$TMP/$(date +%s%N).json"
  "$SB" run --backend file --data "$DATA" --quiet --json "$out" "$@" >/dev/null
  printf '%s\t%s\n' "$label" "$out" >>"$TMP/rows"
}

echo "== 1. column scan: 4 columns × 256 MiB, 1 MiB reads, one pass" >&2
for r in $(seq 1 "$ROUNDS"); do
  for cache in warm cold; do
    for m in read pread pread_threadpool mmap io_uring; do
      for p in "" --prefetch; do
        extra=""; [ "$m" = read ] && extra="--buffer 1M"
        run "scan|$m|${p:-none}|$cache" --workload columns --columns 4 --offset-dist sequential --block-size 1M \
          --method "$m" $p $extra --cache "$cache" --ops 256 --pool-threads 4
      done
    done
  done
done

echo "== 2. two concurrent scans, priorities" >&2
for r in $(seq 1 "$ROUNDS"); do
  for prio in "0 1" "1 0" "0 0"; do
    set -- $prio
    run "prio|$1|$2" --workload seqread --block-size 1M --method pread_threadpool --prefetch --cache cold \
      --pool-threads 2 --class "a:threads=2,priority=$1,ops=1024" --class "b:threads=2,priority=$2,ops=1024"
  done
done

echo "== 3. point reads of 8 columns: together vs one by one" >&2
for r in $(seq 1 "$ROUNDS"); do
  for cache in warm cold; do
    for m in io_uring pread_threadpool pread; do
      for s in "" --serial-columns; do
        [ "$m" = pread ] && [ -z "$s" ] && continue
        run "point|$m|${s:-together}|$cache" --workload columns --columns 8 --block-size 4k --method "$m" $s \
          --cache "$cache" --duration 3s --pool-threads 8
      done
    done
  done
done

echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) cores"
python3 - "$TMP/rows" <<'PY'
import json, statistics, sys
rows = {}
for line in open(sys.argv[1]):
    label, path = line.rstrip("\n").split("\t")
    rows.setdefault(label, []).append(json.load(open(path)))
med = statistics.median
def mb_s(d): return d["totals"]["bytes"] / d["totals"]["elapsed_s"] / 2**20

print("\n### 1. Column scan (4 columns × 256 MiB, 1 MiB reads), median seconds per scan [MiB/s]\n")
print("| method | prefetch | warm s | warm MiB/s | cold s | cold MiB/s | cold device MiB | syscalls/op (cold) |")
print("|---|---|---:|---:|---:|---:|---:|---:|")
for m in ["read", "pread", "pread_threadpool", "mmap", "io_uring"]:
    for p in ["none", "--prefetch"]:
        w, c = rows[f"scan|{m}|{p}|warm"], rows[f"scan|{m}|{p}|cold"]
        print(f"| {m} | {'yes' if p != 'none' else 'no'} | {med(d['totals']['elapsed_s'] for d in w):.3f} | "
              f"{med(mb_s(d) for d in w):.0f} | {med(d['totals']['elapsed_s'] for d in c):.3f} | {med(mb_s(d) for d in c):.0f} | "
              f"{med(d['io']['device_read_bytes'] for d in c)/2**20:.0f} | {med(d['io']['syscalls_per_op'] for d in c):.2f} |")

print("\n### 2. Two concurrent cold scans (2 threads each, 2 files of 256 MiB per thread), first full pass in seconds (median)\n")
print("| priorities a / b | a finishes | b finishes | first to finish |")
print("|---|---:|---:|---|")
for k in ["0|1", "1|0", "0|0"]:
    ds = rows[f"prio|{k}"]
    a = med(d["file"]["groups"]["0"]["first_pass_s"] for d in ds)
    b = med(d["file"]["groups"]["1"]["first_pass_s"] for d in ds)
    pa, pb = k.split("|")
    print(f"| {pa} / {pb} | {a:.2f} | {b:.2f} | {'a' if a < b else 'b'} |")

print("\n### 3. Point reads of 8 columns × 4 KiB per query, 1 thread, 3 s\n")
print("| method | columns read | warm queries/s | warm p50 µs | cold queries/s | cold p50 µs | cold p99 µs |")
print("|---|---|---:|---:|---:|---:|---:|")
for m in ["io_uring", "pread_threadpool", "pread"]:
    for s in ["together", "--serial-columns"]:
        if m == "pread" and s == "together": continue
        w, c = rows[f"point|{m}|{s}|warm"], rows[f"point|{m}|{s}|cold"]
        q = lambda ds: med(d["totals"]["ops"] / d["totals"]["elapsed_s"] for d in ds)
        lat = lambda ds, p: med(d["kinds"]["columns"]["response"][p] for d in ds) / 1000
        print(f"| {m} | {'together' if s == 'together' else 'one by one'} | {q(w):,.0f} | {lat(w,'p50_ns'):.1f} | "
              f"{q(c):,.0f} | {lat(c,'p50_ns'):.1f} | {lat(c,'p99_ns'):.1f} |")
PY
