#include "storebench/whisper/format.h"

#include <cmath>

#include <gtest/gtest.h>

#include "storebench/whisper/python_compat.h"
#include "storebench/whisper/retention.h"

namespace storebench::whisper {
namespace {

TEST(RetentionTest, ParsesUnitsAndPlainNumbers) {
  EXPECT_EQ(*ParseRetentionDef("60:1440"), (ArchiveSpec{60, 1440}));
  EXPECT_EQ(*ParseRetentionDef("60s:1d"), (ArchiveSpec{60, 1440}));
  EXPECT_EQ(*ParseRetentionDef("5m:30d"), (ArchiveSpec{300, 8640}));
  EXPECT_EQ(*ParseRetentionDef("1h:5y"), (ArchiveSpec{3600, 43800}));
  EXPECT_EQ(*ParseRetentionDef(" 15min:8 "), (ArchiveSpec{900, 8}));
  EXPECT_EQ(ParseRetentionList("60s:1d,5m:30d,1h:5y")->size(), 3u);
}

TEST(RetentionTest, RejectsWhatWhisperPyRejects) {
  EXPECT_EQ(ParseRetentionDef("60").status().message(), "Invalid retention definition '60'");
  EXPECT_EQ(ParseRetentionDef("60x:1").status().message(), "Invalid unit 'x'");
  EXPECT_EQ(ParseRetentionDef("6 0:1").status().message(), "Invalid precision specification '6 0'");
  EXPECT_EQ(ParseRetentionDef("60:1.5").status().message(), "Invalid retention specification '1.5'");
  EXPECT_FALSE(ParseRetentionDef("0:1d").ok());  // whisper.py divides by zero here
}

TEST(RetentionTest, ValidatesArchiveLists) {
  std::vector<ArchiveSpec> ok = {{300, 100}, {60, 100}};
  EXPECT_TRUE(ValidateArchiveList(ok).ok());
  EXPECT_EQ(ok.front().seconds_per_point, 60u);  // sorted by precision
  std::vector<std::vector<ArchiveSpec>> bad = {
      {}, {{60, 10}, {60, 20}}, {{60, 100}, {90, 100}}, {{60, 100}, {120, 50}}, {{60, 1}, {120, 100}}, {{0, 10}}};
  for (auto& list : bad) EXPECT_FALSE(ValidateArchiveList(list).ok());
}

TEST(FormatTest, PointAndHeaderRoundTrip) {
  uint8_t buf[kPointSize];
  EncodePoint({1700000000, -2.5}, buf);
  EXPECT_EQ(buf[0], 0x65);  // big-endian timestamp
  Point p = DecodePoint(buf);
  EXPECT_EQ(p.timestamp, 1700000000u);
  EXPECT_EQ(p.value, -2.5);
  Header h{AggregationMethod::kMax, 600, 0.25f, {{28, 60, 10}}};
  std::string bytes = SerializeHeader(h);
  ASSERT_EQ(bytes.size(), 28u);
  StatusOr<Header> back = ParseHeader({reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()}, "x", 148);
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(*back, h);
}

TEST(FormatTest, SlotArithmeticUsesFloorSemantics) {
  ArchiveInfo a{100, 60, 10};
  EXPECT_EQ(SlotOffset(a, 6000, 6000), 100u);
  EXPECT_EQ(SlotOffset(a, 6000, 6060), 112u);
  EXPECT_EQ(SlotOffset(a, 6000, 5940), 100u + 9 * 12);  // before the base wraps to the end
  EXPECT_EQ(SlotOffset(a, 6000, 6600), 100u);           // one retention later: same slot
  EXPECT_EQ(AlignDown(-1, 60), -60);
}

TEST(FormatTest, AggregateMatchesPythonBuiltins) {
  std::vector<std::optional<double>> n = {1.0, std::nullopt, -3.0, 2.0};
  std::vector<double> k = {1.0, -3.0, 2.0};
  EXPECT_EQ(Aggregate(AggregationMethod::kAverage, k, n), 0.0);
  EXPECT_EQ(Aggregate(AggregationMethod::kSum, k, n), 0.0);
  EXPECT_EQ(Aggregate(AggregationMethod::kLast, k, n), 2.0);
  EXPECT_EQ(Aggregate(AggregationMethod::kMax, k, n), 2.0);
  EXPECT_EQ(Aggregate(AggregationMethod::kMin, k, n), -3.0);
  EXPECT_EQ(Aggregate(AggregationMethod::kAvgZero, k, n), 0.0);
  EXPECT_EQ(Aggregate(AggregationMethod::kAbsMax, k, n), -3.0);
  EXPECT_EQ(Aggregate(AggregationMethod::kAbsMin, k, n), 1.0);
  // max() keeps the first of equals: absmax of {2, -2} is 2.
  EXPECT_EQ(Aggregate(AggregationMethod::kAbsMax, {2.0, -2.0}, {2.0, -2.0}), 2.0);
}

TEST(FormatTest, AggregationNames) {
  EXPECT_EQ(AggregationName(*ParseAggregation("avg_zero")), "avg_zero");
  EXPECT_EQ(ParseAggregation("median").status().message(), "Unrecognized aggregation method: median");
}

TEST(PythonCompatTest, FloatRepr) {
  EXPECT_EQ(PyFloatRepr(0.5), "0.5");
  EXPECT_EQ(PyFloatRepr(1), "1.0");
  EXPECT_EQ(PyFloatRepr(static_cast<double>(0.3f)), "0.30000001192092896");
  EXPECT_EQ(PyFloatRepr(1e-5), "1e-05");
  EXPECT_EQ(PyFloatRepr(1e16), "1e+16");
  EXPECT_EQ(PyFloatRepr(123456789012345678.0), "1.2345678901234568e+17");
  EXPECT_EQ(PyFloatRepr(-0.0001), "-0.0001");
  EXPECT_EQ(PyFloatRepr(NAN), "nan");
}

TEST(PythonCompatTest, SetOrderOfSmallIntsIsTheirOrderModuloTableSize) {
  // Below the first resize (5 entries in 8 slots) ints land on value & 7.
  EXPECT_EQ(CPythonSetOrder({9, 2, 9, 4}), (std::vector<int64_t>{9, 2, 4}));
}

}  // namespace
}  // namespace storebench::whisper
