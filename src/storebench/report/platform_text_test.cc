#include "storebench/report/platform_text.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "storebench/measure/sample.h"
#include "storebench/report/result.h"

namespace storebench::report {
namespace {

driver::RunResult RunWithSlowShare(double slow_share) {
  driver::RunResult r;
  r.total = std::make_unique<measure::Sample>(r.layout);
  r.elapsed_s = 10;
  const uint64_t span = 20'000'000'000;  // 10 s on 2 CPUs
  r.metrics.Counter({"platform", "meter", "cpu_ns"}, 20'000'000, measure::Unit::kNanoseconds);
  r.metrics.Gauge({"platform", "meter", "cpus"}, 2, measure::Unit::kCount, measure::MergeRule::kSum);
  r.metrics.Counter({"platform", "speed", "span_ns"}, span, measure::Unit::kNanoseconds);
  r.metrics.Counter({"platform", "speed", "work_ns"}, span * 9 / 10, measure::Unit::kNanoseconds);
  r.metrics.Counter({"platform", "speed", "slow_ns"}, static_cast<uint64_t>(slow_share * span),
                    measure::Unit::kNanoseconds);
  r.metrics.Counter({"platform", "speed", "stopped_ns"}, 400'000'000, measure::Unit::kNanoseconds);
  r.metrics.Gauge({"platform", "speed", "min"}, 0.62, measure::Unit::kRatio, measure::MergeRule::kMin);
  return r;
}

// More than 5% of the time below 0.8: the summary's first line after its
// title says so, and the speed line gives the figures; at 5% or less, neither flag.
TEST(PlatformText, AnUnsteadyRunSaysSoFirst) {
  const driver::RunResult unsteady = RunWithSlowShare(0.08);
  const std::string s = HumanSummary(unsteady, "t");
  const size_t first_line = s.find('\n') + 1;
  EXPECT_EQ(s.compare(first_line, 22, "  UNSTEADY PLATFORM: t"), 0) << s;
  EXPECT_NE(s.find("8.0% of the measured time"), std::string::npos) << s;
  EXPECT_NE(s.find("  speed     platform speed mean 0.90, slowest unit 0.62"), std::string::npos) << s;
  EXPECT_NE(s.find("stopped 200.00 ms"), std::string::npos) << s;  // 400 ms over 2 CPUs
  EXPECT_NE(s.find("meter cost 0.20% of a CPU"), std::string::npos) << s;
  EXPECT_TRUE(RunPlatformOf(unsteady).unsteady());
  const driver::RunResult steady = RunWithSlowShare(0.05);
  EXPECT_FALSE(RunPlatformOf(steady).unsteady());
  EXPECT_EQ(HumanSummary(steady, "t").find("UNSTEADY"), std::string::npos);
}

// A source the kernel lacks is said to be unknown, in the summary, and null in an interval's JSON.
TEST(PlatformText, MissingKernelSourcesAreUnknownNotZero) {
  const driver::RunResult r = RunWithSlowShare(0);
  const std::string line = SpeedLine(r);
  EXPECT_NE(line.find("cgroup throttling unknown"), std::string::npos) << line;
  EXPECT_NE(line.find("PSI unknown"), std::string::npos) << line;
  driver::PlatformFigures f;
  const nlohmann::json j = PlatformIntervalJson(f);
  EXPECT_TRUE(j.at("cgroup").is_null());
  EXPECT_TRUE(j.at("psi").at("cpu").is_null());
  EXPECT_TRUE(j.at("speed").is_null());
  f.kernel.cpu = driver::Pressure{5, 0};
  EXPECT_EQ(PlatformIntervalJson(f).at("psi").at("cpu").at("some_ns"), 5u);
  // The CSV's columns match its header's.
  driver::IntervalStats st;
  const std::string header = PlatformCsvHeader(), values = PlatformCsvValues(st);
  EXPECT_EQ(std::count(header.begin(), header.end(), ','), std::count(values.begin(), values.end(), ','));
}

// Phase 2 at 900 ops/s of a 1,000 ops/s capacity: 0.90 at full speed, 1.125
// in an interval where the platform ran at 0.8.
TEST(PlatformText, TheEffectiveLoadFollowsThePlatformsSpeed) {
  driver::RunResult r = RunWithSlowShare(0);
  r.capacity_ops_per_sec = 1000;
  for (double speed : {1.0, 0.8, 1.0}) {
    driver::IntervalStats st;
    st.t_s = static_cast<double>(r.intervals.size() + 1);
    st.offered_ops_per_sec = 900;
    st.platform.ticks = 1;
    st.platform.span_ns = 1000;
    st.platform.work_ns = static_cast<uint64_t>(1000 * speed);
    r.intervals.push_back(st);
  }
  EXPECT_DOUBLE_EQ(EffectiveLoad(r, r.intervals[0]), 0.9);
  EXPECT_DOUBLE_EQ(EffectiveLoad(r, r.intervals[1]), 0.9 / 0.8);
  EXPECT_EQ(EffectiveLoadLine(r), "  load      effective load median 0.90, highest 1.12 at 2 s (offered ÷ (phase 1's "
                                  "capacity 1000 ops/s × the platform's speed in the interval))\n");
  r.capacity_ops_per_sec = 0;  // not phase 2
  EXPECT_EQ(EffectiveLoadLine(r), "");
}

}  // namespace
}  // namespace storebench::report

