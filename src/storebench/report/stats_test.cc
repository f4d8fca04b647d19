// Proof that the comparison statistics are right: published t quantiles,
// false-positive rates and power of Welch's test over many seeded synthetic
// trials against the noncentral-t prediction, coverage of the relative CI,
// and the exact single-histogram bootstrap against brute-force resampling;
// Welch's figures on both scales against scipy's ttest_ind(equal_var=False).
// Everything is seeded, so each test is deterministic.
#include "storebench/report/stats.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fmt/format.h>
#include <map>
#include <numeric>
#include <random>
#include <sstream>
#include <string>
#include <sys/wait.h>
#include <unistd.h>

namespace storebench::report {
namespace {

std::string ExactText(double x) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.17g", x);
  return buf;
}

std::vector<double> NormalSample(std::mt19937_64& rng, size_t n, double mean, double sd) {
  std::normal_distribution<double> dist(mean, sd);
  std::vector<double> v(n);
  for (double& x : v) x = dist(rng);
  return v;
}

// Fraction of `trials` seeded Welch tests (n per side, sd 10 around 1000)
// that call B different from A when B's mean is shifted by `shift`.
double RejectionRate(int trials, size_t n, double shift, double confidence, uint64_t seed) {
  std::mt19937_64 rng(seed);
  int rejected = 0;
  for (int i = 0; i < trials; ++i) {
    auto a = NormalSample(rng, n, 1000, 10);
    auto b = NormalSample(rng, n, 1000 + shift, 10);
    auto r = WelchTest(a, b, confidence);
    EXPECT_TRUE(r.ok()) << r.status().message();
    rejected += r.ok() && r->significant;
  }
  return static_cast<double>(rejected) / trials;
}

TEST(Stats, TQuantilesMatchPublishedTables) {
  // Two-sided critical values from standard t tables (3 decimals).
  EXPECT_NEAR(StudentTQuantile(0.975, 10), 2.228, 5e-4);
  EXPECT_NEAR(StudentTQuantile(0.995, 5), 4.032, 5e-4);
  EXPECT_NEAR(StudentTQuantile(0.975, 1), 12.706, 5e-4);
  EXPECT_NEAR(StudentTQuantile(0.95, 20), 1.725, 5e-4);
  EXPECT_NEAR(StudentTQuantile(0.9975, 10), 3.581, 5e-4);
  EXPECT_NEAR(StudentTQuantile(0.9995, 30), 3.646, 5e-4);
  EXPECT_NEAR(NormalQuantile(0.975), 1.960, 5e-4);
  EXPECT_NEAR(NormalQuantile(0.9975), 2.807, 5e-4);
  // t tends to the normal as df grows; fractional df (Welch) is allowed.
  EXPECT_NEAR(StudentTQuantile(0.975, 1e7), NormalQuantile(0.975), 1e-5);
  EXPECT_GT(StudentTQuantile(0.975, 5.5), StudentTQuantile(0.975, 6));
  EXPECT_LT(StudentTQuantile(0.975, 5.5), StudentTQuantile(0.975, 5));
}

TEST(Stats, WelchMatchesAHandComputedExample) {
  // a: mean 3, var 2.5; b: mean 6, var 10 → se = sqrt(2.5), t = 1.8974,
  // df = 2.5² / (0.5²/4 + 2²/4) = 5.8824, two-sided p ≈ 0.108.
  std::vector<double> a{1, 2, 3, 4, 5}, b{2, 4, 6, 8, 10};
  auto r = WelchTest(a, b, 0.95);
  ASSERT_TRUE(r.ok());
  EXPECT_DOUBLE_EQ(r->diff, 3);
  EXPECT_NEAR(r->t, 1.8974, 1e-4);
  EXPECT_NEAR(r->df, 5.8824, 1e-4);
  EXPECT_NEAR(r->p_value, 0.108, 0.004);
  EXPECT_FALSE(r->significant);
  EXPECT_NEAR(r->half_width, StudentTQuantile(0.975, r->df) * std::sqrt(2.5), 1e-12);
  EXPECT_DOUBLE_EQ(r->rel_diff, 1.0);
  // At 80% the same data are a difference: the verdict follows the level.
  EXPECT_TRUE(WelchTest(a, b, 0.80)->significant);
}

TEST(Stats, PairedMedianRatioUsesOrderStatistics) {
  const std::vector<double> a = {100, 100, 100, 100, 100, 100, 100, 100, 100, 100};
  const std::vector<double> b = {97, 103, 101, 99, 105, 102, 98, 104, 100, 106};
  auto r = PairedMedianRatio(a, b, 0.95);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_DOUBLE_EQ(r->median, 1.015);
  EXPECT_DOUBLE_EQ(r->lo, 0.98);  // r(2) of 10: P(Bin(10, 1/2) < 2) = 11/1024 <= 2.5 %
  EXPECT_DOUBLE_EQ(r->hi, 1.05);  // r(9)
  EXPECT_DOUBLE_EQ(r->coverage, 1 - 22.0 / 1024);
  EXPECT_FALSE(r->significant);
  auto wide = PairedMedianRatio(a, b, 0.995);  // 2^-10 <= 0.25 % < 11/1024: [min, max]
  ASSERT_TRUE(wide.ok());
  EXPECT_DOUBLE_EQ(wide->lo, 0.97);
  EXPECT_DOUBLE_EQ(wide->hi, 1.06);
  std::vector<double> faster = {101, 102, 103, 104, 105, 106, 107, 108, 109, 110};
  EXPECT_TRUE(PairedMedianRatio(a, faster, 0.995)->significant);
  EXPECT_FALSE(PairedMedianRatio(std::vector<double>(5, 1.0), std::vector<double>(5, 2.0), 0.95).ok());  // 2^-5 > 2.5 %
  EXPECT_FALSE(PairedMedianRatio(a, std::vector<double>(9, 1.0), 0.95).ok());
}

TEST(Stats, WelchRejectsTooFewSamplesAndDegenerateInput) {
  std::vector<double> one{1}, two{1, 2}, zero{0, 0};
  EXPECT_FALSE(WelchTest(one, two, 0.95).ok());
  EXPECT_FALSE(WelchTest(zero, two, 0.95).ok());
  EXPECT_FALSE(WelchTest(two, two, 1.0).ok());
  std::vector<double> c1{5, 5, 5}, c2{6, 6, 6};
  EXPECT_TRUE(WelchTest(c1, c2, 0.995)->significant);
  EXPECT_FALSE(WelchTest(c1, c1, 0.995)->significant);
}

TEST(Stats, IdenticalDistributionsGiveTheNominalFalsePositiveRate) {
  // 2,000 trials: the standard error of a 5% rate is 0.5 points.
  double at95 = RejectionRate(2000, 10, 0, 0.95, 1);
  EXPECT_GE(at95, 0.03);
  EXPECT_LE(at95, 0.07);
  double at995 = RejectionRate(2000, 10, 0, 0.995, 2);
  std::printf("false-positive rate: %.4f at 95%%, %.4f at 99.5%%\n", at95, at995);
  EXPECT_LE(at995, 0.012);
  // Unequal sizes and variances are what Welch is for.
  std::mt19937_64 rng(3);
  int rejected = 0;
  for (int i = 0; i < 2000; ++i) {
    auto a = NormalSample(rng, 5, 1000, 5);
    auto b = NormalSample(rng, 20, 1000, 40);
    rejected += WelchTest(a, b, 0.95)->significant;
  }
  EXPECT_GE(rejected / 2000.0, 0.03);
  EXPECT_LE(rejected / 2000.0, 0.07);
}

// The same on the ratio scale: throughputs log-normal around 1000 ops/s with
// a 10 % spread, tested by LogRatioTest.
double RatioRejectionRate(int trials, size_t n, double ratio, double confidence, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::lognormal_distribution<double> da(std::log(1000.0), 0.1), db(std::log(1000.0 * ratio), 0.1);
  int rejected = 0;
  for (int i = 0; i < trials; ++i) {
    std::vector<double> a(n), b(n);
    for (double& x : a) x = da(rng);
    for (double& x : b) x = db(rng);
    auto r = LogRatioTest(a, b, confidence);
    EXPECT_TRUE(r.ok()) << r.status().message();
    rejected += r.ok() && r->significant;
  }
  return static_cast<double>(rejected) / trials;
}

TEST(Stats, RatioScaleGivesTheNominalFalsePositiveRate) {
  // Identical variants (A/A), 2,000 trials each: 10 runs and 3 runs per side.
  double at95 = RatioRejectionRate(2000, 10, 1.0, 0.95, 21);
  double at995 = RatioRejectionRate(2000, 10, 1.0, 0.995, 22);
  double three995 = RatioRejectionRate(2000, 3, 1.0, 0.995, 23);
  std::printf("ratio scale false-positive rate: %.4f at 95%%, %.4f at 99.5%% (10 runs); %.4f at 99.5%% (3 runs)\n",
              at95, at995, three995);
  EXPECT_GE(at95, 0.03);
  EXPECT_LE(at95, 0.07);
  EXPECT_LE(at995, 0.012);
  EXPECT_LE(three995, 0.012);
}

TEST(Stats, TheRatioScaleProvesWhatEveryRunShows) {
  // The shape of a matrix seen on a loaded machine: 3 + 3 runs, every run of
  // B about 8x every run of A, B's spread 25 times A's on the raw scale.
  const std::vector<double> a{420, 457, 460}, b{3694, 4020, 4780};
  auto raw = WelchTest(a, b, 0.995);
  ASSERT_TRUE(raw.ok());
  EXPECT_NEAR(raw->t, 11.55, 0.01);
  EXPECT_FALSE(raw->significant);  // ~2 df: the raw scale cannot prove it
  auto r = LogRatioTest(a, b, 0.995);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_NEAR(r->log.t, 27.42, 0.01);
  EXPECT_TRUE(r->significant);
  const double gm_a = std::cbrt(420.0 * 457 * 460), gm_b = std::cbrt(3694.0 * 4020 * 4780);
  EXPECT_NEAR(r->ratio, gm_b / gm_a, 1e-9);
  EXPECT_LT(r->lo, r->ratio);
  EXPECT_GT(r->hi, r->ratio);
  EXPECT_GT(r->lo, 1);
  EXPECT_NEAR(std::log(r->hi / r->ratio), std::log(r->provable), 1e-12);  // the CI is symmetric in log
  EXPECT_NEAR(r->lo * r->hi, r->ratio * r->ratio, 1e-9);
  EXPECT_FALSE(LogRatioTest(std::vector<double>{0, 1}, b, 0.995).ok());  // 0 has no logarithm
  EXPECT_FALSE(LogRatioTest(std::vector<double>{1}, b, 0.995).ok());
}

TEST(Stats, SamplesToProveReachesTheAskedPower) {
  // Equal spreads: the noncentral-t power at the returned n is about the
  // target, and one sample fewer falls short of it.
  for (double effect : {0.5, 1.0, 2.0}) {
    for (double c : {0.95, 0.995}) {
      size_t n = SamplesToProve(effect, 1.0, 1.0, c, 0.8);
      ASSERT_GE(n, 2u);
      EXPECT_GE(TwoSampleTPower(effect, n, c), 0.78) << effect << " " << c;
      if (n > 2) {
        EXPECT_LT(TwoSampleTPower(effect, n - 1, c), 0.82) << effect << " " << c;
      }
    }
  }
  // At power 0.5 the bound is the CI half-width itself: the n at which the
  // observed difference would just be proven.
  size_t n = SamplesToProve(1.0, 1.0, 1.0, 0.995, 0.5);
  auto proven_at = [](size_t m) {
    const double se = std::sqrt(2.0 / static_cast<double>(m));
    return 1.0 > StudentTQuantile(0.9975, 2.0 * static_cast<double>(m) - 2) * se;
  };
  EXPECT_TRUE(proven_at(n));
  EXPECT_FALSE(proven_at(n - 1));
  EXPECT_EQ(SamplesToProve(0, 1, 1, 0.995), 0u);            // no effect: no count proves it
  EXPECT_EQ(SamplesToProve(1e-6, 1, 1, 0.995, 0.8, 1000), 0u);  // beyond the limit
  EXPECT_EQ(SamplesToProve(0.1, 0, 0, 0.995), 2u);          // no spread: certain at once
}

// The inputs the reference implementation is asked about: unequal sizes and spreads.
struct ReferenceCase {
  std::vector<double> a, b;
  double confidence;
};

std::string PythonList(const std::vector<double>& v) {
  std::string out = "[";
  for (double x : v) out += ExactText(x) + ",";
  return out + "]";
}

// scipy's figures for B against A: per case and scale (raw, log), "t df p lo hi"
// with [lo, hi] the CI of mean(B) - mean(A) on that scale. scipy 1.10 (Debian 12)
// gives t and p only; df is then what ttest_ind computed it with (its helper
// _unequal_var_ttest_denom), else the df for which scipy's t distribution gives
// that p, and the CI is diff ± t.ppf((1+c)/2, df) · diff / t.
const char* kScipyScript = R"PY(
import sys, math
try:
    import numpy as np
    from scipy import stats, optimize
except ImportError as e:
    print(e); sys.exit(3)
for a, b, c in CASES:
    for f in (lambda x: x, np.log):
        x, y = f(np.array(b, float)), f(np.array(a, float))
        r = stats.ttest_ind(x, y, equal_var=False)
        t, p = float(r.statistic), float(r.pvalue)
        denom = getattr(getattr(stats, '_stats_py', None), '_unequal_var_ttest_denom', None)
        if hasattr(r, 'df'):
            df = float(r.df)
        elif denom is not None:  # the function ttest_ind itself takes df from
            df = float(denom(x.var(ddof=1), len(x), y.var(ddof=1), len(y))[0])
        else:
            df = optimize.brentq(lambda d: 2 * stats.t.sf(abs(t), d) - p, 0.5, 1e6, xtol=1e-14, rtol=1e-15)
        diff = x.mean() - y.mean()
        if hasattr(r, 'confidence_interval'):
            lo, hi = r.confidence_interval(confidence_level=c)
        else:
            h = stats.t.ppf((1 + c) / 2, df) * abs(diff / t)
            lo, hi = diff - h, diff + h
        print('%.17g %.17g %.17g %.17g %.17g' % (t, df, p, lo, hi))
)PY";

