#include "storebench/experiment/search.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <string>
#include <vector>

namespace storebench::experiment {
namespace {

namespace fs = std::filesystem;

class ExperimentSearch : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("sb-experiment-search-" + std::to_string(::getpid()) + "-" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  // A search of the null backend (no service time) with 50 ms steps.
  static SearchRequest NullSearch() {
    SearchRequest request;
    request.job.backend = "null";
    auto load = job::CheckSearchJob(request.job);
    EXPECT_TRUE(load.ok()) << load.status().message();
    if (load.ok()) request.load = *load;
    SearchSettings& s = request.settings;
    s.step_ns = 50'000'000;
    s.repeat = 1;
    s.confirm = 0;
    s.confidence = 0.95;
    s.precision = 0.1;
    auto slo = report::ParseSlo("p99<=1s");
    EXPECT_TRUE(slo.ok());
    if (slo.ok()) s.slos.push_back(*slo);
    return request;
  }

  fs::path dir_;
};

TEST_F(ExperimentSearch, ADirectoryHoldsTheStepsOfOneSearchAtATime) {
  const std::vector<std::string> args = {"--backend", "null"};
  {
    auto lock = OpenSearchDir(dir_.string(), args, 1'000'000'000);
    ASSERT_TRUE(lock.ok()) << lock.status().message();
    EXPECT_TRUE(fs::exists(dir_ / "manifest.json"));
    auto second = OpenSearchDir(dir_.string(), args, 1'000'000'000);
    EXPECT_FALSE(second.ok()) << "two searches in one directory would overwrite each other's steps";
  }
  auto resumed = OpenSearchDir(dir_.string(), args, 1'000'000'000);
  ASSERT_TRUE(resumed.ok()) << "the same search resumes: " << resumed.status().message();
  *resumed = DirLock();
  for (const auto& [other_args, step_ns] :
       {std::pair{std::vector<std::string>{"--backend", "null", "--threads", "2"}, 1'000'000'000ull},
        std::pair{args, 2'000'000'000ull}}) {
    auto other = OpenSearchDir(dir_.string(), other_args, step_ns);
    ASSERT_FALSE(other.ok());
    EXPECT_NE(other.status().message().find("holds a search of other settings"), std::string::npos)
        << other.status().message();
  }
}

TEST_F(ExperimentSearch, AFailureBeforeTheFirstOpenLoopStepLeavesNothingToWrite) {
  std::atomic<bool> stop{true};
  std::vector<std::string> printed;
  report::SearchResult r;
  Status s = RunSearch(NullSearch(), &stop, [&](const std::string& line) { printed.push_back(line); }, &r);
  EXPECT_EQ(s.code(), Status::Code::kInterrupted) << s.message();
  EXPECT_FALSE(r.interrupted);
  EXPECT_FALSE(r.capacity.has_value());
  EXPECT_TRUE(printed.empty());
}

TEST_F(ExperimentSearch, AStopDuringTheStepsKeepsWhatWasMeasured) {
  std::atomic<bool> stop{false};
  std::vector<std::string> printed;
  report::SearchResult r;
  SearchRequest request = NullSearch();
  request.out_dir = dir_.string();
  fs::create_directories(dir_);
  // SIGINT as the capacity line is printed: the first open-loop step is interrupted.
  Status s = RunSearch(request, &stop,
                       [&](const std::string& line) {
                         printed.push_back(line);
                         if (line.rfind("[capacity]", 0) == 0) stop = true;
                       },
                       &r);
  EXPECT_EQ(s.code(), Status::Code::kInterrupted) << s.message();
  EXPECT_TRUE(r.interrupted);
  ASSERT_TRUE(r.capacity.has_value());
  EXPECT_GT(r.capacity->verdict.achieved, 0);
  EXPECT_GT(r.top, 0);
  EXPECT_TRUE(r.steps.empty());
  EXPECT_EQ(r.slos.size(), 1u);
  EXPECT_TRUE(fs::exists(dir_ / "closed-1.json")) << "the capacity run is stored for a resume";
}

}  // namespace
}  // namespace storebench::experiment
