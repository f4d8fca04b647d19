#include "storebench/base/atomic_file.h"

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

}  // namespace
}  // namespace storebench
