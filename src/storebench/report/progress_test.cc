// The progress line's text and its display off a terminal (a pipe): what is
// drawn, when it is drawn is left to the caller's clock and never asserted.
#include "storebench/report/progress.h"

#include <fcntl.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <string>

namespace storebench::report {
namespace {

TEST(ProgressText, BarAndDurations) {
  EXPECT_EQ(ProgressBar(0, 12), "[..........]");
  EXPECT_EQ(ProgressBar(0.5, 12), "[#####.....]");
  EXPECT_EQ(ProgressBar(1.7, 12), "[##########]");
  EXPECT_EQ(FormatSeconds(0.25), "0.2s");
  EXPECT_EQ(FormatSeconds(12.34), "12.3s");
  EXPECT_EQ(FormatSeconds(245), "4m05s");
  EXPECT_EQ(FormatSeconds(7440), "2h04m");
}

TEST(ProgressText, RunLineShowsPhaseElapsedOfTotalAndOpenLoopFigures) {
  RunProgressText text;
  driver::ScheduleSpec constant;
  constant.kind = driver::ScheduleSpec::Kind::kConstant;
  constant.rate = 8000;
  text.StartPhase({"phase 2 open loop 8.0k/s,", 1, 10, 0, {constant}});
  driver::IntervalStats warm;
  warm.warmup = true;
  warm.t_s = -0.25;
  EXPECT_NE(text.Line(warm).find("phase 2 open loop 8.0k/s, warm-up [#######...]  75% 0.8s/1.0s 0.2s left"),
            std::string::npos)
      << text.Line(warm);
  driver::IntervalStats t;
  t.t_s = 4;
  t.ops = 7900;
  t.ops_per_sec = 7900;
  t.backlog = 12;
  const std::string line = text.Line(t);
  EXPECT_NE(line.find("measuring [####......]  40% 4.0s/10.0s 6.0s left | 7900 ops/s of 8000 backlog 12"),
            std::string::npos)
      << line;
}

// Before the first tick the line names the phase that begins, with its total.
TEST(ProgressText, StartingNamesThePhaseThatBeginsWithItsTotal) {
  RunProgressText text;
  text.StartPhase({"phase 1 closed loop,", 1, 8, 0, {}});
  EXPECT_EQ(text.Starting(), "phase 1 closed loop, warm-up [..........]   0% 0.0s/1.0s | starting");
  text.StartPhase({"phase 2 open loop 8.0k/s,", 0, 8, 0, {}});
  EXPECT_EQ(text.Starting(), "phase 2 open loop 8.0k/s, measuring [..........]   0% 0.0s/8.0s 8.0s left | starting");
  text.StartPhase({"closed loop,", 0, 0, 1000, {}});
  EXPECT_EQ(text.Starting(), "closed loop, measuring [..........]   0% 0/1000 ops 0.0s | starting");
}

TEST(ProgressText, OpsBoundRunCountsOpsAcrossTicks) {
  RunProgressText text;
  text.StartPhase({"closed loop,", 0, 0, 1000, {}});
  driver::IntervalStats t;
  t.t_s = 1;
  t.ops = 250;
  (void)text.Line(t);
  t.t_s = 2;
  const std::string line = text.Line(t);
  EXPECT_NE(line.find("[#####.....]  50% 500/1000 ops 2.0s 2.0s left"), std::string::npos) << line;
}

TEST(ProgressText, PrepareLineWithAndWithoutATotal) {
  PrepareProgressText text;
  const std::string a = text.Line({"writing", 512, 1024, "metrics"});
  EXPECT_NE(a.find("prepare: writing [#####.....]  50% 512/1024 metrics"), std::string::npos) << a;
  const std::string b = text.Line({"compacting", 0, 0, "keys"});
  EXPECT_NE(b.find("prepare: compacting"), std::string::npos) << b;
  EXPECT_EQ(b.find('%'), std::string::npos) << b;
}

class Pipe : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_EQ(pipe2(fds_, O_NONBLOCK), 0); }
  void TearDown() override { close(fds_[0]), close(fds_[1]); }
  std::string Drain() {
    std::string s;
    char buf[1024];
    for (ssize_t n; (n = read(fds_[0], buf, sizeof buf)) > 0;) s.append(buf, static_cast<size_t>(n));
    return s;
  }
  int fds_[2] = {-1, -1};
};

TEST_F(Pipe, AutoAndNeverDrawNothingOffATerminal) {
  for (job::ProgressMode m : {job::ProgressMode::kAuto, job::ProgressMode::kNever}) {
    ProgressDisplay d(m, false, {fds_[1], 0, 0});
    EXPECT_FALSE(d.on());
    d.Update("x", true);
  }
  EXPECT_EQ(Drain(), "");
}

TEST_F(Pipe, AlwaysPrintsPlainLinesAtMostOncePerPeriodUnlessForced) {
  {
    ProgressDisplay d(job::ProgressMode::kAlways, false, {fds_[1], 0, 1e9});
    EXPECT_TRUE(d.on());
    EXPECT_FALSE(d.terminal());
    d.Update("first");
    d.Update("skipped: within the period");
    d.Update("forced", true);
  }
  EXPECT_EQ(Drain(), "first\nforced\n");
}

TEST_F(Pipe, QuietTurnsEvenAlwaysOff) {
  ProgressDisplay d(job::ProgressMode::kAlways, true, {fds_[1], 0, 0});
  d.Update("x", true);
  EXPECT_EQ(Drain(), "");
}

}  // namespace
}  // namespace storebench::report
