#include "storebench/workload/ycsb_record.h"

#include "storebench/workload/zipfian.h"

namespace storebench::workload {

std::string YcsbKeyName(uint64_t keynum, uint32_t zeropadding, bool ordered) {
  // Java prints the signed long: fnvhash64's Math.abs leaves Long.MIN_VALUE negative.
  const uint64_t n = ordered ? keynum : FnvHash64(keynum);
  const std::string digits = !ordered && n == (uint64_t{1} << 63) ? "-9223372036854775808" : std::to_string(n);
  std::string key = "user";
  if (digits.size() < zeropadding) key.append(zeropadding - digits.size(), '0');
  return key + digits;
}

std::string YcsbFieldName(const std::string& prefix, uint32_t i) { return prefix + std::to_string(i); }

}  // namespace storebench::workload
