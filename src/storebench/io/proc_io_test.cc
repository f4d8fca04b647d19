#include "storebench/io/proc_io.h"

#include <gtest/gtest.h>

#include <fcntl.h>
#include <unistd.h>

#include <fstream>

#include "storebench/io/test_util.h"

namespace storebench::io {
namespace {

TEST(ProcIo, ParsesAllFields) {
  testing::TempDir dir;
  const std::string p = dir.path() + "/io";
  std::ofstream(p) << "rchar: 1\nwchar: 2\nsyscr: 3\nsyscw: 4\nread_bytes: 5\nwrite_bytes: 6\n"
                      "cancelled_write_bytes: 7\n";
  StatusOr<ProcIo> io = ReadProcIo(p.c_str());
  ASSERT_TRUE(io.ok()) << io.status().message();
  EXPECT_EQ(io->rchar, 1u);
  EXPECT_EQ(io->syscw, 4u);
  EXPECT_EQ(io->cancelled_write_bytes, 7u);
  std::ofstream(p) << "rchar: 1\n";
  EXPECT_FALSE(ReadProcIo(p.c_str()).ok());
}

TEST(ProcIo, DeltaCountsOurReads) {
  StatusOr<ProcIo> before = ReadProcIo();
  if (before.status().code() == Status::Code::kNotSupported) GTEST_SKIP() << before.status().message();
  ASSERT_TRUE(before.ok()) << before.status().message();
  testing::TempDir dir;
  const std::string path = dir.WriteFile("d", 1 << 20, 1);
  const int fd = open(path.c_str(), O_RDONLY);
  ASSERT_GE(fd, 0);
  std::vector<char> buf(1 << 16);
  int reads = 0;
  while (read(fd, buf.data(), buf.size()) > 0) ++reads;
  close(fd);
  StatusOr<ProcIo> after = ReadProcIo();
  ASSERT_TRUE(after.ok());
  const ProcIo d = *after - *before;
  EXPECT_GE(d.rchar, uint64_t{1} << 20);
  EXPECT_GE(d.syscr, uint64_t(reads + 1));
  EXPECT_GE(d.wchar, uint64_t{1} << 20);  // WriteFile
}

TEST(ResourceUsage, SnapshotsAreMonotonic) {
  StatusOr<ResourceUsage> a = ReadResourceUsage();
  ASSERT_TRUE(a.ok());
  volatile uint64_t sink = 0;
  for (uint64_t i = 0; i < 2000000; ++i) sink = sink + i;
  StatusOr<ResourceUsage> b = ReadResourceUsage();
  StatusOr<ResourceUsage> t = ReadResourceUsage(/*thread=*/true);
  ASSERT_TRUE(b.ok());
  ASSERT_TRUE(t.ok());
  EXPECT_GE(b->user_ns + b->system_ns, a->user_ns + a->system_ns);
  EXPECT_GE(b->voluntary_switches, a->voluntary_switches);
  EXPECT_LE(t->user_ns, b->user_ns + 10000000);  // a thread's time is part of the process's
  const ResourceUsage d = *b - *a;
  EXPECT_EQ(d.major_faults, b->major_faults - a->major_faults);
}

}  // namespace
}  // namespace storebench::io
