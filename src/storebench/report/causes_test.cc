#include "storebench/report/causes.h"

#include <gtest/gtest.h>

namespace storebench::report {
namespace {

TEST(Causes, TheIdealClientsTailIsQueueingAndTheRestIsSplitByCpuHeld) {
  CauseWeights w;
  w.engine = 300, w.client = 100, w.platform = 0;
  const TailCauses t = Attribute(1000, 600, w);
  EXPECT_DOUBLE_EQ(t.queueing, 0.6);
  EXPECT_DOUBLE_EQ(t.engine, 0.3);
  EXPECT_DOUBLE_EQ(t.client, 0.1);
  EXPECT_DOUBLE_EQ(t.platform, 0);
  EXPECT_STREQ(t.largest(), "queueing");
  EXPECT_DOUBLE_EQ(t.queueing + t.engine + t.client + t.platform, 1);
}

TEST(Causes, AnIdealTailAboveTheObservedOneIsAllQueueing) {
  const TailCauses t = Attribute(500, 900, CauseWeights{1, 1, 1});
  EXPECT_DOUBLE_EQ(t.queueing, 1);
  EXPECT_DOUBLE_EQ(t.engine + t.client + t.platform, 0);
}

TEST(Causes, LateStartsWithNoCompetingCpuAreThePlatforms) {
  const TailCauses t = Attribute(1000, 100, CauseWeights{});
  EXPECT_DOUBLE_EQ(t.platform, 0.9);
  EXPECT_STREQ(t.largest(), "platform");
}

TEST(Causes, WorkersBeyondTheCpusCountAsTheClientsOwnCompetition) {
  driver::CpuHeld cpu;
  cpu.workers_ns = 800, cpu.client_ns = 10, cpu.engine_ns = 50, cpu.others_ns = 20, cpu.steal_ns = 5;
  const CauseWeights fewer = WeightsOf(cpu, 1, 2);
  EXPECT_DOUBLE_EQ(fewer.client, 10);
  EXPECT_DOUBLE_EQ(fewer.engine, 50);
  EXPECT_DOUBLE_EQ(fewer.platform, 25);
  const CauseWeights more = WeightsOf(cpu, 8, 2);  // 6 of 8 workers' CPU competed with the others
  EXPECT_DOUBLE_EQ(more.client, 10 + 800.0 * 6 / 8);
}

// The workers' wait for a CPU while backlogged stretched the service times the
// ideal client replays: that share of its queue goes with the CPU's holders.
TEST(Causes, TheWorkersWaitForACpuMovesThatShareOfTheQueueToTheHolders) {
  driver::CpuHeld cpu;
  EXPECT_DOUBLE_EQ(CpuWaitShare(cpu), 0) << "no backlog, no wait counted";
  cpu.backlogged_ns = 1000, cpu.backlogged_runqueue_ns = 250;
  EXPECT_DOUBLE_EQ(CpuWaitShare(cpu), 0.25);
  cpu.backlogged_runqueue_ns = 5000;  // sampled a moment apart: never more than all of it
  EXPECT_DOUBLE_EQ(CpuWaitShare(cpu), 1);
  // Waits measured inside ops are out of the replays already: f is the rest.
  cpu.backlogged_runqueue_ns = 250, cpu.preempted_in_ops_ns = 100;
  EXPECT_DOUBLE_EQ(CpuWaitShare(cpu), 0.15);
  cpu.preempted_in_ops_ns = 400;  // an op's wait outside the backlogged time: nothing left, never below 0
  EXPECT_DOUBLE_EQ(CpuWaitShare(cpu), 0);
  cpu.preempted_in_ops_ns = 0;
  const TailCauses t = Attribute(1000, 800, CauseWeights{3, 1, 0}, 0.25);
  EXPECT_DOUBLE_EQ(t.cpu_wait, 0.25);
  EXPECT_DOUBLE_EQ(t.queueing, 0.75 * 0.8);
  EXPECT_DOUBLE_EQ(t.engine, 0.4 * 3 / 4);
  EXPECT_DOUBLE_EQ(t.client, 0.4 * 1 / 4);
  EXPECT_DOUBLE_EQ(t.queueing + t.engine + t.client + t.platform, 1);
  EXPECT_STREQ(t.largest(), "queueing");
}

}  // namespace
}  // namespace storebench::report

namespace storebench::report {
namespace {

// observed 1000, ideal 800, steady 200: the platform stretched the service
// times the ideal client replays by 600 of the 1000 (its speed share); of the
// remaining 200 beyond the ideal client, engine 150 and platform 50 by CPU held.
TEST(Causes, TheSteadyClientMovesTheStretchedServiceToThePlatform) {
  const TailCauses t = Attribute(1000, 800, CauseWeights{3, 0, 1}, 0, 200);
  EXPECT_DOUBLE_EQ(t.queueing, 0.2);
  EXPECT_DOUBLE_EQ(t.platform_speed, 0.6);
  EXPECT_DOUBLE_EQ(t.engine, 0.15);
  EXPECT_DOUBLE_EQ(t.platform, 0.65);
  EXPECT_DOUBLE_EQ(t.client, 0);
  EXPECT_STREQ(t.largest(), "platform");
  EXPECT_DOUBLE_EQ(t.queueing + t.engine + t.client + t.platform, 1);
  // A steady tail above the ideal one (never: the steady replay does no more
  // work) is taken as the ideal one.
  const TailCauses same = Attribute(1000, 800, CauseWeights{3, 0, 1}, 0, 900);
  EXPECT_DOUBLE_EQ(same.platform_speed, 0);
  EXPECT_DOUBLE_EQ(same.queueing, 0.8);
  // With the run-queue share f, both measured parts shrink by (1 - f).
  const TailCauses f = Attribute(1000, 800, CauseWeights{0, 0, 1}, 0.5, 200);
  EXPECT_DOUBLE_EQ(f.queueing, 0.1);
  EXPECT_DOUBLE_EQ(f.platform_speed, 0.3);
  EXPECT_DOUBLE_EQ(f.queueing + f.engine + f.client + f.platform, 1);
}

}  // namespace
}  // namespace storebench::report