namespace storebench::report {
namespace {

// Phase 2 on one server, 1 s, 800 ops of 1 ms offered 1,000 ops/s: busy
// 0.80. Phase 1 served in 0.8 ms: 1.25× slower, so the offered rate was
// 1.00 of what it could serve at phase 2's speed.
TEST(PlatformText, TheEngineLineComparesPhaseTwoWithPhaseOne) {
  driver::RunResult r = RunWithSlowShare(0);
  measure::RecorderLayout layout;
  layout.kinds = {"get"};
  r.layout = layout;
  r.total = std::make_unique<measure::Sample>(layout);
  for (int i = 0; i < 800; ++i) r.total->Record(0, 0, 0, 0, 1'000'000, 0);
  r.elapsed_s = 1;
  r.offered_ops = 1000;
  r.ideal_servers = 1;
  EXPECT_EQ(EngineBusyLine(r), "") << "not phase 2";
  r.capacity_ops_per_sec = 1250;
  r.capacity_service_mean_ns = 800'000;
  const EngineBusy e = EngineBusyOf(r);
  EXPECT_DOUBLE_EQ(e.busy, 0.8);
  EXPECT_DOUBLE_EQ(e.slowdown(), 1.25);
  EXPECT_DOUBLE_EQ(e.offered_load, 1.0);
  EXPECT_EQ(EngineBusyLine(r),
            "  engine    busy 0.80 of phase 2's time on 1 server; service mean 1.00 ms, 1.25× phase 1's 800.00 us: the "
            "engine served 25% slower than when its capacity was measured, so the offered rate was 1.00 of what it "
            "could serve at that speed\n");
  r.capacity_service_mean_ns = 990'000;  // within 5%: no sentence about the load
  EXPECT_EQ(EngineBusyLine(r),
            "  engine    busy 0.80 of phase 2's time on 1 server; service mean 1.00 ms, 1.01× phase 1's 990.00 us\n");
}

// The note names the largest cause of the p99; when that share is less than
// half of the tail it says it is only the largest. Observed 1000 µs against
// the ideal client's 400: queueing 40 %, and the 60 % added split by CPU
// held, 10:10:2 among the engine, the client and the platform (27 %, 27 %,
// 5 %; worked out by hand).
TEST(PlatformText, ALargestShareBelowHalfIsSaidToBeOnlyTheLargest) {
  auto run = [](uint64_t observed_us) {
    driver::RunResult r = RunWithSlowShare(0);
    r.open_loop = true;
    measure::Histogram ideal(r.layout.histogram), observed(r.layout.histogram);
    for (int i = 0; i < 1000; ++i) {
      ideal.Record(400'000);
      observed.Record(observed_us * 1000);
    }
    r.ideal = ideal;
    r.ideal_observed = observed;
    // 10 s each against the 2 s the meter saw the platform take (its weight).
    r.metrics.Counter({"platform", "cpu_held", "engine_ns"}, 10'000'000'000, measure::Unit::kNanoseconds);
    r.metrics.Counter({"platform", "cpu_held", "client_ns"}, 10'000'000'000, measure::Unit::kNanoseconds);
    r.metrics.Counter({"platform", "cpu_held", "capacity_ns"}, 20'000'000'000, measure::Unit::kNanoseconds);
    return HumanSummary(r, "t");
  };
  const std::string low = run(1000);
  EXPECT_NE(low.find("the response tail is queueing behind the engine, the largest of four shares: 40% of p99"),
            std::string::npos)
      << low;
  const std::string high = run(500);  // queueing 80 %
  EXPECT_NE(high.find("the response tail is queueing behind the engine: 80% of p99"), std::string::npos) << high;
}

}  // namespace
}  // namespace storebench::report
