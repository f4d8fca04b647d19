#include "storebench/measure/recorder.h"

#include <gtest/gtest.h>

#include <atomic>
#include <thread>
#include <vector>

#include "storebench/measure/clock.h"

namespace storebench::measure {
namespace {

TEST(Recorder, IntervalCountsAddUpExactlyUnderConcurrentWriters) {
  RecorderLayout layout;
  layout.kinds = {"get", "put"};
  const int kWriters = 4;
  const uint64_t kOpsPerWriter = 200000;
  std::vector<std::unique_ptr<ThreadRecorder>> recorders;
  std::vector<ThreadRecorder*> ptrs;
  for (int i = 0; i < kWriters; ++i) {
    recorders.push_back(std::make_unique<ThreadRecorder>(layout));
    ptrs.push_back(recorders.back().get());
  }
  std::atomic<int> done{0};
  std::vector<std::thread> writers;
  for (int w = 0; w < kWriters; ++w) {
    writers.emplace_back([&, w] {
      for (uint64_t i = 0; i < kOpsPerWriter; ++i) {
        uint64_t start = 1000 + i;
        ptrs[w]->Record(static_cast<uint32_t>(i & 1), i % 10 == 0 ? 1 : 0, start - 5, start, start + 100 + (i % 50),
                        8);
      }
      done.fetch_add(1);
    });
  }
  Sample total(layout);
  uint64_t interval_sum = 0;
  int intervals = 0;
  // At least one collect, however fast the writers finish.
  do {
    Sample interval(layout);
    Collect(ptrs, &interval);
    interval_sum += interval.ops();
    total.Merge(interval);
    ++intervals;
  } while (done.load() < kWriters);
  for (auto& t : writers) t.join();
  Sample last(layout);
  Collect(ptrs, &last);
  interval_sum += last.ops();
  total.Merge(last);

  const uint64_t expected = kWriters * kOpsPerWriter;
  EXPECT_EQ(interval_sum, expected);
  EXPECT_EQ(total.ops(), expected);
  EXPECT_EQ(total.errors(), kWriters * (kOpsPerWriter / 10));
  EXPECT_EQ(total.bytes(), expected * 8);
  EXPECT_EQ(total.kinds()[0].service.count(), expected / 2);
  EXPECT_EQ(total.kinds()[1].response.count(), expected / 2);
  EXPECT_EQ(total.AllService().min(), 100u);
  EXPECT_EQ(total.AllResponse().max(), 154u);
  EXPECT_EQ(total.start_lag().max(), 5u);
  EXPECT_GT(intervals, 0);
}

TEST(Recorder, CollectOnIdleRecordersIsEmpty) {
  RecorderLayout layout;
  ThreadRecorder r(layout);
  ThreadRecorder* p = &r;
  Sample s(layout);
  Collect({&p, 1}, &s);
  EXPECT_EQ(s.ops(), 0u);
  r.Record(0, 0, 10, 10, 20, 0);
  Collect({&p, 1}, &s);
  EXPECT_EQ(s.ops(), 1u);
  Sample again(layout);
  Collect({&p, 1}, &again);
  EXPECT_EQ(again.ops(), 0u);
}

TEST(Clock, MonotonicAndAgreesWithClockGettime) {
  const Clock& c = Clock::Default();
  uint64_t a = c.NowNs();
  uint64_t m0 = MonotonicNs();
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  uint64_t b = c.NowNs();
  uint64_t m1 = MonotonicNs();
  EXPECT_GE(b, a);
  // Same epoch and rate as CLOCK_MONOTONIC: agreement to a few percent is a
  // correctness property of the calibration, not a timing threshold.
  double elapsed_clock = static_cast<double>(b - a);
  double elapsed_mono = static_cast<double>(m1 - m0);
  EXPECT_NEAR(elapsed_clock, elapsed_mono, 0.05 * elapsed_mono + 200000);
  EXPECT_NEAR(static_cast<double>(c.NowNs()), static_cast<double>(MonotonicNs()), 5e6);
  if (c.source() == Clock::Source::kTsc) {
    EXPECT_GT(c.ns_per_tick(), 0.0);
  }
}

TEST(Clock, ForcedMonotonicFallback) {
  Clock c(/*force_monotonic=*/true);
  EXPECT_EQ(c.source(), Clock::Source::kMonotonic);
  uint64_t a = c.NowNs(), b = c.NowNs();
  EXPECT_GE(b, a);
}

}  // namespace
}  // namespace storebench::measure
