// The search's rate order and step jobs: bisection brackets a known answer
// within the precision, stops early when the top passes or the bottom fails,
// and a step sets the schedule of the loaded groups only.
#include "storebench/job/search.h"

#include <gtest/gtest.h>

#include "storebench/job/plan.h"

namespace storebench::job {
namespace {

// Runs a search against a pass/fail rule; returns the rates in the order tried.
std::vector<double> Drive(RateSearch& s, double answer) {
  std::vector<double> tried;
  while (auto rate = s.Next()) {
    tried.push_back(*rate);
    s.Record(*rate, *rate <= answer);
  }
  return tried;
}

TEST(RateSearch, BisectionBracketsTheAnswerWithinThePrecision) {
  RateSearch s = RateSearch::Bisect(5000, 50000, 0.02);
  auto tried = Drive(s, 41234);
  ASSERT_GE(tried.size(), 3u);
  EXPECT_EQ(tried[0], 50000);
  EXPECT_EQ(tried[1], 5000);
  EXPECT_EQ(s.outcome(), RateSearch::Outcome::kBracketed);
  EXPECT_LE(s.highest_pass(), 41234);
  EXPECT_GT(s.lowest_fail(), 41234);
  EXPECT_LE(s.lowest_fail() - s.highest_pass(), 0.02 * s.lowest_fail());
  EXPECT_LE(tried.size(), 10u);  // log2(45000 / 1000) + 2
}

TEST(RateSearch, StopsWhenTheTopPassesOrTheBottomFails) {
  RateSearch top = RateSearch::Bisect(5000, 50000, 0.02);
  EXPECT_EQ(Drive(top, 1e9), std::vector<double>{50000});
  EXPECT_EQ(top.outcome(), RateSearch::Outcome::kTopPasses);
  EXPECT_EQ(top.highest_pass(), 50000);
  RateSearch bottom = RateSearch::Bisect(5000, 50000, 0.02);
  EXPECT_EQ(Drive(bottom, 10), (std::vector<double>{50000, 5000}));
  EXPECT_EQ(bottom.outcome(), RateSearch::Outcome::kBottomFails);
  EXPECT_EQ(bottom.highest_pass(), 0);
  EXPECT_EQ(bottom.lowest_fail(), 5000);
}

TEST(RateSearch, SweepRunsEveryRateAndReportsThePassBelowTheFirstFailure) {
  RateSearch s = RateSearch::Sweep({1000, 2000, 3000, 4000});
  std::vector<double> tried;
  while (auto rate = s.Next()) {
    tried.push_back(*rate);
    s.Record(*rate, *rate != 3000);  // a noisy failure in the middle
  }
  EXPECT_EQ(tried, (std::vector<double>{1000, 2000, 3000, 4000}));
  EXPECT_EQ(s.outcome(), RateSearch::Outcome::kSwept);
  EXPECT_EQ(s.highest_pass(), 2000);
  EXPECT_EQ(s.lowest_fail(), 3000);
}

TEST(SearchJob, StepSetsTheLoadedClassesAndLeavesTheOthers) {
  Job j;
  j.backend = "null";
  j.classes = {"fast:threads=3", "slow:threads=1,schedule=closed", "bg:threads=1,schedule=constant:100"};
  auto load = CheckSearchJob(j);
  ASSERT_TRUE(load.ok()) << load.status().message();
  EXPECT_EQ(load->groups, (std::vector<std::string>{"fast", "slow"}));
  EXPECT_EQ(load->slots, 4);
  Job step = StepJob(j, *load, 8000, 300'000'000, 30'000'000, 2);
  EXPECT_EQ(step.classes[0], "fast:threads=3,schedule=constant:6000.000");
  EXPECT_EQ(step.classes[1], "slow:threads=1,schedule=constant:2000.000");
  EXPECT_EQ(step.classes[2], j.classes[2]);
  EXPECT_EQ(step.options["seed"], "2");
  EXPECT_TRUE(MakePlan(step).ok());

  Job plain;
  plain.options["duration"] = "10s";
  auto refused = CheckSearchJob(plain);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.status().message().find("--duration"), std::string::npos);
}

}  // namespace
}  // namespace storebench::job
