// Block stamps: content verifies whole and in part; corruption is reported
// with the file and the block's offset.
#include "storebench/backend/file/stamp.h"

#include <gtest/gtest.h>

#include <vector>

namespace storebench::backend::file {
namespace {

std::vector<char> Blocks(uint64_t seed, uint32_t file, int n) {
  std::vector<char> v(kStampBlock * n);
  for (int i = 0; i < n; ++i) {
    StampBlock(seed, file, i * kStampBlock, std::span<char, kStampBlock>(v.data() + i * kStampBlock, kStampBlock));
  }
  return v;
}

TEST(Stamp, WholeAndPartialReadsVerify) {
  const std::vector<char> v = Blocks(7, 3, 4);
  BlockVerifier ver(7);
  EXPECT_TRUE(ver.Check(3, "f3", 0, v).ok());
  EXPECT_TRUE(ver.Check(3, "f3", 100, std::span<const char>(v).subspan(100, 9000)).ok());
  EXPECT_TRUE(ver.Check(3, "f3", 4096, std::span<const char>(v).subspan(4096, 4096)).ok());
}

TEST(Stamp, ContentDependsOnFileOffsetAndSeed) {
  EXPECT_NE(Blocks(7, 3, 2), Blocks(7, 4, 2));
  EXPECT_NE(Blocks(7, 3, 2), Blocks(8, 3, 2));
  const std::vector<char> v = Blocks(7, 3, 2);
  EXPECT_NE(std::vector<char>(v.begin(), v.begin() + 4096), std::vector<char>(v.begin() + 4096, v.end()));
}

TEST(Stamp, CorruptedPayloadNamesFileAndOffset) {
  std::vector<char> v = Blocks(7, 2, 3);
  v[kStampBlock + 1000] ^= 1;
  BlockVerifier ver(7);
  Status st = ver.Check(2, "/d/data-00002.bin", 0, v);
  ASSERT_EQ(st.code(), Status::Code::kCorruption);
  EXPECT_NE(st.message().find("/d/data-00002.bin (file 2) at offset 4096"), std::string::npos) << st.message();
  EXPECT_NE(st.message().find("checksum"), std::string::npos) << st.message();
  // A read covering only part of the damaged block still sees it.
  st = ver.Check(2, "/d/data-00002.bin", 4096 + 512, std::span<const char>(v).subspan(4096 + 512, 1024));
  EXPECT_NE(st.message().find("at offset 4096"), std::string::npos) << st.message();
}

TEST(Stamp, MisplacedBlockAndMissingStampAreNamed) {
  std::vector<char> v = Blocks(7, 1, 2);
  BlockVerifier ver(7);
  // Block 0 read where block 1 should be: a misplaced read.
  Status st = ver.Check(1, "f1", 4096, std::span<const char>(v).subspan(0, 4096));
  EXPECT_NE(st.message().find("stamped as file 1 offset 0"), std::string::npos) << st.message();
  std::vector<char> zeros(4096, 0);
  st = ver.Check(1, "f1", 0, zeros);
  EXPECT_NE(st.message().find("no stamp"), std::string::npos) << st.message();
}

}  // namespace
}  // namespace storebench::backend::file
