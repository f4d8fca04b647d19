#include "storebench/driver/interval_collector.h"

#include <gtest/gtest.h>

#include <memory>
#include <vector>

namespace storebench::driver::internal {
namespace {

constexpr uint64_t kS = 1'000'000'000;

// Workers with their recorders and progress, and the collector over them.
struct Fixture {
  explicit Fixture(std::vector<std::string> kinds = {"read", "write"}, size_t groups = 1) {
    layout.kinds = std::move(kinds);
    const size_t per_group = layout.kinds.size() / groups;
    for (size_t g = 0; g < groups; ++g) group_first_kind.push_back(static_cast<uint32_t>(g * per_group));
    timing.start_ns = 1 * kS;
    timing.measure_start_ns = 2 * kS;  // a second of warm-up
    timing.end_ns = 12 * kS;
    total = std::make_unique<measure::Sample>(layout);
  }
  void AddWorker(uint32_t group, bool shared_source) {
    recorders.push_back(std::make_unique<measure::ThreadRecorder>(layout));
    progress.push_back(std::make_unique<WorkerProgress>());
    workers.push_back({recorders.back().get(), progress.back().get(), group, shared_source});
  }
  IntervalCollector& Make(std::vector<uint32_t> closed_kinds = {}) {
    CollectorSetup setup;
    setup.layout = layout;
    setup.group_first_kind = group_first_kind;
    setup.closed_kinds = std::move(closed_kinds);
    setup.workers = workers;
    setup.sources = sources;
    setup.timing = &timing;
    collector = std::make_unique<IntervalCollector>(std::move(setup), total.get());
    return *collector;
  }

