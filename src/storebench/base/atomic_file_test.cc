#include "storebench/base/atomic_file.h"
#include "storebench/base/output_path.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

namespace storebench {
namespace {

namespace fs = std::filesystem;

std::string Read(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

class AtomicFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("sb-atomic-" + std::to_string(getpid()));
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path dir_;
};

TEST_F(AtomicFileTest, ReplacesARegularFileAndLeavesNoTemporary) {
  fs::path p = dir_ / "r.json";
  ASSERT_TRUE(WriteFileAtomically(p, "one").ok());
  ASSERT_TRUE(WriteFileAtomically(p, "two").ok());
  EXPECT_EQ(Read(p), "two");
  EXPECT_EQ(std::distance(fs::directory_iterator(dir_), fs::directory_iterator()), 1);
}

TEST_F(AtomicFileTest, FollowsASymlinkAndKeepsIt) {
  fs::path target = dir_ / "target.json", link = dir_ / "link.json";
  ASSERT_TRUE(WriteFileAtomically(target, "old").ok());
  fs::create_symlink(target, link);
  ASSERT_TRUE(WriteFileAtomically(link, "new").ok());
  EXPECT_TRUE(fs::is_symlink(link));
  EXPECT_EQ(Read(target), "new");
}

TEST_F(AtomicFileTest, WritesThroughAFifoInsteadOfReplacingIt) {
  fs::path fifo = dir_ / "fifo";
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  std::string got;
  pid_t pid = fork();
  if (pid == 0) {
    std::ifstream in(fifo);
    std::string s((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    _exit(s == "through" ? 0 : 1);
  }
  ASSERT_TRUE(WriteFileAtomically(fifo, "through").ok());
  int status = 0;
  waitpid(pid, &status, 0);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  EXPECT_TRUE(fs::is_fifo(fifo));
}

TEST_F(AtomicFileTest, CheckOutputPathRefusesDirectoriesMissingDirsAndEmptyNames) {
  EXPECT_FALSE(CheckOutputPath(dir_, "--json").ok());
  EXPECT_FALSE(CheckOutputPath((dir_ / "no" / "x.json").string(), "--json").ok());
  EXPECT_FALSE(CheckOutputPath("", "--json").ok());
  EXPECT_EQ(CheckOutputPath(dir_, "--json").message().rfind("--json: ", 0), 0u);
  EXPECT_TRUE(CheckOutputPath((dir_ / "x.json").string(), "--json").ok());
}

// What the end of a run would find out too late is found out first: a name
// whose temporary twin (NAME.tmp.PID) is beyond NAME_MAX, a pseudo file
// system; a device is written through wherever it lives. The probe leaves nothing.
TEST_F(AtomicFileTest, CheckOutputPathProvesTheWriteBeforeAnyWork) {
  const std::string fits = (dir_ / std::string(250, 'n')).string();  // fits NAME_MAX (255), its twin does not
  Status s = CheckOutputPath(fits, "--json");
  EXPECT_FALSE(s.ok());
  EXPECT_TRUE(s.IsBadInput());
  EXPECT_NE(s.message().find("; the file system of"), std::string::npos) << s.message();
  EXPECT_NE(CheckOutputPath("/proc/x.json", "--csv").message().find("is on proc, a pseudo file system"),
            std::string::npos);
  EXPECT_TRUE(CheckOutputPath("/dev/null", "--json").ok());
  EXPECT_TRUE(CheckOutputDirectory((dir_ / "new" / "deeper").string(), "--out").ok());
  EXPECT_FALSE(fs::exists(dir_ / "new")) << "a check makes nothing";
  EXPECT_NE(CheckOutputDirectory("/sys/kernel/x", "--out").message().find("is on sysfs"), std::string::npos);
  EXPECT_NE(CheckOutputDirectory((dir_ / std::string(300, 'd')).string(), "--data").message().find("bytes"),
            std::string::npos);
  EXPECT_TRUE(fs::is_empty(dir_)) << "the probes left a file";
}

}  // namespace
}  // namespace storebench
