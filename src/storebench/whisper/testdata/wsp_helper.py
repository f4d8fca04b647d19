"""Runs a batch of whisper.py operations for the storebench fidelity tests.

Reads a JSON list of operations on stdin and writes a JSON list of results on
stdout, one per operation, so that one interpreter start serves a whole test.
time.time() is replaced by a function that fails: every operation must get its
`now` explicitly, which proves the results do not depend on the wall clock.
Exit status 3 means whisper cannot be imported (the test skips).
"""
import json
import sys
import time

try:
    import whisper
except ImportError:
    sys.exit(3)


def _no_wall_clock():
    raise AssertionError("whisper.py consulted the wall clock")


time.time = _no_wall_clock


def run(op):
    kind = op["op"]
    path = op.get("path")
    if kind == "create":
        whisper.create(path, [tuple(a) for a in op["archives"]], xFilesFactor=op["xff"],
                       aggregationMethod=op["agg"], sparse=op.get("sparse", False))
    elif kind == "update_many":
        whisper.update_many(path, [tuple(p) for p in op["points"]], now=op["now"])
    elif kind == "update":
        try:
            whisper.update(path, op["value"], op["timestamp"], now=op["now"])
        except whisper.TimestampNotCovered:
            return "not covered"
    elif kind == "fetch":
        r = whisper.fetch(path, op["from"], op["until"], now=op["now"])
        return None if r is None else [list(r[0]), r[1]]
    elif kind == "set_aggregation":
        old = whisper.setAggregationMethod(path, op["agg"], op.get("xff"))
        if not op.get("read_back"):
            return old
    elif kind == "read":
        with open(path, "rb") as f:
            return f.read().hex()
    elif kind == "set_order":
        return list(set(op["values"]))
    elif kind == "repr":
        return [repr(float(x)) for x in op["values"]]
    elif kind == "validate":
        try:
            whisper.validateArchiveList([tuple(a) for a in op["archives"]])
            return "ok"
        except whisper.InvalidConfiguration as e:
            return str(e)
    elif kind == "parse_retention":
        try:
            return list(whisper.parseRetentionDef(op["text"]))
        except ValueError as e:
            return "error: " + str(e)
    else:
        raise ValueError("unknown op " + kind)
    if op.get("read_back"):
        with open(path, "rb") as f:
            return f.read().hex()
    return None


def main():
    ops = json.load(sys.stdin)
    json.dump([run(op) for op in ops], sys.stdout)


main()
