#include "storebench/driver/wait_policy.h"

#include <gtest/gtest.h>

namespace storebench::driver {
namespace {

using measure::Clock;

TEST(WaitPolicy, AdaptiveStaysAwakeForTheMeasuredTailAndYieldsWithoutAFreeCpu) {
  const WaitPolicy free_cpu = WaitPolicyFor(WaitMode::kAdaptive, 700'000, true);
  EXPECT_EQ(free_cpu.floor_ns, 700'000u);
  EXPECT_TRUE(free_cpu.adapt);
  EXPECT_FALSE(free_cpu.yield);
  const WaitPolicy busy = WaitPolicyFor(WaitMode::kAdaptive, 700'000, false);
  EXPECT_TRUE(busy.yield);
  // A tail too small to trust or too large to be a wake-up is clamped.
  EXPECT_EQ(WaitPolicyFor(WaitMode::kAdaptive, 0, true).floor_ns, 20'000u);
  EXPECT_EQ(WaitPolicyFor(WaitMode::kAdaptive, 50'000'000, true).floor_ns, 2'000'000u);
  EXPECT_EQ(WaitPolicyFor(WaitMode::kSleep, 700'000, false).floor_ns, 0u);
  EXPECT_EQ(WaitPolicyFor(WaitMode::kSpin, 700'000, false).floor_ns, 60'000u);
  // Real-time: the window stays at the measured tail (widening it feeds the RT throttle).
  const WaitPolicy rt = WaitPolicyFor(WaitMode::kAdaptive, 60'000, true, true);
  EXPECT_EQ(rt.floor_ns, 60'000u);
  EXPECT_EQ(rt.cap_ns, 60'000u);
  EXPECT_FALSE(rt.adapt);
  EXPECT_EQ(WaitPolicyFor(WaitMode::kSleep, 60'000, true, true).floor_ns, 0u);
}

// Awake, a waiter returns at the deadline, never before it, yielding or not.
TEST(WaitPolicy, AnAwakeWaitEndsAtTheDeadline) {
  const Clock& clock = Clock::Default();
  for (bool yield : {false, true}) {
    Waiter w({1'000'000, 1'000'000, false, yield});
    for (int i = 0; i < 20; ++i) {
      const uint64_t deadline = clock.NowNs() + 50'000;
      w.WaitTowards(clock, deadline, 50'000'000);
      EXPECT_GE(clock.NowNs(), deadline);
    }
    EXPECT_EQ(w.sleeps(), 0u);
  }
}

// A sleep that wakes later than the window widens it to that lateness (a
// nanosleep always overshoots a 1 ns window), never past the cap; a sleep
// never aims past the deadline minus the window.
TEST(WaitPolicy, ALateWakeUpWidensTheWindowUpToTheCap) {
  const Clock& clock = Clock::Default();
  Waiter w({1, 300'000, true, false});
  const uint64_t deadline = clock.NowNs() + 5'000'000;
  w.WaitTowards(clock, deadline, 1'000'000);
  EXPECT_EQ(w.sleeps(), 1u);
  EXPECT_EQ(w.late_sleeps(), 1u);
  EXPECT_GT(w.window_ns(), 1u);
  EXPECT_LE(w.window_ns(), 300'000u);
  EXPECT_EQ(w.max_window_ns(), w.window_ns());
  // A fixed policy never moves.
  Waiter fixed({60'000, 60'000, false, false});
  fixed.WaitTowards(clock, clock.NowNs() + 2'000'000, 1'000'000);
  EXPECT_EQ(fixed.window_ns(), 60'000u);
}

}  // namespace
}  // namespace storebench::driver