  measure::RecorderLayout layout;
  std::vector<uint32_t> group_first_kind;
  Timing timing;
  std::vector<std::unique_ptr<measure::ThreadRecorder>> recorders;
  std::vector<std::unique_ptr<WorkerProgress>> progress;
  std::vector<CollectedWorker> workers;
  std::vector<SourceRef> sources;
  std::unique_ptr<measure::Sample> total;
  std::unique_ptr<IntervalCollector> collector;
};

TEST(IntervalCollector, CountsRatesAndLengthOfEachInterval) {
  Fixture f;
  f.AddWorker(0, false);
  f.AddWorker(0, false);
  IntervalCollector& c = f.Make({0, 1});
  EXPECT_EQ(c.start_ns(), f.timing.measure_start_ns);
  f.recorders[0]->RecordClosed(0, 0, 2 * kS, 2 * kS + 1000, 4096);
  f.recorders[1]->RecordClosed(1, 1, 2 * kS, 2 * kS + 3000, 0);
  f.recorders[1]->RecordClosed(0, 0, 2 * kS, 2 * kS + 2000, 4096);
  IntervalStats a = c.Collect(4 * kS, nullptr, nullptr);
  EXPECT_DOUBLE_EQ(a.length_s, 2.0);
  EXPECT_DOUBLE_EQ(a.t_s, 2.0);
  EXPECT_EQ(a.ops, 3u);
  EXPECT_EQ(a.errors, 1u);
  EXPECT_EQ(a.bytes, 8192u);
  EXPECT_DOUBLE_EQ(a.ops_per_sec, 1.5);
  EXPECT_EQ(a.offered_ops_per_sec, 0);  // no arrival sources: a closed loop
  EXPECT_EQ(c.start_ns(), 4 * kS);
  // Closed kinds: the response time is the service time.
  EXPECT_EQ(a.response.max, a.service.max);
  EXPECT_GE(a.service.max, 3000u);
  ASSERT_EQ(a.kind_response_histograms.size(), 2u);
  ASSERT_EQ(a.group_ops.size(), 1u);
  EXPECT_EQ(a.group_ops[0], 3u);

  // The next interval holds only what was recorded since; the total holds both.
  f.recorders[0]->RecordClosed(0, 0, 4 * kS, 4 * kS + 500, 4096);
  IntervalStats b = c.Collect(5 * kS, nullptr, nullptr);
  EXPECT_DOUBLE_EQ(b.length_s, 1.0);
  EXPECT_DOUBLE_EQ(b.t_s, 3.0);
  EXPECT_EQ(b.ops, 1u);
  EXPECT_EQ(b.errors, 0u);
  EXPECT_EQ(f.total->ops(), 4u);
  EXPECT_EQ(f.total->errors(), 1u);
}

TEST(IntervalCollector, OpenLoopKindsKeepTheirResponseTime) {
  Fixture f({"op"});
  f.AddWorker(0, false);
  IntervalCollector& c = f.Make();
  // Intended at 2 s, started 1 ms late, served in 10 us.
  f.recorders[0]->Record(0, 0, 2 * kS, 2 * kS + 1'000'000, 2 * kS + 1'010'000, 0);
  IntervalStats st = c.Collect(3 * kS, nullptr, nullptr);
  EXPECT_GE(st.response.max, 1'010'000u * 99 / 100);
  EXPECT_LE(st.service.max, 10'000u * 101 / 100);
  EXPECT_GE(st.max_lag_ns, 1'000'000u * 99 / 100);  // the recorded start lag
}

TEST(IntervalCollector, OpsAreCountedByGroup) {
  Fixture f({"a/read", "a/write", "b/read", "b/write"}, 2);
  f.AddWorker(0, false);
  f.AddWorker(1, false);
  IntervalCollector& c = f.Make({0, 1, 2, 3});
  f.recorders[0]->RecordClosed(1, 0, 2 * kS, 2 * kS + 10, 0);
  f.recorders[1]->RecordClosed(2, 0, 2 * kS, 2 * kS + 10, 0);
  f.recorders[1]->RecordClosed(3, 1, 2 * kS, 2 * kS + 10, 0);
  IntervalStats st = c.Collect(3 * kS, nullptr, nullptr);
  EXPECT_EQ(st.group_ops, (std::vector<uint64_t>{1, 2}));
}

TEST(IntervalCollector, OfferedRateBacklogAndLagOfAnOwnSource) {
  Fixture f({"op"});
  f.AddWorker(0, false);
  ScheduleSpec spec;
  spec.kind = ScheduleSpec::Kind::kConstant;
  spec.rate = 1000;
  OwnArrivals source(MakeArrivals(spec, 0, 1, 1), 0);
  f.sources.push_back({&source, f.progress[0].get(), 0});
  // The worker's next arrival is due 1.5 s after the start of arrivals: half a
  // second behind at 3 s.
  f.progress[0]->next_intended_ns.store(f.timing.start_ns + 1'500'000'000);
  f.progress[0]->max_backlog.store(700);
  f.progress[0]->max_lag_ns.store(100);
  IntervalCollector& c = f.Make();
  IntervalStats st = c.Collect(3 * kS, nullptr, nullptr);
  EXPECT_DOUBLE_EQ(st.offered_ops_per_sec, 1000);
  EXPECT_EQ(st.lag_ns, 500'000'000u);
  EXPECT_DOUBLE_EQ(st.backlog, 500);
  EXPECT_DOUBLE_EQ(st.max_backlog, 700);      // what the worker saw exceeds the end-of-interval sample
  EXPECT_EQ(st.max_lag_ns, 500'000'000u);     // the sample exceeds what the worker saw
  // The worker's maxima are taken: the next interval starts from 0.
  EXPECT_EQ(f.progress[0]->max_backlog.load(), 0u);
  EXPECT_EQ(f.progress[0]->max_lag_ns.load(), 0u);
}

TEST(IntervalCollector, SeenBacklogIsTheLargestPerSharedSourceAndTheSumOfOwnOnes) {
  Fixture f({"a/op", "b/op"}, 2);
  f.AddWorker(0, true);
  f.AddWorker(0, true);
  f.AddWorker(1, false);
  f.AddWorker(1, false);
  f.progress[0]->max_backlog.store(3);
  f.progress[1]->max_backlog.store(5);
  f.progress[2]->max_backlog.store(2);
  f.progress[3]->max_backlog.store(4);
  IntervalCollector& c = f.Make();
  EXPECT_DOUBLE_EQ(c.Collect(3 * kS, nullptr, nullptr).max_backlog, 5 + 2 + 4);
}

TEST(IntervalCollector, PlatformFiguresAreAddedAtTheIntervalsEnd) {
  Fixture f({"op"});
  f.AddWorker(0, false);
  IntervalCollector& c = f.Make({0});
  f.recorders[0]->RecordClosed(0, 0, 2 * kS, 2 * kS + 10, 0);
  uint64_t seen_now = 0, total_ops_then = 99;
  IntervalStats st = c.Collect(3 * kS, nullptr, [&](uint64_t now, IntervalStats* s) {
    seen_now = now;
    total_ops_then = f.total->ops();
    s->runqueue_wait_ns = 42;
  });
  EXPECT_EQ(seen_now, 3 * kS);
  EXPECT_EQ(total_ops_then, 0u);  // before the interval joins the total
  EXPECT_EQ(st.runqueue_wait_ns, 42u);
  EXPECT_EQ(f.total->ops(), 1u);
}

TEST(FoldInto, CountsAddAndTheEndSampleIsTheLaters) {
  IntervalStats a, b;
  a.t_s = 1, a.length_s = 1, a.ops = 100, a.backlog = 7, a.max_backlog = 9, a.offered_ops_per_sec = 100;
  a.group_ops = {60, 40};
  b.t_s = 1.01, b.length_s = 0.01, b.ops = 3, b.backlog = 2, b.max_backlog = 4, b.offered_ops_per_sec = 200;
  b.group_ops = {1, 2};
  // The backend's figures: its counters add (RocksDB's stall time is per interval), its gauges are the later's.
  a.backend.Counter({"stall_micros"}, 500, measure::Unit::kCount);
  a.backend.Gauge({"l0_files"}, 9, measure::Unit::kCount);
  a.backend.Text({"only_a"}, "kept");
  b.backend.Counter({"stall_micros"}, 20, measure::Unit::kCount);
  b.backend.Gauge({"l0_files"}, 4, measure::Unit::kCount);
  b.backend.Counter({"only_b"}, 1);
  FoldInto(&a, b);
  EXPECT_EQ(a.backend.Find({"stall_micros"})->count, 520u);
  EXPECT_DOUBLE_EQ(a.backend.Find({"l0_files"})->value, 4);
  EXPECT_EQ(a.backend.Find({"only_a"})->text, "kept");
  EXPECT_EQ(a.backend.Find({"only_b"})->count, 1u);
  EXPECT_DOUBLE_EQ(a.t_s, 1.01);
  EXPECT_DOUBLE_EQ(a.length_s, 1.01);
  EXPECT_EQ(a.ops, 103u);
  EXPECT_DOUBLE_EQ(a.ops_per_sec, 103 / 1.01);
  EXPECT_DOUBLE_EQ(a.offered_ops_per_sec, (100 * 1 + 200 * 0.01) / 1.01);
  EXPECT_EQ(a.group_ops, (std::vector<uint64_t>{61, 42}));
  EXPECT_DOUBLE_EQ(a.backlog, 2);
  EXPECT_DOUBLE_EQ(a.max_backlog, 9);
}

}  // namespace
}  // namespace storebench::driver::internal
