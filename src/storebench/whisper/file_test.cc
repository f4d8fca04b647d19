// The I/O layer: exact mode's syscall budget, and the Python modes against
// whisper.py itself traced with strace (skipped when strace or whisper is missing).
#include "storebench/whisper/file.h"

#include <nlohmann/json.hpp>
#include <fmt/format.h>
#include <gtest/gtest.h>

#include "storebench/whisper/python_helper.h"
#include "storebench/whisper/whisper.h"

namespace storebench::whisper {
namespace {

constexpr int64_t kNow = 1700000040;

std::vector<TimedValue> TenPoints() {
  std::vector<TimedValue> pts;
  for (int i = 0; i < 10; ++i) pts.push_back({kNow - 60 * i, static_cast<double>(i)});
  return pts;
}

std::string Fresh(const std::string& name) {
  std::string path = ::testing::TempDir() + name;
  ::unlink(path.c_str());
  EXPECT_TRUE(Create(path, *ParseRetentionList("60s:1d,300s:30d,3600s:5y"), {}).ok());
  return path;
}

TEST(WhisperFileTest, ExactModeUsesOnlyPreadAndPwrite) {
  std::string path = Fresh("exact.wsp");
  SyscallCounters c;
  ASSERT_TRUE(UpdateMany(path, TenPoints(), kNow, {}, &c).ok());
  EXPECT_EQ(c.lseek + c.read + c.write, 0u);
  EXPECT_EQ(c.open, 1u);
  EXPECT_EQ(c.close, 1u);
  EXPECT_GT(c.pread, 0u);
  EXPECT_GT(c.pwrite, 0u);
  // One pread for a 3-archive header: exactly its 52 bytes.
  SyscallCounters h;
  ASSERT_TRUE(Info(path, {}, &h).ok());
  EXPECT_EQ(h.pread, 1u);
  EXPECT_EQ(h.bytes_read, 52u);
}

TEST(WhisperFileTest, HeaderCacheSkipsTheHeaderRead) {
  std::string path = Fresh("cache.wsp");
  HeaderCache cache;
  IoOptions io;
  io.header_cache = &cache;
  io.check_file_size = false;
  SyscallCounters first, second;
  ASSERT_TRUE(Info(path, io, &first).ok());
  ASSERT_TRUE(Info(path, io, &second).ok());
  EXPECT_EQ(first.pread, 1u);
  EXPECT_EQ(second.pread, 0u);
}

TEST(WhisperFileTest, LockAndFadviseAreCounted) {
  std::string path = Fresh("lock.wsp");
  IoOptions io;
  io.lock = true;
  io.fadvise_random = true;
  SyscallCounters c;
  ASSERT_TRUE(UpdateMany(path, TenPoints(), kNow, io, &c).ok());
  EXPECT_EQ(c.flock, 1u);
  EXPECT_EQ(c.fadvise, 1u);
}

TEST(WhisperFileTest, ModesWriteIdenticalFiles) {
  std::vector<std::string> contents;
  for (IoMode mode : {IoMode::kExact, IoMode::kMinimal, IoMode::kPythonUnbuffered, IoMode::kBuffered}) {
    for (size_t buffer : {size_t{4096}, size_t{8192}}) {
      std::string path = Fresh("modes.wsp");
      IoOptions io;
      io.mode = mode;
      io.buffer_size = buffer;
      for (int round = 0; round < 30; ++round) {
        std::vector<TimedValue> pts = TenPoints();
        for (auto& p : pts) p.timestamp += 600 * round, p.value += round;
        ASSERT_TRUE(UpdateMany(path, pts, kNow + 600 * round, io).ok());
      }
      StatusOr<std::unique_ptr<WhisperFile>> f = WhisperFile::Open(path, OpenMode::kRead, {});
      ASSERT_TRUE(f.ok());
      std::string bytes(*(*f)->file_size(), '\0');
      ASSERT_TRUE((*f)->ReadAt(0, bytes.data(), bytes.size()).ok());
      contents.push_back(bytes);
    }
  }
  for (const std::string& c : contents) EXPECT_TRUE(c == contents.front());
}

// whisper.py's syscalls on the file for one update_many, counted by strace.
TEST(WhisperFileTest, PythonModesIssueWhisperPysSyscalls) {
  if (!testing::PythonWhisperAvailable()) GTEST_SKIP() << "/usr/bin/python3 cannot import whisper";
  std::string points = "[";
  for (const TimedValue& p : TenPoints()) {
    points += (points.size() > 1 ? "," : "") + fmt::format("[{},{}]", p.timestamp, p.value);
  }
  points += "]";
  for (int buffering : {0, 4096, 8192}) {
    std::string py_path = Fresh("strace_py.wsp");
    testing::CommandResult r =
        testing::RunCommand({"/usr/bin/python3", testing::TestdataPath("strace_count.py"), std::to_string(buffering),
                             py_path, std::to_string(kNow), points});
    if (r.exit_code == 3) GTEST_SKIP() << "strace is not installed";
    ASSERT_EQ(r.exit_code, 0) << r.err;
    nlohmann::json py = nlohmann::json::parse(r.out);
    std::string path = Fresh("strace_sb.wsp");
    IoOptions io;
    io.mode = buffering == 0 ? IoMode::kPythonUnbuffered : IoMode::kBuffered;
    io.buffer_size = static_cast<size_t>(buffering);
    SyscallCounters c;
    ASSERT_TRUE(UpdateMany(path, TenPoints(), kNow, io, &c).ok());
    SCOPED_TRACE(fmt::format("buffering {}: whisper.py {}", buffering, r.out));
    EXPECT_EQ(c.read, py.value("read", 0u));
    EXPECT_EQ(c.write, py.value("write", 0u));
    EXPECT_EQ(c.lseek, py.value("lseek", 0u));
    EXPECT_EQ(c.bytes_read, py.value("bytes_read", 0u));
    EXPECT_EQ(c.bytes_written, py.value("bytes_written", 0u));
  }
}

}  // namespace
}  // namespace storebench::whisper
