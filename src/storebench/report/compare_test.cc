// Tests of `compare` over synthetic run documents: sample choice, verdict
// sentences, warnings, matrix directories and bad input.
#include "storebench/report/compare.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <fmt/format.h>
#include <random>

#include "storebench/measure/histogram.h"
#include "storebench/report/result.h"

namespace storebench::report {
namespace {

namespace fs = std::filesystem;

struct FakeRun {
  double ops_per_sec = 10000;
  double latency_ns = 50000;   // median of the lognormal latencies
  nlohmann::json config = {{"backend", "null"}, {"threads", 1}, {"backend_options", {{"service-time", "spin:20us"}}}};
  std::string kernel = "Linux 6.1";
  uint64_t seed = 1;
  double platform_speed = 0;  // 0: no platform meter in the document
};

nlohmann::json MakeDoc(const FakeRun& f) {
  std::mt19937_64 rng(f.seed);
  std::lognormal_distribution<double> lat(std::log(f.latency_ns), 0.3);
  measure::Histogram h;
  for (int i = 0; i < 5000; ++i) h.Record(static_cast<uint64_t>(lat(rng)));
  std::normal_distribution<double> jitter(1.0, 0.02);
  nlohmann::json intervals = nlohmann::json::array();
  for (int i = 0; i < 10; ++i) intervals.push_back({{"length_s", 1.0}, {"ops_per_sec", f.ops_per_sec * jitter(rng)}});
  intervals.push_back({{"length_s", 0.1}, {"ops_per_sec", 1.0}});  // a cut-short last interval: ignored
  return {{"schema", kRunSchema},
          {"config", f.config},
          {"environment", {{"kernel", f.kernel}, {"cpu_model", "Test CPU"}}},
          {"throughput", {{"ops_per_sec", f.ops_per_sec}}},
          {"totals", {{"ops", 5000}, {"errors", 0}, {"interrupted", false}}},
          {"latency", {{"response", LatencyJson(h)}, {"service", LatencyJson(h)}}},
          {"intervals", intervals},
          {"platform", f.platform_speed > 0 ? nlohmann::json{{"speed", {{"mean", f.platform_speed}}}}
                                            : nlohmann::json::object()}};
}

class CompareTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::path(::testing::TempDir()) /
           ("compare_test_" + std::to_string(getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::string Write(const std::string& name, const nlohmann::json& doc) {
    std::string p = (dir_ / name).string();
    std::ofstream(p) << doc.dump();
    return p;
  }
  // `n` repeated runs whose throughput scatters ±1% around `ops`; returns "f1,f2,…".
  std::string Group(const std::string& stem, int n, FakeRun f) {
    std::mt19937_64 rng(std::hash<std::string>{}(stem));
    std::normal_distribution<double> spread(1.0, 0.01);
    std::string list;
    double ops = f.ops_per_sec;
    for (int i = 1; i <= n; ++i) {
      f.ops_per_sec = ops * spread(rng);
      f.seed = rng();
      list += (list.empty() ? "" : ",") + Write(stem + "-" + std::to_string(i) + ".json", MakeDoc(f));
    }
    return list;
  }
  CompareReport Run(const std::vector<std::string>& operands, CompareOptions o = {}) {
    auto in = LoadCompareInput(operands);
    EXPECT_TRUE(in.ok()) << in.status().message();
    o.replicates = 2000;
    auto r = Compare(*in, o);
    EXPECT_TRUE(r.ok()) << r.status().message();
    return r.ok() ? *r : CompareReport{};
  }
  fs::path dir_;
};

CompareOptions Options(double confidence, const std::string& baseline = "") {
  CompareOptions o;
  o.confidence = confidence;
  o.baseline = baseline;
  return o;
}

bool HasWarning(const CompareReport& r, const std::string& part) {
  for (const auto& w : r.warnings)
    if (w.find(part) != std::string::npos) return true;
  return false;
}

TEST(CompareVerdict, SentencesHaveTheContractForm) {
  WelchResult r;
  r.significant = true;
  r.rel_diff = 0.072;
  r.rel_half_width = 0.021;
  EXPECT_EQ(ThroughputVerdict("B", r, 0.995), "B is 7.2% faster (±2.1% at 99.5% confidence)");
  r.rel_diff = -0.5;
  EXPECT_EQ(ThroughputVerdict("B", r, 0.95), "B is 50.0% slower (±2.1% at 95% confidence)");
  r.significant = false;
  EXPECT_EQ(ThroughputVerdict("B", r, 0.999), "No difference proven at 99.9% confidence");
  RatioTest q;
  q.significant = true;
  q.ratio = 1.072;
  q.lo = 1.05;
  q.hi = 1.0954;
  EXPECT_EQ(RatioVerdict("B", q, 0.995), "B is 7.2% faster (ratio 1.072, 1.050 to 1.095 at 99.5% confidence)");
  q.ratio = 0.25;
  q.lo = 0.125;
  q.hi = 0.5;
  EXPECT_EQ(RatioVerdict("B", q, 0.95), "B is 75.0% slower (ratio 0.250, 0.125 to 0.500 at 95% confidence)");
  q.ratio = 12.34;
  EXPECT_EQ(FormatRatio(q.ratio), "12.3");
  q.significant = false;
  EXPECT_EQ(RatioVerdict("B", q, 0.999), "No difference proven at 99.9% confidence");
  PercentileDiff d;
  d.significant = true;
  d.rel_diff = -0.12;
  d.rel_lo = -0.151;
  d.rel_hi = -0.088;
  EXPECT_EQ(PercentileVerdict("B", "p99", d, 0.995), "B's p99 is 12.0% lower (-15.1% to -8.8% at 99.5% confidence)");
}

TEST(CompareVerdict, MinSamplesIsWhereTheTQuantileNearsTheNormal) {
  for (double c : {0.95, 0.99, 0.995, 0.999}) {
    size_t n = MinSamplesFor(c);
    double q = (1 + c) / 2, z = NormalQuantile(q);
    EXPECT_LE(StudentTQuantile(q, 2.0 * n - 2), 1.5 * z) << c;
    EXPECT_GT(StudentTQuantile(q, 2.0 * n - 4), 1.5 * z) << c;
  }
  EXPECT_EQ(MinSamplesFor(0.995), 5u);
}

TEST_F(CompareTest, RepeatedRunsDetectAFasterGroup) {
  FakeRun a, b;
  b.ops_per_sec = 11000;
  b.latency_ns = 40000;
  b.config["backend_options"]["service-time"] = "spin:16us";
  auto r = Run({Group("a", 6, a), Group("b", 6, b)});
  const auto& c = r.json["comparisons"][0];
  EXPECT_EQ(c["throughput"]["samples"], "runs");
  EXPECT_EQ(c["throughput"]["n"], 6);
  EXPECT_TRUE(c["throughput"]["significant"].get<bool>());
  EXPECT_NEAR(c["throughput"]["rel_diff"].get<double>(), 0.10, 0.02);
  EXPECT_EQ(c["throughput"]["verdict"].get<std::string>().rfind("b is ", 0), 0u);
  EXPECT_NE(c["throughput"]["verdict"].get<std::string>().find("% faster (ratio 1.1"), std::string::npos);
  EXPECT_EQ(c["throughput"]["scale"], "log");
  EXPECT_EQ(c["latency"]["p50"]["resampled"], "runs");
  EXPECT_TRUE(c["latency"]["p50"]["significant"].get<bool>());
  EXPECT_LT(c["latency"]["p50"]["rel_diff"].get<double>(), -0.1);
  // One setting differs: that is the varied one, no warning about it.
  EXPECT_FALSE(HasWarning(r, "differ in more than one setting"));
  EXPECT_NE(r.text.find("Welch's t-test on log(ops/s) over repeated runs"), std::string::npos);
  EXPECT_NE(r.text.find(c["throughput"]["verdict"].get<std::string>()), std::string::npos);
}

// Fixed run files of the shape a loaded machine gave: 3 + 3 runs, every run
// of B about 8x every run of A, B noisy (stddev 557 ops/s against A's 22).
// On the raw scale Welch's test has ~2 df and proves nothing; on the ratio
// scale the difference is proven.
TEST_F(CompareTest, EightTimesFasterInEveryRunIsProvenWithThreeRunsEach) {
  std::string a, b;
  int seed = 1;
  for (double ops : {420.0, 457.0, 460.0}) {
    FakeRun f;
    f.ops_per_sec = ops;
    f.latency_ns = 2.1e6;
    f.seed = seed++;
    a += (a.empty() ? "" : ",") + Write(fmt::format("slow-{}.json", seed), MakeDoc(f));
  }
  for (double ops : {3694.0, 4020.0, 4780.0}) {
    FakeRun f;
    f.ops_per_sec = ops;
    f.latency_ns = 2.4e5;
    f.config["backend_options"]["service-time"] = "sleep:100us";
    f.seed = seed++;
    b += (b.empty() ? "" : ",") + Write(fmt::format("fast-{}.json", seed), MakeDoc(f));
  }
  auto r = Run({a, b});
  const auto& t = r.json["comparisons"][0]["throughput"];
  EXPECT_EQ(t["samples"], "runs");
  EXPECT_EQ(t["scale"], "log");
  EXPECT_TRUE(t["significant"].get<bool>()) << t.dump(1);
  EXPECT_NEAR(t["t"].get<double>(), 27.42, 0.01);
  EXPECT_NEAR(t["ratio"].get<double>(), 9.29, 0.01);
  EXPECT_GT(t["ratio_ci"][0].get<double>(), 1);
  EXPECT_EQ(t["verdict"].get<std::string>().rfind("fast is 82", 0), 0u) << t["verdict"];
  EXPECT_NE(r.text.find("fast is 82"), std::string::npos) << r.text;
  EXPECT_NE(r.text.find("fast: with 3 and 3 runs and this spread, only ratios above x"), std::string::npos) << r.text;
  EXPECT_FALSE(t.contains("not_proven_because"));
  EXPECT_FALSE(r.json["comparisons"][0].contains("note")) << r.text;  // p50 agrees
  EXPECT_TRUE(HasWarning(r, "3 and 3 runs are too few for 99.5% confidence"));
}

// A proof the runs could not give: said why, and how many runs would settle it.
TEST_F(CompareTest, AnUnprovenDifferenceSaysWhetherTheRunsAreTooFewOrTheEffectSmall) {
  auto group = [&](const std::string& stem, const std::vector<double>& ops, double latency_ns) {
    std::string list;
    int i = 0;
    for (double x : ops) {
      FakeRun f;
      f.ops_per_sec = x;
      f.latency_ns = latency_ns;
      f.seed = std::hash<std::string>{}(stem) + i;
      list += (list.empty() ? "" : ",") + Write(fmt::format("{}-{}.json", stem, ++i), MakeDoc(f));
    }
    return list;
  };
  // 1.3x apart with a ~15 % spread and 3 runs each: too few runs.
  auto few = Run({group("a", {1000, 1150, 870}, 50000), group("b", {1300, 1500, 1130}, 50000)});
  const auto& t = few.json["comparisons"][0]["throughput"];
  ASSERT_FALSE(t["significant"].get<bool>()) << t.dump(1);
  EXPECT_EQ(t["not_proven_because"], "too few runs");
  const size_t n = t["runs_to_settle"].get<size_t>();
  EXPECT_GT(n, 3u);
  EXPECT_LT(n, 30u);
  EXPECT_NE(few.text.find(fmt::format("b: too few runs: about {} runs each would settle it", n)), std::string::npos)
      << few.text;
  EXPECT_GT(t["provable_ratio"].get<double>(), 1.3);  // what this comparison could prove: more than the gap
  // A 0.2 % gap under a 1 % spread, 6 runs each: the effect is small.
  auto small = Run({group("c", {1000, 1010, 990, 1005, 995, 1000}, 50000),
                    group("d", {1002, 1012, 992, 1007, 997, 1002}, 50000)});
  const auto& u = small.json["comparisons"][0]["throughput"];
  ASSERT_FALSE(u["significant"].get<bool>());
  EXPECT_EQ(u["not_proven_because"], "small effect");
  EXPECT_GT(u["runs_to_settle"].get<size_t>(), 100u);
  EXPECT_NE(small.text.find("d: the effect is small: a ratio of 1.002"), std::string::npos) << small.text;
}

TEST(CompareVerdict, DisagreeingThroughputAndLatencyVerdictsGetANote) {
  nlohmann::json faster = {{"significant", true}, {"rel_diff", 0.5}};
  nlohmann::json unproven = {{"significant", false}, {"rel_diff", 0.5}};
  nlohmann::json lower = {{"significant", true}, {"rel_diff", -0.3}};
  nlohmann::json higher = {{"significant", true}, {"rel_diff", 0.3}};
  EXPECT_EQ(DisagreementNote("B", faster, lower), "");
  EXPECT_EQ(DisagreementNote("B", unproven, {{"significant", false}, {"rel_diff", 0.1}}), "");
  EXPECT_EQ(DisagreementNote("B", faster, higher),
            "B: the throughput and p50 verdicts disagree in direction: throughput faster, p50 higher");
  EXPECT_EQ(DisagreementNote("B", unproven, lower),
            "B: the throughput and p50 verdicts disagree in proof: throughput no difference proven, p50 lower");
}

TEST_F(CompareTest, AThroughputGainWithoutALatencyChangeIsPointedOut) {
  FakeRun a, b;
  b.ops_per_sec = 12000;  // 20 % more throughput, the same latency distribution
  b.config["backend_options"]["service-time"] = "spin:16us";
  auto r = Run({Group("a", 6, a), Group("b", 6, b)});
  const auto& c = r.json["comparisons"][0];
  ASSERT_TRUE(c["throughput"]["significant"].get<bool>());
  ASSERT_FALSE(c["latency"]["p50"]["significant"].get<bool>()) << c["latency"].dump(1);
  const std::string note = "b: the throughput and p50 verdicts disagree in proof: throughput faster, p50 no difference proven";
  EXPECT_EQ(c["note"], note);
  EXPECT_NE(r.text.find("Note: " + note + "\n"), std::string::npos) << r.text;
}

// db_bench's printed reports against storebench runs, paired round by round.
TEST_F(CompareTest, PairedRunsAgainstDbBenchReports) {
  std::string db_bench, storebench;
  const double base[] = {50000, 61000, 55000, 70000, 52000, 58000, 64000, 49000, 66000, 57000};
  for (int i = 0; i < 10; ++i) {
    std::string p = (dir_ / ("db_bench-" + std::to_string(i) + ".txt")).string();
    std::ofstream(p) << "DB path: [/tmp/db]\nreadrandom   :      16.800 micros/op " << base[i]
                     << " ops/sec 3.000 seconds 150000 operations;   20.3 MB/s (94716 of 150000 found)\n\n"
                     << "Percentiles: P50: 14.30 P75: 19.10 P99: 71.20 P99.9: 116.20 P99.99: 400.00\n";
    db_bench += (db_bench.empty() ? "" : ",") + p;
    FakeRun f;
    f.ops_per_sec = base[i] * (1.03 + 0.002 * (i % 3));  // 3.0-3.4 % faster in every pair, whatever the round
    f.seed = i + 1;
    storebench += (storebench.empty() ? "" : ",") + Write("storebench-" + std::to_string(i) + ".json", MakeDoc(f));
  }
  CompareOptions o = Options(0.95);
  o.paired = true;
  auto r = Run({db_bench, storebench}, o);
  const auto& t = r.json["comparisons"][0]["throughput"];
  EXPECT_EQ(t["samples"], "pairs");
  EXPECT_TRUE(t["significant"].get<bool>());
  EXPECT_NEAR(t["median_ratio"].get<double>(), 1.032, 0.002);
  EXPECT_NEAR(t["coverage"].get<double>(), 1 - 2 * 11.0 / 1024, 1e-12);  // [r(2), r(9)] of 10
  EXPECT_EQ(t["verdict"].get<std::string>().rfind("storebench is 3.", 0), 0u) << t["verdict"];
  // Unpaired, the rounds' spread (±13 %) hides the 3 %.
  auto welch = Run({db_bench, storebench}, Options(0.95));
  EXPECT_FALSE(welch.json["comparisons"][0]["throughput"]["significant"].get<bool>());
  EXPECT_TRUE(HasWarning(r, "latency not compared"));
  EXPECT_TRUE(HasWarning(r, "come from different tools"));
  EXPECT_NE(r.text.find("p99: median"), std::string::npos);
  EXPECT_NE(r.text.find("71.2"), std::string::npos);  // db_bench's P99, in the variant table
}

// The latency header names what the bootstrap resampled, whatever the throughput test was: under --paired the
// throughput samples are pairs while the percentiles still resample whole runs.
TEST_F(CompareTest, PairedLatencyHeaderSaysRunsWereResampled) {
  FakeRun f;
  CompareOptions o = Options(0.95);
  o.paired = true;
  auto r = Run({Group("x", 6, f), Group("y", 6, f)}, o);
  const auto& c = r.json["comparisons"][0];
  EXPECT_EQ(c["throughput"]["samples"], "pairs");
  ASSERT_TRUE(c.contains("latency")) << c.dump();
  EXPECT_EQ(c["latency"]["p50"]["resampled"], "runs");
  EXPECT_NE(r.text.find("resamples of runs, seed"), std::string::npos) << r.text;
  EXPECT_EQ(r.text.find("resamples of operations"), std::string::npos) << r.text;
}

// B ran 10% faster on a platform that ran 20% faster: compare warns that the
// difference may be the platform's; on equal platforms it says nothing.
TEST_F(CompareTest, APlatformSpeedGapLargerThanTheDifferenceIsWarnedAbout) {
  FakeRun a, b;
  b.ops_per_sec = 11000;
  a.platform_speed = 0.80;
  b.platform_speed = 0.96;
  auto r = Run({Group("a", 6, a), Group("b", 6, b)});
  EXPECT_TRUE(HasWarning(r, "the platform ran at mean speed 0.800 under a and 0.960 under b (+20.0%)")) << r.text;
  b.platform_speed = 0.80;
  auto same = Run({Group("a", 6, a), Group("b", 6, b)});
  EXPECT_FALSE(HasWarning(same, "the platform ran at mean speed"));
}

TEST_F(CompareTest, IdenticalGroupsProveNoDifference) {
  FakeRun f;
  auto r = Run({Group("x", 6, f), Group("y", 6, f)});
  const auto& c = r.json["comparisons"][0];
  EXPECT_FALSE(c["throughput"]["significant"].get<bool>());
  EXPECT_EQ(c["throughput"]["verdict"], "No difference proven at 99.5% confidence");
  EXPECT_NE(r.text.find("y: No difference proven at 99.5% confidence"), std::string::npos);
  EXPECT_TRUE(r.warnings.empty()) << r.warnings.front();
}

TEST_F(CompareTest, SingleRunsUseIntervalsAndSayWhy) {
  FakeRun a, b;
  b.ops_per_sec = 12000;
  b.kernel = "Linux 6.2";
  b.config["threads"] = 2;
  b.config["backend_options"]["service-time"] = "spin:10us";
  auto r = Run({Write("a.json", MakeDoc(a)), Write("b.json", MakeDoc(b))}, Options(0.95));
  const auto& t = r.json["comparisons"][0]["throughput"];
  EXPECT_EQ(t["samples"], "intervals");
  EXPECT_EQ(t["n"], 10);  // the short last interval is left out
  EXPECT_EQ(t["verdict"].get<std::string>().rfind("b is 20.", 0), 0u) << t["verdict"];
  EXPECT_EQ(r.json["comparisons"][0]["latency"]["p99"]["resampled"], "operations");
  EXPECT_TRUE(HasWarning(r, "per-interval values of single runs"));
  EXPECT_TRUE(HasWarning(r, "differ in more than one setting"));
  EXPECT_TRUE(HasWarning(r, "threads"));
  EXPECT_TRUE(HasWarning(r, "different environments: kernel"));
}

// A single file's label is its whole stem: stripping the trailing digits made
// run1.json and run2.json "run" and "run#2". A group of repeats still loses its
// repeat number.
TEST_F(CompareTest, LabelsKeepWhatTellsTheRunsApart) {
  FakeRun f;
  auto in = LoadCompareInput({Write("run1.json", MakeDoc(f)), Write("run2.json", MakeDoc(f)), Group("pread", 2, f),
                              Write("v10.json", MakeDoc(f))});
  ASSERT_TRUE(in.ok()) << in.status().message();
  ASSERT_EQ(in->groups.size(), 4u);
  EXPECT_EQ(in->groups[0].name, "run1");
  EXPECT_EQ(in->groups[1].name, "run2");
  EXPECT_EQ(in->groups[2].name, "pread");
  EXPECT_EQ(in->groups[3].name, "v10");
}

TEST_F(CompareTest, TooFewRunsAreFlaggedForTheLevel) {
  FakeRun f;
  auto r = Run({Group("p", 2, f), Group("q", 2, f)});
  EXPECT_TRUE(HasWarning(r, "too few for 99.5% confidence (use at least 5 per side)"));
}

TEST_F(CompareTest, MatrixDirectoryKnowsTheVariedSetting) {
  FakeRun a, b;
  b.config["backend_options"]["service-time"] = "spin:40us";
  b.config["threads"] = 4;  // not varied: must be flagged
  Group("v1", 3, a);
  Group("v2", 2, b);
  nlohmann::json m = {{"schema", kMatrixSchema},
                      {"vary", {{{"key", "service-time"}, {"values", {"spin:20us", "spin:40us"}}}}},
                      {"variants",
                       {{{"name", "service-time=spin:20us"}, {"files", {"v1-1.json", "v1-2.json", "v1-3.json"}}},
                        {{"name", "service-time=spin:40us"}, {"files", {"v2-1.json", "v2-2.json", "v2-3.json"}}}}}};
  Write(kMatrixManifest, m);
  auto r = Run({dir_.string()}, Options(0.995, "service-time=spin:40us"));
  EXPECT_EQ(r.json["baseline"], "service-time=spin:40us");
  EXPECT_EQ(r.json["varied"][0], "service-time");
  EXPECT_TRUE(HasWarning(r, "service-time=spin:40us: 2 of 3 planned runs are stored"));
  EXPECT_TRUE(HasWarning(r, "also differ in threads (4 vs 1), which was not varied")) << r.json["warnings"].dump(1);
  EXPECT_NE(r.text.find("2/3"), std::string::npos);
}

TEST_F(CompareTest, BadInputIsNamed) {
  std::ofstream(dir_ / "junk.json") << "{\"schema\": \"other\"}";
  auto in = LoadCompareInput({(dir_ / "junk.json").string()});
  ASSERT_FALSE(in.ok());
  EXPECT_EQ(in.status().code(), Status::Code::kCorruption);
  EXPECT_NE(in.status().message().find("not a storebench run result"), std::string::npos);
  EXPECT_EQ(LoadCompareInput({(dir_ / "missing.json").string()}).status().code(), Status::Code::kNotFound);
  FakeRun f;
  auto two = LoadCompareInput({Write("a.json", MakeDoc(f)), Write("b.json", MakeDoc(f))});
  ASSERT_TRUE(two.ok());
  auto r = Compare(*two, Options(0.995, "nope"));
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("--baseline: 'nope'"), std::string::npos);
  CompareInput one;
  one.groups.push_back(two->groups[0]);
  EXPECT_FALSE(Compare(one, {}).ok());
}

}  // namespace
}  // namespace storebench::report
