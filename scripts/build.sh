#!/usr/bin/env bash
# Configures and builds one CMake preset (default: release), quietly unless it
# fails. Further arguments go to the build step (e.g. --target NAME).
set -euo pipefail
cd "$(dirname "$0")/.."
preset=${1:-release}
shift || true
log=$(mktemp)
if ! { cmake --preset "$preset" && cmake --build --preset "$preset" -j "$(nproc)" "$@"; } >"$log" 2>&1; then
  cat "$log" >&2
  rm -f "$log"
  echo "build: preset $preset failed" >&2
  exit 1
fi
rm -f "$log"
