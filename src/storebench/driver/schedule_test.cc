#include "storebench/driver/schedule.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <fstream>

namespace storebench::driver {
namespace {

// Counts a worker set's arrivals in [0, horizon).
uint64_t CountArrivals(const ScheduleSpec& spec, int workers, uint64_t horizon_ns, uint64_t seed = 1) {
  uint64_t n = 0;
  for (int w = 0; w < workers; ++w) {
    auto a = MakeArrivals(spec, w, workers, seed + static_cast<uint64_t>(w));
    uint64_t last = 0;
    for (uint64_t t = a->Next(); t < horizon_ns; t = a->Next()) {
      EXPECT_GE(t, last);
      last = t;
      ++n;
    }
  }
  return n;
}

TEST(Schedule, ParsesEveryForm) {
  EXPECT_EQ(ParseSchedule("closed")->kind, ScheduleSpec::Kind::kClosed);
  auto c = ParseSchedule("constant:50k/s");
  ASSERT_TRUE(c.ok());
  EXPECT_DOUBLE_EQ(c->rate, 50000);
  EXPECT_EQ(ParseSchedule("poisson:1000")->kind, ScheduleSpec::Kind::kPoisson);
  auto s = ParseSchedule("sine:350,0.0105,0,50000");
  ASSERT_TRUE(s.ok());
  EXPECT_DOUBLE_EQ(s->b, 0.0105);
  auto st = ParseSchedule("steps:10s@1000,2s@20k,10s@1000");
  ASSERT_TRUE(st.ok());
  ASSERT_EQ(st->steps.size(), 3u);
  EXPECT_EQ(st->EndNs(), 22'000'000'000ull);
}

TEST(Schedule, RejectsBadInputNamingTheFlag) {
  for (const char* bad : {"", "constant", "constant:0", "constant:-5", "poisson:fast", "sine:1,2,3", "sine:1,2,3,x",
                          "steps:10s", "steps:0s@100", "steps:5s@-1", "burst:100", "trace:/nonexistent/file"}) {
    auto r = ParseSchedule(bad);
    EXPECT_FALSE(r.ok()) << bad;
    EXPECT_NE(r.status().message().find("--schedule"), std::string::npos) << r.status().message();
  }
}

TEST(Schedule, ConstantGivesExactCounts) {
  auto spec = *ParseSchedule("constant:1000");
  EXPECT_EQ(CountArrivals(spec, 1, 1'000'000'000), 1000u);
  EXPECT_EQ(CountArrivals(spec, 4, 1'000'000'000), 1000u);
  EXPECT_EQ(CountArrivals(*ParseSchedule("constant:1M"), 2, 100'000'000), 100000u);
}

TEST(Schedule, ConstantWorkersAreStaggered) {
  auto spec = *ParseSchedule("constant:1000");
  auto a = MakeArrivals(spec, 0, 2, 1), b = MakeArrivals(spec, 1, 2, 1);
  EXPECT_EQ(a->Next(), 0u);
  EXPECT_EQ(b->Next(), 1'000'000u);
  EXPECT_EQ(a->Next(), 2'000'000u);
}

TEST(Schedule, PoissonCountWithinFiveSigma) {
  auto spec = *ParseSchedule("poisson:10000");
  uint64_t n = CountArrivals(spec, 2, 10'000'000'000, 7);
  EXPECT_NEAR(static_cast<double>(n), 100000.0, 5 * std::sqrt(100000.0));
}

TEST(Schedule, PoissonGapsAreExponential) {
  auto spec = *ParseSchedule("poisson:1000");
  auto a = MakeArrivals(spec, 0, 1, 3);
  uint64_t prev = a->Next();
  int below_mean = 0;
  const int n = 20000;
  for (int i = 0; i < n; ++i) {
    uint64_t t = a->Next();
    if (t - prev < 1'000'000) ++below_mean;
    prev = t;
  }
  // P(gap < mean) = 1 - 1/e for an exponential distribution.
  EXPECT_NEAR(below_mean / static_cast<double>(n), 1 - std::exp(-1.0), 0.015);
}

TEST(Schedule, SineFollowsItsIntegral) {
  // rate = 500 sin(2π t / 10) + 1000 over one full period averages 1000/s.
  auto spec = *ParseSchedule("sine:500,0.6283185307,0,1000");
  uint64_t n = CountArrivals(spec, 2, 10'000'000'000);
  EXPECT_NEAR(static_cast<double>(n), 10000.0, 30.0);
  // First quarter period: ∫0^2.5 (500 sin(0.628t) + 1000) dt = 2500 + 500/0.628.
  uint64_t q = CountArrivals(spec, 1, 2'500'000'000);
  EXPECT_NEAR(static_cast<double>(q), 2500 + 500 / 0.6283185307, 15.0);
}

TEST(Schedule, StepsProduceEachRateAndEnd) {
  auto spec = *ParseSchedule("steps:1s@1000,500ms@10000,1s@0,1s@2000");
  EXPECT_EQ(spec.RateAt(1'200'000'000), 10000);
  EXPECT_EQ(spec.RateAt(2'000'000'000), 0);
  uint64_t n = CountArrivals(spec, 2, UINT64_MAX);
  EXPECT_NEAR(static_cast<double>(n), 1000 + 5000 + 0 + 2000, 8.0);
  auto a = MakeArrivals(spec, 0, 1, 1);
  uint64_t t = 0, last = 0;
  while ((t = a->Next()) != UINT64_MAX) {
    EXPECT_FALSE(t >= 1'500'000'000 && t < 2'500'000'000) << "arrival during the zero-rate step at " << t;
    last = t;
  }
  EXPECT_LT(last, spec.EndNs());
}

TEST(Schedule, TraceIsDealtRoundRobin) {
  std::string path = ::testing::TempDir() + "/trace.txt";
  {
    std::ofstream out(path);
    out << "# seconds from start\n0\n0.001\n0.0015\n\n0.002 # burst\n0.002\n1.5\n";
  }
  auto spec = ParseSchedule("trace:" + path);
  ASSERT_TRUE(spec.ok()) << spec.status().message();
  EXPECT_EQ(spec->trace->size(), 6u);
  auto a = MakeArrivals(*spec, 0, 2, 1), b = MakeArrivals(*spec, 1, 2, 1);
  EXPECT_EQ(a->Next(), 0u);
  EXPECT_EQ(a->Next(), 1'500'000u);
  EXPECT_EQ(a->Next(), 2'000'000u);
  EXPECT_EQ(a->Next(), UINT64_MAX);
  EXPECT_EQ(b->Next(), 1'000'000u);
  EXPECT_EQ(b->ExpectedBefore(2'000'001), 2.0);
  {
    std::ofstream out(path);
    out << "0.5\n0.2\n";
  }
  auto bad = ParseSchedule("trace:" + path);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("line 2"), std::string::npos);
  std::remove(path.c_str());
}

// Rates the nanosecond clock cannot express would make workers spin on an
// arrival time that never advances; they are refused by name and limit.
TEST(Schedule, RefusesRatesBeyondTheClock) {
  for (const char* bad : {"constant:1e30", "poisson:2G", "sine:1e10,1,0,1e10", "steps:1s@100,1s@5e9"}) {
    auto r = ParseSchedule(bad);
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_NE(r.status().message().find("--schedule"), std::string::npos) << r.status().message();
    EXPECT_NE(r.status().message().find("1e+09/s"), std::string::npos) << r.status().message();
  }
  EXPECT_TRUE(ParseSchedule("constant:1e9").ok());
  EXPECT_FALSE(ParseSchedule("sine:nan,1,0,100").ok());
}

TEST(Schedule, TraceDirectoryIsNamed) {
  auto r = ParseSchedule("trace:" + ::testing::TempDir());
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("is a directory"), std::string::npos) << r.status().message();
}

}  // namespace
}  // namespace storebench::driver
