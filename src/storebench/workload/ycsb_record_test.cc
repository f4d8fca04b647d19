#include "storebench/workload/ycsb_record.h"

#include <gtest/gtest.h>

namespace storebench::workload {
namespace {

// Hashed keys as YCSB builds them, computed independently (FNV-1 over the 8
// little-endian bytes, Java's Math.abs of the signed result) with Python:
//   h = 0xCBF29CE484222325; for each byte b: h = ((h ^ b) * 1099511628211) mod 2^64
TEST(YcsbRecord, KeyNamesAreYcsbs) {
  EXPECT_EQ(YcsbKeyName(0, 1, false), "user6284781860667377211");
  EXPECT_EQ(YcsbKeyName(1, 1, false), "user8517097267634966620");
  EXPECT_EQ(YcsbKeyName(2, 1, false), "user1820151046732198393");
  EXPECT_EQ(YcsbKeyName(999, 1, false), "user2071219101098386137");
  // Ordered inserts keep the number; zeropadding pads it to that many digits, never cuts it.
  EXPECT_EQ(YcsbKeyName(5, 1, true), "user5");
  EXPECT_EQ(YcsbKeyName(5, 8, true), "user00000005");
  EXPECT_EQ(YcsbKeyName(123456789, 3, true), "user123456789");
  EXPECT_EQ(YcsbKeyName(0, 25, false), "user0000006284781860667377211");  // 19 digits, 6 zeros
  EXPECT_EQ(YcsbFieldName("field", 0), "field0");
  EXPECT_EQ(YcsbFieldName("f", 9), "f9");
}

}  // namespace
}  // namespace storebench::workload