TEST(Stats, WelchMatchesScipyOnBothScales) {
  if (access("/usr/bin/python3", X_OK) != 0) GTEST_SKIP() << "/usr/bin/python3 is missing (apt-get install python3-scipy)";
  const std::vector<ReferenceCase> cases = {
      {{420, 457, 460}, {3694, 4020, 4780}, 0.995},
      {{1, 2, 3, 4, 5}, {2, 4, 6, 8, 10}, 0.95},
      {{160791, 145628, 132531, 217742, 150000, 141000}, {157676, 146257, 130142, 198590}, 0.99},
      {{1000, 1010, 990, 1005, 995, 1002, 998, 1001, 999, 1003}, {1020, 980, 1050, 940, 1010, 1030, 970}, 0.999},
  };
  std::string py = "CASES = [";
  for (const auto& c : cases) py += "(" + PythonList(c.a) + "," + PythonList(c.b) + "," + ExactText(c.confidence) + "),";
  py += "]\n";
  py += kScipyScript;
  const std::string script = ::testing::TempDir() + "/welch_scipy_" + std::to_string(getpid()) + ".py";
  {
    std::FILE* f = std::fopen(script.c_str(), "w");
    ASSERT_NE(f, nullptr);
    std::fputs(py.c_str(), f);
    std::fclose(f);
  }
  std::FILE* pipe = popen(("/usr/bin/python3 " + script + " 2>&1").c_str(), "r");
  ASSERT_NE(pipe, nullptr);
  std::string out;
  char buf[512];
  while (std::fgets(buf, sizeof buf, pipe)) out += buf;
  const int status = pclose(pipe);
  std::remove(script.c_str());
  if (WIFEXITED(status) && WEXITSTATUS(status) == 3)
    GTEST_SKIP() << "scipy is missing for /usr/bin/python3 (apt-get install python3-scipy): " << out;
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << out;
  std::istringstream in(out);
  // t and df are arithmetic: equal to 1e-9. The CI also needs the t quantile at
  // a fractional df, where scipy 1.10 (cephes) and Boost.Math differ by ~1e-9
  // relative (2.4588237069 vs 2.4588237097 at df 5.88, 97.5 %): equal to 1e-7.
  auto near = [](double mine, double ref) { return std::fabs(mine - ref) <= 1e-9 * std::max(1.0, std::fabs(ref)); };
  auto near_ci = [](double mine, double ref) { return std::fabs(mine - ref) <= 1e-7 * std::max(1.0, std::fabs(ref)); };
  for (const auto& c : cases) {
    auto raw = WelchTest(c.a, c.b, c.confidence);
    auto ratio = LogRatioTest(c.a, c.b, c.confidence);
    ASSERT_TRUE(raw.ok() && ratio.ok());
    for (const WelchResult* w : {&*raw, &ratio->log}) {
      double t, df, p, lo, hi;
      ASSERT_TRUE(in >> t >> df >> p >> lo >> hi) << out;
      const char* scale = w == &*raw ? "raw" : "log";
      EXPECT_PRED2(near, w->t, t) << scale << " t, case with n " << c.a.size();
      EXPECT_PRED2(near, w->df, df) << scale << " df";
      EXPECT_NEAR(w->p_value, p, 1e-12 + 1e-9 * p) << scale << " p";
      EXPECT_PRED2(near_ci, w->diff - w->half_width, lo) << scale << " CI low";
      EXPECT_PRED2(near_ci, w->diff + w->half_width, hi) << scale << " CI high";
      EXPECT_EQ(w->significant, p < 1 - c.confidence) << scale;
      if (w == &ratio->log) {  // the ratio interval is the log-scale one, exponentiated
        EXPECT_PRED2(near_ci, ratio->lo, std::exp(lo));
        EXPECT_PRED2(near_ci, ratio->hi, std::exp(hi));
      }
    }
  }
}

