#include "storebench/live/exposition.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <map>
#include <random>
#include <sstream>
#include <string>
#include <vector>

namespace storebench::live {
namespace {

// One sample line of an exposition page: name, labels (as written), value.
struct SampleLine {
  std::string name, labels;
  double value = 0;
};

// Parses the page as Prometheus' text format 0.0.4 reads it, checking on the
// way that each family's HELP and TYPE come once, before its samples.
std::vector<SampleLine> Parse(const std::string& page) {
  std::vector<SampleLine> out;
  std::map<std::string, int> typed;
  std::istringstream in(page);
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("# TYPE ", 0) == 0) {
      const std::string family = line.substr(7, line.find(' ', 7) - 7);
      EXPECT_EQ(typed[family]++, 0) << "TYPE twice: " << family;
      continue;
    }
    if (line.rfind("#", 0) == 0) continue;
    SampleLine s;
    const size_t brace = line.find('{'), space = line.rfind(' ');
    EXPECT_NE(space, std::string::npos) << line;
    s.name = line.substr(0, std::min(brace, space));
    if (brace != std::string::npos) s.labels = line.substr(brace + 1, line.rfind('}') - brace - 1);
    s.value = std::stod(line.substr(space + 1));
    std::string family = s.name;
    for (const char* suffix : {"_bucket", "_sum", "_count"})
      if (family.size() > std::strlen(suffix) && family.ends_with(suffix) && !typed.count(family))
        family = family.substr(0, family.size() - std::strlen(suffix));
    EXPECT_TRUE(typed.count(family)) << "a sample before its TYPE: " << line;
    out.push_back(s);
  }
  return out;
}

// A series' (le, cumulative count) pairs, +Inf last as infinity.
std::vector<std::pair<double, double>> Buckets(const std::vector<SampleLine>& page, const std::string& name,
                                               const std::string& labels) {
  std::vector<std::pair<double, double>> b;
  for (const SampleLine& s : page) {
    if (s.name != name + "_bucket" || s.labels.rfind(labels + ",le=\"", 0) != 0) continue;
    const std::string le = s.labels.substr(labels.size() + 5, s.labels.size() - labels.size() - 6);
    b.emplace_back(le == "+Inf" ? INFINITY : std::stod(le), s.value);
  }
  return b;
}

double Value(const std::vector<SampleLine>& page, const std::string& name, const std::string& labels = "") {
  for (const SampleLine& s : page)
    if (s.name == name && s.labels == labels) return s.value;
  ADD_FAILURE() << "no sample " << name << "{" << labels << "}";
  return NAN;
}

// Prometheus' histogram_quantile(q, ...): linear interpolation inside the
// bucket the rank falls in (promql/quantile.go's bucketQuantile).
double HistogramQuantile(double q, const std::vector<std::pair<double, double>>& b) {
  const double rank = q * b.back().second;
  size_t i = 0;
  while (b[i].second < rank) ++i;
  if (std::isinf(b[i].first)) return b[i - 1].first;
  const double lo = i ? b[i - 1].first : 0, below = i ? b[i - 1].second : 0;
  return lo + (b[i].first - lo) * (rank - below) / (b[i].second - below);
}

driver::IntervalStats Interval(const std::vector<std::string>& kinds, const std::vector<measure::Histogram>& response,
                               const std::vector<measure::Histogram>& service, bool warmup = false) {
  driver::IntervalStats st;
  st.warmup = warmup;
  st.kinds = std::make_shared<const std::vector<std::string>>(kinds);
  for (const auto& h : response) {
    st.kind_response_histograms.push_back(h.Encode());
    st.ops += h.count();
  }
  for (const auto& h : service) st.kind_service_histograms.push_back(h.Encode());
  st.t_s = 1, st.length_s = 1, st.ops_per_sec = static_cast<double>(st.ops);
  return st;
}

