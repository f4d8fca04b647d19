// A GoogleTest fixture for end-to-end tests of the storebench binary: a fresh
// temporary directory per test, and Run("args") returning the exit code,
// stdout and stderr. The binary comes from $STOREBENCH_BINARY (set by CTest).
//
// testing/ holds test-only code: every end-to-end test, of any layer, takes
// its fixture from here (it links nothing, so including it from a test below
// cli/ adds no dependency on the layers above).
#pragma once

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "storebench/testing/process_wait.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <optional>
#include <sstream>
#include <string>

namespace storebench::testing {

inline std::string StorebenchBinary() {
  const char* b = std::getenv("STOREBENCH_BINARY");
  return b ? b : "storebench";
}

inline std::string Slurp(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

struct Outcome {
  int code = -1;
  std::string out, err;
};

inline size_t LineCount(const std::string& s) { return static_cast<size_t>(std::count(s.begin(), s.end(), '\n')); }

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

  // Runs `storebench ARGS` through the shell with the test's directory as the
  // working directory, so relative paths in ARGS land in it.
  Outcome RunHere(const std::string& args) {
    return RunShell("cd " + dir_.string() + " && " + StorebenchBinary() + " " + args);
  }

  // Runs a shell command line (e.g. storebench under `timeout`); stdout and stderr are captured.
  Outcome RunShell(const std::string& command_line) {
    std::string cmd = command_line + " > " + (dir_ / "out").string() + " 2> " + (dir_ / "err").string();
    int rc = std::system(cmd.c_str());
    return Outcome{WIFEXITED(rc) ? WEXITSTATUS(rc) : -1, Slurp(dir_ / "out"), Slurp(dir_ / "err")};
  }

  // Runs the binary with `args` (no shell); sends `sig` once `ready()` holds
  // (checked every 5 ms, and the child's end noticed at once; given up after
  // 60 s), then waits. The code is the exit code, or 128 + the signal
  // that ended it. Waiting for a state rather than a time keeps the test
  // meaningful on a slow machine or under a sanitizer.
  Outcome RunSignalledWhen(const std::vector<std::string>& args, const std::function<bool()>& ready, int sig) {
    return RunDoing(args, [&](pid_t pid) {
      int status = 0;
      if (WaitUntil(pid, ready, std::chrono::seconds(60), &status) == WaitEnd::kExited) return status;
      kill(pid, sig);
      waitpid(pid, &status, 0);
      return status;
    });
  }
  // Runs the binary with `args` (no shell) and `during(pid)`, which must reap
  // it and return its wait status (to stop, continue or signal it meanwhile).
  Outcome RunDoing(const std::vector<std::string>& args, const std::function<int(pid_t)>& during) {
    const std::filesystem::path out = dir_ / "out", err = dir_ / "err";
    pid_t pid = fork();
    if (pid == 0) {
      int o = ::open(out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      int e = ::open(err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      dup2(o, 1), dup2(e, 2);
      std::vector<char*> argv{const_cast<char*>("storebench")};
      for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
      argv.push_back(nullptr);
      execv(StorebenchBinary().c_str(), argv.data());
      _exit(127);
    }
    const int status = during(pid);
    return Outcome{WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status), Slurp(out), Slurp(err)};
  }
  // The same, signalled `delay` after the process watches `sig` (blocks it
  // for its signal thread): before that, no program can catch it, and under a
  // sanitizer on a busy machine loading alone can take longer than any delay.
  Outcome RunSignalled(const std::vector<std::string>& args, std::chrono::milliseconds delay, int sig) {
    return RunDoing(args, [&](pid_t pid) {
      int status = 0;
      if (WaitUntil(pid, [&] { return SignalBlocked(pid, sig); }, std::chrono::seconds(60), &status) ==
              WaitEnd::kExited ||
          WaitExit(pid, delay, &status)) {
        return status;
      }
      kill(pid, sig);
      waitpid(pid, &status, 0);
      return status;
    });
  }
  // Whether `pid`'s main thread blocks `sig` (the SigBlk mask of /proc/PID/status).
  static bool SignalBlocked(pid_t pid, int sig) {
    std::ifstream in("/proc/" + std::to_string(pid) + "/status");
    std::string line;
    while (std::getline(in, line)) {
      if (line.rfind("SigBlk:", 0) != 0) continue;
      const unsigned long long mask = std::stoull(line.substr(7), nullptr, 16);
      return (mask >> (sig - 1)) & 1ull;
    }
    return false;
  }

  std::filesystem::path dir_;
};

}  // namespace storebench::testing
