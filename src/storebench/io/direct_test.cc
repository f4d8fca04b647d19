#include "storebench/io/direct.h"

#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>

#include "storebench/io/read_method.h"
#include "storebench/io/test_util.h"

namespace storebench::io {
namespace {

using testing::Pattern;
using testing::TempDir;

constexpr uint64_t kDirectFileSize = 5 * 4096 + 123;  // the last block is partial

class DirectTest : public testing::MethodFixture<const char*> {
 protected:
  void SetUp() override {
    if (dir_.path().empty() || testing::OnTmpfs(dir_.path())) {
      GTEST_SKIP() << "TMPDIR is on tmpfs, which has no O_DIRECT: set TMPDIR to a disk filesystem";
    }
    MethodOptions o;
    o.direct = true;
    o.queue_depth = 4;
    o.fixed_buffers = 1;
    o.fixed_buffer_size = 1 << 16;
    OpenWith(GetParam(), o, kDirectFileSize, 7);
  }
};

TEST_P(DirectTest, AlignedReadsReturnTheFileBytes) {
  const DirectAlignment a = method_->alignment(file_);
  EXPECT_GT(a.offset, 1u);
  EXPECT_STRNE(a.source, "buffered");
  const std::span<char> buf = method_->fixed_buffer(0);
  const uint64_t step = std::max<uint32_t>(a.offset, 512);
  for (uint64_t off : {uint64_t{0}, step, 4 * step, uint64_t{4096} * 5}) {
    for (size_t len : {size_t(step), size_t(2 * step), size_t(8192)}) {
      if (len % a.offset != 0) continue;
      StatusOr<size_t> n = method_->Read(file_, off, len, buf.data());
      ASSERT_TRUE(n.ok()) << n.status().message();
      const size_t want_len = off >= kDirectFileSize ? 0 : std::min<uint64_t>(len, kDirectFileSize - off);
      ASSERT_EQ(*n, want_len) << "offset " << off << " length " << len;
      const std::vector<char> want = Pattern(7, off, want_len);
      EXPECT_TRUE(std::equal(want.begin(), want.end(), buf.begin())) << "offset " << off;
    }
  }
}

TEST_P(DirectTest, MisalignedRequestsAreRefusedUpFrontNamingTheAlignment) {
  const DirectAlignment a = method_->alignment(file_);
  const std::span<char> buf = method_->fixed_buffer(0);
  const std::string need = std::to_string(a.offset) + " bytes";
  struct Case {
    uint64_t offset;
    size_t length;
    char* buf;
  };
  for (const Case& c : {Case{1, a.offset, buf.data()}, Case{0, a.offset + 1u, buf.data()},
                        Case{0, a.offset, buf.data() + (a.memory > 1 ? 1 : 0)}}) {
    if (c.buf == buf.data() && c.offset == 0 && c.length == a.offset) continue;  // memory alignment 1
    ReadRequest r{.file = file_, .offset = c.offset, .length = c.length, .buf = c.buf};
    ReadCompletion done;
    StatusOr<ReadSubmitResult> s = method_->Submit(r, &done);
    ASSERT_FALSE(s.ok()) << "offset " << c.offset << " length " << c.length;
    EXPECT_EQ(s.status().code(), Status::Code::kInvalidArgument);
    EXPECT_NE(s.status().message().find(need), std::string::npos) << s.status().message();
    EXPECT_NE(s.status().message().find(path_), std::string::npos) << s.status().message();
  }
  EXPECT_EQ(method_->in_flight(), 0u);
  EXPECT_EQ(method_->counters().requests, 0u);
}

// Only pread_threadpool probes with RWF_NOWAIT: its own suite, so the other
// methods do not report a skip on every run.
class ThreadPoolDirectTest : public DirectTest {};

TEST_P(ThreadPoolDirectTest, NeverProbesWithNowait) {
  ASSERT_TRUE(method_->Has(kCapPriorities));
  ASSERT_TRUE(method_->Read(file_, 0, 4096, method_->fixed_buffer(0).data()).ok());
  EXPECT_EQ(method_->counters().Of(Syscall::kPreadv2), 0u);
  EXPECT_EQ(method_->counters().pool_reads, 1u);
  EXPECT_EQ(method_->counters().inline_reads, 0u);
}

INSTANTIATE_TEST_SUITE_P(DirectMethods, DirectTest, ::testing::Values("pread", "pread_threadpool", "io_uring"));
INSTANTIATE_TEST_SUITE_P(DirectMethods, ThreadPoolDirectTest, ::testing::Values("pread_threadpool"));

TEST(Direct, TmpfsIsRefusedWithAClearMessage) {
  if (access("/dev/shm", W_OK) != 0 || !testing::OnTmpfs("/dev/shm")) GTEST_SKIP() << "no writable tmpfs at /dev/shm";
  TempDir dir("/dev/shm");
  const std::string path = dir.WriteFile("d", 8192, 1);
  StatusOr<OpenedFile> f = OpenForRead(path, /*direct=*/true);
  ASSERT_FALSE(f.ok());
  EXPECT_EQ(f.status().code(), Status::Code::kNotSupported);
  EXPECT_NE(f.status().message().find("tmpfs"), std::string::npos) << f.status().message();
  EXPECT_NE(f.status().message().find(path), std::string::npos) << f.status().message();
  EXPECT_TRUE(OpenForRead(path, /*direct=*/false).ok());
}

TEST(Direct, BufferedFilesNeedNoAlignment) {
  OpenedFile f;
  f.path = "x";
  EXPECT_TRUE(CheckDirectRead(f, 1, 3, reinterpret_cast<void*>(0x7)).ok());
}

}  // namespace
}  // namespace storebench::io
