#include "storebench/report/stats.h"

#include <algorithm>
#include <boost/math/distributions/binomial.hpp>
#include <boost/math/distributions/non_central_t.hpp>
#include <boost/math/distributions/normal.hpp>
#include <boost/math/distributions/students_t.hpp>
#include <cmath>
#include <limits>
#include <fmt/format.h>
#include <numeric>
#include <random>

#include "storebench/measure/histogram.h"

namespace storebench::report {
namespace {

double Variance(std::span<const double> v, double mean) {
  if (v.size() < 2) return 0;
  double ss = 0;
  for (double x : v) ss += (x - mean) * (x - mean);
  return ss / static_cast<double>(v.size() - 1);
}

// The empirical distribution of one side as a grid of values and, per run,
// cumulative counts on that grid, so a percentile of any weighted mixture of
// runs is a binary search costing O(runs · log grid).
class MixtureGrid {
 public:
  explicit MixtureGrid(const LatencyRuns& side) {
    for (const Buckets& run : side.runs)
      for (const auto& bucket : run) values_.push_back(bucket.first);
    std::sort(values_.begin(), values_.end());
    values_.erase(std::unique(values_.begin(), values_.end()), values_.end());
    for (const Buckets& run : side.runs) {
      std::vector<uint64_t> cum(values_.size(), 0);
      for (const auto& [value, count] : run)
        cum[std::lower_bound(values_.begin(), values_.end(), value) - values_.begin()] += count;
      std::partial_sum(cum.begin(), cum.end(), cum.begin());
      totals_.push_back(cum.empty() ? 0 : cum.back());
      cum_.push_back(std::move(cum));
    }
  }

  size_t runs() const { return cum_.size(); }
  uint64_t total(const std::vector<uint32_t>& weights) const {
    uint64_t t = 0;
    for (size_t r = 0; r < weights.size(); ++r) t += weights[r] * totals_[r];
    return t;
  }
  // The rank-th smallest observation (1-based) of the mixture with these run weights.
  double ValueAtRank(const std::vector<uint32_t>& weights, uint64_t rank) const {
    size_t lo = 0, hi = values_.size() - 1;
    while (lo < hi) {
      size_t mid = (lo + hi) / 2;
      uint64_t below = 0;
      for (size_t r = 0; r < weights.size(); ++r) below += weights[r] * cum_[r][mid];
      if (below >= rank) hi = mid; else lo = mid + 1;
    }
    return static_cast<double>(values_[lo]);
  }
  // Percentile p (0..100) of the mixture, with the histogram's rank convention.
  double Percentile(const std::vector<uint32_t>& weights, double p) const {
    return ValueAtRank(weights, RankOf(p, total(weights)));
  }
  static uint64_t RankOf(double p, uint64_t n) { return measure::PercentileRank(p, n); }

 private:
  std::vector<uint64_t> values_;
  std::vector<std::vector<uint64_t>> cum_;
  std::vector<uint64_t> totals_;
};

// Draws one bootstrap replicate of percentile p for a side.
class SideResampler {
 public:
  SideResampler(const LatencyRuns& side, bool by_runs) : grid_(side), by_runs_(by_runs), ones_(grid_.runs(), 1) {
    n_ = grid_.total(ones_);
  }
  uint64_t observations() const { return n_; }
  const MixtureGrid& grid() const { return grid_; }
  double Observed(double p) const { return grid_.Percentile(ones_, p); }

  double Draw(double p, std::mt19937_64& rng) {
    if (by_runs_) {
      // Resample whole runs with replacement: weights = how often each run was drawn.
      std::vector<uint32_t> weights(grid_.runs(), 0);
      std::uniform_int_distribution<size_t> pick(0, grid_.runs() - 1);
      for (size_t i = 0; i < grid_.runs(); ++i) ++weights[pick(rng)];
      return grid_.Percentile(weights, p);
    }
    // The k-th order statistic of n draws from the empirical distribution is
    // F^-1(U_(k)) with U_(k) ~ Beta(k, n-k+1): an exact bootstrap replicate
    // without drawing n values.
    // Beta(k, n-k+1) drawn as G1 / (G1 + G2) with G1 ~ Gamma(k), G2 ~ Gamma(n-k+1).
    uint64_t k = MixtureGrid::RankOf(p, n_);
    std::gamma_distribution<double> g1(static_cast<double>(k)), g2(static_cast<double>(n_ - k + 1));
    double x = g1(rng);
    double q = x / (x + g2(rng));
    auto rank = static_cast<uint64_t>(std::ceil(q * static_cast<double>(n_)));
    return grid_.ValueAtRank(ones_, std::clamp<uint64_t>(rank, 1, n_));
  }

