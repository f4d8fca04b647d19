// A short fuzz of the command line: random sequences of `run` and `prepare`
// flags drawn from the option tables (job::CoreOptionTable() and every
// backend's), with values drawn from each option's choices, default and a list
// of hostile texts. Every process must end by itself with exit 0, 1, 2 or 130
// — never a signal (SIGSEGV, SIGABRT from an uncaught exception), never a
// hang. A process still running after its budget gets SIGTERM (a stop request:
// 130 is then its answer) and, if that is not honoured, SIGKILL, which fails.
// The seed and count are fixed, so a failure reproduces; the command is printed.
#include <signal.h>
#include <sys/wait.h>
#include <fcntl.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "storebench/backend/backend.h"
#include "storebench/testing/binary_test_fixture.h"
#include "storebench/job/job.h"

namespace storebench::cli {
namespace {

namespace fs = std::filesystem;
using storebench::testing::StorebenchBinary;
using storebench::testing::WaitExit;

constexpr int kCases = 60;
constexpr auto kBudget = std::chrono::seconds(3);  // per process, before the stop request
constexpr auto kGrace = std::chrono::seconds(5);   // after it, before SIGKILL (a hang)

// Relative paths only: a prepare writes where --data points (the cwd is a temporary directory).
const std::vector<std::string> kHostile = {"", "0", "-1", "1e30", "-1e30", "nan", "inf", "abc", "1s", "0s", "100y",
                                           "18446744073709551616", "1e-30", "4096", "65536", "1,2", ":", "a:b=c",
                                           "constant:", "trace:/", "/dev/null", "%s%n", "9999999999"};

std::string PickValue(const OptionSpec& spec, std::mt19937_64& rng) {
  std::vector<std::string> pool = kHostile;
  for (const std::string& c : spec.choices) pool.push_back(c);
  if (!spec.default_value.empty()) pool.push_back(spec.default_value);
  return pool[rng() % pool.size()];
}

struct Ended {
  int code = -1;    // exit code, or -1
  int signal = 0;   // the signal that ended it, if any
  bool killed = false;
};

Ended RunBounded(const std::vector<std::string>& args, const fs::path& dir) {
  pid_t pid = fork();
  if (pid == 0) {
    if (chdir(dir.c_str()) != 0) _exit(127);
    int null = ::open("/dev/null", O_RDWR);
    dup2(null, 0), dup2(null, 1), dup2(null, 2);
    std::vector<char*> argv{const_cast<char*>("storebench")};
    for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    execv(StorebenchBinary().c_str(), argv.data());
    _exit(127);
  }
  int status = 0;
  Ended e;
  if (!WaitExit(pid, kBudget, &status)) {
    kill(pid, SIGTERM);
    if (!WaitExit(pid, kGrace, &status)) {
      kill(pid, SIGKILL);
      waitpid(pid, &status, 0);
      e.killed = true;
    }
  }
  if (WIFEXITED(status)) e.code = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) e.signal = WTERMSIG(status);
  return e;
}

TEST(CliFuzz, EveryProcessEndsWithAnExitCodeOfTheContract) {
  std::vector<const OptionSpec*> core;
  for (const OptionSpec& s : job::CoreOptionTable().Specs()) core.push_back(&s);
  const auto& backends = backend::Backends();
  const fs::path dir = fs::path(::testing::TempDir()) / ("sb_cli_fuzz_" + std::to_string(getpid()));
  fs::create_directories(dir);
  std::mt19937_64 rng(16);
  for (int i = 0; i < kCases; ++i) {
    const bool prepare = rng() % 5 == 0;
    const backend::BackendInfo& b = backends[rng() % backends.size()];
    // Mostly the null backend, which needs no data set and so reaches the run.
    const std::string backend_name = rng() % 3 == 0 ? b.name : std::string("null");
    std::vector<std::string> args{prepare ? "prepare" : "run", "--backend", backend_name};
    if (!prepare) args.insert(args.end(), {"--duration", "200ms", "--quiet"});
    const int n = 1 + static_cast<int>(rng() % 4);
    for (int k = 0; k < n; ++k) {
      const OptionSpec* spec = nullptr;
      if (!prepare && rng() % 2 == 0) {
        spec = core[rng() % core.size()];
      } else {
        const auto& own = backends[rng() % backends.size()].options;
        if (own.empty()) continue;
        spec = &own[rng() % own.size()];
      }
      args.push_back("--" + spec->name);
      if (!spec->is_flag()) args.push_back(PickValue(*spec, rng));
    }
    std::string shown = "storebench";
    for (const auto& a : args) shown += " '" + a + "'";
    const Ended e = RunBounded(args, dir);
    EXPECT_FALSE(e.killed) << "hung (no exit " << kGrace.count() << " s after SIGTERM): " << shown;
    EXPECT_EQ(e.signal, 0) << "ended by signal " << e.signal << ": " << shown;
    EXPECT_TRUE(e.code == 0 || e.code == 1 || e.code == 2 || e.code == 130) << "exit " << e.code << ": " << shown;
  }
  fs::remove_all(dir);
}

}  // namespace
}  // namespace storebench::cli
