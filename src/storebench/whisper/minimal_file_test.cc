// kMinimal's syscall budget: for carbon-like flushes (K consecutive points of the
// finest archive per update_many) every update stays within the floor computed
// from the schema and the points: open, fstat, close, one header read (which
// also takes the first archive's base point), per lower archive one read of
// its base point and one of the higher archive's range it aggregates, and one
// write per archive; a range or write that wraps around its archive's end
// counts twice. The bytes stored are checked against whisper.py in
// fidelity_test.cc; here, against exact mode's.
#include <unistd.h>

#include <fstream>
#include <iterator>
#include <sstream>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "storebench/whisper/whisper.h"

namespace storebench::whisper {
namespace {

// Does a run of `count` slots starting at `interval` wrap around `archive`'s end?
// Without a base point yet (0) the run's place is unknown: count it as wrapping.
bool Wraps(const ArchiveInfo& archive, uint32_t base, int64_t interval, int64_t count) {
  if (base == 0) return true;
  const int64_t slot = FloorMod(FloorDiv(interval - base, archive.seconds_per_point), archive.points);
  return slot + count > archive.points;
}

std::vector<uint32_t> BaseTimestamps(const std::string& path, const Header& h) {
  StatusOr<std::unique_ptr<WhisperFile>> f = WhisperFile::Open(path, OpenMode::kRead, {});
  std::vector<uint32_t> bases;
  for (const ArchiveInfo& a : h.archives) {
    uint8_t buf[kPointSize];
    EXPECT_TRUE((*f)->ReadAt(a.offset, buf, sizeof(buf)).ok());
    bases.push_back(DecodePoint(buf).timestamp);
  }
  return bases;
}

struct Floor {
  uint64_t reads = 0, writes = 0;
  uint64_t syscalls() const { return 3 + reads + writes; }  // + open, fstat, close
};

// The floor for one update_many of the points first..last (every step of archive 0).
Floor FloorFor(const Header& h, const std::vector<uint32_t>& bases, int64_t first, int64_t last) {
  Floor fl;
  fl.reads = 1;  // the header, with archive 0's base point
  const ArchiveInfo& a0 = h.archives[0];
  fl.writes += 1 + Wraps(a0, bases[0], first, (last - first) / a0.seconds_per_point + 1);
  for (size_t j = 1; j < h.archives.size(); ++j) {
    const ArchiveInfo &higher = h.archives[j - 1], &lower = h.archives[j];
    const int64_t lo = AlignDown(first, lower.seconds_per_point), hi = AlignDown(last, lower.seconds_per_point);
    const int64_t lower_count = (hi - lo) / lower.seconds_per_point + 1;
    fl.reads += 1;  // lower's base point
    fl.reads += 1 + Wraps(higher, bases[j - 1], lo, lower_count * (lower.seconds_per_point / higher.seconds_per_point));
    fl.writes += 1 + Wraps(lower, bases[j], lo, lower_count);
  }
  return fl;
}

std::string Contents(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

struct Flushes {
  double minimal = 0, exact = 0, floor = 0;  // mean syscalls per update
};

// Runs carbon-like flushes of `k` points through minimal and exact mode on two
// files, checking every minimal update against its floor.
Flushes RunFlushes(const std::string& schema, int64_t k, int64_t days) {
  const std::string dir = ::testing::TempDir();
  const std::string path = dir + "minimal_floor.wsp", exact_path = dir + "minimal_floor_exact.wsp";
  ::unlink(path.c_str()), ::unlink(exact_path.c_str());
  EXPECT_TRUE(Create(path, *ParseRetentionList(schema), {}).ok());
  EXPECT_TRUE(Create(exact_path, *ParseRetentionList(schema), {}).ok());
  const Header h = *Info(path);
  const int64_t step = h.archives[0].seconds_per_point;
  IoOptions minimal;
  minimal.mode = IoMode::kMinimal;
  Flushes sum;
  const int64_t flushes = days * 86400 / step / k;
  int64_t t = 1600000000 + 7 * step;  // not aligned to any coarser archive
  for (int64_t i = 0; i < flushes; ++i, t += k * step) {
    std::vector<TimedValue> pts;
    for (int64_t j = 0; j < k; ++j) pts.push_back({t + j * step, static_cast<double>(i * k + j)});
    const int64_t now = pts.back().timestamp;
    const Floor fl = FloorFor(h, BaseTimestamps(path, h), AlignDown(t, step), AlignDown(now, step));
    SyscallCounters m, e;
    EXPECT_TRUE(UpdateMany(path, pts, now, minimal, &m).ok());
    EXPECT_TRUE(UpdateMany(exact_path, pts, now, {}, &e).ok());
    SCOPED_TRACE(fmt::format("{} K={} flush {} at {}", schema, k, i, t));
    EXPECT_EQ(m.open + m.fstat + m.close, 3u);
    EXPECT_EQ(m.read + m.write + m.lseek, 0u);
    EXPECT_LE(m.pread, fl.reads);
    EXPECT_LE(m.pwrite, fl.writes);
    EXPECT_LE(m.syscalls(), fl.syscalls());
    sum.minimal += static_cast<double>(m.syscalls());
    sum.exact += static_cast<double>(e.syscalls());
    sum.floor += static_cast<double>(fl.syscalls());
  }
  EXPECT_TRUE(Contents(path) == Contents(exact_path)) << schema << " K=" << k << ": minimal and exact files differ";
  const auto n = static_cast<double>(flushes);
  return {sum.minimal / n, sum.exact / n, sum.floor / n};
}

TEST(MinimalIoTest, CarbonFlushesStayWithinTheSchemaFloor) {
  for (const char* schema : {"60s:1d,5m:30d,1h:5y", "10s:6h,1m:7d,10m:1y"}) {
    for (int64_t k : {1, 10, 60}) {
      const Flushes f = RunFlushes(schema, k, 2);  // two days: every archive 0 wraps
      std::cout << fmt::format("{} K={}: syscalls per update minimal {:.2f}, floor {:.2f}, exact {:.2f}\n", schema,
                               k, f.minimal, f.floor, f.exact);
      EXPECT_LT(f.minimal, f.exact) << schema << " K=" << k;
    }
  }
}

// The image on its own: reads see earlier writes, a range read in pieces costs one
// pread once prefetched, bytes already held win over bytes read later, each
// contiguous changed range is one pwrite, and a read past the end is Corruption.
TEST(MinimalIoTest, ImageReadsWritesAndFlushes) {
  const std::string path = ::testing::TempDir() + "minimal_image.bin";
  ::unlink(path.c_str());
  {
    std::ofstream out(path, std::ios::binary);
    for (int i = 0; i < 1000; ++i) out.put(static_cast<char>(i % 251));
  }
  IoOptions io;
  io.mode = IoMode::kMinimal;
  io.check_file_size = false;
  StatusOr<std::unique_ptr<WhisperFile>> f = WhisperFile::Open(path, OpenMode::kReadWrite, io);
  ASSERT_TRUE(f.ok());
  WhisperFile& w = **f;
  const uint8_t x[4] = {0xee, 0xee, 0xee, 0xee};
  ASSERT_TRUE(w.WriteAt(100, x, 4).ok());
  ASSERT_TRUE(w.WriteAt(110, x, 4).ok());
  EXPECT_EQ(w.counters().pwrite, 0u);
  ASSERT_TRUE(w.Prefetch(50, 100).ok());  // one pread fills the gaps around both writes
  uint8_t got[30];
  ASSERT_TRUE(w.ReadAt(95, got, sizeof(got)).ok());
  ASSERT_TRUE(w.ReadAt(60, got, 10).ok());
  EXPECT_EQ(w.counters().pread, 1u);
  ASSERT_TRUE(w.ReadAt(95, got, sizeof(got)).ok());
  for (int i = 0; i < 30; ++i) {
    const int at = 95 + i;
    const bool written = (at >= 100 && at < 104) || (at >= 110 && at < 114);
    EXPECT_EQ(got[i], written ? 0xee : at % 251) << at;
  }
  ASSERT_TRUE(w.WriteAt(900, x, 4).ok());
  ASSERT_TRUE(w.WriteAt(996, x, 4).ok());
  ASSERT_TRUE(w.WriteAt(1000, x, 4).ok());  // extends the file
  EXPECT_EQ(w.ReadAt(2000, got, 4).code(), Status::Code::kCorruption);
  ASSERT_TRUE(w.Flush().ok());
  EXPECT_EQ(w.counters().pwrite, 3u);  // [100, 114), [900, 904), [996, 1004)
  EXPECT_EQ(w.counters().bytes_written, 14u + 4 + 8);
  ASSERT_TRUE(w.Close().ok());
  std::ifstream in(path, std::ios::binary);
  std::string all((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  ASSERT_EQ(all.size(), 1004u);
  for (int at : {100, 103, 110, 113, 900, 903, 996, 1003}) EXPECT_EQ(static_cast<uint8_t>(all[at]), 0xee) << at;
  for (int at : {99, 104, 109, 114, 899, 904, 995}) EXPECT_EQ(static_cast<uint8_t>(all[at]), at % 251) << at;
}

// A fetch from the first archive reads the header and the range: the base point
// came with the header. From a lower archive it costs what exact mode costs.
TEST(MinimalIoTest, FetchFoldsTheFirstBasePointIntoTheHeaderRead) {
  const std::string path = ::testing::TempDir() + "minimal_fetch.wsp";
  ::unlink(path.c_str());
  ASSERT_TRUE(Create(path, *ParseRetentionList("60s:1d,5m:30d,1h:5y"), {}).ok());
  const int64_t now = 1600000000;
  std::vector<TimedValue> pts;
  for (int i = 0; i < 600; ++i) pts.push_back({now - 60 * i, static_cast<double>(i)});
  ASSERT_TRUE(UpdateMany(path, pts, now).ok());
  IoOptions minimal;
  minimal.mode = IoMode::kMinimal;
  for (int64_t range : {3600, 7 * 86400}) {
    SyscallCounters m, e;
    StatusOr<std::optional<FetchResult>> a = Fetch(path, now - range, now, now, minimal, &m);
    StatusOr<std::optional<FetchResult>> b = Fetch(path, now - range, now, now, {}, &e);
    ASSERT_TRUE(a.ok() && b.ok());
    ASSERT_TRUE(a->has_value() && b->has_value());
    EXPECT_EQ((*a)->values, (*b)->values);
    if (range == 3600) {
      EXPECT_EQ(m.pread, 2u);  // header + archive 0's base point, then the range
      EXPECT_EQ(e.pread, 3u);
    } else {
      EXPECT_EQ(m.pread, e.pread);  // archive 1's base point needs a read of its own
    }
    EXPECT_LE(m.bytes_read, e.bytes_read + kPointSize) << range;
  }
}

}  // namespace
}  // namespace storebench::whisper
