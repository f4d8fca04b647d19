#include "storebench/io/prefetch.h"

#include <gtest/gtest.h>

#include "storebench/io/test_util.h"

namespace storebench::io {
namespace {

using testing::Pattern;
using testing::TempDir;

constexpr uint64_t kFileSize = 3 * 65536 + 777;

struct Case {
  const char* method;
  bool prefetch;
  bool use_pool;
  size_t buffer;
};
std::string CaseName(const Case& c) {
  return std::string(c.method) + (c.prefetch ? "_prefetch" : "_plain") + (c.use_pool ? "_pool" : "") + "_" +
         std::to_string(c.buffer);
}
// GoogleTest prints a parameter in the test's listed name; without this, the
// struct's bytes, which change from build to build.
void PrintTo(const Case& c, std::ostream* os) { *os << CaseName(c); }

class PrefetchTest : public ::testing::TestWithParam<Case> {};

std::string Scan(SequentialReader& r, Status* error) {
  std::string out;
  for (;;) {
    const uint64_t pos = r.position();
    StatusOr<std::span<const char>> chunk = r.Next();
    if (!chunk.ok()) {
      *error = chunk.status();
      return out;
    }
    if (chunk->empty()) return out;
    if (pos != out.size() + 0 && pos != r.position() - chunk->size()) *error = Status::IOError("position skipped");
    out.append(chunk->data(), chunk->size());
  }
}

TEST_P(PrefetchTest, ReturnsTheWholeFileInOrder) {
  const Case& c = GetParam();
  TempDir dir;
  const std::string path = dir.WriteFile("d", kFileSize, 9);
  MethodOptions mo;
  mo.pool_threads = 1;
  StatusOr<std::unique_ptr<ReadMethod>> m = CreateReadMethod(c.method, mo);
  if (m.status().code() == Status::Code::kNotSupported) GTEST_SKIP() << m.status().message();
  ASSERT_TRUE(m.ok()) << m.status().message();
  const int f = *(*m)->Open(path);
  ThreadPool pool(1);
  PrefetchOptions po;
  po.buffer_size = c.buffer;
  po.prefetch = c.prefetch;
  po.pool = c.use_pool ? &pool : nullptr;
  StatusOr<std::unique_ptr<SequentialReader>> r = SequentialReader::Create(**m, f, po);
  ASSERT_TRUE(r.ok()) << r.status().message();
  Status error;
  const std::string got = Scan(**r, &error);
  ASSERT_TRUE(error.ok()) << error.message();
  const std::vector<char> want = Pattern(9, 0, kFileSize);
  ASSERT_EQ(got.size(), want.size());
  EXPECT_TRUE(std::equal(want.begin(), want.end(), got.begin()));
  EXPECT_EQ((*r)->position(), kFileSize);
  // No read is issued past the end: requested bytes equal the file size.
  EXPECT_EQ((*m)->counters().bytes_requested, kFileSize);
}

INSTANTIATE_TEST_SUITE_P(
    Methods, PrefetchTest,
    ::testing::Values(Case{"pread", true, true, 65536}, Case{"pread", true, false, 65536},
                      Case{"pread", false, false, 10000}, Case{"read", true, true, 4096}, Case{"mmap", true, true, 30000},
                      Case{"pread_threadpool", true, false, 65536}, Case{"pread_threadpool", false, false, 8192},
                      Case{"io_uring", true, false, 65536}, Case{"io_uring", true, false, 4096}),
    [](const ::testing::TestParamInfo<Case>& p) { return CaseName(p.param); });

TEST(Prefetch, ReadsASubrangeAndRefusesMisalignedDirectBuffers) {
  TempDir dir;
  const std::string path = dir.WriteFile("d", kFileSize, 4);
  StatusOr<std::unique_ptr<ReadMethod>> m = CreateReadMethod("pread_threadpool", {});
  ASSERT_TRUE(m.ok());
  const int f = *(*m)->Open(path);
  PrefetchOptions po;
  po.buffer_size = 5000;
  po.begin = 1234;
  po.end = 50000;
  StatusOr<std::unique_ptr<SequentialReader>> r = SequentialReader::Create(**m, f, po);
  ASSERT_TRUE(r.ok()) << r.status().message();
  Status error;
  const std::string got = Scan(**r, &error);
  ASSERT_TRUE(error.ok()) << error.message();
  const std::vector<char> want = Pattern(4, 1234, 50000 - 1234);
  ASSERT_EQ(got.size(), want.size());
  EXPECT_TRUE(std::equal(want.begin(), want.end(), got.begin()));

  if (testing::OnTmpfs(dir.path())) return;
  MethodOptions direct;
  direct.direct = true;
  StatusOr<std::unique_ptr<ReadMethod>> d = CreateReadMethod("pread", direct);
  ASSERT_TRUE(d.ok());
  const int df = *(*d)->Open(path);
  po = PrefetchOptions{};
  po.buffer_size = 5000;
  StatusOr<std::unique_ptr<SequentialReader>> bad = SequentialReader::Create(**d, df, po);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("multiples of"), std::string::npos) << bad.status().message();
  po.buffer_size = 16384;
  StatusOr<std::unique_ptr<SequentialReader>> good = SequentialReader::Create(**d, df, po);
  ASSERT_TRUE(good.ok()) << good.status().message();
  const std::string all = Scan(**good, &error);
  ASSERT_TRUE(error.ok()) << error.message();
  EXPECT_EQ(all.size(), kFileSize);
}

}  // namespace
}  // namespace storebench::io
