// Statistics for deciding whether B differs from A: Welch's t-test on the raw
// scale and on the log scale (the ratio of geometric means B/A with its
// confidence interval, and what a comparison of this size can prove), and
// seeded bootstrap confidence intervals for differences of latency percentiles.
//
// Distributions (Student's t, normal, incomplete beta) come from Boost.Math;
// nothing here approximates a special function by hand. Every random draw
// comes from a caller-given seed, so a comparison is reproducible.
// Thread-safety: pure functions over their arguments.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "storebench/base/status.h"

namespace storebench::report {

// Mean, spread and order statistics of a sample.
struct SampleSummary {
  size_t n = 0;
  double mean = 0;
  double stddev = 0;  // sample standard deviation (n - 1); 0 when n < 2
  double median = 0;
  double min = 0;
  double max = 0;
};

// Summarizes `values` (any order). All zero when empty.
SampleSummary Summarize(std::span<const double> values);

// The p-quantile (0 < p < 1) of Student's t with `df` > 0 degrees of freedom.
double StudentTQuantile(double p, double df);
// The p-quantile (0 < p < 1) of the standard normal distribution.
double NormalQuantile(double p);

// Result of Welch's unequal-variance t-test of B against baseline A.
struct WelchResult {
  SampleSummary a, b;
  double diff = 0;            // mean(B) - mean(A)
  double std_error = 0;       // standard error of diff
  double df = 0;              // Welch–Satterthwaite degrees of freedom
  double t = 0;               // diff / std_error (0 when std_error is 0 and diff is 0)
  double p_value = 1;         // two-sided
  double half_width = 0;      // t_{(1+c)/2, df} * std_error: diff ± half_width is the c-CI
  double rel_diff = 0;        // diff / mean(A)
  double rel_half_width = 0;  // half_width / mean(A)
  bool significant = false;   // the c-CI of diff excludes 0 (equivalently p_value < 1 - c)
};

// Welch's t-test at `confidence` in (0, 1). The relative CI is the absolute
// CI scaled by the baseline mean, so "significant" and "the relative CI
// excludes 0" always agree. InvalidArgument when a side has fewer than two
// values or mean(A) is not positive.
StatusOr<WelchResult> WelchTest(std::span<const double> a, std::span<const double> b, double confidence);

// Welch's t-test of log(B) against log(A): throughput effects are
// multiplicative, so the figures are the ratio of geometric means B/A and its
// confidence interval. On this scale one noisy fast variant does not hide a
// ratio that every run shows, as its spread does on the raw scale.
struct RatioTest {
  WelchResult log;       // Welch's test on the natural logs: log.diff is log(ratio)
  double ratio = 1;      // exp(log.diff) = geometric mean(B) / geometric mean(A)
  double lo = 1, hi = 1; // exp(log.diff -/+ log.half_width): the c-CI of the ratio
  // exp(log.half_width): with these sample sizes and spreads, only ratios above
  // this (or below its inverse) can be proven at the confidence.
  double provable = 1;
  bool significant = false;  // the CI excludes 1; always equal to log.significant
};

// InvalidArgument when a side has fewer than two values, a value is not
// positive (it has no logarithm), or the confidence is not in (0, 1).
StatusOr<RatioTest> LogRatioTest(std::span<const double> a, std::span<const double> b, double confidence);

// Samples per side at which a true difference `effect` (on the scale of the
// spreads `sd_a`, `sd_b`; for LogRatioTest, the log of a ratio) would be
// proven by Welch's test at `confidence` with probability `power`, from
// effect >= (t_{(1+c)/2, df} + t_{power, df}) * se(n), with df the
// Welch–Satterthwaite degrees of freedom at n per side. At least 2; 0 when
// no count up to `limit` would (e.g. effect 0).
size_t SamplesToProve(double effect, double sd_a, double sd_b, double confidence, double power = 0.8,
                      size_t limit = 100000);

// The median of paired ratios b[i] / a[i] (runs paired by position: the two
// adjacent runs of one round of an interleaved A B A B … series, so the
// machine's drift between rounds cancels) and a distribution-free confidence
// interval of that median: the order statistics [r(k), r(n+1-k)] for the
// largest k with P(Bin(n, 1/2) < k) <= (1 - confidence) / 2, whose exact
// coverage (>= confidence) is given. InvalidArgument when the sides differ in
// length, a value is not positive, or there are too few pairs for the level
// (fewer than 6 at 95 %, 9 at 99.5 %).
struct PairedRatio {
  std::vector<double> ratios;  // b[i] / a[i], in pair order
  double median = 0;
  double lo = 0, hi = 0;       // the interval of the median ratio
  double coverage = 0;         // its exact confidence
  bool significant = false;    // the interval excludes 1
};
StatusOr<PairedRatio> PairedMedianRatio(std::span<const double> a, std::span<const double> b, double confidence);

// Power of the two-sided two-sample t-test (equal n per side, equal variance)
// to detect a mean shift of `effect` standard deviations: the noncentral-t
// prediction that the synthetic tests check WelchTest against.
double TwoSampleTPower(double effect, size_t n_per_side, double confidence);

// A latency distribution to bootstrap from: one or more runs, each given as
// its histogram's non-empty buckets (value, count), ascending by value.
using Buckets = std::vector<std::pair<uint64_t, uint64_t>>;
struct LatencyRuns {
  std::vector<Buckets> runs;
  // The largest value a run could hold (ns; a run's length): a bound above it
  // says nothing the run's length does not, so bounds are clamped to it (or to
  // the largest observation when that is larger). 0 = unknown, no clamp.
  double ceiling = 0;
};

// A bootstrap confidence interval of the relative difference of one percentile.
struct PercentileDiff {
  double a = 0;             // percentile of A (all runs merged), ns
  double b = 0;             // percentile of B (all runs merged), ns
  double rel_diff = 0;      // b / a - 1
  double rel_lo = 0;        // lower end of the percentile-bootstrap CI of rel_diff
  double rel_hi = 0;        // upper end
  bool significant = false; // the CI excludes 0
  bool resampled_runs = false;  // true: resampled runs; false: resampled ops from one histogram per side
};

// Bootstrap CI of percentile `p` (0..100) of B relative to A at `confidence`.
// When both sides have at least two runs, whole runs are resampled (so
// run-to-run variation counts); otherwise single operations are resampled
// from the merged histogram, exactly but in O(1) per replicate, through the
// order-statistic identity X_(k) = F^-1(U_(k)), U_(k) ~ Beta(k, n-k+1).
// `replicates` draws from a generator seeded by `seed`. InvalidArgument when a
// side holds no observations.
StatusOr<PercentileDiff> BootstrapPercentileDiff(const LatencyRuns& a, const LatencyRuns& b, double p,
                                                 double confidence, uint64_t seed, int replicates = 10000);

// The distribution-free bounds of the quantile q = p/100 among n
// observations, as 1-based ranks of order statistics X_(r): the true quantile
// is at most X_(upper) with probability P(Bin(n, q) < upper) >= confidence
// (the smallest such rank), and inside [X_(lo), X_(hi)] with each tail at most
// (1 - confidence) / 2. A rank is 0 when no order statistic of n observations
// reaches the confidence: a p99 needs at least 299 observations for a 95 %
// upper bound (1 - 0.99^n >= 0.95), a p99.9 2,995; the two-sided interval
// needs a few more (368 for p99 at 95 %). A p100 (the maximum) is never
// bounded from a sample.
struct OrderStatisticRanks {
  uint64_t lo = 0, hi = 0;  // both non-zero, or both 0
  uint64_t upper = 0;
};
OrderStatisticRanks PercentileBoundRanks(double p, uint64_t n, double confidence);

// How every output says that a bound does not exist (the ranks above are 0).
inline constexpr const char* kNotBounded = "not bounded (n too small)";

// A confidence interval of one percentile of one side.
struct PercentileInterval {
  double value = 0;  // percentile of all runs merged, ns
  double lo = 0;     // two-sided CI at the confidence: [lo, hi]
  double hi = 0;
  double upper = 0;  // one-sided upper bound: the percentile is at most this, at the confidence
  bool resampled_runs = false;
  // RunsPercentileBound only: its two parts (upper is the larger).
  double upper_across_runs = 0;  // the prediction bound over runs
  double upper_ops = 0;          // the order-statistic bound of the runs' ops pooled
  // False when too few observations bound the percentile at the confidence
  // (PercentileBoundRanks gave 0): the numbers above are then meaningless and
  // every output prints kNotBounded (JSON: null and a reason) instead.
  bool ci_bounded = true, upper_bounded = true;
  std::string unbounded_reason;  // why, when either is false: "n too small: …"
};

// CI of percentile `p` (0..100) of `side` at `confidence`: with one run, the
// exact order-statistic bounds of PercentileBoundRanks (the distribution-free
// interval the op-level bootstrap approximates); with at least two, whole runs
// resampled, bounded only where the pooled ops' ranks exist. Every end lies
// within [smallest observation, max(ceiling, largest observation)].
// InvalidArgument when `side` holds no observations.
StatusOr<PercentileInterval> BootstrapPercentile(const LatencyRuns& side, double p, double confidence, uint64_t seed,
                                                 int replicates = 10000);

// A bound on percentile `p` of several runs together (a search's confirmation
// runs), built so that run-to-run variation counts even with 3 runs, where a
// whole-run bootstrap has only 10 distinct resamples and cannot reach above
// the worst run. `value` is the percentile of the runs pooled; `upper` is the
// larger of
//   * the prediction bound of the next run's percentile: with m and s the
//     mean and standard deviation of the k runs' log percentiles,
//     exp(max(m, log value) + t(confidence, k−1) · s · sqrt(1 + 1/k)), which
//     under log-normal runs is above a new run's percentile with that
//     confidence — and so above the pooled percentile at least as often —, and
//   * the order-statistic bound of the pooled ops (as BootstrapPercentile
//     with one run), which holds when the runs agree closely;
// [lo, hi] likewise joins the two two-sided intervals. The prediction bound
// can reach far beyond anything a run can hold (3 runs, t = 2.92, a wide
// spread: "204 s" for a 10 s step), so every end is clamped to
// [smallest observation, max(ceiling, largest observation)]; with too few
// pooled ops for the order-statistic ranks there is no bound at all. The jackknife over
// runs and a t bound on the mean log percentile were tried and held the
// pooled p99 of runs whose speed varies in only 86–92 % of trials at 95 %
// (stats_test; bench/search_coverage.sh). With one run it is
// BootstrapPercentile.
StatusOr<PercentileInterval> RunsPercentileBound(const LatencyRuns& side, double p, double confidence, uint64_t seed,
                                                 int replicates = 10000);

}  // namespace storebench::report
