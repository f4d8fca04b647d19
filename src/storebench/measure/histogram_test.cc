#include "storebench/measure/histogram.h"

#include "storebench/measure/base64.h"

#include <cstring>
#include <gtest/gtest.h>
#include <sys/resource.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <random>
#include <string>
#include <vector>

namespace storebench::measure {
namespace {

__extension__ using u128 = unsigned __int128;

// The exact p-th percentile of a sorted sample, with the same rank rule as the histogram.
uint64_t ExactPercentile(const std::vector<uint64_t>& sorted, double p) {
  return sorted[PercentileRank(p, sorted.size()) - 1];
}

void CheckAccuracy(int digits, const std::vector<uint64_t>& values) {
  Histogram h({digits, 3'600'000'000'000});
  for (uint64_t v : values) h.Record(v);
  std::vector<uint64_t> sorted = values;
  std::sort(sorted.begin(), sorted.end());
  const double tolerance = std::pow(10.0, -digits);
  ASSERT_LE(h.relative_precision(), tolerance);
  for (double p : {0.0, 1.0, 10.0, 25.0, 50.0, 75.0, 90.0, 99.0, 99.5, 99.9, 99.99, 99.999, 100.0}) {
    uint64_t exact = ExactPercentile(sorted, p);
    uint64_t got = h.ValueAtPercentile(p);
    double err = std::fabs(static_cast<double>(got) - static_cast<double>(exact)) / static_cast<double>(exact);
    EXPECT_LE(err, tolerance) << "digits=" << digits << " p=" << p << " exact=" << exact << " got=" << got;
  }
  EXPECT_EQ(h.min(), sorted.front());
  EXPECT_EQ(h.max(), sorted.back());
  EXPECT_EQ(h.count(), values.size());
  double sum = 0;
  for (uint64_t v : values) sum += static_cast<double>(v);
  EXPECT_NEAR(h.mean(), sum / static_cast<double>(values.size()), 1e-6 * h.mean());
}

TEST(Histogram, PercentilesWithinStatedPrecisionLogNormal) {
  std::mt19937_64 rng(42);
  std::lognormal_distribution<double> dist(10.0, 2.5);  // ns .. seconds
  std::vector<uint64_t> values;
  for (int i = 0; i < 200000; ++i) values.push_back(1 + static_cast<uint64_t>(std::min(dist(rng), 3.5e12)));
  for (int digits : {1, 2, 3, 4}) CheckAccuracy(digits, values);
}

TEST(Histogram, PercentilesWithinStatedPrecisionUniformWideRange) {
  std::mt19937_64 rng(7);
  std::vector<uint64_t> values;
  for (int i = 0; i < 100000; ++i) {
    double e = std::uniform_real_distribution<double>(0, std::log(3.6e12))(rng);
    values.push_back(1 + static_cast<uint64_t>(std::exp(e)));
  }
  CheckAccuracy(3, values);
}

// ceil(t * n / 10^(d+2)) in integers: the rank of percentile t/10^d of n observations.
uint64_t IntegerRank(uint64_t t, int d, uint64_t n) {
  u128 den = 100;
  for (int i = 0; i < d; ++i) den *= 10;
  const u128 r = (static_cast<u128>(t) * n + den - 1) / den;
  return std::clamp<uint64_t>(static_cast<uint64_t>(r), 1, n);
}

TEST(Histogram, PercentileRankIsExactWherePTimesNIsWhole) {
  // The floating-point ceil(p / 100 * n) is 1000 here (999.0000000000001): the maximum.
  EXPECT_EQ(PercentileRank(99.9, 1000), 999u);
  EXPECT_EQ(PercentileRank(99.9, 10000), 9990u);
  EXPECT_EQ(PercentileRank(99.99, 10000), 9999u);
  EXPECT_EQ(PercentileRank(99.999, 100000), 99999u);
  EXPECT_EQ(PercentileRank(50, 10), 5u);
  EXPECT_EQ(PercentileRank(0.1, 1000), 1u);
  EXPECT_EQ(PercentileRank(50, UINT64_MAX), uint64_t{1} << 63);
  EXPECT_EQ(PercentileRank(99.9, 1'000'000'000'000'000), 999'000'000'000'000u);
  // Bounds: p <= 0 (and NaN) is the first observation, p >= 100 the last; no observations, rank 0.
  EXPECT_EQ(PercentileRank(0, 1000), 1u);
  EXPECT_EQ(PercentileRank(-5, 1000), 1u);
  EXPECT_EQ(PercentileRank(std::nan(""), 1000), 1u);
  EXPECT_EQ(PercentileRank(100, 1000), 1000u);
  EXPECT_EQ(PercentileRank(250, 1000), 1000u);
  EXPECT_EQ(PercentileRank(99.9, 0), 0u);
  EXPECT_EQ(PercentileRank(1e-300, 1000), 1u);
  // Every percentile with one decimal against every count to 2000, whole product or not:
  // t / 10.0 is the double nearest t/10, the one the text "99.9" reads as.
  for (uint64_t t = 1; t < 1000; ++t)
    for (uint64_t n = 1; n <= 2000; ++n)
      ASSERT_EQ(PercentileRank(static_cast<double>(t) / 10.0, n), IntegerRank(t, 1, n)) << "p=" << t / 10.0 << " n=" << n;
  // Three to five decimals over counts up to 10^12.
  std::mt19937_64 rng(30);
  for (int d : {3, 4, 5}) {
    const uint64_t scale = d == 3 ? 1000 : d == 4 ? 10000 : 100000;
    for (int i = 0; i < 200000; ++i) {
      const uint64_t t = std::uniform_int_distribution<uint64_t>(1, 100 * scale - 1)(rng);
      const uint64_t n = std::uniform_int_distribution<uint64_t>(1, 1'000'000'000'000)(rng);
      ASSERT_EQ(PercentileRank(static_cast<double>(t) / static_cast<double>(scale), n), IntegerRank(t, d, n))
          << "p=" << t << "e-" << d << " n=" << n;
    }
  }
}

TEST(Histogram, ThePercentileOfARoundCountIsNotTheMaximum) {
  Histogram h;  // 1..1000: unit-width buckets, so every value is exact
  for (uint64_t v = 1; v <= 1000; ++v) h.Record(v);
  EXPECT_EQ(h.ValueAtPercentile(99.9), 999u);
  EXPECT_EQ(h.ValueAtPercentile(99), 990u);
  EXPECT_EQ(h.ValueAtPercentile(50), 500u);
  EXPECT_EQ(h.ValueAtPercentile(100), 1000u);
}

TEST(Histogram, CoversOneHourWithoutSaturation) {
  Histogram h;
  h.Record(1);
  h.Record(3'600'000'000'000ull);  // one hour in ns
  EXPECT_EQ(h.saturated(), 0u);
  EXPECT_GE(h.highest_trackable(), 3'600'000'000'000ull);
  EXPECT_EQ(h.ValueAtPercentile(100), 3'600'000'000'000ull);
  EXPECT_EQ(h.ValueAtPercentile(0), 1u);
}

TEST(Histogram, ValuesBeyondRangeAreCountedNotDropped) {
  Histogram h({3, 1'000'000});
  h.Record(5);
  h.Record(10'000'000'000ull);
  EXPECT_EQ(h.count(), 2u);
  EXPECT_EQ(h.saturated(), 1u);
  EXPECT_EQ(h.max(), h.highest_trackable());
}

TEST(Histogram, SmallValuesExact) {
  Histogram h;
  for (uint64_t v = 0; v < 2048; ++v) h.Record(v);
  for (uint64_t v = 0; v < 2048; ++v) EXPECT_EQ(h.LowestEquivalent(v), v);
  EXPECT_EQ(h.ValueAtPercentile(50), 1023u);
}

TEST(Histogram, MergeEqualsRecordingEverything) {
  std::mt19937_64 rng(3);
  std::exponential_distribution<double> dist(1e-5);
  Histogram a, b, all;
  for (int i = 0; i < 50000; ++i) {
    uint64_t v = static_cast<uint64_t>(dist(rng));
    (i % 3 ? a : b).Record(v);
    all.Record(v);
  }
  ASSERT_TRUE(a.Merge(b).ok());
  EXPECT_EQ(a.count(), all.count());
  EXPECT_EQ(a.min(), all.min());
  EXPECT_EQ(a.max(), all.max());
  for (double p : {50.0, 90.0, 99.0, 99.9, 100.0}) EXPECT_EQ(a.ValueAtPercentile(p), all.ValueAtPercentile(p));
  EXPECT_EQ(a.Encode(), all.Encode());
}

TEST(Histogram, MergeRefusesOtherLayout) {
  Histogram a({3, 3'600'000'000'000}), b({2, 3'600'000'000'000});
  b.Record(10);
  EXPECT_FALSE(a.Merge(b).ok());
}

TEST(Histogram, ResetForgets) {
  Histogram h;
  h.Record(100);
  h.Reset();
  EXPECT_EQ(h.count(), 0u);
  EXPECT_EQ(h.max(), 0u);
  EXPECT_EQ(h.ValueAtPercentile(99), 0u);
}

TEST(Histogram, StddevNearExact) {
  Histogram h;
  std::mt19937_64 rng(9);
  std::normal_distribution<double> dist(1e6, 1e5);
  double s = 0, s2 = 0;
  const int n = 100000;
  for (int i = 0; i < n; ++i) {
    uint64_t v = static_cast<uint64_t>(std::max(1.0, dist(rng)));
    h.Record(v);
    s += static_cast<double>(v);
    s2 += static_cast<double>(v) * static_cast<double>(v);
  }
  double sd = std::sqrt(s2 / n - (s / n) * (s / n));
  EXPECT_NEAR(h.stddev(), sd, sd * 0.01);
}

TEST(Histogram, EncodeDecodeIsLossless) {
  std::mt19937_64 rng(11);
  std::lognormal_distribution<double> dist(8, 3);
  Histogram h;
  for (int i = 0; i < 30000; ++i) h.Record(static_cast<uint64_t>(dist(rng)), 1 + i % 3);
  std::string text = h.Encode();
  auto back = Histogram::Decode(text);
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_EQ(back->count(), h.count());
  EXPECT_EQ(back->min(), h.min());
  EXPECT_EQ(back->max(), h.max());
  EXPECT_DOUBLE_EQ(back->mean(), h.mean());
  EXPECT_EQ(back->Encode(), text);
  for (double p : {1.0, 50.0, 99.0, 99.99}) EXPECT_EQ(back->ValueAtPercentile(p), h.ValueAtPercentile(p));
  // Compact: far smaller than one decimal number per bucket.
  EXPECT_LT(text.size(), 20000u);
}

// The binary form merged into a histogram adds exactly what Merge() of the
// original adds: counts, min, max, sum, saturated; and it is smaller than the text.
TEST(Histogram, BinaryFormMergesAsTheHistogramItself) {
  std::mt19937_64 rng(12);
  std::lognormal_distribution<double> dist(9, 2.5);
  Histogram a, b;
  for (int i = 0; i < 30000; ++i) a.Record(static_cast<uint64_t>(dist(rng)), 1 + i % 3);
  for (int i = 0; i < 5000; ++i) b.Record(static_cast<uint64_t>(dist(rng)));
  b.Record(10'000'000'000'000);  // saturated
  std::string bytes;
  a.AppendBinary(&bytes);
  b.AppendBinary(&bytes);
  Histogram got, want;
  size_t pos = 0;
  ASSERT_TRUE(got.MergeBinary(bytes, &pos).ok());
  ASSERT_TRUE(got.MergeBinary(bytes, &pos).ok());
  EXPECT_EQ(pos, bytes.size());
  ASSERT_TRUE(want.Merge(a).ok());
  ASSERT_TRUE(want.Merge(b).ok());
  EXPECT_EQ(got.Encode(), want.Encode());  // every bucket, min, max, sum and saturated
  EXPECT_EQ(got.count(), a.count() + b.count());
  EXPECT_EQ(got.saturated(), 1u);
  std::string one;
  a.AppendBinary(&one);
  EXPECT_LT(one.size(), a.Encode().size());

  // Empty in, nothing added; and into a non-empty one.
  std::string empty;
  Histogram().AppendBinary(&empty);
  pos = 0;
  ASSERT_TRUE(got.MergeBinary(empty, &pos).ok());
  EXPECT_EQ(got.Encode(), want.Encode());
}

TEST(Histogram, BinaryFormRefusesOtherOptionsAndCorruptionWithoutChange) {
  Histogram h;
  for (uint64_t v = 1000; v <= 200000; v += 37) h.Record(v);
  std::string bytes;
  h.AppendBinary(&bytes);
  Histogram other({2, 3'600'000'000'000});
  size_t pos = 0;
  EXPECT_EQ(other.MergeBinary(bytes, &pos).code(), Status::Code::kInvalidArgument);
  Histogram into;
  into.Record(5);
  const std::string before = into.Encode();
  // Every truncation is refused, and leaves the histogram as it was.
  for (size_t n = 0; n < bytes.size(); ++n) {
    pos = 0;
    EXPECT_FALSE(into.MergeBinary(std::string_view(bytes).substr(0, n), &pos).ok()) << n;
    EXPECT_EQ(into.Encode(), before);
  }
  // Well-formed bytes that disagree with themselves: entries are counts
  // (positive) and runs of empty buckets (negative) from min's bucket to max's.
  auto message = [](uint64_t mn, uint64_t mx, std::vector<int64_t> entries) {
    std::string runs, m;
    for (int64_t e : entries) AppendZigZagVarint(&runs, e);
    for (uint64_t v : {uint64_t{3}, uint64_t{3'600'000'000'000}, mn, mx, uint64_t{0}, uint64_t{runs.size()}})
      AppendVarint(&m, v);
    const double sum = 2500.0;
    char raw[sizeof sum];
    std::memcpy(raw, &sum, sizeof sum);
    m.append(raw, sizeof raw);
    return m + runs;
  };
  Histogram shape;
  shape.Record(1000);
  shape.Record(1500);
  std::string good;
  shape.AppendBinary(&good);
  // The empty buckets between 1000's and 1500's, read from the real message
  // rather than assumed from the layout: header, sum, then count 1, run, count 1.
  size_t at = 0;
  uint64_t field = 0;
  for (int i = 0; i < 6; ++i) ASSERT_TRUE(ReadVarint(good, &at, &field));
  at += 8;
  int64_t one = 0, gap = 0;
  ASSERT_TRUE(ReadZigZagVarint(good, &at, &one) && ReadZigZagVarint(good, &at, &gap));
  ASSERT_EQ(one, 1);
  ASSERT_LT(gap, -1);
  EXPECT_EQ(message(1000, 1500, {1, gap, 1}), good) << "the hand-made form is the real one";
  for (const std::string& bad : {message(1000, 3000, {1, gap, 1}),          // max's bucket empty
                                 message(900, 1500, {1, gap, 1}),           // min's bucket empty
                                 message(1000, 1500, {-1, 1, gap + 1, 1}),  // a run first
                                 message(1000, 1500, {1, gap, 1, -1}),      // past max's bucket
                                 message(1000, 1500, {1, gap, 0, 1}),       // a zero entry
                                 message(1000, 1500, {1, gap, gap, 1}),     // two runs
                                 message(1500, 1000, {1, gap, 1})}) {       // min above max
    pos = 0;
    EXPECT_EQ(into.MergeBinary(bad, &pos).code(), Status::Code::kCorruption);
    EXPECT_EQ(into.Encode(), before);
  }
}

// MergeEncoded adds a histogram in Encode()'s form as Merge adds the
// decoded one, refuses another layout, and adds nothing from a corrupt text.
TEST(Histogram, MergeEncodedAddsAsMergeOfTheDecodedHistogram) {
  Histogram a, b, expected;
  for (uint64_t v = 1; v < 5'000'000; v = v * 3 / 2 + 7) a.Record(v), expected.Record(v);
  for (uint64_t v = 900; v < 90'000'000; v = v * 5 / 4 + 11) b.Record(v, 3), expected.Record(v, 3);
  Histogram into = a;
  ASSERT_TRUE(into.MergeEncoded(b.Encode()).ok());
  EXPECT_EQ(into.Encode(), expected.Encode());
  EXPECT_EQ(into.min(), expected.min());
  EXPECT_EQ(into.max(), expected.max());
  EXPECT_EQ(into.mean(), expected.mean());
  // Into an empty one after Reset: the same as Decode.
  into.Reset();
  ASSERT_TRUE(into.MergeEncoded(b.Encode()).ok());
  EXPECT_EQ(into.Encode(), Histogram::Decode(b.Encode())->Encode());
  ASSERT_TRUE(into.MergeEncoded(Histogram().Encode()).ok());  // an empty one adds nothing
  EXPECT_EQ(into.Encode(), b.Encode());
  const std::string before = into.Encode();
  EXPECT_EQ(into.MergeEncoded(Histogram({2, 3'600'000'000'000}).Encode()).code(), Status::Code::kInvalidArgument);
  std::string corrupt = b.Encode();
  corrupt.resize(corrupt.size() - 8);
  EXPECT_EQ(into.MergeEncoded(corrupt).code(), Status::Code::kCorruption);
  EXPECT_EQ(into.Encode(), before);
}

TEST(Histogram, EncodeEmpty) {
  Histogram h;
  auto back = Histogram::Decode(h.Encode());
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(back->count(), 0u);
}

TEST(Histogram, DecodeRejectsGarbage) {
  EXPECT_FALSE(Histogram::Decode("").ok());
  EXPECT_FALSE(Histogram::Decode("hlog1:3:100").ok());
  EXPECT_FALSE(Histogram::Decode("hlog2:3:3600000000000:0:0:0:0:").ok());
  EXPECT_FALSE(Histogram::Decode("hlog1:3:3600000000000:0:0:0:0:!!!!").ok());
  EXPECT_FALSE(Histogram::Decode("hlog1:9:3600000000000:0:0:0:0:").ok());
  // A valid payload for another layout overruns the bucket array.
  Histogram big({3, 3'600'000'000'000});
  big.Record(3'000'000'000'000);
  std::string text = big.Encode();
  std::string small = "hlog1:3:1000" + text.substr(text.find(':', 8));
  EXPECT_FALSE(Histogram::Decode(small).ok());
}

// Scans cover only the buckets between min and max: a decoded histogram whose
// min/max do not bound its buckets is refused rather than scanned wrongly.
TEST(Histogram, DecodeRejectsMinMaxThatDisagreeWithTheBuckets) {
  Histogram h;
  for (uint64_t v = 1000; v <= 2000; v += 10) h.Record(v);
  const std::string text = h.Encode();
  ASSERT_TRUE(Histogram::Decode(text).ok());
  auto with = [&](const std::string& min, const std::string& max) {
    // hlog1:digits:highest:min:max:sum:saturated:payload
    std::vector<std::string> f;
    size_t start = 0;
    for (int i = 0; i < 7; ++i) {
      size_t colon = text.find(':', start);
      f.push_back(text.substr(start, colon - start));
      start = colon + 1;
    }
    return f[0] + ":" + f[1] + ":" + f[2] + ":" + min + ":" + max + ":" + f[5] + ":" + f[6] + ":" + text.substr(start);
  };
  EXPECT_TRUE(Histogram::Decode(with("1000", "2000")).ok());
  EXPECT_FALSE(Histogram::Decode(with("1500", "2000")).ok());
  EXPECT_FALSE(Histogram::Decode(with("1000", "1200")).ok());
  EXPECT_FALSE(Histogram::Decode(with("2000", "1000")).ok());
}

// The bucket counts a histogram should hold, kept independently of it: lowest equivalent value -> count.
using Model = std::map<uint64_t, uint64_t>;

void ExpectMatchesModel(const Histogram& h, const Model& m) {
  uint64_t n = 0;
  for (const auto& [lo, c] : m) n += c;
  ASSERT_EQ(h.count(), n);
  std::vector<std::pair<uint64_t, uint64_t>> buckets;
  h.ForEachBucket([&](uint64_t lo, uint64_t, uint64_t c) { buckets.emplace_back(lo, c); });
  EXPECT_EQ(buckets, (std::vector<std::pair<uint64_t, uint64_t>>(m.begin(), m.end())));
  for (double p : {0.0, 0.1, 1.0, 25.0, 50.0, 90.0, 99.0, 99.9, 99.99, 100.0}) {
    uint64_t rank = PercentileRank(p, n), seen = 0, want = 0;
    for (const auto& [lo, c] : m) {
      seen += c;
      if (seen >= rank) {
        want = std::clamp(h.HighestEquivalent(lo), h.min(), h.max());
        break;
      }
    }
    EXPECT_EQ(h.ValueAtPercentile(p), want) << "p=" << p;
  }
  auto count_at_or_below = [&](uint64_t x) {
    uint64_t below = 0;
    uint64_t bound = h.LowestEquivalent(std::min(x, h.highest_trackable()));
    for (const auto& [lo, c] : m)
      if (lo <= bound) below += c;
    return below;
  };
  for (const auto& [lo, c] : m)
    for (uint64_t x : {lo, lo ? lo - 1 : 0, h.HighestEquivalent(lo) + 1})
      EXPECT_EQ(h.CountAtOrBelow(x), count_at_or_below(x)) << x;
  auto back = Histogram::Decode(h.Encode());
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(back->Encode(), h.Encode());
  EXPECT_EQ(back->count(), n);
}

// Values far apart (a page of buckets each, unwritten pages between), merged
// and reset in random order: every query agrees with an independent model.
TEST(Histogram, SparseRecordMergeResetMatchAModel) {
  std::mt19937_64 rng(11);
  Histogram a, b;
  Model ma, mb;
  auto value = [&] {
    int magnitude = static_cast<int>(rng() % 42);  // 1 ns to ~1 h
    return (uint64_t{1} << magnitude) + rng() % (uint64_t{1} << magnitude);
  };
  for (int round = 0; round < 300; ++round) {
    int op = static_cast<int>(rng() % 10);
    if (op < 6) {
      uint64_t v = std::min(value(), a.highest_trackable());
      bool to_a = rng() & 1;
      (to_a ? a : b).Record(v);
      (to_a ? ma : mb)[a.LowestEquivalent(v)]++;
    } else if (op < 8) {
      ASSERT_TRUE(a.Merge(b).ok());
      for (const auto& [lo, c] : mb) ma[lo] += c;
    } else {
      b.Reset();
      mb.clear();
    }
    ExpectMatchesModel(a, ma);
    ExpectMatchesModel(b, mb);
  }
}

uint64_t ThreadMinorFaults() {
  rusage ru{};
  getrusage(RUSAGE_THREAD, &ru);
  return static_cast<uint64_t>(ru.ru_minflt);
}

// A histogram whose span is 10 ns to 2 s holds its counts on two pages of its
// array, with ~40 pages between. Merging and resetting it must touch only
// those two: reading the others would fault in zero pages, and zeroing them
// would make each one real memory (4096 workers x 6 histograms at a stop).
TEST(Histogram, MergeAndResetTouchOnlyTheWrittenPagesOfAWideSpan) {
  Histogram wide;
  wide.Record(10);
  wide.Record(2'000'000'000);
  Histogram into;
  into.Record(10);
  into.Record(2'000'000'000);  // the destination's pages are written already
  uint64_t before = ThreadMinorFaults();
  ASSERT_TRUE(into.Merge(wide).ok());
  wide.Reset();
  uint64_t faults = ThreadMinorFaults() - before;
  EXPECT_LE(faults, 2u) << "a merge and a reset faulted in pages never written";
  EXPECT_EQ(into.count(), 4u);
  EXPECT_EQ(into.ValueAtPercentile(50), 10u);
  EXPECT_EQ(wide.count(), 0u);
}

TEST(Histogram, ResetAndMergeCoverTheWholeRecordedSpan) {
  Histogram h;
  for (uint64_t v : {uint64_t{1}, uint64_t{123'456}, uint64_t{5'000'000'000'000}, uint64_t{999}}) h.Record(v);
  Histogram sum;
  ASSERT_TRUE(sum.Merge(h).ok());
  EXPECT_EQ(sum.Encode(), h.Encode());
  h.Reset();
  EXPECT_EQ(h.Encode(), Histogram().Encode());
  h.Record(42);
  EXPECT_EQ(h.count(), 1u);
  EXPECT_EQ(h.ValueAtPercentile(100), 42u);
  EXPECT_EQ(h.CountAtOrBelow(41), 0u);
  EXPECT_EQ(h.CountAtOrBelow(UINT64_MAX), 1u);
}

// RecordBatch reaches the state n calls of Record reach: the same encoding
// (every count, min, max, sum in the same order, saturation), also for values
// beyond the range and batches that span many pages of the bucket array.
TEST(Histogram, ABatchRecordsWhatOneRecordPerValueRecords) {
  std::mt19937_64 rng(7);
  std::lognormal_distribution<double> dist(9.0, 2.5);
  for (size_t n : {0, 1, 63, 64, 1000}) {
    HistogramOptions o;
    o.highest = 10'000'000;
    Histogram one(o), batch(o);
    std::vector<uint64_t> values(n);
    for (uint64_t& v : values) v = 1 + static_cast<uint64_t>(dist(rng));  // some beyond 10 ms
    one.Record(5);
    batch.Record(5);
    for (uint64_t v : values) one.Record(v);
    batch.RecordBatch(values.data(), values.size());
    EXPECT_EQ(batch.Encode(), one.Encode()) << n << " values";
    EXPECT_EQ(batch.mean(), one.mean());
    EXPECT_EQ(batch.saturated(), one.saturated());
    ASSERT_TRUE(one.Merge(batch).ok());  // the written pages hold every count: merge and re-query agree
    EXPECT_EQ(one.count(), 2 * (n + 1));
  }
}

}  // namespace
}  // namespace storebench::measure
