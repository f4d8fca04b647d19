// Pieces of CPython 3.11 behaviour that whisper.py's results depend on and that
// a faithful reimplementation must reproduce. Pure functions, thread-safe.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace storebench::whisper {

// The distinct values of `values` in the order CPython 3.11 iterates set(values)
// for ints in [0, 2^61 - 1) (their hash is the value). whisper.py propagates the
// lower intervals of an update_many in this order, and when two of them share a
// slot of the lower archive the later one wins.
std::vector<int64_t> CPythonSetOrder(const std::vector<int64_t>& values);

// repr(float): the shortest round-tripping digits, "1.0", "0.30000001192092896",
// "1e-05", "1e+16", "nan", "inf".
std::string PyFloatRepr(double value);

}  // namespace storebench::whisper
