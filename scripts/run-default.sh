#!/usr/bin/env bash
# The main job: install what building and running need (nothing the tests
# alone need), build the storebench binary only, and run storebench's default
# job (no arguments, no prior setup). Arguments go to storebench.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
STOREBENCH_CMAKE_ARGS="-DSTOREBENCH_BUILD_TESTS=OFF -DSTOREBENCH_BUILD_BENCH=OFF" scripts/build.sh release --target storebench
exec build/release/storebench "$@"
