#include "storebench/experiment/matrix_run.h"

#include <gtest/gtest.h>

#include <atomic>
#include <filesystem>

#include <unistd.h>

namespace storebench::experiment {
namespace {

namespace fs = std::filesystem;

// One variant per exit code, one run each; the children are shell commands
// that exit with that code (a run document is not written).
struct ShellGrid {
  std::vector<MatrixVariant> variants;
  GridOrder order;
  GridRunSettings settings;
  std::vector<std::string> started;

  explicit ShellGrid(std::vector<int> exit_codes) {
    for (size_t i = 0; i < exit_codes.size(); ++i) {
      MatrixVariant v;
      v.name = v.stem = "v" + std::to_string(i);
      v.settings = {{"exit", std::to_string(exit_codes[i])}};
      variants.push_back(v);
      order.runs.push_back({i, 1});
    }
    order.todo = order.runs;
    settings.out_dir = ::testing::TempDir();
    settings.command = [this](const MatrixVariant& v, const std::string& path) {
      started.push_back(path);
      return std::vector<std::string>{"/bin/sh", "-c", "exit " + v.settings[0].second};
    };
  }
};

TEST(MatrixRun, AFailedChildEndsTheGridAndIsNamedWithItsExitCode) {
  ShellGrid g({3, 0});
  std::atomic<bool> stop{false};
  std::vector<double> ended;
  GridWatch watch;
  watch.after = [&](const GridChild&, double seconds) { ended.push_back(seconds); };
  auto end = RunGridChildren(g.variants, g.order, g.settings, &stop, watch);
  ASSERT_TRUE(end.ok()) << end.status().ToString();
  EXPECT_FALSE(end->interrupted);
  EXPECT_EQ(end->failed_exit_code, 3);
  EXPECT_EQ(end->failed, "v0 #1");
  EXPECT_EQ(g.started.size(), 1u) << "the grid stops at the first failed run";
  EXPECT_EQ(g.started[0], (fs::path(::testing::TempDir()) / RunFileName(g.variants[0], 1)).string());
  EXPECT_EQ(ended.size(), 1u) << "the watcher hears of the child that ended";
}

TEST(MatrixRun, AStopBeforeAChildRunsNothingAndSaysInterrupted) {
  ShellGrid g({0, 0});
  std::atomic<bool> stop{true};
  auto end = RunGridChildren(g.variants, g.order, g.settings, &stop, {});
  ASSERT_TRUE(end.ok());
  EXPECT_TRUE(end->interrupted);
  EXPECT_TRUE(g.started.empty());
}

TEST(MatrixRun, ACacheResetThatFailsIsAnErrorBeforeTheChild) {
  ShellGrid g({0});
  g.settings.cache_reset = "exit 4";
  std::atomic<bool> stop{false};
  auto end = RunGridChildren(g.variants, g.order, g.settings, &stop, {});
  ASSERT_FALSE(end.ok());
  EXPECT_NE(end.status().message().find("--cache-reset: 'exit 4' exited with 4"), std::string::npos)
      << end.status().message();
  EXPECT_TRUE(g.started.empty());
}

TEST(MatrixRun, TheWatcherMaySetTheChildsStderrAndArguments) {
  ShellGrid g({0});
  std::atomic<bool> stop{false};
  int pipe_fds[2];
  ASSERT_EQ(::pipe(pipe_fds), 0);
  GridWatch watch;
  watch.before = [&](GridChild* child) {
    child->argv.back() = "echo watched >&2; exit 5";
    child->stderr_fd = pipe_fds[1];
  };
  auto end = RunGridChildren(g.variants, g.order, g.settings, &stop, watch);
  ::close(pipe_fds[1]);
  char buf[64] = {};
  const ssize_t n = ::read(pipe_fds[0], buf, sizeof buf - 1);
  ::close(pipe_fds[0]);
  ASSERT_TRUE(end.ok());
  EXPECT_EQ(end->failed_exit_code, 5) << "the changed command line ran";
  EXPECT_EQ(std::string(buf, n > 0 ? static_cast<size_t>(n) : 0), "watched\n") << "its stderr went to the watcher's fd";
}

}  // namespace
}  // namespace storebench::experiment
