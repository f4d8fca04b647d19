#!/usr/bin/env bash
# The whole test suite: install what is missing, then build and run every test
# in the release build, again under AddressSanitizer + UndefinedBehaviorSanitizer,
# and the concurrency tests under ThreadSanitizer.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
jobs=$(nproc)

echo "== release: all tests"
scripts/build.sh release
ctest --preset release -j "$jobs"

echo "== asan+ubsan: all tests"
scripts/build.sh asan
ctest --preset asan -j "$jobs"

echo "== tsan: concurrency tests"
scripts/build.sh tsan --target concurrency_tests
ctest --preset tsan -j "$jobs"
