#include "storebench/io/page_cache.h"

#include <gtest/gtest.h>

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>

#include "storebench/base/proc_locks.h"
#include "storebench/io/test_util.h"

namespace storebench::io {
namespace {

using testing::TempDir;

constexpr uint64_t kSize = 4 << 20;

class PageCacheTest : public ::testing::TestWithParam<bool> {};

TEST_P(PageCacheTest, EvictionLowersResidencyAndWarmingRaisesIt) {
  TempDir dir;
  if (testing::OnTmpfs(dir.path())) GTEST_SKIP() << "TMPDIR is tmpfs: its pages cannot be evicted";
  const std::vector<std::string> paths = {dir.WriteFile("a", kSize, 1), dir.WriteFile("b", kSize / 2, 2)};
  ResidencyOptions ro;
  ro.use_cachestat = GetParam();

  ASSERT_TRUE(EvictFromCache(paths).ok());
  StatusOr<Residency> cold = MeasureResidency(paths, ro);
  ASSERT_TRUE(cold.ok()) << cold.status().message();
  ASSERT_TRUE(cold->known());
  if (GetParam() && cold->source != ResidencySource::kCachestat) GTEST_SKIP() << "kernel without cachestat(2)";
  EXPECT_EQ(cold->files, 2u);
  EXPECT_EQ(cold->file_bytes, kSize + kSize / 2);
  EXPECT_LT(cold->resident_bytes, cold->file_bytes / 4);

  StatusOr<uint64_t> warmed = WarmCache(paths);
  ASSERT_TRUE(warmed.ok()) << warmed.status().message();
  EXPECT_EQ(*warmed, kSize + kSize / 2);
  StatusOr<Residency> warm = MeasureResidency(paths, ro);
  ASSERT_TRUE(warm.ok());
  EXPECT_GT(warm->resident_bytes, cold->resident_bytes);
  EXPECT_GE(warm->resident_bytes, warm->file_bytes * 3 / 4);
  EXPECT_EQ(warm->source, GetParam() ? ResidencySource::kCachestat : ResidencySource::kMincore);

  ASSERT_TRUE(EvictFromCache(paths).ok());
  StatusOr<Residency> again = MeasureResidency(paths, ro);
  ASSERT_TRUE(again.ok());
  EXPECT_LT(again->resident_bytes, warm->resident_bytes);
}

INSTANTIATE_TEST_SUITE_P(CachestatAndMincore, PageCacheTest, ::testing::Bool(),
                         [](const ::testing::TestParamInfo<bool>& p) { return p.param ? "cachestat" : "mincore"; });

// A process that neither owns nor may write a file must get "unknown", not the
// "all resident" that mincore tells it.
TEST(PageCache, ForeignReadOnlyFileIsUnknownNotFullyResident) {
  if (geteuid() != 0) GTEST_SKIP() << "needs root to create a file the test then cannot own";
  TempDir dir;
  ASSERT_EQ(chmod(dir.path().c_str(), 0755), 0);
  const std::string path = dir.WriteFile("root-owned", 1 << 20, 1);
  ASSERT_EQ(chmod(path.c_str(), 0644), 0);
  ASSERT_TRUE(EvictFromCache(std::span<const std::string>(&path, 1)).ok());
  const pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    // Child: become "nobody"; exit code 0 = unknown for both probes, 1 = a number, 2 = error.
    if (setgid(65534) != 0 || setuid(65534) != 0) _exit(3);
    if (MincoreIsTruthful(path)) _exit(1);
    for (bool cachestat : {true, false}) {
      ResidencyOptions ro;
      ro.use_cachestat = cachestat;
      StatusOr<Residency> r = MeasureResidency(std::span<const std::string>(&path, 1), ro);
      if (!r.ok()) _exit(2);
      if (r->known() || r->unknown_files != 1 || r->resident_bytes != 0) _exit(1);
    }
    _exit(0);
  }
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status));
  if (WEXITSTATUS(status) == 3) GTEST_SKIP() << "cannot switch to uid 65534";
  EXPECT_EQ(WEXITSTATUS(status), 0) << "1 = a foreign file was reported as measured, 2 = an error";
  EXPECT_TRUE(MincoreIsTruthful(path));  // the owner sees the truth
}

