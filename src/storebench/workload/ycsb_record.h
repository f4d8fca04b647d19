// YCSB's records as CoreWorkload names and shapes them: the key of record
// number k ("user" and a decimal number, the number hashed unless
// insertorder=ordered, zero-padded to `zeropadding` digits) and the field
// names ("field0" …). Thread-safety: pure functions.
#pragma once

#include <cstdint>
#include <string>

namespace storebench::workload {

// CoreWorkload.buildKeyName: "user" + (ordered ? k : fnvhash64(k)) in
// decimal, left-padded with zeros to `zeropadding` digits.
std::string YcsbKeyName(uint64_t keynum, uint32_t zeropadding, bool ordered);
// The name of field `i`: `prefix` + i ("field0" by default).
std::string YcsbFieldName(const std::string& prefix, uint32_t i);

}  // namespace storebench::workload