namespace storebench::report {
namespace {

// The run's max is one op: its causes are those of the interval it arrived
// in. Over the run the workers waited for a CPU 10% of their backlogged time
// and held most of it; in the max's interval a hog held the CPU and they
// waited half of it, so the platform, not queueing, made that op's tail.
TEST(Causes, TheMaxIsAttributedWithinTheIntervalItArrivedIn) {
  driver::RunResult r;
  r.ideal.emplace(measure::HistogramOptions{});
  r.ideal_observed.emplace(measure::HistogramOptions{});
  for (uint64_t v : {100'000u, 4'000'000u}) (void)r.ideal->Record(v);
  for (uint64_t v : {150'000u, 5'000'000u}) (void)r.ideal_observed->Record(v);
  driver::IntervalStats quiet, hogged;
  quiet.has_ideal = hogged.has_ideal = true;
  quiet.arrival_observed.max = 150'000, quiet.ideal.max = 100'000;
  quiet.cpu.engine_ns = 1'000'000'000;
  hogged.arrival_observed.max = r.ideal_observed->max(), hogged.ideal.max = r.ideal->max();
  hogged.cpu.others_ns = 300'000'000, hogged.cpu.backlogged_ns = 200'000'000;
  hogged.cpu.backlogged_runqueue_ns = 100'000'000;
  r.intervals = {quiet, hogged};
  const RunCauses c = CausesOf(r);
  const TailCauses in_interval = IntervalCauses(r, hogged).max;
  ASSERT_TRUE(c.max.known);
  EXPECT_DOUBLE_EQ(c.max.cpu_wait, 0.5);
  EXPECT_DOUBLE_EQ(c.max.platform, in_interval.platform);
  EXPECT_DOUBLE_EQ(c.max.queueing, 0.5 * r.ideal->max() / static_cast<double>(r.ideal_observed->max()));
  EXPECT_STREQ(c.max.largest(), "platform");
  EXPECT_DOUBLE_EQ(c.max.queueing + c.max.engine + c.max.client + c.max.platform, 1);
  // Without intervals, the run's own window.
  r.intervals.clear();
  EXPECT_DOUBLE_EQ(CausesOf(r).max.cpu_wait, 0);
}

}  // namespace
}  // namespace storebench::report

namespace storebench::report {
namespace {

// observed 1000, ideal 800, own-CPU 500, steady 300: the worker's waits for
// its CPU inside ops made 300 of the ideal's 800 and go with the rest to the
// CPU's holders (here all the engine's threads); the platform's slowdown made
// 200; queueing 300. Worked out by hand.
TEST(Causes, TheWorkersWaitsForTheirCpuInsideOpsGoToTheCpusHolders) {
  const TailCauses t = Attribute(1000, 800, CauseWeights{1, 0, 0}, 0, 300, 500);
  EXPECT_DOUBLE_EQ(t.queueing, 0.3);
  EXPECT_DOUBLE_EQ(t.platform_speed, 0.2);
  EXPECT_DOUBLE_EQ(t.platform, 0.2);
  EXPECT_DOUBLE_EQ(t.engine, 0.5);
  EXPECT_EQ(t.own_cpu_ns, 500u);
  EXPECT_DOUBLE_EQ(t.queueing + t.engine + t.client + t.platform, 1);
  // The replays never exceed one another; taken in order, an own-CPU tail above
  // the ideal one is the ideal one, and a steady tail above it is it.
  const TailCauses same = Attribute(1000, 800, CauseWeights{1, 0, 0}, 0, 900, 950);
  EXPECT_DOUBLE_EQ(same.queueing, 0.8);
  EXPECT_DOUBLE_EQ(same.platform_speed, 0);
}

// observed 1000, ideal 400, the ideal client with the platform's stops 700:
// the stops the workers measured between ops held starts back by 300 of the
// 1000, the platform's; the 300 left (observed − with_stops) is split by CPU
// held (here all the client's); queueing 400. Worked out by hand.
TEST(Causes, TheStopsBetweenOpsGoToThePlatform) {
  const TailCauses t = Attribute(1000, 400, CauseWeights{0, 1, 0}, 0, std::nullopt, std::nullopt, 700);
  EXPECT_DOUBLE_EQ(t.queueing, 0.4);
  EXPECT_DOUBLE_EQ(t.platform_stops, 0.3);
  EXPECT_DOUBLE_EQ(t.platform, 0.3);
  EXPECT_DOUBLE_EQ(t.client, 0.3);
  EXPECT_EQ(t.with_stops_ns, 700u);
  EXPECT_DOUBLE_EQ(t.queueing + t.engine + t.client + t.platform, 1);
  // A stops replay above the observed tail is the observed tail: nothing is left to split.
  const TailCauses all = Attribute(1000, 400, CauseWeights{0, 1, 0}, 0, std::nullopt, std::nullopt, 5000);
  EXPECT_DOUBLE_EQ(all.platform_stops, 0.6);
  EXPECT_DOUBLE_EQ(all.client, 0);
  // Without the replay (no run-queue reads), the former definition.
  const TailCauses none = Attribute(1000, 400, CauseWeights{0, 1, 0});
  EXPECT_DOUBLE_EQ(none.platform_stops, 0);
  EXPECT_DOUBLE_EQ(none.client, 0.6);
}

}  // namespace
}  // namespace storebench::report
