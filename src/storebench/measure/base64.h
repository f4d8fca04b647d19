// Base64 and varints for the histogram's compact text and binary forms.
// Written by hand: a few dozen lines, and no Debian C++ package offers them
// without pulling in a much larger library. Pure functions, thread-safe.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace storebench::measure {

std::string Base64Encode(std::string_view bytes);
// False on characters outside the alphabet or a bad length.
bool Base64Decode(std::string_view text, std::string* bytes);
// LEB128: 7 bits a byte, low bits first.
void AppendVarint(std::string* out, uint64_t value);
// Reads one varint at *pos, advancing it; false when the input ends mid-varint.
bool ReadVarint(std::string_view in, size_t* pos, uint64_t* value);
void AppendZigZagVarint(std::string* out, int64_t value);
// Reads one varint at *pos, advancing it; false when the input ends mid-varint.
bool ReadZigZagVarint(std::string_view in, size_t* pos, int64_t* value);

}  // namespace storebench::measure
