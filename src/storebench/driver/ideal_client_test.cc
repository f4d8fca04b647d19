#include "storebench/driver/ideal_client.h"

#include "storebench/driver/platform_timeline.h"

#include <gtest/gtest.h>

#include <thread>

namespace storebench::driver {
namespace {

constexpr uint64_t kUs = 1'000;

measure::HistogramOptions Options() { return {}; }

// One server, arrivals every 10 µs, 15 µs of service each: the queue grows by
// 5 µs an op, so the ideal responses are 15, 20, 25 µs — worked out by hand.
TEST(IdealClient, OneServerQueuesOpsThatArriveWhileItIsBusy) {
  IdealClient c(Options(), 1, 0, 1'000'000'000);
  std::vector<OpRecord> batch = {{0, 0, 15 * kUs}, {10 * kUs, 15 * kUs, 30 * kUs}, {20 * kUs, 30 * kUs, 45 * kUs}};
  c.Add(&batch);
  c.Advance(UINT64_MAX);
  ASSERT_EQ(c.ideal().count(), 3u);
  EXPECT_EQ(c.ideal().min(), 15 * kUs);
  EXPECT_EQ(c.ideal().max(), 25 * kUs);
  EXPECT_NEAR(c.ideal().mean(), 20.0 * kUs, 1.0);
  // The observed responses of the same ops: end − intended.
  EXPECT_EQ(c.observed().min(), 15 * kUs);
  EXPECT_EQ(c.observed().max(), 25 * kUs);
}

// Two servers take the same ops without waiting; a client that started them
// late (observed) is told apart from the ideal.
TEST(IdealClient, TwoServersNeverQueueThemAndLateStartsAreTheClients) {
  IdealClient c(Options(), 2, 0, 1'000'000'000);
  std::vector<OpRecord> batch = {{0, 0, 15 * kUs}, {10 * kUs, 40 * kUs, 55 * kUs}, {20 * kUs, 60 * kUs, 75 * kUs}};
  c.Add(&batch);
  c.Advance(UINT64_MAX);
  EXPECT_EQ(c.ideal().min(), 15 * kUs);
  EXPECT_EQ(c.ideal().max(), 15 * kUs);
  EXPECT_EQ(c.observed().max(), 55 * kUs);
}

// Ops logged out of order and in several batches are replayed in order of
// intended start, and only below the watermark; warm-up ops (due before the
// measured window) shape the queue but are not reported.
TEST(IdealClient, ReplaysInArrivalOrderUpToTheWatermarkAndLeavesOutTheWarmup) {
  const uint64_t start = 100 * kUs;
  IdealClient c(Options(), 1, start, 1'000'000'000);
  // A warm-up op at 90 µs with 30 µs of service delays the op at 100 µs by 20 µs.
  std::vector<OpRecord> b1 = {{110 * kUs, 130 * kUs, 135 * kUs}, {90 * kUs, 90 * kUs, 120 * kUs}};
  c.Add(&b1);
  c.Advance(105 * kUs);  // the op at 100 µs may still be logged
  EXPECT_EQ(c.replayed(), 1u);
  EXPECT_EQ(c.ideal().count(), 0u);
  std::vector<OpRecord> b2 = {{100 * kUs, 120 * kUs, 125 * kUs}};
  c.Add(&b2);
  c.Advance(UINT64_MAX);
  EXPECT_EQ(c.replayed(), 3u);
  ASSERT_EQ(c.ideal().count(), 2u);
  // 100 µs: starts at 120 (server busy), ends 125 → 25 µs; 110 µs: starts 125, ends 130 → 20 µs.
  EXPECT_EQ(c.ideal().max(), 25 * kUs);
  EXPECT_EQ(c.ideal().min(), 20 * kUs);
}

// Arrival intervals: ops go to the interval of their intended start.
TEST(IdealClient, IntervalsAreByArrival) {
  IdealClient c(Options(), 1, 0, 1'000 * kUs);
  std::vector<OpRecord> batch = {{100 * kUs, 100 * kUs, 110 * kUs}, {2'500 * kUs, 2'500 * kUs, 2'530 * kUs}};
  c.Add(&batch);
  c.Advance(UINT64_MAX);
  ASSERT_EQ(c.intervals().size(), 3u);
  auto h0 = measure::Histogram::Decode(c.intervals()[0].ideal), h1 = measure::Histogram::Decode(c.intervals()[1].ideal),
       h2 = measure::Histogram::Decode(c.intervals()[2].ideal);
  ASSERT_TRUE(h0.ok() && h1.ok() && h2.ok());
  EXPECT_EQ(h0->count(), 1u);
  EXPECT_EQ(h1->count(), 0u);
  EXPECT_EQ(h2->count(), 1u);
  EXPECT_EQ(h2->max(), 30 * kUs);
}

// The log hands every record over across threads, and counts what a full ring dropped.
TEST(OpLog, HandsOverEveryRecordAndCountsDrops) {
  OpLog log(1024);
  constexpr uint64_t kOps = 200'000;
  std::vector<OpRecord> got;
  std::atomic<bool> done{false};
  std::thread writer([&] {
    for (uint64_t i = 0; i < kOps; ++i) log.Push({i, i, i + 1});
    done.store(true);
  });
  while (!done.load()) log.Drain(&got);
  writer.join();
  log.Drain(&got);
  EXPECT_EQ(got.size() + log.dropped(), kOps);
  for (size_t i = 1; i < got.size(); ++i) ASSERT_LT(got[i - 1].intended_ns, got[i].intended_ns);
  OpLog small(4);
  for (uint64_t i = 0; i < 10; ++i) small.Push({i, i, i});
  EXPECT_EQ(small.dropped(), 6u);
}

}  // namespace
}  // namespace storebench::driver

namespace storebench::driver {
namespace {

// One server, an arrival every 80 us, 100 us of measured service each, on a
// platform that ran at half its calibrated speed the whole time: the ideal
// client queues (100 > 80: op k waits 20·k us), the steady-platform one does
// not (50 < 80: every op takes 50 us). Worked out by hand.
TEST(IdealClient, TheSteadyReplayRemovesAKnownSlowdown) {
  constexpr uint64_t kOps = 50;
  PlatformTimeline half({0}, MeterCalibration{{1000, 1000, 0}, {}, 0}, 0);
  for (uint64_t t = 1; t <= 20; ++t) half.Add(0, MeterTick{t * 1'000'000, 0, 2000, 1000});
  IdealClient c(measure::HistogramOptions{}, 1, 0, 1'000'000'000, &half);
  std::vector<OpRecord> batch;
  uint64_t free_at = 0;
  for (uint64_t k = 0; k < kOps; ++k) {
    const uint64_t intended = k * 80 * kUs, start = std::max(intended, free_at);
    batch.push_back({intended, start, start + 100 * kUs, 0});
    free_at = start + 100 * kUs;
  }
  c.Add(&batch);
  c.Advance(UINT64_MAX);
  ASSERT_EQ(c.steady().count(), kOps);
  EXPECT_NEAR(static_cast<double>(c.steady().max()), 50.0 * kUs, 50.0);
  EXPECT_NEAR(static_cast<double>(c.steady().min()), 50.0 * kUs, 50.0);
  EXPECT_NEAR(static_cast<double>(c.ideal().max()), (100.0 + 20.0 * (kOps - 1)) * kUs, 1100.0);
  // Without a timeline the steady replay is the ideal one.
  IdealClient plain(measure::HistogramOptions{}, 1, 0, 1'000'000'000);
  std::vector<OpRecord> again = {{0, 0, 100 * kUs, 0}, {80 * kUs, 100 * kUs, 200 * kUs, 0}};
  plain.Add(&again);
  plain.Advance(UINT64_MAX);
  EXPECT_EQ(plain.steady().max(), plain.ideal().max());
}

// An op that ended after the meter's last tick waits for the meter (unless it is the last call).
TEST(IdealClient, TheSteadyReplayWaitsForTheMeterToCoverAnOp) {
  PlatformTimeline t({0}, MeterCalibration{{1000, 1000, 0}, {}, 0}, 0);
  t.Add(0, MeterTick{1'000'000, 0, 1000, 1000});
  IdealClient c(measure::HistogramOptions{}, 1, 0, 1'000'000'000, &t);
  std::vector<OpRecord> batch = {{100, 200, 900'000, 0}, {1'000, 950'000, 1'500'000, 0}};
  c.Add(&batch);
  c.Advance(2'000'000);
  EXPECT_EQ(c.replayed(), 1u);
  t.Add(0, MeterTick{2'000'000, 0, 1000, 1000});
  c.Advance(2'000'000);
  EXPECT_EQ(c.replayed(), 2u);
}

}  // namespace
}  // namespace storebench::driver

namespace storebench::driver {
namespace {

// One server, an arrival every 100 us, 20 us of work each; op 3 was preempted
// for 3 ms inside its service (3.02 ms measured). The ideal client replays the
// 3.02 ms and queues the next 30 ops behind it; the own-CPU client replays
// 20 us and queues nothing. Worked out by hand.
TEST(IdealClient, TheOwnCpuReplayLeavesOutTheWorkersWaitForItsCpu) {
  IdealClient c(measure::HistogramOptions{}, 1, 0, 1'000'000'000);
  std::vector<OpRecord> batch;
  uint64_t free_at = 0;
  for (uint64_t k = 0; k < 50; ++k) {
    const uint64_t intended = k * 100 * kUs, start = std::max(intended, free_at);
    const uint64_t preempted = k == 3 ? 3'000 * kUs : 0;
    batch.push_back({intended, start, start + 20 * kUs + preempted, 0, static_cast<uint32_t>(preempted)});
    free_at = start + 20 * kUs + preempted;
  }
  c.Add(&batch);
  c.Advance(UINT64_MAX);
  EXPECT_EQ(c.ideal().max(), 3'020 * kUs);
  EXPECT_EQ(c.own_cpu().max(), 20 * kUs);
  EXPECT_EQ(c.own_cpu().min(), 20 * kUs);
  // Without a meter, the steady replay leaves it out too.
  EXPECT_EQ(c.steady().max(), 20 * kUs);
  // A wait reported longer than the op (never: it is bounded where measured) leaves no service.
  IdealClient d(measure::HistogramOptions{}, 1, 0, 1'000'000'000);
  std::vector<OpRecord> odd = {{0, 0, 10 * kUs, 0, 50'000}};
  d.Add(&odd);
  d.Advance(UINT64_MAX);
  EXPECT_EQ(d.own_cpu().max(), 0u);
}

// One server, an op every 100 µs, 20 µs of service each. The worker, idle
// and waiting for the op due at 300 µs, was stopped by the platform until
// 2.3 ms (OpRecord::stopped_ns 2 ms): that op ran from 2.3 to 2.32 ms, and
// op k (due at k·100 µs, k = 4..28) queued behind it and started at
// 2.32 ms + (k − 4)·20 µs. The ideal client replays the service times only
// (20 µs each, no queue); the stops replay holds the op back 2 ms and so
// reproduces the run. Worked out by hand.
TEST(IdealClient, TheStopsReplayHoldsAnOpBackByThePlatformsStopBeforeIt) {
  IdealClient c(measure::HistogramOptions{}, 1, 0, 1'000'000'000);
  std::vector<OpRecord> batch;
  uint64_t free_at = 0;
  for (uint64_t k = 0; k < 50; ++k) {
    const uint64_t intended = k * 100 * kUs;
    const uint32_t stopped = k == 3 ? 2'000 * kUs : 0;
    const uint64_t start = std::max(intended + stopped, free_at);
    batch.push_back({intended, start, start + 20 * kUs, 0, 0, stopped});
    free_at = start + 20 * kUs;
  }
  c.Add(&batch);
  c.Advance(UINT64_MAX);
  EXPECT_EQ(c.ideal().max(), 20 * kUs) << "the ideal client replays service times only";
  EXPECT_EQ(c.with_stops().max(), 2'020 * kUs);
  EXPECT_EQ(c.with_stops().max(), c.observed().max()) << "the replay is what this run did";
  EXPECT_EQ(c.with_stops().min(), 20 * kUs);
  // The op due at 400 µs waited for the server until 2.32 ms: 1.94 ms of response.
  EXPECT_NEAR(static_cast<double>(c.with_stops().ValueAtPercentile(100.0 * 49 / 50)), 1'940.0 * kUs,
              1'940.0 * kUs / 1000) << "within the histogram's 3 significant digits";
  EXPECT_DOUBLE_EQ(c.with_stops().mean(), c.observed().mean());
  ASSERT_EQ(c.intervals().size(), 1u);
  EXPECT_EQ(c.intervals()[0].stopped_ns, 2'000 * kUs);
  // A stop while the server is busy anyway (the op could not have started) holds nothing back.
  IdealClient d(measure::HistogramOptions{}, 1, 0, 1'000'000'000);
  std::vector<OpRecord> busy = {{0, 0, 500 * kUs}, {100 * kUs, 500 * kUs, 520 * kUs, 0, 0, 300 * kUs}};
  d.Add(&busy);
  d.Advance(UINT64_MAX);
  EXPECT_EQ(d.with_stops().max(), d.ideal().max());
}

}  // namespace
}  // namespace storebench::driver
