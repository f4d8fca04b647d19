#!/usr/bin/env python3
"""Prints every test the last ctest run in BUILD_DIR skipped, with its reason.

Reads BUILD_DIR/Testing/Temporary/LastTest.log (GoogleTest's output of each
test): a skip is "[  SKIPPED ] NAME (T ms)" after "FILE:LINE: Skipped" and the
reason GTEST_SKIP() gave. Prints "  NAME: REASON" per skip and a count, so a
skip that happens in CI and not on a developer's machine shows in the log.

Usage: scripts/skip_summary.py BUILD_DIR [STAGE]
"""
import pathlib
import re
import sys


def skips(log_text):
    found = []
    reason, collecting = [], False
    for line in log_text.splitlines():
        if line.startswith("[ RUN      ]"):
            reason, collecting = [], False
        elif re.search(r":\d+: Skipped$", line):
            reason, collecting = [], True
        elif line.startswith("[  SKIPPED ]") and line.rstrip().endswith(")"):
            name = line[len("[  SKIPPED ]"):].strip().rsplit(" (", 1)[0]
            found.append((name, " ".join(r.strip() for r in reason if r.strip()) or "(no reason given)"))
            reason, collecting = [], False
        elif collecting:
            reason.append(line)
    return found


def main():
    if len(sys.argv) < 2:
        print("usage: skip_summary.py BUILD_DIR [STAGE]", file=sys.stderr)
        return 2
    log = pathlib.Path(sys.argv[1]) / "Testing" / "Temporary" / "LastTest.log"
    stage = sys.argv[2] if len(sys.argv) > 2 else sys.argv[1]
    if not log.exists():
        print(f"{stage}: no test log at {log}")
        return 0
    found = skips(log.read_text(errors="replace"))
    print(f"{stage}: {len(found)} skipped" + (":" if found else ""))
    for name, reason in found:
        print(f"  {name}: {reason}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
