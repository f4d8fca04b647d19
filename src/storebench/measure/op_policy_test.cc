#include "storebench/measure/op_policy.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <vector>

#include "storebench/measure/clock.h"
#include "storebench/measure/recorder.h"

namespace storebench::measure {
namespace {

// A loop over one recorder, as the driver makes it; ops are fed with chosen
// start and end instants so every record can be checked.
struct Fixture {
  explicit Fixture(uint64_t limit = 0, uint64_t max_errors = 0) {
    layout.kinds = {"read", "write"};
    layout.outcomes = {"ok", "error.io", "not_found"};
    recorder = std::make_unique<ThreadRecorder>(layout);
    error_outcomes = {0, 1, 0};
    const OpWindow window{.measure_start_ns = 1'000};
    OpPolicy::Args a;
    a.clock = &Clock::Default();
    a.recorder = recorder.get();
    a.window = &window;
    a.stop = &stop;
    a.halt = &halt;
    a.ops_limit = limit;
    a.warmup_ops = &warmup;
    a.failed = &failed;
    a.max_errors = max_errors;
    a.error_outcomes = &error_outcomes;
    loop = std::make_unique<OpPolicy>(
        a, [](void* self) { ++*static_cast<int*>(self); }, &measure_started_calls);
  }

  // What the reporter would take now.
  Sample Take() {
    Sample s(layout);
    ThreadRecorder* r = recorder.get();
    Collect(std::span<ThreadRecorder* const>(&r, 1), &s);
    return s;
  }

  RecorderLayout layout;
  std::unique_ptr<ThreadRecorder> recorder;
  std::vector<char> error_outcomes;
  std::atomic<bool> stop{false};
  std::atomic<bool> halt{false};
  std::atomic<uint64_t> warmup{0};
  std::atomic<uint64_t> failed{0};
  int measure_started_calls = 0;
  std::unique_ptr<OpPolicy> loop;
};

TEST(OpPolicy, EveryOpIsRecordedExactlyThroughTheStage) {
  Fixture f;
  const uint64_t n = 5 * OpPolicy::kStageOps + 7;  // several full stages and a partial one
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
  Sample before = f.Take();
  // Full stages went to the recorder as they filled; the last one is still staged.
  EXPECT_EQ(before.ops(), n - 7);
  f.loop->Flush();
  f.loop->Flush();  // nothing twice
  Sample after = f.Take();
  before.Merge(after);
  EXPECT_EQ(before.ops(), n);
  EXPECT_EQ(before.bytes(), bytes);
  const Histogram& h = before.kinds()[0].service;
  EXPECT_EQ(h.count(), n);
  EXPECT_EQ(h.min(), lo);
  EXPECT_EQ(h.max(), hi);
  EXPECT_EQ(before.kinds()[0].outcomes[0], n);
  EXPECT_EQ(before.kinds()[1].service.count(), 0u);
}

TEST(OpPolicy, AStageIsHandedOverWithinItsSpan) {
  Fixture f;
  // Slow ops: each one ends more than the stage's span after the first staged
  // one ended, so no op waits in the stage for more than the next op.
  uint64_t t = 10'000;
  for (int i = 0; i < 3; ++i) {
    f.loop->Done(0, 0, 1, t, t + OpPolicy::kStageSpanNs);
    t += OpPolicy::kStageSpanNs;
  }
  EXPECT_EQ(f.Take().ops(), 2u);  // the third is staged
  // Fast ops after a pause: staged together until the span has passed.
  t += 50 * OpPolicy::kStageSpanNs;
  f.loop->Done(0, 0, 1, t, t + 1'000);  // hands over the third, stages this one
  EXPECT_EQ(f.Take().ops(), 1u);
  for (int i = 0; i < 10; ++i) f.loop->Done(0, 0, 1, t + 2'000 + i * 1'000, t + 2'500 + i * 1'000);
  EXPECT_EQ(f.Take().ops(), 0u);
  f.loop->Done(0, 0, 1, t + OpPolicy::kStageSpanNs, t + OpPolicy::kStageSpanNs + 1'000);
  EXPECT_EQ(f.Take().ops(), 11u);
}

TEST(OpPolicy, FailuresAndOtherKindsAreRecordedInOrderAndCounted) {
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
  Sample s = f.Take();
  EXPECT_EQ(s.ops(), 6u);
  EXPECT_EQ(s.errors(), 2u);
  EXPECT_EQ(s.bytes(), 32u);
  EXPECT_EQ(s.kinds()[0].outcomes[0], 2u);
  EXPECT_EQ(s.kinds()[0].outcomes[1], 2u);
  EXPECT_EQ(s.kinds()[0].outcomes[2], 1u);
  EXPECT_EQ(s.kinds()[1].outcomes[0], 1u);
  EXPECT_EQ(s.kinds()[1].service.max(), 200u);
}

TEST(OpPolicy, WarmUpOpsAreCountedAndLeftOut) {
  Fixture f;
  f.loop->Done(0, 0, 8, 500, 900);  // started before measure_start_ns = 1000
  f.loop->Done(0, 0, 8, 999, 1'500);
  f.loop->Done(0, 0, 8, 1'000, 1'100);
  f.loop->Flush();
  EXPECT_EQ(f.warmup.load(), 2u);
  EXPECT_EQ(f.loop->counted(), 1u);
  EXPECT_EQ(f.Take().ops(), 1u);
}

TEST(OpPolicy, StartEndsAtTheLimitOrAStopAndHandsOverTheStage) {
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

TEST(OpPolicy, RecordsAtOnceOpenOrClosedWithTheSameWarmUpAndErrorLines) {
  Fixture f(/*limit=*/0, /*max_errors=*/1);
  // Open loop: an op due before the window is warm-up, however late it ran.
  f.loop->RecordOpen(0, 0, 8, 900, 1'200, 1'300);
  f.loop->RecordOpen(0, 0, 8, 1'000, 1'200, 1'300);
  // Closed loop: by its start.
  f.loop->RecordClosed(1, 0, 16, 999, 1'100);
  f.loop->RecordClosed(1, 2, 0, 1'100, 1'400);  // not_found: no error
  EXPECT_EQ(f.warmup.load(), 2u);
  EXPECT_EQ(f.loop->counted(), 2u);
  EXPECT_FALSE(f.halt.load());
  EXPECT_FALSE(f.loop->LimitReached(1'000));  // no ops limit
  f.loop->RecordClosed(1, 1, 0, 1'500, 1'600);  // error.io: the first error reaches max_errors 1
  EXPECT_TRUE(f.halt.load());
  EXPECT_TRUE(f.loop->Stopping());
  Sample s = f.Take();  // nothing staged: every op is there at once
  EXPECT_EQ(s.ops(), 3u);
  EXPECT_EQ(s.kinds()[0].response.count(), 1u);
  EXPECT_EQ(s.kinds()[0].response.max(), 300u);  // from the intended start
  EXPECT_EQ(s.kinds()[1].service.count(), 2u);
  EXPECT_EQ(s.errors(), 1u);
}

TEST(OpPolicy, WithoutAHaltFlagTheErrorLimitIsCountedAndTheStopFlagStillEnds) {
  std::atomic<bool> stop{false};
  std::atomic<uint64_t> warmup{0}, failed{0};
  RecorderLayout layout;
  layout.kinds = {"read"};
  layout.outcomes = {"ok", "error.io"};
  ThreadRecorder recorder(layout);
  const std::vector<char> errors = {0, 1};
  const OpWindow window{.measure_start_ns = 0, .end_ns = 5'000};
  OpPolicy p({.clock = &Clock::Default(), .recorder = &recorder, .window = &window, .stop = &stop, .ops_limit = 2,
              .warmup_ops = &warmup, .failed = &failed, .max_errors = 1, .error_outcomes = &errors});
  p.BeginMeasuringAt(0);
  EXPECT_TRUE(p.measuring());
  p.RecordClosed(0, 1, 0, 10, 20);
  EXPECT_EQ(failed.load(), 1u);  // counted; no flag to raise
  EXPECT_FALSE(p.Stopping());
  EXPECT_FALSE(p.Ended(4'999));
  EXPECT_TRUE(p.Ended(5'000));
  EXPECT_FALSE(p.LimitReached(0));
  EXPECT_TRUE(p.LimitReached(1));  // one done, one in flight: the limit of 2
  stop.store(true);
  EXPECT_TRUE(p.Stopping());
}

}  // namespace
}  // namespace storebench::measure
