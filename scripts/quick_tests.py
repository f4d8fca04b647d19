#!/usr/bin/env python3
"""The quick loop's test run: every test CTest labels LABEL, one process per
test executable instead of one per test.

CTest starts each GoogleTest case in a process of its own (gtest_discover_tests):
for the ~430 unit tests that is ~430 starts of binaries that link RocksDB,
half of the loop's time. This runs each executable once, with the same
--gtest_filter, environment and working directory CTest would give its tests,
as many at a time as there are CPUs, and prints the output of those that
failed. An executable of kShardFrom tests or more runs as one GoogleTest shard
per CPU (GTEST_TOTAL_SHARDS), so that its tests still run side by side as
under CTest. A test that depends on running alone belongs in another label,
not in "unit".

Usage: scripts/quick_tests.py BUILD_DIR [LABEL]   (exit 1 when a test failed)
"""
import collections
import concurrent.futures
import json
import os
import subprocess
import sys
import time

kShardFrom = 20


def executables(build_dir, label):
    listing = subprocess.run(["ctest", "--test-dir", build_dir, "-L", f"^{label}$", "--show-only=json-v1"],
                             capture_output=True, text=True, check=True).stdout
    groups = collections.OrderedDict()
    for test in json.loads(listing)["tests"]:
        props = {p["name"]: p["value"] for p in test.get("properties", [])}
        exe = test["command"][0]
        g = groups.setdefault(exe, {"names": [], "env": props.get("ENVIRONMENT", []),
                                    "cwd": props.get("WORKING_DIRECTORY", build_dir),
                                    "timeout": props.get("TIMEOUT", 600)})
        g["names"].append(test["name"])
    return groups


def run(exe, g, shard=0, shards=1):
    env = dict(os.environ)
    env.update(v.split("=", 1) for v in g["env"])
    if shards > 1:
        env.update(GTEST_TOTAL_SHARDS=str(shards), GTEST_SHARD_INDEX=str(shard))
    t0 = time.monotonic()
    try:
        p = subprocess.run([exe, "--gtest_filter=" + ":".join(g["names"]), "--gtest_brief=1"], cwd=g["cwd"],
                           env=env, capture_output=True, text=True, timeout=g["timeout"])
        ok, out = p.returncode == 0, p.stdout + p.stderr
    except subprocess.TimeoutExpired as e:
        ok, out = False, f"timed out after {g['timeout']} s\n" + (e.stdout or b"").decode(errors="replace")
    n = len(g["names"]) // shards + (1 if shard < len(g["names"]) % shards else 0)
    return exe, n, ok, out, time.monotonic() - t0


def main():
    if len(sys.argv) not in (2, 3):
        print(__doc__.strip().splitlines()[-1], file=sys.stderr)
        return 2
    build_dir, label = sys.argv[1], sys.argv[2] if len(sys.argv) == 3 else "unit"
    groups = executables(build_dir, label)
    cpus = os.cpu_count() or 2
    jobs = []
    for exe, g in groups.items():
        shards = cpus if len(g["names"]) >= kShardFrom else 1
        jobs += [(exe, g, i, shards) for i in range(shards)]
    jobs.sort(key=lambda j: -len(j[1]["names"]) / j[3])  # the largest first: the last to finish are short
    failed, tests = [], 0
    with concurrent.futures.ThreadPoolExecutor(max_workers=cpus) as pool:
        for exe, n, ok, out, secs in pool.map(lambda j: run(*j), jobs):
            tests += n
            if not ok:
                failed.append(exe)
                print(f"FAILED {os.path.relpath(exe, build_dir)} ({n} tests, {secs:.1f} s):\n{out}")
    print(f"quick_tests: {tests} tests in {len(groups)} executables ({len(jobs)} processes), "
          f"{len(failed)} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
