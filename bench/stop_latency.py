#!/usr/bin/env python3
"""How long a stop takes: a closed loop of THREADS busy workers on the null
backend, a CPU hog at nice 19 on every CPU (a loaded host), SIGTERM once the
measured window runs, and the time from the signal to the process's exit,
with the results written. A baseline of 64 workers runs alternately in the
same rounds.

This observer runs at real-time priority (SCHED_FIFO 1, so run it as root):
a normal process that sends the signal and reads the clock waits its own turn
among thousands of runnable threads, and would time itself, not storebench.
storebench itself runs at normal priority.

    bench/stop_latency.py [BINARY] [ROUNDS=5] [THREADS=4096]
"""
import json
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time

sb = os.path.realpath(sys.argv[1] if len(sys.argv) > 1 else "build/release/storebench")
rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 5
threads = int(sys.argv[3]) if len(sys.argv) > 3 else 4096

try:
    os.sched_setscheduler(0, os.SCHED_FIFO, os.sched_param(1))
except PermissionError:
    sys.exit("stop_latency.py: needs SCHED_FIFO for its own timing (run as root)")


def normal_priority():
    os.sched_setscheduler(0, os.SCHED_OTHER, os.sched_param(0))


hogs = [subprocess.Popen(["nice", "-n", "19", "sh", "-c", "while :; do :; done"], preexec_fn=normal_priority)
        for _ in range(os.cpu_count())]
out = tempfile.mkdtemp()


def one(t):
    js, err = os.path.join(out, "r.json"), os.path.join(out, "err")
    if os.path.exists(js):
        os.remove(js)
    with open(err, "w") as e:
        p = subprocess.Popen([sb, "run", "--backend", "null", "--threads", str(t), "--duration", "120s", "--warmup",
                              "0s", "--interval", "1s", "--progress", "always", "--json", js],
                             stdout=subprocess.DEVNULL, stderr=e, preexec_fn=normal_priority)
    # 2 s into the window, or 20 s after the start when no progress line came
    # (the reporter itself may wait a scheduler round to draw one).
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline and "measuring" not in open(err).read():
        time.sleep(0.05)
    time.sleep(2)
    t0 = time.monotonic()
    p.send_signal(signal.SIGTERM)
    rc = p.wait()
    took = time.monotonic() - t0
    doc = json.load(open(js))
    stop = doc["totals"].get("stop", {})
    return took, rc, doc["totals"]["interrupted"], stop


print(f"# {time.strftime('%Y-%m-%dT%H:%M:%SZ', time.gmtime())} {os.cpu_count()} cpus, {os.uname().release}, "
      f"nice-19 hog on every cpu")
print(f"# binary: {subprocess.run([sb, '--version'], capture_output=True, text=True).stdout.strip()}")
print(f"# {sb} run --backend null --threads {{64,{threads}}} --duration 120s --warmup 0s --progress always --json J;"
      f" SIGTERM 2 s into the window, {rounds} rounds alternating")
took = {64: [], threads: []}
try:
    for r in range(1, rounds + 1):
        for t in (64, threads):
            s, rc, interrupted, stop = one(t)
            took[t].append(s)
            print(f"round {r} threads {t}: signal to exit {s:.3f} s, exit {rc}, interrupted {interrupted}, "
                  f"stop {json.dumps(stop)}", flush=True)
finally:
    for h in hogs:
        h.kill()
for t, xs in took.items():
    print(f"threads {t}: signal to exit median {statistics.median(xs):.3f} s, max {max(xs):.3f} s over {len(xs)} rounds")
