#include "storebench/base/units.h"

#include <gtest/gtest.h>

namespace storebench {
namespace {

TEST(Units, Durations) {
  EXPECT_EQ(*ParseDurationNs("10s", "--duration"), 10'000'000'000ull);
  EXPECT_EQ(*ParseDurationNs("250ms", "--duration"), 250'000'000ull);
  EXPECT_EQ(*ParseDurationNs("2m", "--duration"), 120'000'000'000ull);
  EXPECT_EQ(*ParseDurationNs("200ns", "--duration"), 200ull);
  EXPECT_EQ(*ParseDurationNs("1.5", "--duration"), 1'500'000'000ull);
  auto bad = ParseDurationNs("ten", "--duration");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("--duration"), std::string::npos);
  EXPECT_FALSE(ParseDurationNs("-1s", "--d").ok());
  EXPECT_FALSE(ParseDurationNs("5parsecs", "--d").ok());
  EXPECT_FALSE(ParseDurationNs("", "--d").ok());
  EXPECT_FALSE(ParseDurationNs("nan", "--d").ok());
}

TEST(Units, Sizes) {
  EXPECT_EQ(*ParseSize("4096", "--bs"), 4096u);
  EXPECT_EQ(*ParseSize("4k", "--bs"), 4096u);
  EXPECT_EQ(*ParseSize("8KiB", "--bs"), 8192u);
  EXPECT_EQ(*ParseSize("2G", "--bs"), 2ull << 30);
  EXPECT_EQ(*ParseSize("1.5k", "--bs"), 1536u);
  EXPECT_FALSE(ParseSize("4q", "--bs").ok());
  EXPECT_FALSE(ParseSize("0.3", "--bs").ok());
}

TEST(Units, Rates) {
  EXPECT_DOUBLE_EQ(*ParseRate("50k/s", "--r"), 50000.0);
  EXPECT_DOUBLE_EQ(*ParseRate("1.5M", "--r"), 1.5e6);
  EXPECT_DOUBLE_EQ(*ParseRate("1000", "--r"), 1000.0);
  EXPECT_FALSE(ParseRate("0", "--r").ok());
  EXPECT_FALSE(ParseRate("-5", "--r").ok());
  EXPECT_FALSE(ParseRate("fast", "--r").ok());
}

TEST(Units, Counts) {
  EXPECT_EQ(*ParseCount("5e6", "--num"), 5'000'000u);
  EXPECT_EQ(*ParseCount("10k", "--num"), 10'000u);
  EXPECT_FALSE(ParseCount("1.5", "--num").ok());
  EXPECT_FALSE(ParseCount("-3", "--num").ok());
}

TEST(Units, Format) {
  EXPECT_EQ(FormatDurationNs(1500), "1.50 us");
  EXPECT_EQ(FormatBytes(4096), "4.0 KiB");
  EXPECT_EQ(FormatCount(84000), "84,000");
  EXPECT_EQ(FormatCount(999.6), "1,000");
  EXPECT_EQ(FormatCount(1234567), "1,234,567");
  EXPECT_EQ(FormatCount(12), "12");
  // The live lines' short form, and the one owner of both forms.
  EXPECT_EQ(FormatCompactCount(950), "950");
  EXPECT_EQ(FormatCompactCount(12345), "12.3k");
  EXPECT_EQ(FormatCompactCount(14.7e6), "14.70M");
  EXPECT_EQ(FormatCompactCount(2.5), "2.5");
  EXPECT_EQ(FormatCompactCount(4096, "bytes"), FormatBytes(4096));
  EXPECT_EQ(JoinComma({"a", "b", "c"}), "a, b, c");
  EXPECT_EQ(JoinComma({}), "");
}

TEST(Units, ShellWordsAreSplitAsAShellSplitsThem) {
  using W = std::vector<std::string>;
  auto words = [](std::string_view text) {
    auto w = SplitShellWords(text, "--launcher");
    EXPECT_TRUE(w.ok()) << text << ": " << w.status().message();
    return w.ok() ? *w : W{};
  };
  EXPECT_EQ(words("mpirun -n 2"), (W{"mpirun", "-n", "2"}));
  EXPECT_EQ(words("  env FOO='a b' mpirun\t-n 2 "), (W{"env", "FOO=a b", "mpirun", "-n", "2"}));
  EXPECT_EQ(words(R"(env X="a \"b\" $c" Y=a\ b Z='' "")"), (W{"env", R"(X=a "b" $c)", "Y=a b", "Z=", ""}));
  EXPECT_EQ(words(R"('it''s' "a\nb")"), (W{"its", R"(a\nb)"}));
  EXPECT_EQ(words(""), W{});
  for (const char* bad : {"env FOO='a b", "env \"x", "mpirun \\"}) {
    auto w = SplitShellWords(bad, "--launcher");
    ASSERT_FALSE(w.ok()) << bad;
    EXPECT_TRUE(w.status().IsBadInput());
    EXPECT_EQ(w.status().message().rfind("--launcher: ", 0), 0u) << w.status().message();
  }
}

// Numbers are decimal, in every parser: strtod alone would take "0x10" as 16,
// "inf", "nan" and leading blanks.
TEST(Units, OnlyDecimalNumbersAreAccepted) {
  for (const char* bad : {"0x10", "0X1p3", "0x10s", "inf", "nan", " 10", "\t1", "1e", ".", "-", "0x"}) {
    EXPECT_FALSE(ParseDurationNs(bad, "--warmup").ok()) << bad;
    EXPECT_FALSE(ParseSize(bad, "--size").ok()) << bad;
    EXPECT_FALSE(ParseRate(bad, "--rate").ok()) << bad;
    EXPECT_FALSE(ParseCount(bad, "--ops").ok()) << bad;
    EXPECT_FALSE(ParseDouble(bad, "--x").ok()) << bad;
  }
  EXPECT_EQ(*ParseDurationNs("10", "--warmup"), 10'000'000'000u);
  EXPECT_EQ(*ParseDurationNs(".5s", "--warmup"), 500'000'000u);
  EXPECT_EQ(*ParseCount("5e6", "--ops"), 5'000'000u);
  EXPECT_EQ(*ParseCount("1E3", "--ops"), 1000u);
  EXPECT_DOUBLE_EQ(*ParseDouble("-2.5e-3", "--x"), -2.5e-3);
  EXPECT_DOUBLE_EQ(*ParseRate("+50k/s", "--rate"), 50000);
}

// A value beyond a double or beyond the parser's own maximum is "too large",
// naming the flag — never "must be positive" or "invalid".
TEST(Units, OverflowIsTooLarge) {
  auto too_large = [](const Status& st, const char* flag) {
    EXPECT_EQ(st.message().rfind(std::string(flag) + ": ", 0), 0u) << st.message();
    EXPECT_NE(st.message().find("too large"), std::string::npos) << st.message();
  };
  too_large(ParseDurationNs("1e309s", "--warmup").status(), "--warmup");
  too_large(ParseDurationNs("1e12h", "--warmup").status(), "--warmup");
  too_large(ParseSize("1e309", "--size").status(), "--size");
  too_large(ParseSize("1e9T", "--size").status(), "--size");
  too_large(ParseRate("1e309/s", "--rate").status(), "--rate");
  too_large(ParseRate("1e308G", "--rate").status(), "--rate");
  too_large(ParseCount("1e309", "--ops").status(), "--ops");
  too_large(ParseCount("1e19", "--ops").status(), "--ops");
  too_large(ParseDouble("-1e309", "--x").status(), "--x");
  EXPECT_TRUE(NumberTooLarge("1e309"));
  EXPECT_TRUE(NumberTooLarge("1e400/s"));
  EXPECT_FALSE(NumberTooLarge("1e300"));
  EXPECT_FALSE(NumberTooLarge("abc"));
}

}  // namespace
}  // namespace storebench
