#include "storebench/backend/null/null_backend.h"

#include <gtest/gtest.h>

#include "storebench/workload/random.h"

namespace storebench::backend {
namespace {

StatusOr<NullOptions> Parse(OptionValues values) {
  NullOptions o;
  Status s = NullOptionTable().Apply(values, &o);
  if (!s.ok()) return s;
  return o;
}

TEST(NullOptions, ServiceTimeForms) {
  auto spin = Parse({{"service-time", "spin:50us"}});
  ASSERT_TRUE(spin.ok()) << spin.status().message();
  EXPECT_EQ(spin->service, NullOptions::Service::kSpin);
  EXPECT_EQ(spin->service_ns, 50'000u);
  auto exp = Parse({{"service-time", "spin-exp:20us"}});
  ASSERT_TRUE(exp.ok()) << exp.status().message();
  EXPECT_EQ(exp->service, NullOptions::Service::kSpinExponential);
  EXPECT_EQ(exp->service_ns, 20'000u);
  for (const char* bad : {"spin-exp:0", "exp:20us", "spin-exp", "spin:fast"}) {
    auto r = Parse({{"service-time", bad}});
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_NE(r.status().message().find("--service-time"), std::string::npos) << r.status().message();
    EXPECT_NE(r.status().message().find("spin-exp:MEAN"), std::string::npos) << r.status().message();
  }
}

TEST(NullOptions, TheWalkServiceIsOneCycleThroughEveryLine) {
  auto walk = Parse({{"service-time", "walk:20us"}});
  ASSERT_TRUE(walk.ok()) << walk.status().message();
  EXPECT_EQ(walk->service, NullOptions::Service::kWalk);
  EXPECT_EQ(walk->service_ns, 20'000u);
  auto bad = Parse({{"service-time", "walk:"}});
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("walk:DURATION"), std::string::npos) << bad.status().message();

  // Every load lands on a line of its own until the walk has read them all.
  constexpr uint32_t kLines = 4096, kWords = 16;
  const std::vector<uint32_t> ring = NullWalkRing(kLines, 3);
  ASSERT_EQ(ring.size(), size_t{kLines} * kWords);
  std::vector<bool> seen(kLines, false);
  uint32_t p = 0;
  for (uint32_t i = 0; i < kLines; ++i) {
    ASSERT_EQ(p % kWords, 0u);
    ASSERT_FALSE(seen[p / kWords]) << "line " << p / kWords << " again after " << i << " loads";
    seen[p / kWords] = true;
    p = ring[p];
  }
  EXPECT_EQ(p, 0u);  // and back where it began
}

TEST(NullOptions, SlowForms) {
  auto none = Parse({});
  ASSERT_TRUE(none.ok());
  EXPECT_EQ(none->slow_ns, 0u);
  EXPECT_EQ(none->slow_factor, 1);
  auto slow = Parse({{"slow", "1.25x:1s/5s"}});
  ASSERT_TRUE(slow.ok()) << slow.status().message();
  EXPECT_DOUBLE_EQ(slow->slow_factor, 1.25);
  EXPECT_EQ(slow->slow_ns, 1'000'000'000u);
  EXPECT_EQ(slow->slow_period_ns, 5'000'000'000u);
  for (const char* bad : {"1.25:1s/5s", "0.5x:1s/5s", "2x:5s/5s", "2x:0/5s", "2x:1s", "2x:1s/", "x:1s/5s",
                          "2000x:1s/5s", "2x/1s:5s"}) {
    auto r = Parse({{"slow", bad}});
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_NE(r.status().message().find("--slow: expected FACTORx:LENGTH/PERIOD"), std::string::npos)
        << r.status().message();
  }
}

TEST(NullOptions, SlowPartIsTheStartOfEveryPeriod) {
  NullOptions o = *Parse({{"slow", "1.25x:1s/5s"}});
  const uint64_t s = 1'000'000'000;
  EXPECT_TRUE(InSlowPart(o, 0));
  EXPECT_TRUE(InSlowPart(o, s - 1));
  EXPECT_FALSE(InSlowPart(o, s));
  EXPECT_FALSE(InSlowPart(o, 5 * s - 1));
  EXPECT_TRUE(InSlowPart(o, 5 * s));
  EXPECT_TRUE(InSlowPart(o, 5 * s + s / 2));
  EXPECT_FALSE(InSlowPart(o, 9 * s + s / 2));
  // One fifth of every period is slow: capacity drops by 1 - 1/1.25 = 20% for 1 s in 5.
  uint64_t slow = 0;
  for (uint64_t t = 0; t < 50 * s; t += s / 1000) slow += InSlowPart(o, t);
  EXPECT_EQ(slow, 10'000u);
  EXPECT_FALSE(InSlowPart(*Parse({}), 4 * s));
}

TEST(NullOptions, BurnForms) {
  auto none = Parse({});
  ASSERT_TRUE(none.ok());
  EXPECT_EQ(none->burn_ns, 0u);
  EXPECT_EQ(none->burn_threads, 1);
  auto half = Parse({{"burn", "20ms/40ms"}, {"burn-threads", "3"}});
  ASSERT_TRUE(half.ok()) << half.status().message();
  EXPECT_EQ(half->burn_ns, 20'000'000u);
  EXPECT_EQ(half->burn_period_ns, 40'000'000u);
  EXPECT_EQ(half->burn_threads, 3);
  auto always = Parse({{"burn", "40ms/40ms"}});
  ASSERT_TRUE(always.ok()) << always.status().message();
  EXPECT_EQ(always->burn_ns, always->burn_period_ns);
  EXPECT_EQ(Parse({{"burn", "0"}})->burn_ns, 0u);
  for (const char* bad : {"20ms", "50ms/40ms", "0/40ms", "20ms/", "/40ms", "fast/40ms", "20ms/40ms/1s"}) {
    auto r = Parse({{"burn", bad}});
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_NE(r.status().message().find("--burn: expected SPIN/PERIOD"), std::string::npos) << r.status().message();
  }
  for (const char* bad : {"0", "65", "two"}) {
    auto r = Parse({{"burn-threads", bad}});
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_NE(r.status().message().find("--burn-threads"), std::string::npos) << r.status().message();
  }
}

// The exponential service time's draws have the mean asked for (the coverage
// bench relies on a known distribution).
TEST(NullOptions, ExponentialServiceHasItsMean) {
  workload::Random random(workload::Random::SeedFor(7, 0x6e756c6c));
  double sum = 0;
  const int n = 200'000;
  for (int i = 0; i < n; ++i) sum += random.Exponential(20'000);
  EXPECT_NEAR(sum / n, 20'000, 20'000 * 0.01);  // ±1% is > 4 standard errors
}

}  // namespace
}  // namespace storebench::backend
