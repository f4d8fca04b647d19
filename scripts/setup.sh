#!/usr/bin/env bash
# Installs the Debian 12 packages storebench needs, only those missing, and
# says nothing when all are present. Run as root.
#
#   scripts/setup.sh          what building and running storebench need (the first command)
#   scripts/setup.sh --test   that, and what the test suite and bench/ scripts need
set -euo pipefail

# Building and running: the compiler, the libraries CMake finds, the RocksDB
# engine of the default job, Chart.js (inlined into every --html report).
packages=(
  build-essential cmake ninja-build pkg-config
  libfmt-dev nlohmann-json3-dev libcli11-dev libboost-math-dev
  liburing-dev librocksdb-dev zlib1g-dev
  libjs-chart.js
  # The HTTP server of run --metrics-listen.
  libcpp-httplib-dev
)
if [[ ${1:-} == --test ]]; then
  packages+=(
    # A compiler cache and a fast linker (mold, used when CMake finds it) for
    # the three builds of the suite (release, ASan+UBSan, TSan).
    ccache mold
    libgtest-dev libgmock-dev libbenchmark-dev
    # Peers the tests and bench/ scripts run against.
    rocksdb-tools fio python3-whisper python3-scipy
    # Prometheus and promtool scrape and check a live run; carbon-cache receives
    # its Graphite push (live/live_e2e_test.cc).
    prometheus graphite-carbon
    # Scale-out: mpirun and the headers for the MPI mode (tests labelled mpi).
    openmpi-bin libopenmpi-dev
    # Chromium runs the browser test; the Java JDK and HdrHistogram's Java
    # library check the .hlog/.hgrm formats (interop test).
    chromium default-jdk-headless libhdrhistogram-java
    # valgrind: bench/rocksdb_harness_cost.sh and bench/harness_instructions.sh count instructions.
    valgrind
    # universal-ctags: the source test that holds every function in src/ to 80 lines.
    universal-ctags
    # clang and its sanitizer runtimes: the libFuzzer targets (fuzz preset, bench/fuzz.sh).
    clang libclang-rt-14-dev
  )
elif [[ -n ${1:-} ]]; then
  echo "setup: unknown argument '$1' (accepted: --test)" >&2
  exit 2
fi

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done
if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}" >&2
  if [[ $(id -u) -ne 0 ]]; then
    echo "setup: run as root (apt-get install is needed for: ${missing[*]})" >&2
    exit 1
  fi
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq >/dev/null
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
