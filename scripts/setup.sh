#!/usr/bin/env bash
# Installs the Debian 12 packages storebench needs, only those missing, and
# says nothing when all are present. Run as root.
set -euo pipefail

packages=(
  build-essential cmake pkg-config
  libfmt-dev nlohmann-json3-dev libcli11-dev libboost-math-dev
  libgtest-dev libgmock-dev libbenchmark-dev
  liburing-dev librocksdb-dev
  rocksdb-tools fio python3-whisper
  zlib1g-dev
  # Scale-out: mpirun and the headers for the MPI mode (tests labelled mpi).
  openmpi-bin libopenmpi-dev
  # storebench report: Chart.js is inlined into every HTML report from the
  # installed package; Chromium runs the browser test; the Java JDK and
  # HdrHistogram's Java library check the .hlog/.hgrm formats (interop test).
  libjs-chart.js chromium default-jdk-headless libhdrhistogram-java
  # valgrind: bench/rocksdb_harness_cost.sh and bench/harness_instructions.sh count instructions.
  valgrind
)

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
