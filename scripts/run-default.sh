#!/usr/bin/env bash
# The main job: install what building and running need (nothing the tests
# alone need), build the storebench binary only, and run storebench's default
# job (no arguments, no prior setup). Arguments go to storebench, e.g.
# scripts/run-default.sh --json r.json --html r.html.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
# The "run" preset (CMakePresets.json): the binary alone, no tests or bench/,
# -O2 without debug info (-g costs about a sixth of each file's compile
# time), in build/run. The test suite's build (build/release, scripts/test.sh)
# is another directory, so neither changes the other's settings.
scripts/build.sh run --target storebench
exec build/run/storebench "$@"
