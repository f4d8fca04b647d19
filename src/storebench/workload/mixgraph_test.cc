#include "storebench/workload/mixgraph.h"

#include <cmath>
#include <functional>
#include <map>
#include <random>
#include <vector>

#include <gtest/gtest.h>

#include "storebench/workload/random.h"
#include "storebench/workload/stats_test_util.h"

namespace storebench::workload {
namespace {

using testing::ExpectChiSquareFit;
using testing::ExpectDiscreteKsFit;

// RocksDB PR 5953's published example (num 5e6 in the PR).
MixgraphConfig Pr5953() {
  MixgraphConfig c;
  c.key_dist_a = 0.002312;
  c.key_dist_b = 0.3467;
  c.keyrange_dist_a = 14.18;
  c.keyrange_dist_b = -2.917;
  c.keyrange_dist_c = 0.0164;
  c.keyrange_dist_d = -0.08082;
  c.keyrange_num = 30;
  c.mix_get_ratio = 0.85;
  c.mix_put_ratio = 0.14;
  c.mix_seek_ratio = 0.01;
  c.sine_a = 350;
  c.sine_b = 0.0105;
  c.sine_d = 50000;
  return c;
}

Mixgraph MustCreate(const MixgraphConfig& c, uint64_t num) {
  StatusOr<Mixgraph> m = Mixgraph::Create(c, num);
  EXPECT_TRUE(m.ok()) << m.status().ToString();
  return m.ok() ? *m : Mixgraph();
}

// P(ceil(G) ≤ x) for the generalized Pareto G = θ + σ(u^−k − 1)/k, u uniform.
double GpdCdf(double x, double theta, double k, double sigma) {
  if (x < theta) return 0;
  if (k == 0) return 1 - std::exp(-(x - theta) / sigma);
  return 1 - std::pow(1 + k * (x - theta) / sigma, -1 / k);
}

TEST(MixgraphTest, ThresholdsMatchDbBench) {
  MixgraphConfig c;
  EXPECT_EQ(MustCreate(c, 100).thresholds(), (std::array<int64_t, 3>{1000, 1000, 1000}));
  c = Pr5953();
  EXPECT_EQ(MustCreate(c, 100).thresholds(), (std::array<int64_t, 3>{850, 990, 1000}));
  c.mix_get_ratio = 0.7, c.mix_put_ratio = 0.25, c.mix_seek_ratio = 0.05;  // PR 4788
  EXPECT_EQ(MustCreate(c, 100).thresholds(), (std::array<int64_t, 3>{700, 950, 1000}));
  c.mix_get_ratio = c.mix_put_ratio = c.mix_seek_ratio = 1;  // ceil(333.3) each: T_last = 1002
  EXPECT_EQ(MustCreate(c, 100).thresholds(), (std::array<int64_t, 3>{334, 668, 1002}));
}

TEST(MixgraphTest, OpTypeProportionsFollowThresholds) {
  const Mixgraph m = MustCreate(Pr5953(), 5'000'000);
  Random rng(31);
  std::vector<uint64_t> counts(3);
  for (int i = 0; i < 300'000; ++i) ++counts[static_cast<size_t>(m.Next(rng).type)];
  ExpectChiSquareFit(counts, {0.85, 0.14, 0.01}, "op types 0.85/0.14/0.01");
  EXPECT_DOUBLE_EQ(m.read_fraction(), 0.86);
}

TEST(MixgraphTest, KeyRangeSlotsFollowHotnessFormula) {
  const MixgraphConfig c = Pr5953();
  const Mixgraph m = MustCreate(c, 5'000'000);
  ASSERT_TRUE(m.uses_key_ranges());
  // Independent computation of db_bench's slots, in its order x = 30 … 1.
  std::vector<int64_t> expected;
  int64_t amplify = 0;
  for (int x = 30; x >= 1; --x) {
    double p = c.keyrange_dist_a * std::exp(c.keyrange_dist_b * x) + c.keyrange_dist_c * std::exp(c.keyrange_dist_d * x);
    if (p < 1e-16) p = 0;
    if (amplify == 0 && p > 0) amplify = static_cast<int64_t>(std::floor(1 / p)) + 1;
    expected.push_back(p > 0 ? static_cast<int64_t>(std::floor(amplify * p)) : 0);
  }
  std::vector<int64_t> got = m.KeyRangeSlots();
  int64_t total = 0;
  for (int64_t s : expected) total += s;
  EXPECT_EQ(m.key_range_slot_total(), total);
  // The shuffle is db_bench's: swap(i, mt19937_64(total)() mod 30) for i = 0 … 29.
  std::mt19937_64 shuffle(static_cast<uint64_t>(total));
  for (size_t i = 0; i < expected.size(); ++i) std::swap(expected[i], expected[shuffle() % expected.size()]);
  EXPECT_EQ(got, expected);
}

TEST(MixgraphTest, KeyRangeSelectionFrequenciesFollowSlots) {
  const Mixgraph m = MustCreate(Pr5953(), 5'000'000);
  const std::vector<int64_t> slots = m.KeyRangeSlots();
  Random rng(32);
  std::vector<uint64_t> counts(slots.size());
  const auto size = static_cast<uint64_t>(m.key_range_size());
  for (int i = 0; i < 200'000; ++i) {
    const MixgraphOp op = m.Next(rng);
    ASSERT_LT(op.key, size * slots.size());
    ++counts[op.key / size];
  }
  std::vector<double> probs;
  for (int64_t s : slots) probs.push_back(static_cast<double>(s) / static_cast<double>(m.key_range_slot_total()));
  ExpectChiSquareFit(counts, probs, "key-range selection vs slots");
}

TEST(MixgraphTest, KeysInsideRangesUseThePowerModelOnTheRangeOffset) {
  const Mixgraph m = MustCreate(Pr5953(), 5'000'000);
  const auto size = static_cast<uint64_t>(m.key_range_size());
  const std::vector<int64_t> slots = m.KeyRangeSlots();
  Random rng(33);
  for (int i = 0; i < 2000; ++i) {
    const uint64_t ini = rng.Uniform(5'000'000);
    const uint64_t slot = ini % static_cast<uint64_t>(m.key_range_slot_total());
    uint64_t range = 0;
    for (uint64_t acc = 0; range < slots.size(); ++range) {
      acc += static_cast<uint64_t>(slots[range]);
      if (slot < acc) break;
    }
    const double u = static_cast<double>(ini % size) / static_cast<double>(size);
    std::mt19937_64 key_gen(static_cast<uint64_t>(std::ceil(std::pow(u / 0.002312, 1 / 0.3467))));
    ASSERT_EQ(m.Key(ini), size * range + key_gen() % size) << ini;
  }
}

TEST(MixgraphTest, FirstMt19937OutputMatchesStandardEngine) {
  Random rng(34);
  std::vector<uint64_t> seeds{0, 1, 5489, 1ull << 63, ~0ull};
  for (int i = 0; i < 500; ++i) seeds.push_back(rng.Next());
  for (uint64_t seed : seeds) {
    std::mt19937_64 engine(seed);
    ASSERT_EQ(Mt19937_64FirstOutput(seed), engine()) << seed;
  }
}

TEST(MixgraphTest, PowerModelSeedsFollowInverseCdf) {
  MixgraphConfig c = Pr5953();
  c.keyrange_dist_a = c.keyrange_dist_b = c.keyrange_dist_c = c.keyrange_dist_d = 0;
  const uint64_t num = 1ull << 30;
  const Mixgraph m = MustCreate(c, num);
  // P(seed ≤ s) = P(u ≤ a·s^b): bins [2^j, 2^(j+1)) of seeds.
  const double a = c.key_dist_a, b = c.key_dist_b;
  auto cdf = [&](double s) { return s < 1 ? 0.0 : std::min(1.0, a * std::pow(s, b)); };
  std::vector<double> probs;
  for (int j = 0; j < 40; ++j) probs.push_back(cdf(std::ldexp(1.0, j + 1) - 1) - cdf(std::ldexp(1.0, j) - 1));
  Random rng(35);
  std::vector<uint64_t> counts(probs.size());
  for (int i = 0; i < 200'000; ++i) {
    const uint64_t ini = rng.Uniform(num);
    const uint64_t seed = m.PowerSeed(static_cast<double>(ini) / static_cast<double>(num));
    if (seed == 0) continue;  // u = 0 exactly: probability 2^-30
    ++counts[static_cast<size_t>(std::ilogb(static_cast<double>(seed)))];
    std::mt19937_64 key_gen(seed);
    ASSERT_EQ(m.Key(ini), key_gen() % num);
  }
  ExpectChiSquareFit(counts, probs, "power-model seeds");
}

TEST(MixgraphTest, PowerModelKeyDistribution) {
  // a = 0.1, b = 0.5: seeds 1 … 100 with P(seed = s) = a(√s − √(s−1)),
  // each mapped to one key by mt19937_64(seed)() mod num.
  MixgraphConfig c;
  c.key_dist_a = 0.1;
  c.key_dist_b = 0.5;
  const uint64_t num = 1'000'000;
  const Mixgraph m = MustCreate(c, num);
  std::map<uint64_t, double> expected;
  for (int s = 1; s <= 100; ++s) {
    std::mt19937_64 key_gen(static_cast<uint64_t>(s));
    expected[key_gen() % num] += 0.1 * (std::sqrt(s) - std::sqrt(s - 1));
  }
  std::map<uint64_t, size_t> index;
  for (const auto& [key, p] : expected) index.emplace(key, index.size());
  std::vector<uint64_t> counts(index.size() + 1);  // last bin: any other key (must stay empty)
  Random rng(36);
  for (int i = 0; i < 200'000; ++i) {
    const auto it = index.find(m.Next(rng).key);
    ++counts[it == index.end() ? index.size() : it->second];
  }
  std::vector<double> probs;
  for (const auto& [key, p] : expected) probs.push_back(p);
  probs.push_back(0);
  EXPECT_LE(counts.back(), 1u);  // only u = 0 (seed 0) escapes: probability 1e-6
  counts.back() = 0;
  ExpectChiSquareFit(counts, probs, "power-model keys");
}

TEST(MixgraphTest, UniformKeysWhenKeyDistIsZeroEvenWithRanges) {
  MixgraphConfig c = Pr5953();
  c.key_dist_a = 0;
  const Mixgraph m = MustCreate(c, 1000);
  EXPECT_FALSE(m.uses_key_ranges());
  for (uint64_t r : {0ull, 7ull, 999ull, 123456789ull}) EXPECT_EQ(m.Draw(r).key, r % 1000);
}

// Σ_{j = from … periods−1} P(ceil(G) ∈ [j·max, j·max + x]) for G with CDF f, plus
// the mass beyond the last period spread uniformly over the residues mod max.
double WrappedMass(const std::function<double(double)>& f, double x, double max, int from, int periods) {
  double p = 0;
  for (int j = from; j < periods; ++j) p += f(j * max + x) - f(j * max - 1);
  return p + (1 - f(periods * max - 1)) * (x + 1) / max;
}

// 100,000 ops of a single type from a model over 2^30 keys.
std::vector<MixgraphOp> DrawOps(const MixgraphConfig& c, MixgraphOpType type, uint64_t seed) {
  const Mixgraph m = MustCreate(c, 1ull << 30);
  Random rng(seed);
  std::vector<MixgraphOp> ops(100'000);
  for (MixgraphOp& op : ops) {
    op = m.Next(rng);
    EXPECT_EQ(op.type, type);
  }
  return ops;
}

// P(V ≤ x) of db_bench's value size V: ceil(G) < 10 → 10, > max → mod max.
double ValueSizeCdf(uint64_t x, const MixgraphConfig& c, int64_t max) {
  auto f = [&](double v) { return GpdCdf(v, c.value_theta, c.value_k, c.value_sigma); };
  const double xd = static_cast<double>(x), md = static_cast<double>(max);
  return (x >= 10 ? f(xd) : 0) + f(md + xd) - f(md) + WrappedMass(f, xd, md, 2, 20000);
}

void CheckValueSizes(const MixgraphConfig& c, const char* what) {
  const int64_t max = std::min<int64_t>(c.mix_max_value_size, 1 << 20);
  std::vector<uint64_t> sizes;
  for (const MixgraphOp& op : DrawOps(c, MixgraphOpType::kPut, 37)) {
    ASSERT_LE(op.value_size, static_cast<uint64_t>(max));
    sizes.push_back(op.value_size);
  }
  std::vector<uint64_t> points;
  for (uint64_t x = 0; x <= static_cast<uint64_t>(max); x += x < 64 ? 1 : 16) points.push_back(x);
  ExpectDiscreteKsFit(sizes, points, [&](uint64_t x) { return ValueSizeCdf(x, c, max); }, what);
}

TEST(MixgraphTest, ValueSizesFollowGeneralizedParetoWithClamps) {
  MixgraphConfig c;
  c.mix_get_ratio = 0;
  c.mix_put_ratio = 1;
  CheckValueSizes(c, "value size, defaults (k 0.2615, sigma 25.45)");
  c.value_k = 0.9233;  // PR 4788: a heavy tail, much of it wrapped mod 1024
  c.value_sigma = 226.4092;
  CheckValueSizes(c, "value size, PR 4788 (k 0.9233, sigma 226.4)");
  c.value_k = 0;  // the exponential case θ − σ·ln(u)
  c.value_theta = 5;
  c.value_sigma = 300;
  CheckValueSizes(c, "value size, k = 0");
}

TEST(MixgraphTest, ValueSizeEdgeCases) {
  MixgraphConfig c;
  const Mixgraph m = MustCreate(c, 100);
  EXPECT_EQ(m.ValueSize(0.0), 10u);     // u = 0 overflows in db_bench: INT64_MIN → clamped to 10
  EXPECT_EQ(m.ValueSize(0.999), 10u);   // small sizes clamp up to 10
  const auto big = static_cast<int64_t>(std::ceil(25.45 * (std::pow(1e-9, -0.2615) - 1) / 0.2615));
  EXPECT_EQ(m.ValueSize(1e-9), static_cast<uint64_t>(big % 1024));  // ≈ 21,900 > 1024: wraps
  c.mix_max_value_size = 1000;
  const Mixgraph m2 = MustCreate(c, 100);
  const double u = std::pow(1 + 0.2615 * (1500 - 0.5) / 25.45, -1 / 0.2615);  // G ≈ 1499.5
  EXPECT_EQ(m2.ValueSize(u), 500u);     // 1500 mod 1000
}

TEST(MixgraphTest, ScanLengthsFollowGeneralizedParetoModMaxScanLen) {
  MixgraphConfig c;
  c.mix_get_ratio = 0;
  c.mix_seek_ratio = 1;
  const double max = static_cast<double>(c.mix_max_scan_len);
  auto f = [&](double v) { return v < 0 ? 0.0 : GpdCdf(v, c.iter_theta, c.iter_k, c.iter_sigma); };
  auto cdf = [&](uint64_t x) { return WrappedMass(f, static_cast<double>(x), max, 0, 10000); };
  std::vector<uint64_t> lengths;
  for (const MixgraphOp& op : DrawOps(c, MixgraphOpType::kSeek, 38)) {
    ASSERT_LT(op.scan_length, static_cast<uint64_t>(max));
    EXPECT_EQ(op.value_size, 0u);
    lengths.push_back(op.scan_length);
  }
  std::vector<uint64_t> points;
  for (uint64_t x = 0; x < 10000; x += x < 50 ? 1 : (x < 1000 ? 50 : 500)) points.push_back(x);
  ExpectDiscreteKsFit(lengths, points, cdf, "scan length (k 2.517, sigma 14.236, mod 10000)");
  EXPECT_EQ(MustCreate(c, 100).ScanLength(0.0), 0u);  // db_bench's INT64_MIN % max is negative: no Next() calls
}

TEST(MixgraphTest, SineRateAndNoise) {
  MixgraphConfig c = Pr5953();
  c.sine_mix_rate_noise = 0.5;
  const Mixgraph m = MustCreate(c, 100);
  EXPECT_DOUBLE_EQ(m.SineRate(0), 50000);
  EXPECT_DOUBLE_EQ(m.SineRate(100), 350 * std::sin(1.05) + 50000);
  Random rng(39);
  for (int i = 0; i < 1000; ++i) {
    const double noisy = m.AddNoise(50000, rng.Next());
    ASSERT_GE(noisy, 50000 - 175 * 0.5);
    ASSERT_LE(noisy, 50000 + 174 * 0.5);
  }
  EXPECT_DOUBLE_EQ(m.AddNoise(50000, 0), 50000 - 87.5);
  EXPECT_DOUBLE_EQ(m.AddNoise(10, 0), 10);  // would go negative: unchanged, as db_bench
  EXPECT_DOUBLE_EQ(MustCreate(MixgraphConfig{}, 1).SineRate(0), 1);
}

TEST(MixgraphTest, DrawIsAPureFunctionOfTheDraw) {
  const Mixgraph m = MustCreate(Pr5953(), 5'000'000);
  std::mt19937_64 a(7), b(7);
  for (int i = 0; i < 1000; ++i) {
    const MixgraphOp x = m.Next(a), y = m.Next(b);
    ASSERT_EQ(x.key, y.key);
    ASSERT_EQ(x.type, y.type);
    ASSERT_LT(x.key, 5'000'000u);
    if (x.type != MixgraphOpType::kPut) {
      ASSERT_EQ(x.value_size, 0u);
    }
    if (x.type != MixgraphOpType::kSeek) {
      ASSERT_EQ(x.scan_length, 0u);
    }
  }
}

TEST(MixgraphTest, RejectsBadConfigNamingTheFlag) {
  struct Case {
    std::function<void(MixgraphConfig&)> edit;
    uint64_t num;
    const char* flag;
  };
  const std::vector<Case> cases{
      {[](MixgraphConfig&) {}, 0, "--num"},
      {[](MixgraphConfig& c) { c.mix_get_ratio = 0; }, 10, "--mix_get_ratio"},
      {[](MixgraphConfig& c) { c.mix_put_ratio = -1; }, 10, "--mix_get_ratio"},
      {[](MixgraphConfig& c) { c.mix_max_scan_len = 0; }, 10, "--mix_max_scan_len"},
      {[](MixgraphConfig& c) { c.mix_max_value_size = 0; }, 10, "--mix_max_value_size"},
      {[](MixgraphConfig& c) { c.keyrange_num = 0; }, 10, "--keyrange_num"},
      {[](MixgraphConfig& c) { c.sine_mix_rate_noise = 2; }, 10, "--sine_mix_rate_noise"},
      {[](MixgraphConfig& c) { c.key_dist_a = -1, c.key_dist_b = 1; }, 10, "--key_dist_a"},
      {[](MixgraphConfig& c) { c = Pr5953(); }, 10, "--keyrange_num"},  // 30 ranges > 10 keys
      {[](MixgraphConfig& c) { c = Pr5953(), c.keyrange_dist_a = c.keyrange_dist_c = -1; }, 1000,
       "--keyrange_dist_a"},
  };
  for (const Case& k : cases) {
    MixgraphConfig c;
    k.edit(c);
    StatusOr<Mixgraph> m = Mixgraph::Create(c, k.num);
    ASSERT_FALSE(m.ok()) << k.flag;
    EXPECT_EQ(m.status().code(), Status::Code::kInvalidArgument);
    EXPECT_EQ(m.status().message().rfind(k.flag, 0), 0u) << m.status().message();
  }
}

}  // namespace
}  // namespace storebench::workload
