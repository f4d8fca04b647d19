#include "storebench/workload/db_bench_key.h"

#include <string>

#include <gtest/gtest.h>

namespace storebench::workload {
namespace {

using std::string_literals::operator""s;

TEST(DbBenchKeyTest, EightBigEndianBytesThenZeroCharacters) {
  EXPECT_EQ(DbBenchKey(1, 16), "\0\0\0\0\0\0\0\x01"s + "00000000");
  EXPECT_EQ(DbBenchKey(0x0102030405060708ull, 8), "\x01\x02\x03\x04\x05\x06\x07\x08"s);
  EXPECT_EQ(DbBenchKey(0x1234, 20), "\0\0\0\0\0\0\x12\x34"s + "000000000000");
}

TEST(DbBenchKeyTest, ShortKeysKeepTheLowBytes) {
  // GenerateKeyFromInt fills min(key_size, 8) bytes with v >> ((n − i − 1)·8).
  EXPECT_EQ(DbBenchKey(0x0102030405ull, 4), "\x02\x03\x04\x05"s);
  EXPECT_EQ(DbBenchKey(0x1ff, 1), "\xff"s);
  EXPECT_EQ(DbBenchKey(42, 0), "");
  EXPECT_EQ(DbBenchKeySpace(4), 1ull << 32);
  EXPECT_EQ(DbBenchKeySpace(0), 1u);
  EXPECT_EQ(DbBenchKeySpace(48), ~0ull);
}

TEST(DbBenchKeyTest, DecodeInvertsEncode) {
  for (size_t size : {8u, 16u, 20u, 48u}) {
    for (uint64_t v : {0ull, 1ull, 4'999'999ull, ~0ull}) {
      StatusOr<uint64_t> back = DecodeDbBenchKey(DbBenchKey(v, size));
      ASSERT_TRUE(back.ok());
      EXPECT_EQ(*back, v);
    }
  }
  StatusOr<uint64_t> short_key = DecodeDbBenchKey(DbBenchKey(0x0102030405ull, 4));
  ASSERT_TRUE(short_key.ok());
  EXPECT_EQ(*short_key, 0x02030405u);
}

TEST(DbBenchKeyTest, EncodesIntoCallerBufferWithoutTouchingBeyond) {
  char buf[24];
  std::fill(std::begin(buf), std::end(buf), 'x');
  EncodeDbBenchKey(7, 20, buf);
  EXPECT_EQ(std::string(buf, 20), DbBenchKey(7, 20));
  EXPECT_EQ(buf[20], 'x');
}

TEST(DbBenchKeyTest, ReencodingRewritesOnlyTheIndex) {
  for (size_t key_size : {4, 8, 16, 20}) {
    std::string key = DbBenchKey(0, key_size);
    for (uint64_t index : {uint64_t{1}, uint64_t{0x0102030405060708}, uint64_t{99999}}) {
      ReencodeDbBenchKey(index, key_size, key.data());
      EXPECT_EQ(key, DbBenchKey(index, key_size)) << key_size << " " << index;
    }
  }
}

TEST(DbBenchKeyTest, DecodeRejectsForeignPadding) {
  StatusOr<uint64_t> bad = DecodeDbBenchKey("\0\0\0\0\0\0\0\x01" "0000000x"s);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), Status::Code::kCorruption);
}

}  // namespace
}  // namespace storebench::workload