TEST(Stats, PowerAgreesWithTheNoncentralTPrediction) {
  // Published value (Cohen; R pwr.t.test(n = 10, d = 1)): 0.5620.
  EXPECT_NEAR(TwoSampleTPower(1.0, 10, 0.95), 0.5620, 5e-4);
  struct Case {
    double effect;
    size_t n;
    double confidence;
  };
  for (Case c : {Case{1.0, 10, 0.95}, Case{1.5, 8, 0.995}, Case{0.5, 30, 0.95}}) {
    double theory = TwoSampleTPower(c.effect, c.n, c.confidence);
    double seen = RejectionRate(2000, c.n, c.effect * 10, c.confidence, 10 + c.n);
    std::printf("power: effect %.1f sd, n %zu, %.1f%%: theory %.4f, seen %.4f\n", c.effect, c.n, c.confidence * 100,
                theory, seen);
    // Welch's df is a little below 2n-2, so it may lose a point or so of power;
    // 2,000 trials have a standard error of about 1.1 points.
    EXPECT_NEAR(seen, theory, 0.04) << "effect " << c.effect << " n " << c.n << " conf " << c.confidence;
  }
}

TEST(Stats, RelativeIntervalCoversTheTrueShiftAndAgreesWithTheVerdict) {
  std::mt19937_64 rng(5);
  int covered = 0, trials = 2000;
  for (int i = 0; i < trials; ++i) {
    auto a = NormalSample(rng, 12, 1000, 30);
    auto b = NormalSample(rng, 12, 1100, 30);
    auto r = WelchTest(a, b, 0.95);
    ASSERT_TRUE(r.ok());
    EXPECT_EQ(r->significant, std::fabs(r->rel_diff) > r->rel_half_width);
    // The CI of the difference, scaled by the baseline mean, covers +100/mean(A).
    double truth = 100 / r->a.mean;
    covered += std::fabs(r->rel_diff - truth) <= r->rel_half_width;
  }
  EXPECT_GE(covered / static_cast<double>(trials), 0.93);
  EXPECT_LE(covered / static_cast<double>(trials), 0.97);
}

