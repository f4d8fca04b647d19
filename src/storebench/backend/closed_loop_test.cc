#include "storebench/backend/closed_loop.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <vector>

#include "storebench/measure/clock.h"
#include "storebench/measure/recorder.h"

namespace storebench::backend {
namespace {

// A loop over one recorder, as the driver makes it; ops are fed with chosen
// start and end instants so every record can be checked.
struct Fixture {
  explicit Fixture(uint64_t limit = 0, uint64_t max_errors = 0) {
    layout.kinds = {"read", "write"};
    layout.outcomes = {"ok", "error.io", "not_found"};
    recorder = std::make_unique<measure::ThreadRecorder>(layout);
    error_outcomes = {0, 1, 0};
    ClosedLoop::Args a;
    a.clock = &measure::Clock::Default();
    a.recorder = recorder.get();
    a.stop = &stop;
    a.halt = &halt;
    a.measure_start_ns = 1'000;
    a.ops_limit = limit;
    a.warmup_ops = &warmup;
    a.failed = &failed;
    a.max_errors = max_errors;
    a.error_outcomes = &error_outcomes;
    a.measure_started = [](void* self) { ++*static_cast<int*>(self); };
    a.measure_started_context = &measure_started_calls;
    loop = std::make_unique<ClosedLoop>(a);
  }

  // What the reporter would take now.
  measure::Sample Take() {
    measure::Sample s(layout);
    measure::ThreadRecorder* r = recorder.get();
    measure::Collect(std::span<measure::ThreadRecorder* const>(&r, 1), &s);
    return s;
  }

