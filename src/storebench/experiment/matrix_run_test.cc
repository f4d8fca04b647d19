#include "storebench/experiment/matrix_run.h"

#include <gtest/gtest.h>

#include <atomic>
#include <filesystem>

namespace storebench::experiment {
namespace {

namespace fs = std::filesystem;

// Two variants, one run each; the children are shell commands that exit with
// the code the test gives the variant (a run document is not written).
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
  ASSERT_EQ(ended.size(), 1u);
  EXPECT_GE(ended[0], 0);
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
  GridWatch watch;
  watch.before = [](GridChild* child) { child->argv.back() = "exit 5"; };
  auto end = RunGridChildren(g.variants, g.order, g.settings, &stop, watch);
  ASSERT_TRUE(end.ok());
  EXPECT_EQ(end->failed_exit_code, 5) << "the changed command line ran";
}

}  // namespace
}  // namespace storebench::experiment