 private:
  MixtureGrid grid_;
  bool by_runs_;
  std::vector<uint32_t> ones_;
  uint64_t n_ = 0;
};

// The q-quantile (0..1) of sorted values, linearly interpolated.
double SortedQuantile(const std::vector<double>& sorted, double q) {
  double pos = q * static_cast<double>(sorted.size() - 1);
  auto i = static_cast<size_t>(std::floor(pos));
  if (i + 1 >= sorted.size()) return sorted.back();
  double frac = pos - static_cast<double>(i);
  return sorted[i] + frac * (sorted[i + 1] - sorted[i]);
}

// `replicates` bootstrap replicates of percentile p from a generator seeded by `seed`, sorted.
std::vector<double> SortedDraws(SideResampler& r, double p, uint64_t seed, int replicates) {
  std::mt19937_64 rng(seed);
  std::vector<double> draws(static_cast<size_t>(replicates));
  for (double& x : draws) x = r.Draw(p, rng);
  std::sort(draws.begin(), draws.end());
  return draws;
}

// The fewest observations whose order statistics give both bounds of
// percentile p (0..100, below 100) at the confidence.
uint64_t FewestObservations(double p, double confidence) {
  auto enough = [&](uint64_t n) { return PercentileBoundRanks(p, n, confidence).hi != 0; };
  uint64_t hi = 1;
  while (!enough(hi)) hi *= 2;
  uint64_t lo = hi / 2 + 1;
  while (lo < hi) {
    const uint64_t mid = lo + (hi - lo) / 2;
    if (enough(mid)) hi = mid;
    else lo = mid + 1;
  }
  return hi;
}

// The exact order-statistic interval of percentile p of the pooled ops
// (PercentileBoundRanks); where a rank is missing, the bound is marked so.
PercentileInterval OrderStatisticInterval(const MixtureGrid& grid, double p, double confidence) {
  const std::vector<uint32_t> ones(grid.runs(), 1);
  const uint64_t n = grid.total(ones);
  PercentileInterval out;
  out.value = grid.Percentile(ones, p);
  const OrderStatisticRanks ranks = PercentileBoundRanks(p, n, confidence);
  out.upper_bounded = ranks.upper != 0;
  out.ci_bounded = ranks.hi != 0;
  out.upper = out.upper_bounded ? grid.ValueAtRank(ones, ranks.upper) : out.value;
  out.lo = out.ci_bounded ? grid.ValueAtRank(ones, ranks.lo) : out.value;
  out.hi = out.ci_bounded ? grid.ValueAtRank(ones, ranks.hi) : out.value;
  if (!out.upper_bounded || !out.ci_bounded)
    out.unbounded_reason =
        p >= 100 ? std::string("n too small: the maximum (p100) is never bounded from a sample")
                 : fmt::format("n too small: {} observations; a {:g}% interval of p{:g} needs at least {}", n,
                               confidence * 100, p, FewestObservations(p, confidence));
  return out;
}

// Keeps every end within what the runs can hold: a percentile of these runs
// is never below their smallest observation, and no run holds a value above
// its length (`ceiling`, 0 = unknown) or, when larger, the largest observation.
void ClampToPossible(const MixtureGrid& grid, double ceiling, PercentileInterval* out) {
  const std::vector<uint32_t> ones(grid.runs(), 1);
  const double floor = grid.ValueAtRank(ones, 1);
  const double top = ceiling > 0 ? std::max(ceiling, grid.ValueAtRank(ones, grid.total(ones)))
                                 : std::numeric_limits<double>::infinity();
  out->lo = std::clamp(out->lo, floor, std::max(floor, out->value));
  out->hi = std::min(std::max(out->hi, out->value), top);
  out->upper = std::min(std::max(out->upper, out->value), top);
  out->upper_across_runs = std::min(out->upper_across_runs, top);
}

}  // namespace

SampleSummary Summarize(std::span<const double> values) {
  SampleSummary s;
  s.n = values.size();
  if (values.empty()) return s;
  std::vector<double> sorted(values.begin(), values.end());
  std::sort(sorted.begin(), sorted.end());
  s.mean = std::accumulate(sorted.begin(), sorted.end(), 0.0) / static_cast<double>(s.n);
  s.stddev = std::sqrt(Variance(sorted, s.mean));
  s.median = SortedQuantile(sorted, 0.5);
  s.min = sorted.front();
  s.max = sorted.back();
  return s;
}

double StudentTQuantile(double p, double df) { return boost::math::quantile(boost::math::students_t(df), p); }

double NormalQuantile(double p) { return boost::math::quantile(boost::math::normal(), p); }

StatusOr<PairedRatio> PairedMedianRatio(std::span<const double> a, std::span<const double> b, double confidence) {
  if (a.size() != b.size())
    return Status::InvalidArgument(fmt::format("paired runs need as many runs on each side; got {} and {}", a.size(),
                                               b.size()));
  PairedRatio r;
  for (size_t i = 0; i < a.size(); ++i) {
    if (!(a[i] > 0) || !(b[i] > 0)) return Status::InvalidArgument("paired ratios need positive values");
    r.ratios.push_back(b[i] / a[i]);
  }
  const size_t n = r.ratios.size();
  // P(Bin(n, 1/2) <= j), exactly, for j = 0, 1, …
  const double tail = (1 - confidence) / 2;
  double cdf = 0, term = std::ldexp(1.0, -static_cast<int>(n));  // C(n, 0) / 2^n
  size_t k = 0;
  for (size_t j = 0; j < n; ++j) {
    cdf += term;
    if (cdf > tail) break;
    k = j + 1;  // P(Bin < k) = P(Bin <= j) <= tail
    term = term * static_cast<double>(n - j) / static_cast<double>(j + 1);
  }
  if (k == 0)
    return Status::InvalidArgument(fmt::format(
        "{} pairs are too few for a {:g}% interval of the median ratio (2^-n must be <= {:g})", n, confidence * 100,
        tail));
  std::vector<double> sorted = r.ratios;
  std::sort(sorted.begin(), sorted.end());
  r.median = Summarize(sorted).median;
  r.lo = sorted[k - 1];
  r.hi = sorted[n - k];
  double below = 0;  // P(Bin(n, 1/2) < k)
  term = std::ldexp(1.0, -static_cast<int>(n));
  for (size_t j = 0; j < k; ++j) {
    below += term;
    term = term * static_cast<double>(n - j) / static_cast<double>(j + 1);
  }
  r.coverage = 1 - 2 * below;
  r.significant = r.lo > 1 || r.hi < 1;
  return r;
}

StatusOr<WelchResult> WelchTest(std::span<const double> a, std::span<const double> b, double confidence) {
  if (a.size() < 2 || b.size() < 2)
    return Status::InvalidArgument(
        fmt::format("Welch's t-test needs at least 2 samples per side; got {} and {}", a.size(), b.size()));
  if (!(confidence > 0 && confidence < 1))
    return Status::InvalidArgument(fmt::format("confidence must be in (0, 1); got {}", confidence));
  WelchResult r;
  r.a = Summarize(a);
  r.b = Summarize(b);
  if (!(r.a.mean > 0)) return Status::InvalidArgument("Welch's t-test: the baseline mean must be positive");
  const double na = static_cast<double>(r.a.n), nb = static_cast<double>(r.b.n);
  const double va = r.a.stddev * r.a.stddev / na, vb = r.b.stddev * r.b.stddev / nb;
  r.diff = r.b.mean - r.a.mean;
  r.std_error = std::sqrt(va + vb);
  r.rel_diff = r.diff / r.a.mean;
  if (r.std_error == 0) {
    // Both samples constant: any difference is certain, none is none.
    r.df = na + nb - 2;
    r.significant = r.diff != 0;
    r.p_value = r.significant ? 0 : 1;
    return r;
  }
  r.df = (va + vb) * (va + vb) / (va * va / (na - 1) + vb * vb / (nb - 1));
  r.t = r.diff / r.std_error;
  boost::math::students_t dist(r.df);
  r.p_value = 2 * boost::math::cdf(boost::math::complement(dist, std::fabs(r.t)));
  r.half_width = boost::math::quantile(dist, (1 + confidence) / 2) * r.std_error;
  r.rel_half_width = r.half_width / r.a.mean;
  r.significant = std::fabs(r.diff) > r.half_width;
  return r;
}

StatusOr<RatioTest> LogRatioTest(std::span<const double> a, std::span<const double> b, double confidence) {
  std::vector<double> la, lb;
  for (auto [in, out] : {std::pair{a, &la}, std::pair{b, &lb}})
    for (double x : in) {
      if (!(x > 0) || !std::isfinite(x))
        return Status::InvalidArgument(fmt::format("the ratio scale needs positive values; got {}", x));
      out->push_back(std::log(x));
    }
  auto w = WelchTest(la, lb, confidence);
  if (!w.ok()) return w.status();
  RatioTest r;
  r.log = *w;
  r.ratio = std::exp(r.log.diff);
  r.lo = std::exp(r.log.diff - r.log.half_width);
  r.hi = std::exp(r.log.diff + r.log.half_width);
  r.provable = std::exp(r.log.half_width);
  r.significant = r.log.significant;
  return r;
}

size_t SamplesToProve(double effect, double sd_a, double sd_b, double confidence, double power, size_t limit) {
  effect = std::fabs(effect);
  const double va = sd_a * sd_a, vb = sd_b * sd_b;
  if (!(effect > 0) || limit < 2) return 0;
  if (va + vb == 0) return 2;  // no spread: any difference is certain
  auto proven = [&](size_t n) {
    const double nn = static_cast<double>(n);
    const double df = (nn - 1) * (va + vb) * (va + vb) / (va * va + vb * vb);
    return effect >= (StudentTQuantile((1 + confidence) / 2, df) + StudentTQuantile(power, df)) * std::sqrt((va + vb) / nn);
  };
  // The bound falls as n grows (smaller se, more df): double, then bisect.
  size_t hi = 2;
  while (!proven(hi)) {
    if (hi >= limit) return 0;
    hi = std::min(hi * 2, limit);
  }
  size_t lo = hi / 2;  // not proven (or below 2)
  if (lo < 2) return hi;
  while (hi - lo > 1) {
    size_t mid = lo + (hi - lo) / 2;
    (proven(mid) ? hi : lo) = mid;
  }
  return hi;
}

double TwoSampleTPower(double effect, size_t n_per_side, double confidence) {
  const double n = static_cast<double>(n_per_side);
  const double df = 2 * n - 2;
  const double crit = StudentTQuantile((1 + confidence) / 2, df);
  boost::math::non_central_t dist(df, effect * std::sqrt(n / 2));
  return boost::math::cdf(boost::math::complement(dist, crit)) + boost::math::cdf(dist, -crit);
}

StatusOr<PercentileDiff> BootstrapPercentileDiff(const LatencyRuns& a, const LatencyRuns& b, double p,
                                                 double confidence, uint64_t seed, int replicates) {
  if (!(confidence > 0 && confidence < 1) || replicates < 100 || !(p > 0 && p <= 100))
    return Status::InvalidArgument(
        fmt::format("bootstrap: bad parameters (p {}, confidence {}, replicates {})", p, confidence, replicates));
  const bool by_runs = a.runs.size() >= 2 && b.runs.size() >= 2;
  SideResampler ra(a, by_runs), rb(b, by_runs);
  if (ra.observations() == 0 || rb.observations() == 0)
    return Status::InvalidArgument("bootstrap: a side has no latency observations");
  PercentileDiff d;
  d.resampled_runs = by_runs;
  d.a = ra.Observed(p);
  d.b = rb.Observed(p);
  if (!(d.a > 0)) return Status::InvalidArgument(fmt::format("bootstrap: the baseline's p{} is 0 ns", p));
  d.rel_diff = d.b / d.a - 1;
  std::mt19937_64 rng(seed);
  std::vector<double> rel(static_cast<size_t>(replicates));
  for (double& x : rel) {
    // A replicate of A may land on a 0 ns bucket; 1 ns keeps the ratio finite.
    double va = std::max(ra.Draw(p, rng), 1.0);
    x = rb.Draw(p, rng) / va - 1;
  }
  std::sort(rel.begin(), rel.end());
  d.rel_lo = SortedQuantile(rel, (1 - confidence) / 2);
  d.rel_hi = SortedQuantile(rel, (1 + confidence) / 2);
  d.significant = d.rel_lo > 0 || d.rel_hi < 0;
  return d;
}

StatusOr<PercentileInterval> BootstrapPercentile(const LatencyRuns& side, double p, double confidence, uint64_t seed,
                                                 int replicates) {
  if (!(confidence > 0 && confidence < 1) || replicates < 100 || !(p > 0 && p <= 100))
    return Status::InvalidArgument(
        fmt::format("bootstrap: bad parameters (p {}, confidence {}, replicates {})", p, confidence, replicates));
  PercentileInterval out;
  out.resampled_runs = side.runs.size() >= 2;
  SideResampler r(side, out.resampled_runs);
  if (r.observations() == 0) return Status::InvalidArgument("bootstrap: no latency observations");
  out.value = r.Observed(p);
  const PercentileInterval ops = OrderStatisticInterval(r.grid(), p, confidence);
  if (!out.resampled_runs) {
    out = ops;
  } else {
    // Whole runs resampled; no resampling reaches a bound the pooled ops cannot give.
    const std::vector<double> draws = SortedDraws(r, p, seed, replicates);
    out.lo = SortedQuantile(draws, (1 - confidence) / 2);
    out.hi = SortedQuantile(draws, (1 + confidence) / 2);
    out.upper = SortedQuantile(draws, confidence);
    out.ci_bounded = ops.ci_bounded;
    out.upper_bounded = ops.upper_bounded;
    out.unbounded_reason = ops.unbounded_reason;
  }
  ClampToPossible(r.grid(), side.ceiling, &out);
  return out;
}

StatusOr<PercentileInterval> RunsPercentileBound(const LatencyRuns& side, double p, double confidence, uint64_t seed,
                                                 int replicates) {
  if (side.runs.size() < 2) return BootstrapPercentile(side, p, confidence, seed, replicates);
  if (!(confidence > 0 && confidence < 1) || replicates < 100 || !(p > 0 && p <= 100))
    return Status::InvalidArgument(
        fmt::format("bound: bad parameters (p {}, confidence {}, replicates {})", p, confidence, replicates));
  MixtureGrid grid(side);
  const size_t k = grid.runs();
  std::vector<uint32_t> weights(k, 1);
  if (grid.total(weights) == 0) return Status::InvalidArgument("bound: no latency observations");
  // The pooled ops' order-statistic interval: its ranks decide whether any bound exists.
  PercentileInterval out = OrderStatisticInterval(grid, p, confidence);
  out.resampled_runs = true;
  out.upper_ops = out.upper;
  // A prediction bound for the next run's percentile, on the log scale
  // (latency is skewed and positive): each run's own percentile, their mean
  // and spread, and Student's t with k − 1 degrees of freedom.
  std::vector<double> logs;
  for (size_t i = 0; i < k; ++i) {
    weights.assign(k, 0);
    weights[i] = 1;
    if (grid.total(weights) > 0) logs.push_back(std::log(std::max(grid.Percentile(weights, p), 1.0)));
  }
  const SampleSummary l = Summarize(logs);
  const double df = static_cast<double>(std::max<size_t>(l.n, 2) - 1);
  const double spread = l.stddev * std::sqrt(1 + 1 / static_cast<double>(std::max<size_t>(l.n, 1)));
  const double log_value = std::log(std::max(out.value, 1.0));
  out.upper_across_runs = std::exp(std::max(l.mean, log_value) + StudentTQuantile(confidence, df) * spread);
  const double half = StudentTQuantile((1 + confidence) / 2, df) * spread;
  out.lo = std::min(std::exp(log_value - half), out.lo);
  out.hi = std::max(std::exp(log_value + half), out.hi);
  out.upper = std::max(out.upper_across_runs, out.upper_ops);
  ClampToPossible(grid, side.ceiling, &out);
  return out;
}

OrderStatisticRanks PercentileBoundRanks(double p, uint64_t n, double confidence) {
  OrderStatisticRanks r;
  if (n == 0 || !(p > 0 && p <= 100) || !(confidence > 0 && confidence < 1)) return r;
  const boost::math::binomial_distribution<double> bin(static_cast<double>(n), std::min(p / 100, 1.0));
  // P(Bin(n, q) < rank): the chance that X_(rank) is at or above the true quantile.
  auto at_or_above = [&](uint64_t rank) { return boost::math::cdf(bin, static_cast<double>(rank - 1)); };
  // The smallest rank in [1, n] reaching `target`; 0 when even X_(n) does not.
  auto smallest = [&](double target) -> uint64_t {
    if (at_or_above(n) < target) return 0;
    uint64_t lo = 1, hi = n;
    while (lo < hi) {
      const uint64_t mid = lo + (hi - lo) / 2;
      if (at_or_above(mid) >= target) hi = mid;
      else lo = mid + 1;
    }
    return lo;
  };
  const double tail = (1 - confidence) / 2;
  r.upper = smallest(confidence);
  const uint64_t hi = smallest(1 - tail);
  // The lower end: the largest rank whose X_(rank) lies above the quantile with at most `tail`.
  if (hi == 0 || at_or_above(1) > tail) return r;
  uint64_t lo = 1, top = n;
  while (lo < top) {
    const uint64_t mid = lo + (top - lo + 1) / 2;
    if (at_or_above(mid) <= tail) lo = mid;
    else top = mid - 1;
  }
  r.lo = lo;
  r.hi = hi;
  return r;
}

}  // namespace storebench::report