  measure::RecorderLayout layout;
  std::unique_ptr<measure::ThreadRecorder> recorder;
  std::vector<char> error_outcomes;
  std::atomic<bool> stop{false};
  std::atomic<bool> halt{false};
  std::atomic<uint64_t> warmup{0};
  std::atomic<uint64_t> failed{0};
  int measure_started_calls = 0;
  std::unique_ptr<ClosedLoop> loop;
};

TEST(ClosedLoop, EveryOpIsRecordedExactlyThroughTheStage) {
  Fixture f;
  const uint64_t n = 5 * ClosedLoop::kStageOps + 7;  // several full stages and a partial one
  uint64_t bytes = 0, lo = UINT64_MAX, hi = 0;
  uint64_t t = 10'000;
  for (uint64_t i = 0; i < n; ++i) {
    const uint64_t service = 100 + (i * 37) % 900;  // 100..999 ns, exact in the histogram
    f.loop->Done(0, 0, 4096 + i, t, t + service);
    bytes += 4096 + i;
    lo = std::min(lo, service);
    hi = std::max(hi, service);
    t += service + 10;
  }
  EXPECT_EQ(f.loop->counted(), n);
  measure::Sample before = f.Take();
  // Full stages went to the recorder as they filled; the last one is still staged.
  EXPECT_EQ(before.ops(), n - 7);
  f.loop->Flush();
  f.loop->Flush();  // nothing twice
  measure::Sample after = f.Take();
  before.Merge(after);
  EXPECT_EQ(before.ops(), n);
  EXPECT_EQ(before.bytes(), bytes);
  const measure::Histogram& h = before.kinds()[0].service;
  EXPECT_EQ(h.count(), n);
  EXPECT_EQ(h.min(), lo);
  EXPECT_EQ(h.max(), hi);
  EXPECT_EQ(before.kinds()[0].outcomes[0], n);
  EXPECT_EQ(before.kinds()[1].service.count(), 0u);
}

TEST(ClosedLoop, AStageIsHandedOverWithinItsSpan) {
  Fixture f;
  // Slow ops: each one ends more than the stage's span after the first staged
  // one ended, so no op waits in the stage for more than the next op.
  uint64_t t = 10'000;
  for (int i = 0; i < 3; ++i) {
    f.loop->Done(0, 0, 1, t, t + ClosedLoop::kStageSpanNs);
    t += ClosedLoop::kStageSpanNs;
  }
  EXPECT_EQ(f.Take().ops(), 2u);  // the third is staged
  // Fast ops after a pause: staged together until the span has passed.
  t += 50 * ClosedLoop::kStageSpanNs;
  f.loop->Done(0, 0, 1, t, t + 1'000);  // hands over the third, stages this one
  EXPECT_EQ(f.Take().ops(), 1u);
  for (int i = 0; i < 10; ++i) f.loop->Done(0, 0, 1, t + 2'000 + i * 1'000, t + 2'500 + i * 1'000);
  EXPECT_EQ(f.Take().ops(), 0u);
  f.loop->Done(0, 0, 1, t + ClosedLoop::kStageSpanNs, t + ClosedLoop::kStageSpanNs + 1'000);
  EXPECT_EQ(f.Take().ops(), 11u);
}

TEST(ClosedLoop, FailuresAndOtherKindsAreRecordedInOrderAndCounted) {
  Fixture f(/*limit=*/0, /*max_errors=*/2);
  uint64_t t = 10'000;
  f.loop->Done(0, 0, 8, t, t + 100);
  f.loop->Done(0, 2, 0, t + 200, t + 300);  // not_found: an outcome, not an error
  f.loop->Done(1, 0, 16, t + 400, t + 600);  // another kind
  f.loop->Done(0, 1, 0, t + 700, t + 900);  // error.io
  EXPECT_FALSE(f.halt.load());
  f.loop->Done(0, 0, 8, t + 1'000, t + 1'100);
  f.loop->Done(0, 1, 0, t + 1'200, t + 1'400);  // the second error: halts the run
  EXPECT_TRUE(f.halt.load());
  EXPECT_EQ(f.failed.load(), 2u);
  EXPECT_EQ(f.loop->Start(), 0u);  // halted: the loop ends and hands over what is staged
  measure::Sample s = f.Take();
  EXPECT_EQ(s.ops(), 6u);
  EXPECT_EQ(s.errors(), 2u);
  EXPECT_EQ(s.bytes(), 32u);
  EXPECT_EQ(s.kinds()[0].outcomes[0], 2u);
  EXPECT_EQ(s.kinds()[0].outcomes[1], 2u);
  EXPECT_EQ(s.kinds()[0].outcomes[2], 1u);
  EXPECT_EQ(s.kinds()[1].outcomes[0], 1u);
  EXPECT_EQ(s.kinds()[1].service.max(), 200u);
}

TEST(ClosedLoop, WarmUpOpsAreCountedAndLeftOut) {
  Fixture f;
  f.loop->Done(0, 0, 8, 500, 900);  // started before measure_start_ns = 1000
  f.loop->Done(0, 0, 8, 999, 1'500);
  f.loop->Done(0, 0, 8, 1'000, 1'100);
  f.loop->Flush();
  EXPECT_EQ(f.warmup.load(), 2u);
  EXPECT_EQ(f.loop->counted(), 1u);
  EXPECT_EQ(f.Take().ops(), 1u);
}

TEST(ClosedLoop, StartEndsAtTheLimitOrAStopAndHandsOverTheStage) {
  Fixture f(/*limit=*/100);
  uint64_t ops = 0;
  for (uint64_t start; (start = f.loop->Start()) != 0;) {
    f.loop->Done(0, 0, 1, start, f.loop->Now());
    ++ops;
  }
  EXPECT_EQ(ops, 100u);
  EXPECT_EQ(f.measure_started_calls, 1);  // once, before the first measured op
  EXPECT_TRUE(f.loop->measuring());
  EXPECT_EQ(f.Take().ops(), 100u);

  Fixture g;
  g.stop.store(true);
  EXPECT_EQ(g.loop->Start(), 0u);
  EXPECT_EQ(g.measure_started_calls, 0);
}

}  // namespace
}  // namespace storebench::backend
