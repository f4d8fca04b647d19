#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "storebench/workload/mixgraph.h"

namespace storebench::workload {
namespace {

Status Parse(std::vector<std::string_view> args, MixgraphConfig* c, std::vector<std::string_view>* rest = nullptr) {
  return ParseMixgraphFlags(args, c, rest);
}

TEST(MixgraphFlagsTest, PublishedDbBenchCommandLineCarriesOver) {
  // RocksDB PR 5953's mixgraph example, db_bench spelling, minus non-mixgraph flags.
  MixgraphConfig c;
  std::vector<std::string_view> rest;
  ASSERT_TRUE(Parse({"--benchmarks=mixgraph", "-use_direct_io_for_flush_and_compaction=true", "-keyrange_dist_a=14.18",
                     "-keyrange_dist_b=-2.917", "-keyrange_dist_c=0.0164", "-keyrange_dist_d=-0.08082",
                     "-keyrange_num=30", "-value_k=0.2615", "-value_sigma=25.45", "-iter_k=2.517",
                     "-iter_sigma=14.236", "-mix_get_ratio=0.85", "-mix_put_ratio=0.14", "-mix_seek_ratio=0.01",
                     "-sine_mix_rate_interval_milliseconds=5000", "-sine_a=1000", "-sine_b=0.000073",
                     "-sine_d=4500", "--perf_level=2", "-reads=420000000", "-num=50000000", "-key_size=48",
                     "-key_dist_a=0.002312", "-key_dist_b=0.3467", "--sine_mix_rate"},
                    &c, &rest)
                  .ok());
  EXPECT_DOUBLE_EQ(c.keyrange_dist_a, 14.18);
  EXPECT_DOUBLE_EQ(c.keyrange_dist_b, -2.917);
  EXPECT_DOUBLE_EQ(c.keyrange_dist_d, -0.08082);
  EXPECT_EQ(c.keyrange_num, 30);
  EXPECT_DOUBLE_EQ(c.mix_get_ratio, 0.85);
  EXPECT_DOUBLE_EQ(c.key_dist_b, 0.3467);
  EXPECT_EQ(c.sine_mix_rate_interval_milliseconds, 5000u);
  EXPECT_DOUBLE_EQ(c.sine_b, 0.000073);
  EXPECT_TRUE(c.sine_mix_rate);
  EXPECT_EQ(rest, (std::vector<std::string_view>{"--benchmarks=mixgraph", "-use_direct_io_for_flush_and_compaction=true",
                                                 "--perf_level=2", "-reads=420000000", "-num=50000000",
                                                 "-key_size=48"}));
}

TEST(MixgraphFlagsTest, SpaceSeparatedValuesAndBooleans) {
  MixgraphConfig c;
  ASSERT_TRUE(Parse({"--mix_put_ratio", "0.25", "--sine_mix_rate", "false", "--keyrange_num", "7"}, &c).ok());
  EXPECT_DOUBLE_EQ(c.mix_put_ratio, 0.25);
  EXPECT_FALSE(c.sine_mix_rate);
  EXPECT_EQ(c.keyrange_num, 7);
  ASSERT_TRUE(Parse({"--sine_mix_rate", "--value_k=0"}, &c).ok());
  EXPECT_TRUE(c.sine_mix_rate);
  EXPECT_EQ(c.value_k, 0.0);
  ASSERT_TRUE(Parse({"--nosine_mix_rate"}, &c).ok());
  EXPECT_FALSE(c.sine_mix_rate);
  ASSERT_TRUE(Parse({"--sine_mix_rate=yes"}, &c).ok());
  EXPECT_TRUE(c.sine_mix_rate);
}

TEST(MixgraphFlagsTest, DefaultsAreDbBenchs) {
  const MixgraphConfig c;
  EXPECT_EQ(c.mix_get_ratio, 1.0);
  EXPECT_EQ(c.mix_max_scan_len, 10000);
  EXPECT_EQ(c.mix_max_value_size, 1024);
  EXPECT_EQ(c.value_k, 0.2615);
  EXPECT_EQ(c.value_sigma, 25.45);
  EXPECT_EQ(c.iter_k, 2.517);
  EXPECT_EQ(c.iter_sigma, 14.236);
  EXPECT_EQ(c.sine_a, 1.0);
  EXPECT_EQ(c.sine_d, 1.0);
  EXPECT_EQ(c.sine_mix_rate_interval_milliseconds, 10000u);
  EXPECT_EQ(MixgraphFlagNames().size(), 25u);
  EXPECT_TRUE(IsMixgraphFlag("keyrange_dist_c"));
  EXPECT_FALSE(IsMixgraphFlag("num"));
}

TEST(MixgraphFlagsTest, FormatParsesBackToTheSameConfig) {
  MixgraphConfig c;
  c.key_dist_a = 0.002312;
  c.keyrange_dist_b = -2.917;
  c.keyrange_num = 30;
  c.sine_mix_rate = true;
  c.sine_mix_rate_noise = 0.25;
  const std::vector<std::string> flags = FormatMixgraphFlags(c);
  std::vector<std::string_view> args(flags.begin(), flags.end());
  MixgraphConfig back;
  ASSERT_TRUE(Parse(args, &back).ok());
  EXPECT_EQ(FormatMixgraphFlags(back), flags);
  EXPECT_EQ(flags[0], "--mix_get_ratio=1");
}

TEST(MixgraphFlagsTest, ErrorsNameTheFlag) {
  struct Case {
    std::vector<std::string_view> args;
    const char* needle;
  };
  for (const Case& k : {Case{{"--value_k=abc"}, "--value_k"}, Case{{"--keyrange_num=-3"}, "--keyrange_num"},
                        Case{{"--keyrange_num", "2.5"}, "--keyrange_num"}, Case{{"--sine_b"}, "--sine_b: missing value"},
                        Case{{"--sine_mix_rate=maybe"}, "--sine_mix_rate"}, Case{{"--mix_get_ration=1"}, "--mix_get_ration"},
                        Case{{"stray"}, "unexpected argument 'stray'"}}) {
    MixgraphConfig c;
    const Status st = Parse(k.args, &c);
    ASSERT_FALSE(st.ok()) << k.needle;
    EXPECT_EQ(st.code(), Status::Code::kInvalidArgument);
    EXPECT_NE(st.message().find(k.needle), std::string::npos) << st.message();
  }
  MixgraphConfig c;
  const Status unknown = SetMixgraphFlag("bogus", "1", &c);
  EXPECT_NE(unknown.message().find("accepted: --mix_get_ratio"), std::string::npos) << unknown.message();
}

}  // namespace
}  // namespace storebench::workload
