"""Counts the syscalls whisper.py makes on one file, by kind, under strace.

Usage: strace_count.py BUFFERING PATH NOW POINTS_JSON
Runs whisper.update_many(PATH, POINTS, now=NOW) with whisper.BUFFERING set, in
a child interpreter traced by strace, and prints JSON {"read": n, ...} for the
syscalls on the file's descriptor between its open and its close (inclusive).
Exit status 3: whisper or strace is missing (the test skips).
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

if shutil.which("strace") is None:
    sys.exit(3)
buffering, path, now, points = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4]
child = ("import whisper, json, sys\n"
         "whisper.BUFFERING = int(sys.argv[1])\n"
         "whisper.update_many(sys.argv[2], [tuple(p) for p in json.loads(sys.argv[4])], now=int(sys.argv[3]))\n")
with tempfile.NamedTemporaryFile("r", suffix=".strace") as out:
    rc = subprocess.call(["strace", "-o", out.name, "-e", "trace=openat,read,write,lseek,close,fstat,newfstatat,ioctl,pread64,pwrite64,flock,fadvise64",
                          "/usr/bin/python3", "-c", child, buffering, path, now, points])
    if rc != 0:
        sys.exit(rc)
    lines = out.read().splitlines()
counts = {}
fd = None
bytes_read = bytes_written = 0
for line in lines:
    m = re.match(r'(\w+)\((.*)\)\s+=\s+(-?\d+)', line)
    if not m:
        continue
    name, args, ret = m.group(1), m.group(2), int(m.group(3))
    if fd is None:
        if name == "openat" and ('"%s"' % path) in args and ret >= 0:
            fd = ret
            counts["open"] = 1
        continue
    first = args.split(",")[0].strip()
    if name == "newfstatat" and first == str(fd):
        name = "fstat"
    elif first != str(fd):
        continue
    counts[name] = counts.get(name, 0) + 1
    if name == "read":
        bytes_read += ret
    if name == "write":
        bytes_written += ret
    if name == "close":
        break
counts["bytes_read"] = bytes_read
counts["bytes_written"] = bytes_written
json.dump(counts, sys.stdout)