TEST(LatencyBounds, TenPerDecadeFromAMicrosecondToTheHighestValue) {
  const std::vector<uint64_t> b = LatencyBounds(3'600'000'000'000);
  ASSERT_GE(b.size(), 2u);
  EXPECT_EQ(b[0], 1000u);
  EXPECT_EQ(b[10], 10'000u);
  EXPECT_EQ(b[5], 3150u);
  EXPECT_GE(b.back(), 3'600'000'000'000u);
  EXPECT_LT(b[b.size() - 2], 3'600'000'000'000u);
  for (size_t i = 1; i < b.size(); ++i) {
    EXPECT_GT(b[i], b[i - 1]);
    EXPECT_LT(static_cast<double>(b[i]) / static_cast<double>(b[i - 1]), 1.3);  // log-spaced, ~1.26
  }
}

TEST(LiveMetrics, BucketsCountTheValuesAtOrBelowEachBoundAndQuantilesAgreeWithinABucket) {
  // Latencies from 2 us to ~50 ms (log-uniform), two kinds; the buckets are
  // checked against the raw values, counted here independently.
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> exponent(std::log(2e3), std::log(5e7));
  std::vector<uint64_t> raw_get, raw_put;
  measure::Histogram get, put, get_service, put_service;
  for (int i = 0; i < 20000; ++i) {
    auto v = static_cast<uint64_t>(std::exp(exponent(rng)));
    (i % 4 ? raw_get : raw_put).push_back(v);
    (i % 4 ? get : put).Record(v);
    (i % 4 ? get_service : put_service).Record(v / 2);
  }
  LiveMetrics m("null", "test", measure::HistogramOptions{});
  m.OnInterval(Interval({"get", "put"}, {get, put}, {get_service, put_service}));
  const std::vector<SampleLine> page = Parse(*m.Page());
  const auto b = Buckets(page, "storebench_op_latency_seconds", "phase=\"run\",op=\"get\",timing=\"response\"");
  const std::vector<uint64_t> bounds = LatencyBounds(3'600'000'000'000);
  ASSERT_EQ(b.size(), bounds.size() + 1);
  for (size_t i = 0; i < bounds.size(); ++i) {
    uint64_t at_or_below = 0, near = 0;
    for (uint64_t v : raw_get) {
      at_or_below += v <= bounds[i];
      near += std::abs(static_cast<double>(v) - static_cast<double>(bounds[i])) <= 0.001 * bounds[i];
    }
    // Exact but for values within the HDR histogram's precision (0.1%) of the bound.
    EXPECT_LE(std::abs(b[i].second - static_cast<double>(at_or_below)), static_cast<double>(near))
        << "le " << bounds[i];
    if (i) {
      EXPECT_GE(b[i].second, b[i - 1].second);
    }
  }
  EXPECT_EQ(b.back().second, static_cast<double>(raw_get.size()));
  EXPECT_EQ(Value(page, "storebench_op_latency_seconds_count", "phase=\"run\",op=\"get\",timing=\"response\""),
            static_cast<double>(raw_get.size()));
  double sum = 0;
  for (uint64_t v : raw_get) sum += static_cast<double>(v) / 1e9;
  EXPECT_NEAR(Value(page, "storebench_op_latency_seconds_sum", "phase=\"run\",op=\"get\",timing=\"response\""), sum,
              sum * 1e-9);
  EXPECT_EQ(Value(page, "storebench_ops_total", "phase=\"run\""), 20000);
  // histogram_quantile lands in the bucket of the result's percentile.
  for (double q : {0.5, 0.9, 0.99, 0.999}) {
    const double prom = HistogramQuantile(q, b) * 1e9;
    const double hdr = static_cast<double>(get.ValueAtPercentile(q * 100));
    const size_t bucket = static_cast<size_t>(std::lower_bound(bounds.begin(), bounds.end(), hdr) - bounds.begin());
    const double lo = bucket ? static_cast<double>(bounds[bucket - 1]) : 0, hi = static_cast<double>(bounds[bucket]);
    EXPECT_GE(prom, lo * 0.999) << q;
    EXPECT_LE(prom, hi * 1.001) << q;
  }
  // The service series is there too, and the put kind.
  EXPECT_EQ(Buckets(page, "storebench_op_latency_seconds", "phase=\"run\",op=\"put\",timing=\"service\"").back().second,
            static_cast<double>(raw_put.size()));
}

TEST(LiveMetrics, WarmUpCountsNothingAndEachPhaseHasItsOwnSeries) {
  measure::Histogram h;
  for (uint64_t v = 1000; v < 101000; v += 1000) h.Record(v);  // 100 ops
  LiveMetrics m("rocksdb", "1.2", measure::HistogramOptions{});
  m.StartPhase("phase1");
  m.OnInterval(Interval({"get"}, {h}, {h}, /*warmup=*/true));
  auto page = Parse(*m.Page());
  EXPECT_EQ(Value(page, "storebench_warmup"), 1);
  EXPECT_EQ(Value(page, "storebench_phase", "phase=\"phase1\""), 1);
  EXPECT_EQ(Value(page, "storebench_ops_total", "phase=\"phase1\""), 0);
  m.OnInterval(Interval({"get"}, {h}, {h}));
  m.OnInterval(Interval({"get"}, {h}, {h}));
  driver::RunResult r;
  m.FinishPhase(r);
  m.StartPhase("phase2");
  m.OnInterval(Interval({"get"}, {h}, {h}));
  driver::RunResult open;
  open.ideal.emplace();
  open.ideal->Record(5000, 7);
  m.FinishPhase(open);
  page = Parse(*m.Page());
  EXPECT_EQ(Value(page, "storebench_warmup"), 0);
  for (const SampleLine& s : page) EXPECT_NE(s.name, "storebench_phase") << "no phase runs after the run";
  EXPECT_EQ(Value(page, "storebench_ops_total", "phase=\"phase1\""), 200);
  EXPECT_EQ(Value(page, "storebench_ops_total", "phase=\"phase2\""), 100);
  EXPECT_EQ(Value(page, "storebench_op_latency_seconds_count", "phase=\"phase1\",op=\"get\",timing=\"response\""), 200);
  EXPECT_EQ(Value(page, "storebench_ideal_latency_seconds_count", "phase=\"phase2\""), 7);
  EXPECT_EQ(Buckets(page, "storebench_ideal_latency_seconds", "phase=\"phase2\"")[7].second, 7);  // le 5 us
  EXPECT_EQ(Value(page, "storebench_run_info", "backend=\"rocksdb\",version=\"1.2\""), 1);
}

TEST(LiveMetrics, TheIdealClientAddsUpAsItsReplayClosesAndTheWholeReplayReplacesItAtTheEnd) {
  LiveMetrics m("null", "t", measure::HistogramOptions{});
  measure::Histogram a, b, whole;
  a.Record(10'000, 3);  // 10 us
  b.Record(2'000'000, 2);  // 2 ms
  whole.Record(10'000, 3), whole.Record(2'000'000, 2), whole.Record(30'000'000);  // and a last op at 30 ms
  driver::IntervalStats st;
  st.ops = 4;
  st.ideal_replayed = {a.Encode(), b.Encode()};
  m.OnInterval(st);
  auto page = Parse(*m.Page());
  EXPECT_EQ(Value(page, "storebench_ideal_latency_seconds_count", "phase=\"run\""), 5);
  const auto live = Buckets(page, "storebench_ideal_latency_seconds", "phase=\"run\"");
  EXPECT_EQ(live[10].second, 3);  // le 10 us
  EXPECT_EQ(live[30].second, 3);  // le 1 ms
  EXPECT_EQ(live[34].second, 5);  // le 2.5 ms
  // A folded tick: its ops count, the gauges stay the last interval's.
  driver::IntervalStats folded;
  folded.folded = true, folded.ops = 1, folded.ops_per_sec = 99999;
  m.OnInterval(folded);
  page = Parse(*m.Page());
  EXPECT_EQ(Value(page, "storebench_ops_total", "phase=\"run\""), 5);
  EXPECT_EQ(Value(page, "storebench_achieved_ops_per_second"), 0);
  driver::RunResult r;
  r.ideal = whole;
  m.FinishPhase(r);
  page = Parse(*m.Page());
  EXPECT_EQ(Value(page, "storebench_ideal_latency_seconds_count", "phase=\"run\""), 6) << "replaced, not added";
  EXPECT_EQ(Buckets(page, "storebench_ideal_latency_seconds", "phase=\"run\"").back().second, 6);
}

TEST(LiveMetrics, GaugesAreTheLastIntervalsAndLabelValuesAreEscaped) {
  LiveMetrics m("we\"ird\\name", "v", measure::HistogramOptions{3, 1'000'000'000});
  auto page = Parse(*m.Page());
  EXPECT_EQ(Value(page, "storebench_run_info", "backend=\"we\\\"ird\\\\name\",version=\"v\""), 1);
  for (const SampleLine& s : page) EXPECT_NE(s.name, "storebench_backlog_ops") << "no gauge before an interval";
  driver::IntervalStats st;
  st.t_s = 2.5, st.ops_per_sec = 900, st.offered_ops_per_sec = 1000, st.backlog = 12, st.lag_ns = 3'000'000;
  st.max_lag_ns = 4'000'000;
  m.OnInterval(st);
  page = Parse(*m.Page());
  EXPECT_EQ(Value(page, "storebench_interval_end_seconds"), 2.5);
  EXPECT_EQ(Value(page, "storebench_achieved_ops_per_second"), 900);
  EXPECT_EQ(Value(page, "storebench_offered_ops_per_second"), 1000);
  EXPECT_EQ(Value(page, "storebench_backlog_ops"), 12);
  EXPECT_EQ(Value(page, "storebench_start_lag_seconds"), 0.003);
  EXPECT_EQ(Value(page, "storebench_max_start_lag_seconds"), 0.004);
  for (const SampleLine& s : page) EXPECT_NE(s.name, "storebench_platform_speed") << "no meter, no speed";
  // Every family on the page is in the reference, and the reference has no family the page lacks a TYPE for.
  for (const SampleLine& s : page) {
    bool known = false;
    for (const MetricInfo& i : MetricReference()) known |= s.name.rfind(i.name, 0) == 0;
    EXPECT_TRUE(known) << s.name;
  }
}

}  // namespace
}  // namespace storebench::live
