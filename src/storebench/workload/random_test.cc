#include "storebench/workload/random.h"

#include <cmath>
#include <random>
#include <vector>

#include <gtest/gtest.h>

#include "storebench/workload/stats_test_util.h"

namespace storebench::workload {
namespace {

using testing::ExpectChiSquareFit;
using testing::ExpectKsFit;

TEST(RandomTest, SameSeedSameStreamDifferentSeedDifferentStream) {
  Random a(42), b(42), c(43);
  bool differs = false;
  for (int i = 0; i < 100; ++i) {
    const uint64_t x = a.Next();
    EXPECT_EQ(x, b.Next());
    differs |= x != c.Next();
  }
  EXPECT_TRUE(differs);
  EXPECT_NE(Random::SeedFor(1, 0), Random::SeedFor(1, 1));
  EXPECT_EQ(Random::SeedFor(1, 7), Random::SeedFor(1, 7));
}

TEST(RandomTest, ZeroSeedIsUsable) {
  Random r(0);
  EXPECT_NE(r.Next(), 0u);
  EXPECT_NE(r.Next(), r.Next());
}

TEST(RandomTest, NextDoubleIsUniformOnUnitInterval) {
  Random r(1);
  std::vector<double> xs(100000);
  for (double& x : xs) {
    x = r.NextDouble();
    ASSERT_GE(x, 0.0);
    ASSERT_LT(x, 1.0);
  }
  ExpectKsFit(xs, [](double x) { return x; }, "NextDouble");
}

TEST(RandomTest, UniformIsUnbiasedForSmallAndAwkwardBounds) {
  Random r(2);
  for (uint64_t n : {1ull, 3ull, 7ull, 1000ull}) {
    std::vector<uint64_t> counts(n);
    for (int i = 0; i < 200000; ++i) {
      const uint64_t v = r.Uniform(n);
      ASSERT_LT(v, n);
      ++counts[v];
    }
    if (n > 1) ExpectChiSquareFit(counts, std::vector<double>(n, 1.0 / static_cast<double>(n)), "Uniform(n)");
  }
  EXPECT_EQ(r.Uniform(0), 0u);
}

TEST(RandomTest, UniformNearTwoToThe63StaysInRangeAndBalanced) {
  // n = 3·2^62: a plain Next() % n would land in the lower half [0, n/2) 62.5%
  // of the time; without bias both halves get 50%.
  Random r(3);
  const uint64_t n = (1ull << 63) + (1ull << 62);
  std::vector<uint64_t> halves(2);
  for (int i = 0; i < 100000; ++i) {
    const uint64_t v = r.Uniform(n);
    ASSERT_LT(v, n);
    ++halves[v < n / 2 ? 0 : 1];
  }
  ExpectChiSquareFit(halves, {0.5, 0.5}, "Uniform(3·2^62) halves");
}

TEST(RandomTest, ExponentialFollowsItsCdf) {
  Random r(4);
  const double mean = 2.5;
  std::vector<double> xs(100000);
  for (double& x : xs) {
    x = r.Exponential(mean);
    ASSERT_TRUE(std::isfinite(x));
    ASSERT_GE(x, 0.0);
  }
  ExpectKsFit(xs, [mean](double x) { return 1 - std::exp(-x / mean); }, "Exponential(2.5)");
}

TEST(RandomTest, WorksWithStandardDistributions) {
  Random r(5);
  std::uniform_int_distribution<int> d(1, 6);
  for (int i = 0; i < 100; ++i) {
    const int v = d(r);
    ASSERT_GE(v, 1);
    ASSERT_LE(v, 6);
  }
}

}  // namespace
}  // namespace storebench::workload
