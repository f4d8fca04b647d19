// Hand-made corrupt headers through the same check the fuzzer runs, and
// through the file-level operations, which must report and never crash.
#include <fcntl.h>
#include <unistd.h>

#include <fstream>

#include <gtest/gtest.h>

#include "storebench/whisper/header_fuzz_entry.h"
#include "storebench/whisper/whisper.h"

namespace storebench::whisper {
namespace {

std::string HeaderBytes(uint32_t agg, uint32_t max_ret, uint32_t xff_bits, uint32_t count,
                   const std::vector<std::array<uint32_t, 3>>& archives) {
  std::string out(16 + 12 * archives.size(), '\0');
  auto* p = reinterpret_cast<uint8_t*>(out.data());
  StoreU32(agg, p), StoreU32(max_ret, p + 4), StoreU32(xff_bits, p + 8), StoreU32(count, p + 12);
  for (size_t i = 0; i < archives.size(); ++i) {
    for (int j = 0; j < 3; ++j) StoreU32(archives[i][j], p + 16 + 12 * i + 4 * j);
  }
  return out;
}

struct CorpusCase {
  std::string name, bytes, expect;  // expect: a fragment of the error
};

std::vector<CorpusCase> Corpus() {
  const uint32_t half = 0x3f000000;  // 0.5f
  std::string good = HeaderBytes(1, 600, half, 1, {{28, 60, 10}}) + std::string(120, '\0');
  return {
      {"empty", "", "truncated metadata"},
      {"truncated metadata", good.substr(0, 10), "truncated metadata"},
      {"truncated archive info", good.substr(0, 20), "truncated archive info"},
      {"zero archives", HeaderBytes(1, 600, half, 0, {}), "archive count is 0"},
      {"huge archive count", HeaderBytes(1, 600, half, 0xffffffff, {{28, 60, 10}}), "exceeds"},
      {"unknown aggregation", HeaderBytes(9, 600, half, 1, {{28, 60, 10}}), "unknown aggregation"},
      {"nan xff", HeaderBytes(1, 600, 0x7fc00000, 1, {{28, 60, 10}}), "xFilesFactor"},
      {"xff above 1", HeaderBytes(1, 600, 0x40000000, 1, {{28, 60, 10}}), "xFilesFactor"},
      {"zero seconds per point", HeaderBytes(1, 600, half, 1, {{28, 0, 10}}), "secondsPerPoint 0"},
      {"zero points", HeaderBytes(1, 600, half, 1, {{28, 60, 0}}), "0 points"},
      {"archive inside header", HeaderBytes(1, 600, half, 1, {{8, 60, 10}}), "overlaps the header"},
      {"overlapping archives",
       HeaderBytes(1, 1200, half, 2, {{40, 60, 10}, {100, 120, 10}}) + std::string(300, '\0'), "overlaps the previous"},
      {"archive past end of file", HeaderBytes(1, 600, half, 1, {{28, 60, 10}}) + std::string(50, '\0'), "ends at byte"},
      {"offset wraps 32 bits", HeaderBytes(1, 600, half, 1, {{0xfffffff0, 60, 0xffffffff}}), "ends at byte"},
  };
}

TEST(HeaderCorpusTest, FuzzEntryHoldsOnEveryCase) {
  for (const CorpusCase& c : Corpus()) {
    EXPECT_EQ(CheckHeaderBytes(reinterpret_cast<const uint8_t*>(c.bytes.data()), c.bytes.size()), "") << c.name;
  }
}

TEST(HeaderCorpusTest, ParserNamesFileAndProblem) {
  for (const CorpusCase& c : Corpus()) {
    StatusOr<whisper::Header> h = ParseHeader({reinterpret_cast<const uint8_t*>(c.bytes.data()), c.bytes.size()},
                                              "bad.wsp", c.bytes.size());
    ASSERT_FALSE(h.ok()) << c.name;
    EXPECT_EQ(h.status().code(), Status::Code::kCorruption) << c.name;
    EXPECT_NE(h.status().message().find("bad.wsp"), std::string::npos) << h.status().message();
    EXPECT_NE(h.status().message().find(c.expect), std::string::npos) << c.name << ": " << h.status().message();
  }
}

TEST(HeaderCorpusTest, OperationsOnCorruptFilesFailCleanly) {
  std::string dir = ::testing::TempDir();
  for (IoMode mode : {IoMode::kExact, IoMode::kPythonUnbuffered, IoMode::kBuffered}) {
    for (const CorpusCase& c : Corpus()) {
      std::string path = dir + "corrupt.wsp";
      std::ofstream(path, std::ios::binary | std::ios::trunc) << c.bytes;
      IoOptions io;
      io.mode = mode;
      EXPECT_FALSE(Info(path, io).ok()) << c.name;
      EXPECT_FALSE(UpdateMany(path, {{1000, 1.0}}, 1000, io).ok()) << c.name;
      StatusOr<std::optional<FetchResult>> f = Fetch(path, 0, 1000, 1000, io);
      ASSERT_FALSE(f.ok()) << c.name;
      EXPECT_NE(f.status().message().find(path), std::string::npos) << f.status().message();
    }
  }
}

TEST(HeaderCorpusTest, FileShorterThanItsArchivesWithoutSizeCheck) {
  // With the fstat check off, the short read itself is reported.
  std::string path = ::testing::TempDir() + "short.wsp";
  std::ofstream(path, std::ios::binary | std::ios::trunc) << HeaderBytes(1, 600, 0x3f000000, 1, {{28, 60, 10}});
  IoOptions io;
  io.check_file_size = false;
  StatusOr<std::optional<FetchResult>> f = Fetch(path, 0, 1000, 1000, io);
  ASSERT_FALSE(f.ok());
  EXPECT_NE(f.status().message().find("file ends"), std::string::npos) << f.status().message();
}

}  // namespace
}  // namespace storebench::whisper
