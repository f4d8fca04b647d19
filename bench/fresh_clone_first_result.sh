#!/bin/bash
# How long the first command (scripts/run-default.sh) takes from a fresh clone
# on a machine without its packages. Approximates a bare Debian 12 machine:
# removes every package scripts/setup.sh installs (and Open MPI, whose wrapper
# alone changes the configure), empties apt's lists and package cache (so
# everything is downloaded again), clones this repository afresh into
# /tmp/fresh, disables the compiler cache, and times scripts/run-default.sh,
# stamping each output line with the seconds since the start.
#
#   bench/fresh_clone_first_result.sh --remove-packages
#
# Destructive on purpose (it uninstalls the toolchain): run as root on a
# machine you can give back; scripts/setup.sh --test puts everything back.
set -u
[[ ${1:-} == --remove-packages ]] || { echo "fresh_clone_first_result.sh: removes packages; say --remove-packages to go on" >&2; exit 2; }
repo=$(cd "$(dirname "$0")/.." && pwd)
pk="openmpi-bin libopenmpi-dev build-essential g++ g++-12 cmake ninja-build pkg-config libfmt-dev nlohmann-json3-dev libcli11-dev libboost-math-dev liburing-dev librocksdb-dev zlib1g-dev libjs-chart.js"
export DEBIAN_FRONTEND=noninteractive
apt-get remove -y -qq $pk >/tmp/fresh-remove.log 2>&1
apt-get autoremove -y -qq >>/tmp/fresh-remove.log 2>&1
apt-get clean
rm -rf /var/lib/apt/lists/*
for p in $pk; do dpkg-query -W -f='${Status}' $p 2>/dev/null | grep -q "install ok installed" && echo "still installed: $p"; done
rm -rf /tmp/fresh; git clone -q "$repo" /tmp/fresh
cd /tmp/fresh
export CCACHE_DISABLE=1
start=$(date +%s.%N)
scripts/run-default.sh 2>&1 | python3 -u -c "
import sys,time
t0=float('$start')
for line in sys.stdin:
    for part in line.replace('\r','\n').split('\n'):
        if part.strip(): print(f'{time.time()-t0:7.1f}s {part}')
"
python3 -c "import time; print(f'total: {time.time() - $start:.1f} s')"
