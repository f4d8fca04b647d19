#!/usr/bin/env python3
"""Prints what the last ctest run in BUILD_DIR skipped and what it failed.

Reads BUILD_DIR/Testing/Temporary/LastTest.log (GoogleTest's output of each
test) and LastTestsFailed.log (ctest's list of failed tests).

* A skip is "[  SKIPPED ] NAME (T ms)" after "FILE:LINE: Skipped" and the
  reason GTEST_SKIP() gave: printed as "  NAME: REASON", with a count, so a
  skip that happens in CI and not on a developer's machine shows in the log;
  a skip not listed in scripts/expected_skips.txt (the project machine's own
  skips) is marked NEW.
* A failure is printed with the lines of its output that say why (GoogleTest's
  "Failure" blocks, a sanitizer's report, a timeout), at most 40 lines per
  test: CI keeps only the tail of a long log, and this summary is at its end.

Usage: scripts/test_summary.py BUILD_DIR [STAGE]
"""
import pathlib
import re
import sys

MAX_LINES_PER_FAILURE = 40
EXPECTED_SKIPS = pathlib.Path(__file__).with_name("expected_skips.txt")


def expected_skips():
    """The names in scripts/expected_skips.txt: tests that skip on the project's own machine too."""
    if not EXPECTED_SKIPS.exists():
        return set()
    names = (line.split("#", 1)[0].strip() for line in EXPECTED_SKIPS.read_text().splitlines())
    return {n for n in names if n}


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


def test_outputs(log_text):
    """Maps each test's name to the lines of its output in LastTest.log."""
    outputs, name, lines, inside = {}, None, [], False
    for line in log_text.splitlines():
        m = re.match(r"^\d+/\d+ Test: (.+)$", line)
        if m:
            name, lines, inside = m.group(1).strip(), [], False
        elif name and line.startswith("Output:"):
            inside = True
        elif name and line.startswith("<end of output>"):
            outputs[name], inside = lines, False
        elif name and inside and not re.match(r"^-{20,}$", line):
            lines.append(line)
        elif name and line.startswith("Test time =") and name in outputs:
            outputs[name].append(line)
    return outputs


def why(lines):
    """The lines of a failed test's output that say why it failed."""
    wanted, keep = [], 0
    for line in lines:
        if re.search(r"(: Failure$|ERROR: \w+Sanitizer|runtime error:|WARNING: ThreadSanitizer|"
                     r"Timeout|\*\*\*Exception|terminate called|Aborted)", line):
            keep = 12
        if keep:
            wanted.append(line)
            keep -= 1
    if not wanted:
        wanted = lines[-15:]
    if len(wanted) > MAX_LINES_PER_FAILURE:
        wanted = wanted[:MAX_LINES_PER_FAILURE] + ["    ... (the rest is in LastTest.log)"]
    return wanted


def main():
    if len(sys.argv) < 2:
        print("usage: test_summary.py BUILD_DIR [STAGE]", file=sys.stderr)
        return 2
    temporary = pathlib.Path(sys.argv[1]) / "Testing" / "Temporary"
    log = temporary / "LastTest.log"
    stage = sys.argv[2] if len(sys.argv) > 2 else sys.argv[1]
    if not log.exists():
        print(f"{stage}: no test log at {log}")
        return 0
    text = log.read_text(errors="replace")
    found = skips(text)
    expected = expected_skips()
    new = [name for name, _ in found if name not in expected]
    print(f"{stage}: {len(found)} skipped" + (f", {len(new)} of them NEW (not in {EXPECTED_SKIPS.name})" if new else "")
          + (":" if found else ""))
    for name, reason in found:
        print(f"  {'NEW ' if name in new else ''}{name}: {reason}")
    failed_list = temporary / "LastTestsFailed.log"
    if failed_list.exists():
        names = [l.split(":", 1)[1].strip() for l in failed_list.read_text(errors="replace").splitlines() if ":" in l]
        # ctest leaves the file of an earlier run when every test now passes; trust it only when
        # it is as new as the log.
        if names and failed_list.stat().st_mtime >= log.stat().st_mtime - 5:
            outputs = test_outputs(text)
            print(f"{stage}: {len(names)} FAILED:")
            for name in names:
                print(f"  {name}:")
                for line in why(outputs.get(name, ["(no output in LastTest.log)"])):
                    print(f"    {line}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
