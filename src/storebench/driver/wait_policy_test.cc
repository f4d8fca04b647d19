#include "storebench/driver/wait_policy.h"

#include <gtest/gtest.h>
#include <pthread.h>
#include <sched.h>

#include <atomic>
#include <thread>

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
    // A yield that came back late (a busy CI machine) makes the next waits sleeps, still never early.
    if (w.late_yields() == 0) {
      EXPECT_EQ(w.sleeps(), 0u);
    }
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

// Beside a busy neighbour on its own CPU a yield comes back after the
// neighbour's slice: the waiter then sleeps through its next kSleepTurns
// windows (never returning before the deadline) and yields again after them.
// The neighbour is a thread pinned to the waiter's CPU; if no yield came back
// later than the window in 400 tries, there is nothing to fall back from.
TEST(WaitPolicy, AYieldThatCameBackLateMakesTheNextWindowsSleeps) {
  const Clock& clock = Clock::Default();
  cpu_set_t one;
  CPU_ZERO(&one);
  std::atomic<bool> stop{false};
  std::atomic<int> cpu{-1};
  uint64_t late = 0, sleeps_after = 0, sleeps_then = 0, early = 0;
  std::thread waiter([&] {
    const int c = sched_getcpu();
    CPU_SET(c, &one);
    if (pthread_setaffinity_np(pthread_self(), sizeof one, &one) != 0) return;
    cpu = c;
    std::thread hog([&] {
      (void)pthread_setaffinity_np(pthread_self(), sizeof one, &one);
      volatile uint64_t x = 0;
      while (!stop.load(std::memory_order_relaxed)) x = x + 1;
    });
    constexpr uint64_t kWindow = 20'000;
    Waiter w({kWindow, kWindow, false, true});
    for (int i = 0; i < 400 && w.late_yields() == 0; ++i) w.WaitTowards(clock, clock.NowNs() + kWindow / 2, 50'000'000);
    late = w.late_yields();
    if (late > 0) {
      const uint64_t before = w.sleeps();
      for (uint32_t i = 0; i < Waiter::kSleepTurns; ++i) {
        const uint64_t deadline = clock.NowNs() + kWindow / 2;
        w.WaitTowards(clock, deadline, 50'000'000);
        early += clock.NowNs() < deadline;
      }
      sleeps_after = w.sleeps() - before;
      // The turns are spent: the next window yields again (if that yield is late too, the turns start over).
      const uint64_t spent = w.sleeps();
      w.WaitTowards(clock, clock.NowNs() + kWindow / 2, 50'000'000);
      sleeps_then = w.sleeps() - spent;
    }
    stop = true;
    hog.join();
  });
  waiter.join();
  if (cpu < 0) GTEST_SKIP() << "could not pin a thread to one CPU";
  if (late == 0) GTEST_SKIP() << "no yield came back later than the window beside a busy thread on CPU " << cpu;
  EXPECT_EQ(sleeps_after, Waiter::kSleepTurns);
  EXPECT_EQ(early, 0u);
  EXPECT_EQ(sleeps_then, 0u) << "the waiter did not go back to yielding";
}

}  // namespace
}  // namespace storebench::driver
