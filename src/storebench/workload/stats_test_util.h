// Goodness-of-fit helpers shared by the workload tests: chi-square against
// expected bin probabilities and Kolmogorov–Smirnov against a CDF, each at a
// small significance level. Seeds are fixed, so a passing test stays passing.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <vector>

#include <gtest/gtest.h>

namespace storebench::workload::testing {

inline constexpr double kAlpha = 1e-3;

// Upper (1 − alpha) quantile of chi-square with k degrees of freedom (Wilson–Hilferty).
inline double ChiSquareCritical(double k, double alpha = kAlpha) {
  // z for the one-sided tail alpha, by bisection on the normal CDF.
  double lo = 0, hi = 10;
  for (int i = 0; i < 100; ++i) {
    const double mid = (lo + hi) / 2;
    (0.5 * std::erfc(mid / std::sqrt(2.0)) > alpha ? lo : hi) = mid;
  }
  const double z = lo;
  const double t = 1 - 2 / (9 * k) + z * std::sqrt(2 / (9 * k));
  return k * t * t * t;
}

// Asserts that `observed` counts fit probabilities `probs` (same length, summing
// to ~1). Adjacent bins are merged until each expects ≥ 5 draws.
inline void ExpectChiSquareFit(const std::vector<uint64_t>& observed, const std::vector<double>& probs,
                               const char* what) {
  ASSERT_EQ(observed.size(), probs.size()) << what;
  double n = 0;
  for (uint64_t o : observed) n += static_cast<double>(o);
  double stat = 0;
  int bins = 0;
  double obs_acc = 0, exp_acc = 0;
  for (size_t i = 0; i < observed.size(); ++i) {
    obs_acc += static_cast<double>(observed[i]);
    exp_acc += probs[i] * n;
    const bool last = i + 1 == observed.size();
    if (exp_acc >= 5 || last) {
      if (exp_acc > 0) {
        stat += (obs_acc - exp_acc) * (obs_acc - exp_acc) / exp_acc;
        ++bins;
      } else {
        EXPECT_EQ(obs_acc, 0) << what << ": draws in a bin of probability 0";
      }
      obs_acc = exp_acc = 0;
    }
  }
  ASSERT_GE(bins, 2) << what;
  EXPECT_LT(stat, ChiSquareCritical(bins - 1)) << what << ": chi-square " << stat << " over " << bins << " bins";
}

// Kolmogorov–Smirnov critical distance for n samples at level alpha (asymptotic).
inline double KsCritical(double n, double alpha = kAlpha) { return std::sqrt(-std::log(alpha / 2) / 2) / std::sqrt(n); }

// Asserts that continuous `samples` follow `cdf` (KS, two-sided).
inline void ExpectKsFit(std::vector<double> samples, const std::function<double(double)>& cdf, const char* what) {
  std::sort(samples.begin(), samples.end());
  const double n = static_cast<double>(samples.size());
  double d = 0;
  for (size_t i = 0; i < samples.size(); ++i) {
    const double f = cdf(samples[i]);
    d = std::max({d, static_cast<double>(i + 1) / n - f, f - static_cast<double>(i) / n});
  }
  EXPECT_LT(d, KsCritical(n)) << what << ": KS distance " << d;
}

// Asserts that integer `samples` follow a discrete CDF evaluated at `points`
// (KS over those points; conservative for discrete laws).
inline void ExpectDiscreteKsFit(std::vector<uint64_t> samples, const std::vector<uint64_t>& points,
                                const std::function<double(uint64_t)>& cdf, const char* what) {
  std::sort(samples.begin(), samples.end());
  const double n = static_cast<double>(samples.size());
  double d = 0;
  uint64_t worst = 0;
  for (uint64_t x : points) {
    const auto below = std::upper_bound(samples.begin(), samples.end(), x) - samples.begin();
    const double diff = std::abs(static_cast<double>(below) / n - cdf(x));
    if (diff > d) {
      d = diff;
      worst = x;
    }
  }
  EXPECT_LT(d, KsCritical(n)) << what << ": KS distance " << d << " at " << worst;
}

}  // namespace storebench::workload::testing
