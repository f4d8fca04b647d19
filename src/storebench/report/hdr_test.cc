// Tests of the HdrHistogram formats: the layout agrees with measure::Histogram,
// V2 encodings round-trip, interval logs round-trip with tags and times, the
// percentile distribution has HdrHistogram's shape, damaged input is refused.
// (Agreement with HdrHistogram's own Java library: hdr_interop_test.)
#include <gtest/gtest.h>

#include <random>

#include "storebench/measure/base64.h"
#include "storebench/report/hdr_codec.h"
#include "storebench/report/hdr_log.h"
#include "storebench/report/hgrm.h"

namespace storebench::report {
namespace {

measure::Histogram Sample(uint64_t seed, int n, int digits = 3) {
  measure::Histogram h(measure::HistogramOptions{digits, 3'600'000'000'000});
  std::mt19937_64 rng(seed);
  std::lognormal_distribution<double> d(9.0, 1.5);  // around 8 µs with a long tail
  for (int i = 0; i < n; ++i) h.Record(static_cast<uint64_t>(d(rng)));
  return h;
}

TEST(HdrLayout, AgreesWithMeasureHistogramBucketForBucket) {
  for (int digits = 1; digits <= 5; ++digits) {
    measure::Histogram h(measure::HistogramOptions{digits, 1'000'000'000});
    HdrLayout l = HdrLayout::Of(h);
    for (uint64_t v : {0ull, 1ull, 7ull, 2047ull, 2048ull, 2049ull, 100'000ull, 123'456'789ull, 999'999'999ull}) {
      EXPECT_EQ(l.LowestEquivalent(v), h.LowestEquivalent(v)) << digits << " " << v;
      EXPECT_EQ(l.HighestEquivalent(v), h.HighestEquivalent(v)) << digits << " " << v;
    }
  }
  HdrLayout three = *HdrLayout::For(3, 1, 3'600'000'000'000);
  EXPECT_EQ(three.sub_bucket_count, 2048u);  // 2^ceil(log2(2*10^3))
}

TEST(HdrCodec, CompressedAndPlainEncodingsRoundTripEveryBucket) {
  measure::Histogram h = Sample(1, 100'000);
  for (bool compressed : {false, true}) {
    std::string bytes = compressed ? *EncodeHdrV2Compressed(h) : EncodeHdrV2(h);
    auto d = DecodeHdr(bytes);
    ASSERT_TRUE(d.ok()) << d.status().message();
    EXPECT_EQ(d->count(), h.count());
    std::vector<std::tuple<uint64_t, uint64_t, uint64_t>> a, b;
    h.ForEachBucket([&](uint64_t lo, uint64_t hi, uint64_t n) { a.emplace_back(lo, hi, n); });
    d->ForEachBucket([&](uint64_t lo, uint64_t hi, uint64_t n) { b.emplace_back(lo, hi, n); });
    EXPECT_EQ(a, b);
    for (double p : {50.0, 99.0, 99.9})
      EXPECT_EQ(d->ValueAtPercentile(p), h.ValueAtPercentile(p)) << p;
  }
  EXPECT_EQ(static_cast<uint8_t>(EncodeHdrV2(h)[3]), 0x13);  // cookie 0x1c849313, big-endian
}

TEST(HdrCodec, EmptyHistogramRoundTrips) {
  measure::Histogram h;
  auto d = DecodeHdr(*EncodeHdrV2Compressed(h));
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(d->count(), 0u);
}

TEST(HdrCodec, DamagedInputIsRefused) {
  std::string bytes = *EncodeHdrV2Compressed(Sample(2, 1000));
  EXPECT_FALSE(DecodeHdr(bytes.substr(0, bytes.size() / 2)).ok());
  std::string bad = bytes;
  bad[0] = 0x55;
  EXPECT_EQ(DecodeHdr(bad).status().code(), Status::Code::kCorruption);
  // A zero run of INT64_MIN (varint 0xff… ) must not overflow the index.
  std::string huge_run = EncodeHdrV2(measure::Histogram());
  huge_run.replace(4, 4, std::string("\0\0\0\x09", 4));
  huge_run += std::string(8, '\xff') + std::string(1, '\xff');
  EXPECT_EQ(DecodeHdr(huge_run).status().code(), Status::Code::kCorruption);
  std::string v1 = EncodeHdrV2(Sample(3, 10));
  v1[3] = 0x21;  // V1 cookie 0x1c849321
  EXPECT_EQ(DecodeHdr(v1).status().code(), Status::Code::kNotSupported);
}

TEST(HdrLog, WritesHdrHistogramsHeaderAndRoundTripsTagsAndTimes) {
  std::vector<HlogInterval> in;
  in.push_back({0.0, 1.0, "read", Sample(4, 5000)});
  in.push_back({0.0, 1.0, "read.service", Sample(5, 5000)});
  in.push_back({1.0, 1.0, "read", Sample(6, 7000)});
  auto text = WriteHistogramLog(1'700'000'000.0, in);
  ASSERT_TRUE(text.ok());
  EXPECT_EQ(text->rfind("#[Histogram log format version 1.3]\n#[StartTime: 1700000000.000 (seconds since epoch), ", 0), 0u)
      << *text;
  EXPECT_NE(text->find("#[BaseTime: 1700000000.000 (seconds since epoch)]\n"
                       "\"StartTimestamp\",\"Interval_Length\",\"Interval_Max\",\"Interval_Compressed_Histogram\"\n"
                       "Tag=read,0.000,1.000,"),
            std::string::npos)
      << *text;
  auto log = ReadHistogramLog(*text);
  ASSERT_TRUE(log.ok()) << log.status().message();
  EXPECT_DOUBLE_EQ(log->start_time_s, 1'700'000'000.0);
  ASSERT_EQ(log->intervals.size(), 3u);
  EXPECT_EQ(log->intervals[1].tag, "read.service");
  EXPECT_DOUBLE_EQ(log->intervals[2].start_s, 1.0);
  EXPECT_EQ(Tags(*log), (std::vector<std::string>{"read", "read.service"}));
  EXPECT_EQ(MergedTag(*log, "read").count(), 12000u);
  LatencyPair p = ResponseAndService(*log);
  EXPECT_EQ(p.response.count(), 12000u);
  EXPECT_EQ(p.service.count(), 5000u);
}

// storebench's layout: an untagged line of every op, then per-kind and
// service breakdowns. Read back, each op counts once.
TEST(HdrLog, UntaggedLinesAreTheResponseTimeAndTagsBreakItDown) {
  measure::Histogram all = Sample(11, 3000);
  (void)all.Merge(Sample(12, 2000));
  std::vector<HlogInterval> in;
  in.push_back({0.0, 1.0, "", all});
  in.push_back({0.0, 1.0, "get", Sample(11, 3000)});
  in.push_back({0.0, 1.0, "get.service", Sample(13, 3000)});
  in.push_back({0.0, 1.0, "put", Sample(12, 2000)});
  in.push_back({0.0, 1.0, "put.service", Sample(14, 2000)});
  auto log = ReadHistogramLog(*WriteHistogramLog(1'700'000'000.0, in));
  ASSERT_TRUE(log.ok()) << log.status().message();
  LatencyPair p = ResponseAndService(*log);
  EXPECT_EQ(p.response.count(), 5000u);
  EXPECT_EQ(p.service.count(), 5000u);
  const ResponseLines response = ResponseLinesOf(*log);
  EXPECT_TRUE(response(""));
  EXPECT_FALSE(response("get"));
  EXPECT_FALSE(response("get.service"));
  EXPECT_EQ(MergedTag(*log, "put").count(), 2000u);
}

TEST(HdrLog, UntaggedLogWithoutBaseTimeUsesAbsoluteOrRelativeStamps) {
  std::string b64 = measure::Base64Encode(*EncodeHdrV2Compressed(Sample(7, 100)));
  std::string text = "#[StartTime: 1000000000.000 (seconds since epoch), x]\n0.500,1.000,1.0," + b64 + "\n";
  auto log = ReadHistogramLog(text);
  ASSERT_TRUE(log.ok()) << log.status().message();
  EXPECT_DOUBLE_EQ(log->intervals[0].start_s, 0.5);
  EXPECT_EQ(log->intervals[0].tag, "");
  EXPECT_FALSE(ReadHistogramLog("#only a comment\n").ok());
  EXPECT_NE(ReadHistogramLog("1,2,3\n").status().message().find("line 1"), std::string::npos);
}

TEST(Hgrm, ConstantValueGivesHdrHistogramsTwoRowsAndFooter) {
  measure::Histogram h;
  h.Record(1000, 10);
  std::string text = PercentileDistribution(h, 1000.0);
  EXPECT_EQ(text.substr(0, text.find("#[Mean")),
            "       Value     Percentile TotalCount 1/(1-Percentile)\n\n"
            "       1.000 0.000000000000         10           1.00\n"
            "       1.000 1.000000000000         10\n");
  EXPECT_NE(text.find("#[Mean    =        1.000, StdDeviation   =        0.000]\n"
                      "#[Max     =        1.000, Total count    =           10]\n"
                      "#[Buckets =           32, SubBuckets     =         2048]\n"),
            std::string::npos)
      << text;
}

TEST(Hgrm, RowsClimbTowardOneHundredPercentAndEndAtTheMax) {
  measure::Histogram h = Sample(8, 50'000);
  auto rows = PercentileRows(h);
  ASSERT_GT(rows.size(), 20u);
  for (size_t i = 1; i < rows.size(); ++i) {
    EXPECT_GE(rows[i].value, rows[i - 1].value);
    EXPECT_GE(rows[i].percentile, rows[i - 1].percentile);
  }
  EXPECT_EQ(rows.back().percentile, 100.0);
  EXPECT_EQ(rows.back().total_count, h.count());
  EXPECT_EQ(rows.back().value, h.HighestEquivalent(h.max()));
  // The 50% row is the first whose running count reaches half.
  for (const auto& r : rows) {
    if (r.percentile == 50.0) {
      EXPECT_EQ(r.value, h.HighestEquivalent(h.ValueAtPercentile(50)));
    }
  }
}

}  // namespace
}  // namespace storebench::report
