// The header-parser check shared by the libFuzzer target and the corpus test.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace storebench::whisper {

// Parses `data` as a header (with and without a file size taken from the input) and
// checks what a successful parse promises: archives inside the bytes read, in order,
// non-overlapping, nonzero, and a byte-exact re-serialization. Returns an empty string
// when every promise held, else what broke.
std::string CheckHeaderBytes(const uint8_t* data, size_t size);

}  // namespace storebench::whisper
