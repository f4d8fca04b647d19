#!/usr/bin/env bash
# The main job: install what is missing, build the release binary and run
# storebench's default job (no arguments, no prior setup).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
scripts/build.sh release
exec build/release/storebench "$@"