// Closing any descriptor of a file drops every POSIX lock this process holds
// on it: RocksDB's DIR/LOCK was released by the residency probe (issue 51, S3).
TEST(PageCache, NoProbeDropsALockThisProcessHolds) {
  TempDir dir;
  const std::string lock = dir.WriteFile("LOCK", 4096, 1);
  const std::string data = dir.WriteFile("000007.sst", 8192, 2);
  const int fd = ::open(lock.c_str(), O_RDWR | O_CLOEXEC);
  ASSERT_GE(fd, 0);
  struct flock fl {};
  fl.l_type = F_WRLCK;
  fl.l_whence = SEEK_SET;
  ASSERT_EQ(fcntl(fd, F_SETLK, &fl), 0);
  struct stat st {};
  ASSERT_EQ(::stat(lock.c_str(), &st), 0);
  auto held = [&] {
    for (const ProcLock& l : ReadProcLocks())
      if (l.kind == ProcLock::Kind::kPosix && l.pid == getpid() && l.inode == st.st_ino) return true;
    return false;
  };
  ASSERT_TRUE(held()) << "/proc/locks does not list this process's lock";
  const std::vector<std::string> paths = {lock, data};
  for (bool cachestat : {true, false}) {
    StatusOr<Residency> r = MeasureResidency(paths, ResidencyOptions{cachestat});
    ASSERT_TRUE(r.ok()) << r.status().message();
    EXPECT_EQ(r->files, 2u);
    EXPECT_EQ(r->unknown_files, 1u) << "the locked file is left alone, not measured";
    EXPECT_TRUE(held()) << "MeasureResidency dropped the lock (cachestat " << cachestat << ")";
  }
  ASSERT_TRUE(WarmCache(paths).ok());
  EXPECT_TRUE(held()) << "WarmCache dropped the lock";
  ASSERT_TRUE(EvictFromCache(paths).ok());
  EXPECT_TRUE(held()) << "EvictFromCache dropped the lock";
  ::close(fd);
}

TEST(PageCache, ProcLocksLinesAreParsed) {
  const auto locks = ParseProcLocks(
      "1: POSIX  ADVISORY  WRITE 1234 fe:00:5308417 0 EOF\n"
      "1: -> POSIX  ADVISORY  WRITE 99 fe:00:5308417 0 EOF\n"
      "2: FLOCK  ADVISORY  READ 77 00:1f:42 0 EOF\n"
      "3: OFDLCK ADVISORY  WRITE -1 08:01:7 0 EOF\n");
  ASSERT_EQ(locks.size(), 3u);
  EXPECT_EQ(locks[0].kind, ProcLock::Kind::kPosix);
  EXPECT_EQ(locks[0].pid, 1234);
  EXPECT_EQ(locks[0].inode, 5308417u);
  EXPECT_TRUE(locks[0].write);
  EXPECT_EQ(locks[1].kind, ProcLock::Kind::kFlock);
  EXPECT_FALSE(locks[1].write);
  EXPECT_EQ(locks[2].kind, ProcLock::Kind::kOfd);
  EXPECT_EQ(locks[2].pid, 0);
}

TEST(PageCache, MissingFileIsAnErrorNamingIt) {
  const std::vector<std::string> paths = {"/nonexistent/sb/file"};
  StatusOr<Residency> r = MeasureResidency(paths);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("/nonexistent/sb/file"), std::string::npos);
  EXPECT_FALSE(EvictFromCache(paths).ok());
}

TEST(PageCache, DropCachesFailureIsExplained) {
  TempDir dir;
  const Status st = DropCaches(dir.path().c_str());  // a directory cannot be opened for writing
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find(dir.path()), std::string::npos) << st.message();
}

TEST(PageCache, DropCachesForReal) {
  // Dropping every cache disturbs other work on the machine: opt in.
  if (std::getenv("STOREBENCH_TEST_DROP_CACHES") == nullptr) {
    GTEST_SKIP() << "set STOREBENCH_TEST_DROP_CACHES=1 to drop the machine's page cache";
  }
  const Status st = DropCaches();
  if (!st.ok()) {
    EXPECT_NE(st.message().find("drop_caches"), std::string::npos) << st.message();
  }
}

}  // namespace
}  // namespace storebench::io