Buckets ToBuckets(const std::vector<uint64_t>& values) {
  std::map<uint64_t, uint64_t> m;
  for (uint64_t v : values) ++m[v];
  return Buckets(m.begin(), m.end());
}

std::vector<uint64_t> LatencySample(std::mt19937_64& rng, size_t n, double scale) {
  std::lognormal_distribution<double> dist(std::log(50'000 * scale), 0.5);
  std::vector<uint64_t> v(n);
  for (uint64_t& x : v) x = static_cast<uint64_t>(dist(rng));
  return v;
}

TEST(Stats, SingleHistogramBootstrapMatchesBruteForceResampling) {
  std::mt19937_64 rng(7);
  auto a = LatencySample(rng, 400, 1.0), b = LatencySample(rng, 400, 1.0);
  LatencyRuns ra{{ToBuckets(a)}}, rb{{ToBuckets(b)}};
  auto exact = BootstrapPercentileDiff(ra, rb, 90, 0.95, 11, 20000);
  ASSERT_TRUE(exact.ok()) << exact.status().message();
  EXPECT_FALSE(exact->resampled_runs);
  // Brute force: draw 400 ops with replacement per side, take the p90 rank.
  auto p90 = [](std::vector<uint64_t> v) {
    std::sort(v.begin(), v.end());
    return static_cast<double>(v[static_cast<size_t>(std::ceil(0.9 * v.size())) - 1]);
  };
  std::uniform_int_distribution<size_t> pick(0, 399);
  std::vector<double> rel;
  for (int i = 0; i < 5000; ++i) {
    std::vector<uint64_t> sa(400), sb(400);
    for (auto& x : sa) x = a[pick(rng)];
    for (auto& x : sb) x = b[pick(rng)];
    rel.push_back(p90(sb) / p90(sa) - 1);
  }
  std::sort(rel.begin(), rel.end());
  // 2.5% and 97.5% points; 5,000 brute-force replicates pin them to about ±0.01.
  EXPECT_NEAR(exact->rel_lo, rel[125], 0.015);
  EXPECT_NEAR(exact->rel_hi, rel[4875], 0.015);
  EXPECT_DOUBLE_EQ(exact->a, p90(a));
  EXPECT_DOUBLE_EQ(exact->b, p90(b));
}

TEST(Stats, BootstrapIsSeededAndDetectsAShift) {
  std::mt19937_64 rng(1);
  LatencyRuns a{{ToBuckets(LatencySample(rng, 20000, 1.0))}};
  LatencyRuns b{{ToBuckets(LatencySample(rng, 20000, 1.2))}};
  auto d1 = BootstrapPercentileDiff(a, b, 99, 0.995, 42);
  auto d2 = BootstrapPercentileDiff(a, b, 99, 0.995, 42);
  ASSERT_TRUE(d1.ok());
  EXPECT_EQ(d1->rel_lo, d2->rel_lo);
  EXPECT_EQ(d1->rel_hi, d2->rel_hi);
  EXPECT_TRUE(d1->significant);
  EXPECT_LT(d1->rel_lo, 0.2);
  EXPECT_GT(d1->rel_hi, 0.2);
  auto same = BootstrapPercentileDiff(a, a, 99, 0.995, 42);
  EXPECT_FALSE(same->significant);
  EXPECT_EQ(same->rel_diff, 0);
  EXPECT_FALSE(BootstrapPercentileDiff(a, LatencyRuns{}, 99, 0.995, 42).ok());
}

TEST(Stats, RunBootstrapCountsRunToRunVariation) {
  // Each run has its own speed (±10%): one run per side makes 1,000 ops look
  // precise, but identical groups of 10 runs must rarely differ.
  std::mt19937_64 rng(9);
  std::normal_distribution<double> run_speed(1.0, 0.10);
  auto group = [&](size_t runs) {
    LatencyRuns g;
    for (size_t r = 0; r < runs; ++r) g.runs.push_back(ToBuckets(LatencySample(rng, 1000, run_speed(rng))));
    return g;
  };
  int rejected = 0, ops_rejected = 0, trials = 150;
  for (int i = 0; i < trials; ++i) {
    LatencyRuns a = group(10), b = group(10);
    auto d = BootstrapPercentileDiff(a, b, 90, 0.95, i, 1000);
    ASSERT_TRUE(d.ok());
    EXPECT_TRUE(d->resampled_runs);
    rejected += d->significant;
    auto one = BootstrapPercentileDiff(LatencyRuns{{a.runs[0]}}, LatencyRuns{{b.runs[0]}}, 90, 0.95, i, 1000);
    ops_rejected += one->significant;
  }
  // The percentile bootstrap is a little liberal with 10 runs (about 6-9%
  // instead of 5%); resampling the ops of single runs misses the run-to-run
  // variation and calls most identical pairs different.
  EXPECT_LE(rejected / static_cast<double>(trials), 0.12);
  EXPECT_GE(ops_rejected / static_cast<double>(trials), 0.25);
}

TEST(Stats, OneSidePercentileIntervalCoversTheTruePercentile) {
  // Exponential latencies with mean 1000 ns: the true p99 is 1000·ln(100).
  const double truth = 1000 * std::log(100.0);
  std::mt19937_64 rng(3);
  std::exponential_distribution<double> dist(1.0 / 1000);
  int covered = 0, upper_holds = 0, trials = 200;
  for (int i = 0; i < trials; ++i) {
    std::vector<uint64_t> v(2000);
    for (auto& x : v) x = static_cast<uint64_t>(dist(rng)) + 1;
    auto ci = BootstrapPercentile(LatencyRuns{{ToBuckets(v)}}, 99, 0.95, i, 1000);
    ASSERT_TRUE(ci.ok()) << ci.status().message();
    EXPECT_LE(ci->lo, ci->value);
    EXPECT_GE(ci->hi, ci->value);
    EXPECT_LE(ci->upper, ci->hi);
    covered += ci->lo <= truth && truth <= ci->hi;
    upper_holds += truth <= ci->upper;
  }
  std::printf("percentile interval coverage of the true p99: two-sided %.3f, one-sided upper %.3f (nominal 0.95)\n",
              covered / static_cast<double>(trials), upper_holds / static_cast<double>(trials));
  // Nominal 95% for both; 200 trials put the seen rate within about ±3.5 points.
  EXPECT_NEAR(covered / static_cast<double>(trials), 0.95, 0.05);
  EXPECT_NEAR(upper_holds / static_cast<double>(trials), 0.95, 0.05);
  EXPECT_FALSE(BootstrapPercentile(LatencyRuns{}, 99, 0.95, 1).ok());
}

// The confirmation bound over 3 runs, where each run's latencies are
// exponential with a mean that itself varies from run to run (a machine whose
// speed drifts): the bound must hold the mixture's true p99 at least as often
// as stated. The whole-run bootstrap, shown beside it, cannot: with 3 runs it
// never reaches above the worst of them.
TEST(Stats, RunsBoundCoversThePooledPercentileOfVaryingRuns) {
  for (double spread : {0.0, 0.15}) {
    std::mt19937_64 rng(11);
    std::normal_distribution<double> log_scale(0, spread);
    // The mixture's p99: t with E_s[exp(-t / (1000 s))] = 0.01, over a fixed grid of scales.
    std::vector<double> scales;
    for (int i = 1; i < 2000; ++i)
      scales.push_back(std::exp(spread * NormalQuantile(i / 2000.0)));
    double lo = 0, hi = 1e6;
    for (int it = 0; it < 100; ++it) {
      double t = (lo + hi) / 2, tail = 0;
      for (double sc : scales) tail += std::exp(-t / (1000 * sc));
      (tail / static_cast<double>(scales.size()) > 0.01 ? lo : hi) = t;
    }
    const double truth = lo;
    int holds = 0, run_bootstrap_holds = 0;
    const int trials = 200;
    for (int i = 0; i < trials; ++i) {
      LatencyRuns side;
      for (int r = 0; r < 3; ++r) {
        std::exponential_distribution<double> dist(1.0 / (1000 * std::exp(log_scale(rng))));
        std::vector<uint64_t> v(2000);
        for (auto& x : v) x = static_cast<uint64_t>(dist(rng)) + 1;
        side.runs.push_back(ToBuckets(v));
      }
      auto b = RunsPercentileBound(side, 99, 0.95, i, 1000);
      ASSERT_TRUE(b.ok()) << b.status().message();
      EXPECT_TRUE(b->resampled_runs);
      EXPECT_EQ(b->upper, std::max(b->upper_across_runs, b->upper_ops));
      EXPECT_LE(b->lo, b->value);
      EXPECT_GE(b->hi, b->upper_ops);
      holds += truth <= b->upper;
      run_bootstrap_holds += truth <= BootstrapPercentile(side, 99, 0.95, i, 1000)->upper;
    }
    const double rate = holds / static_cast<double>(trials);
    std::printf("run-to-run spread %.2f: true p99 %.0f ns; confirmation bound holds %.3f, whole-run bootstrap %.3f "
                "(nominal 0.95)\n",
                spread, truth, rate, run_bootstrap_holds / static_cast<double>(trials));
    // At least the nominal level, less the ±3 points 200 trials leave.
    EXPECT_GE(rate, 0.92) << "spread " << spread;
  }
  // One run: the op-level bootstrap.
  LatencyRuns one{{ToBuckets(std::vector<uint64_t>{1, 2, 3, 4, 5, 6, 7, 8, 9, 10})}};
  EXPECT_FALSE(RunsPercentileBound(one, 99, 0.95, 1)->resampled_runs);
  EXPECT_FALSE(RunsPercentileBound(LatencyRuns{{{}, {}}}, 99, 0.95, 1).ok());
}

}  // namespace
}  // namespace storebench::report

