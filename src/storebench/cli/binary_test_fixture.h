// A GoogleTest fixture for end-to-end tests of the storebench binary: a fresh
// temporary directory per test, and Run("args") returning the exit code,
// stdout and stderr. The binary comes from $STOREBENCH_BINARY (set by CTest).
#pragma once

#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace storebench::testing {

inline std::string StorebenchBinary() {
  const char* b = std::getenv("STOREBENCH_BINARY");
  return b ? b : "storebench";
}

inline std::string Slurp(const std::filesystem::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

struct Outcome {
  int code = -1;
  std::string out, err;
};

class BinaryTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::path(::testing::TempDir()) /
           ("sb_" + std::to_string(getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  // Runs `storebench ARGS` through the shell; stdout and stderr are captured.
  Outcome Run(const std::string& args) { return RunShell(StorebenchBinary() + " " + args); }

  // Runs a shell command line (e.g. storebench under `timeout`); stdout and stderr are captured.
  Outcome RunShell(const std::string& command_line) {
    std::string cmd = command_line + " > " + (dir_ / "out").string() + " 2> " + (dir_ / "err").string();
    int rc = std::system(cmd.c_str());
    return Outcome{WIFEXITED(rc) ? WEXITSTATUS(rc) : -1, Slurp(dir_ / "out"), Slurp(dir_ / "err")};
  }

  std::filesystem::path dir_;
};

}  // namespace storebench::testing
