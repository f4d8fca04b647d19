#!/usr/bin/env bash
# Runs the libFuzzer targets — the data-set manifest parsers (file, whisper,
# rocksdb) and the whisper header parser — for a fixed time each, from seeds
# that storebench itself writes, and prints what each found.
#
#   bench/fuzz.sh [SECONDS_PER_TARGET=300] [WORKDIR=/var/tmp/sb-fuzz]
#
# Builds the `fuzz` preset (clang, -fsanitize=fuzzer; scripts/setup.sh --test
# installs clang). A target that finds a broken promise (a crash, a sanitizer
# report, or a parser that neither parses within range nor names the problem)
# leaves the input in WORKDIR/TARGET/artifacts/ and the script exits 1.
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${1:-300}
work=${2:-/var/tmp/sb-fuzz}
[[ $secs =~ ^[1-9][0-9]*$ ]] || { echo "fuzz.sh: SECONDS_PER_TARGET: expected a whole number >= 1, got '$secs'" >&2; exit 2; }
command -v clang++ >/dev/null || { echo "fuzz.sh: clang++ not found (scripts/setup.sh --test installs it)" >&2; exit 2; }
scripts/build.sh fuzz
scripts/build.sh run  # the storebench binary that writes the seeds
sb=build/run/storebench
fuzz_dir=build/fuzz

rm -rf "$work"
mkdir -p "$work"/seeds "$work"/manifest/corpus "$work"/manifest/artifacts "$work"/header/corpus "$work"/header/artifacts

# Seeds: real manifests and real whisper headers, as storebench writes them.
# The manifest target reads its parser from the first byte (0 file, 1 whisper, 2 rocksdb).
"$sb" prepare --backend file --data "$work/seeds/file" --files 3 --file-size 64K >/dev/null
"$sb" prepare --backend whisper --data "$work/seeds/whisper" --metrics 4 --sparse >/dev/null
"$sb" prepare --backend rocksdb --data "$work/seeds/rocksdb" --num 1000 >/dev/null
kind=0
for b in file whisper rocksdb; do
  m=$(find "$work/seeds/$b" -maxdepth 1 -name 'storebench-*.json' | head -1)
  [[ -n $m ]] || { echo "fuzz.sh: no manifest written by prepare --backend $b" >&2; exit 1; }
  { printf "\\x0$kind"; cat "$m"; } >"$work/manifest/corpus/seed-$b"
  kind=$((kind + 1))
done
i=0
for spec in "60:10" "1s:60,1m:60,1h:24" "10:6,60:10,600:144,3600:168" ; do
  i=$((i + 1))
  "$sb" whisper create "$work/seeds/m$i.wsp" ${spec//,/ } >/dev/null
  head -c 4096 "$work/seeds/m$i.wsp" >"$work/header/corpus/seed-$i"
done

echo "# $(date -u +%FT%TZ) $(git rev-parse --short HEAD), clang $(clang++ -dumpversion), ${secs} s per target, $(nproc) cpus"
bad=0
for t in manifest:src/storebench/backend/manifest_fuzz header:src/storebench/whisper/whisper_header_fuzz; do
  name=${t%%:*}
  bin=$fuzz_dir/${t#*:}
  log=$work/$name/log
  rc=0
  (cd "$work/$name" && "$OLDPWD/$bin" -max_total_time="$secs" -print_final_stats=1 -artifact_prefix=artifacts/ \
      -max_len=8192 corpus) >"$log" 2>&1 || rc=$?
  execs=$(grep -oE 'stat::number_of_executed_units: *[0-9]+' "$log" | grep -oE '[0-9]+$' || echo '?')
  last=$(grep -E '^#[0-9]+' "$log" | tail -1)
  cov=$(grep -oE 'cov: [0-9]+' <<<"$last" | grep -oE '[0-9]+' || echo '?')
  ft=$(grep -oE 'ft: [0-9]+' <<<"$last" | grep -oE '[0-9]+' || echo '?')
  corp=$(ls "$work/$name/corpus" | wc -l)
  found=$(ls "$work/$name/artifacts" | wc -l)
  echo "$name: exit $rc, $execs inputs in ${secs} s, coverage $cov edges / $ft features, corpus $corp, findings $found"
  if ((rc != 0 || found != 0)); then
    bad=1
    grep -E 'ERROR|check failed|SUMMARY' "$log" | head -5 | sed 's/^/  /'
    ls "$work/$name/artifacts" | sed "s|^|  $work/$name/artifacts/|"
  fi
done
exit $bad