namespace storebench::report {
namespace {

// The order-statistic bounds of the quantile q among n observations,
// computed here by summing the binomial's terms in long double (not through
// Boost's incomplete beta, as PercentileBoundRanks does): the smallest rank u
// with P(Bin(n, q) < u) >= c; for the two-sided interval, the smallest h with
// P(Bin < h) >= 1 - t and the largest l with P(Bin < l) <= t, t = (1 - c) / 2.
OrderStatisticRanks ByHand(double p, uint64_t n, double c) {
  OrderStatisticRanks r;
  if (n == 0) return r;
  const long double q = p / 100, t = (1 - c) / 2.0L;
  std::vector<long double> below(n + 2, 0);  // below[u] = P(Bin < u)
  for (uint64_t j = 0; j <= n; ++j) {
    const long double log_pmf = std::lgamma(n + 1.0L) - std::lgamma(j + 1.0L) - std::lgamma(n - j + 1.0L) +
                                j * std::log(q) + (n - j) * std::log1p(-q);
    below[j + 1] = below[j] + std::exp(log_pmf);
  }
  for (uint64_t u = n; u >= 1; --u) {
    if (below[u] >= c) r.upper = u;
    if (below[u] >= 1 - t) r.hi = u;
  }
  for (uint64_t l = 1; l <= n; ++l)
    if (below[l] <= t) r.lo = l;
  if (r.lo == 0 || r.hi == 0) r.lo = r.hi = 0;
  return r;
}

// Small samples (M4 of issue 51): a p99 of 100 ops or a p99.9 of 2,000 has no
// upper bound at 95 %, and none is printed. Values 1..n make X_(r) = r, so each
// bound's value is its rank.
TEST(Stats, SmallSamplesAreNotBoundedAndBoundsAreOrderStatistics) {
  for (double p : {99.0, 99.9})
    for (double c : {0.95, 0.99})
      for (uint64_t n : {0, 1, 2, 10, 99, 100, 298, 299, 300, 367, 368, 1000, 2994, 2995, 3000, 5000}) {
        const OrderStatisticRanks want = ByHand(p, n, c), got = PercentileBoundRanks(p, n, c);
        SCOPED_TRACE(fmt::format("p{} n {} confidence {}", p, n, c));
        EXPECT_EQ(got.upper, want.upper);
        EXPECT_EQ(got.lo, want.lo);
        EXPECT_EQ(got.hi, want.hi);
        if (n <= 100) {
          EXPECT_EQ(got.upper, 0u);  // 1 - q^100 < 0.95 for q >= 0.99
        }
        std::vector<uint64_t> values(n);
        std::iota(values.begin(), values.end(), uint64_t{1});
        auto ci = BootstrapPercentile(LatencyRuns{{ToBuckets(values)}}, p, c, 1);
        if (n == 0) {
          EXPECT_FALSE(ci.ok());
          continue;
        }
        ASSERT_TRUE(ci.ok()) << ci.status().message();
        EXPECT_EQ(ci->upper_bounded, want.upper != 0);
        EXPECT_EQ(ci->ci_bounded, want.hi != 0);
        if (ci->upper_bounded) { EXPECT_EQ(ci->upper, static_cast<double>(want.upper)); }
        if (ci->ci_bounded) {
          EXPECT_EQ(ci->lo, static_cast<double>(want.lo));
          EXPECT_EQ(ci->hi, static_cast<double>(want.hi));
        }
        if (!ci->upper_bounded || !ci->ci_bounded) {
          EXPECT_EQ(ci->unbounded_reason.rfind("n too small: ", 0), 0u) << ci->unbounded_reason;
        }
      }
  // The thresholds the header quotes.
  EXPECT_EQ(PercentileBoundRanks(99, 298, 0.95).upper, 0u);
  EXPECT_NE(PercentileBoundRanks(99, 299, 0.95).upper, 0u);
  EXPECT_EQ(PercentileBoundRanks(99.9, 2994, 0.95).upper, 0u);
  EXPECT_NE(PercentileBoundRanks(99.9, 2995, 0.95).upper, 0u);
  EXPECT_EQ(PercentileBoundRanks(100, 1'000'000, 0.95).upper, 0u);
  // Runs judged together are bounded only where their pooled ops are.
  std::vector<uint64_t> fifty(50);
  std::iota(fifty.begin(), fifty.end(), uint64_t{1});
  auto three = RunsPercentileBound(LatencyRuns{{ToBuckets(fifty), ToBuckets(fifty), ToBuckets(fifty)}}, 99, 0.95, 1);
  ASSERT_TRUE(three.ok());
  EXPECT_FALSE(three->upper_bounded);
  EXPECT_FALSE(three->ci_bounded);
}

// Three confirmation runs whose p99s differ by 10,000x: the prediction bound
// over runs reached "204 s" and an interval "[0.00, 1538953882.37] ms" before
// it was clamped to what a run of this length can hold and to the smallest
// observation.
TEST(Stats, BoundsStayWithinWhatTheRunsCanHold) {
  std::vector<uint64_t> fast(1000, 100'000), slow(1000, 100'000);
  std::fill(slow.begin() + 900, slow.end(), 1'000'000'000);  // a tenth of the ops took 1 s
  LatencyRuns side{{ToBuckets(fast), ToBuckets(fast), ToBuckets(slow)}};
  side.ceiling = 10e9;  // 10 s runs
  auto b = RunsPercentileBound(side, 99, 0.95, 1);
  ASSERT_TRUE(b.ok()) << b.status().message();
  ASSERT_TRUE(b->upper_bounded && b->ci_bounded);
  EXPECT_LE(b->upper, 10e9);
  EXPECT_LE(b->upper_across_runs, 10e9);
  EXPECT_LE(b->hi, 10e9);
  EXPECT_GE(b->lo, 100'000);  // never below the fastest op
  EXPECT_GE(b->upper, b->value);
  EXPECT_LE(b->lo, b->value);
  // Without a known length, no bound is cut, but the floor still holds.
  side.ceiling = 0;
  b = RunsPercentileBound(side, 99, 0.95, 1);
  ASSERT_TRUE(b.ok());
  EXPECT_GE(b->lo, 100'000);
}

}  // namespace
}  // namespace storebench::report
