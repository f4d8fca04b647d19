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
// Runs `body` on a thread pinned to one CPU beside a thread that spins on the
// same CPU until `body` returns; the CPU, or -1 when pinning failed.
template <typename Body>
int BesideAHogOnOneCpu(Body&& body) {
  int cpu = -1;
  std::thread waiter([&] {
    cpu_set_t one;
    CPU_ZERO(&one);
    const int c = sched_getcpu();
    CPU_SET(c, &one);
    if (pthread_setaffinity_np(pthread_self(), sizeof one, &one) != 0) return;
    cpu = c;
    std::atomic<bool> stop{false};
    std::thread hog([&] {
      (void)pthread_setaffinity_np(pthread_self(), sizeof one, &one);
      volatile uint64_t x = 0;
      while (!stop.load(std::memory_order_relaxed)) x = x + 1;
    });
    body();
    stop = true;
    hog.join();
  });
  waiter.join();
  return cpu;
}

TEST(WaitPolicy, AYieldThatCameBackLateMakesTheNextWindowsSleeps) {
  const Clock& clock = Clock::Default();
  uint64_t late = 0, sleeps_after = 0, sleeps_then = 0, early = 0;
  const int cpu = BesideAHogOnOneCpu([&] {
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
  });
  if (cpu < 0) GTEST_SKIP() << "could not pin a thread to one CPU";
  if (late == 0) GTEST_SKIP() << "no yield came back later than the window beside a busy thread on CPU " << cpu;
  // Each turn sleeps unless this thread reached it after its deadline, 10 µs
  // away (a busy machine, or a sanitizer's slower code): then the turn is
  // spent without a sleep. Measured under ASan beside two busy loops: 255 of 256.
  EXPECT_LE(sleeps_after, Waiter::kSleepTurns);
  EXPECT_GE(sleeps_after, Waiter::kSleepTurns - Waiter::kSleepTurns / 8);
  EXPECT_EQ(early, 0u);
  EXPECT_EQ(sleeps_then, 0u) << "the waiter did not go back to yielding";
}

// An awake wait that ends at its deadline reports its last gap: the last
// clock read before the deadline and the first at or after it. A wait that
// slept, or whose deadline had passed, reports none.
TEST(WaitPolicy, AnAwakeWaitReportsItsLastGap) {
  const Clock& clock = Clock::Default();
  for (bool yield : {false, true}) {
    Waiter w({1'000'000, 1'000'000, false, yield});
    // A busy machine may hold this thread past the deadline before the wait
    // starts (then there is no gap): every gap reported must straddle its
    // deadline, and some wait must report one.
    int gaps = 0;
    for (int i = 0; i < 50; ++i) {
      const uint64_t deadline = clock.NowNs() + 50'000;
      w.WaitTowards(clock, deadline, 50'000'000);
      const Waiter::Gap g = w.last_gap();
      if (g.after_ns == 0) continue;
      ++gaps;
      EXPECT_LT(g.before_ns, deadline) << "yield " << yield;
      EXPECT_GE(g.after_ns, deadline) << "yield " << yield;
    }
    EXPECT_GT(gaps, 0) << "yield " << yield;
    w.WaitTowards(clock, clock.NowNs() - 1, 50'000'000);
    EXPECT_EQ(w.last_gap().after_ns, 0u) << "a deadline already passed: no wait, no gap";
  }
  Waiter sleeper({0, 0, false, false});
  sleeper.WaitTowards(clock, clock.NowNs() + 10'000'000, 50'000'000);  // 10 ms: reached in time even on a busy machine
  EXPECT_EQ(sleeper.sleeps(), 1u);
  EXPECT_EQ(sleeper.last_gap().after_ns, 0u) << "a sleep's lateness is not a gap";
}

// With confirm_late_yields, a late yielding stretch only marks itself: the
// caller, which can read its run-queue wait, decides whether the next windows
// sleep (another thread held the CPU) or not (the platform stopped it).
// Late yields come from a busy thread on the waiter's CPU, as above.
TEST(WaitPolicy, ALateYieldWaitsForTheCallersVerdict) {
  const Clock& clock = Clock::Default();
  bool pending = false;
  uint64_t counted_before = 0, sleeps_unconfirmed = 0, sleeps_confirmed = 0;
  const int cpu = BesideAHogOnOneCpu([&] {
    constexpr uint64_t kWindow = 20'000;
    Waiter w({kWindow, kWindow, false, true}, /*confirm_late_yields=*/true);
    for (int i = 0; i < 400 && !pending; ++i) {
      w.WaitTowards(clock, clock.NowNs() + kWindow / 2, 50'000'000);
      pending = w.late_yield_pending();
    }
    if (!pending) return;
    counted_before = w.late_yields();
    // Four turns each: a turn this thread reaches after its deadline (10 µs
    // away, on a busy machine) neither yields nor sleeps.
    const uint64_t s0 = w.sleeps();
    for (int i = 0; i < 4; ++i) w.WaitTowards(clock, clock.NowNs() + kWindow / 2, 50'000'000);
    sleeps_unconfirmed = w.sleeps() - s0;
    w.YieldWasLate();
    const uint64_t s1 = w.sleeps();
    for (int i = 0; i < 4; ++i) w.WaitTowards(clock, clock.NowNs() + kWindow / 2, 50'000'000);
    sleeps_confirmed = w.sleeps() - s1;
  });
  if (cpu < 0) GTEST_SKIP() << "could not pin a thread to one CPU";
  if (!pending) GTEST_SKIP() << "no yield came back later than the window beside a busy thread on CPU " << cpu;
  EXPECT_EQ(counted_before, 0u) << "not counted until confirmed";
  EXPECT_EQ(sleeps_unconfirmed, 0u) << "an unconfirmed late yield makes no sleeps";
  EXPECT_GE(sleeps_confirmed, 1u) << "a confirmed one does";
}

}  // namespace
}  // namespace storebench::driver
