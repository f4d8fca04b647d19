#include "storebench/driver/schedule.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <numbers>
#include <vector>

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

// Each kind splits itself across ranks (MPI): together the ranks offer the
// whole schedule, and a constant rate's ranks interleave instead of coinciding.
TEST(Schedule, EveryKindSplitsAcrossRanksIntoTheWhole) {
  constexpr int kRanks = 3;
  constexpr uint64_t kHorizon = 2'000'000'000;
  for (const char* text : {"constant:9000", "poisson:9000", "sine:3000,6.283,0,6000", "steps:1s@3000,1s@9000"}) {
    SCOPED_TRACE(text);
    auto spec = ParseSchedule(text);
    ASSERT_TRUE(spec.ok());
    double whole = spec->ExpectedArrivals(kHorizon), parts = 0, counted = 0;
    for (int r = 0; r < kRanks; ++r) {
      const ScheduleSpec share = spec->ShareOf(r, kRanks);
      parts += share.ExpectedArrivals(kHorizon);
      counted += static_cast<double>(CountArrivals(share, 2, kHorizon, 10 + static_cast<uint64_t>(r)));
    }
    EXPECT_NEAR(parts, whole, 1e-6 * whole);
    EXPECT_NEAR(counted, whole, 6 * std::sqrt(whole) + kRanks * 2);  // Poisson within 6 sigma; others to a few
  }
  auto constant = ParseSchedule("constant:3000");
  ASSERT_TRUE(constant.ok());
  std::vector<uint64_t> firsts;
  for (int r = 0; r < kRanks; ++r) firsts.push_back(MakeArrivals(constant->ShareOf(r, kRanks), 0, 1, 1)->Next());
  EXPECT_EQ(firsts, (std::vector<uint64_t>{0, 333333, 666666}));  // 1/3000 s apart, a third each
  const std::string path = ::testing::TempDir() + "/ranks.trace";
  std::ofstream(path) << "0\n0.1\n0.2\n0.3\n0.4\n";
  auto trace = ParseSchedule("trace:" + path);
  ASSERT_TRUE(trace.ok()) << trace.status().ToString();
  EXPECT_EQ(*trace->ShareOf(1, 2).trace, (std::vector<uint64_t>{100'000'000, 300'000'000}));
  EXPECT_EQ(trace->ShareOf(0, 1).trace, trace->trace) << "one rank runs it all";
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

// The arrivals a stream yields before `horizon_ns`, within `calls` calls of
// Next(): each call returns at once (no stepping through a run-long gap).
std::vector<uint64_t> Within(const ScheduleSpec& spec, uint64_t horizon_ns, int calls = 100) {
  auto a = MakeArrivals(spec, 0, 1, 1, horizon_ns);
  std::vector<uint64_t> out;
  for (int i = 0; i < calls; ++i) {
    const uint64_t t = a->Next();
    if (t == UINT64_MAX) return out;
    EXPECT_LT(t, horizon_ns) << spec.text;
    out.push_back(t);
  }
  ADD_FAILURE() << spec.text << ": still yielding after " << calls << " calls";
  return out;
}

// S1: a rate far too small, or one that stays zero all run long, used to
// leave the stream looping (a sine at zero stepped 1 ms at a time to the end
// of the 64-bit clock) or returning a wrapped time. Past the run's end, every
// kind says "none" at once.
TEST(Schedule, NextArrivalBeyondTheRunsEndIsNoneAtOnce) {
  const uint64_t run = 300'000'000;
  const std::string trace = ::testing::TempDir() + "/late_trace.txt";
  {
    std::ofstream out(trace);
    out << "0.1\n5\n6\n";
  }
  const std::pair<std::string, size_t> cases[] = {
      {"constant:1e-9", 1},         {"poisson:1e-12", 0},   {"sine:-1,0,0,0", 0},  {"sine:-1,1e-9,0,0", 0},
      {"steps:10s@0", 0},           {"steps:1s@0,1s@1000", 0}, {"trace:" + trace, 1}, {"constant:10", 3}};
  for (const auto& [text, expected] : cases) {
    auto spec = ParseSchedule(text);
    ASSERT_TRUE(spec.ok()) << spec.status().message();
    EXPECT_EQ(Within(*spec, run).size(), expected) << text;
  }
  // Without a run's end (--ops alone) the stream ends at kArrivalHorizonNs, never wrapping.
  auto tiny = MakeArrivals(*ParseSchedule("constant:1e-12"), 0, 1, 1);
  EXPECT_EQ(tiny->Next(), 0u);
  EXPECT_EQ(tiny->Next(), UINT64_MAX);
  EXPECT_EQ(Within(*ParseSchedule("sine:-1,0,0,0"), kArrivalHorizonNs).size(), 0u);
  std::remove(trace.c_str());
}

// Where the rate is zero the stream jumps to where it turns positive, not 1 ms at a time.
TEST(Schedule, ZeroRateStretchesEndWhereTheRateTurnsPositive) {
  auto steps = *ParseSchedule("steps:1s@0,1s@1000");
  EXPECT_EQ(MakeArrivals(steps, 0, 1, 1)->Next(), 1'000'000'000u);
  EXPECT_EQ(steps.NextPositiveNs(0), 1'000'000'000u);
  // -sin(t) is positive for t in (π, 2π): the first arrival is just after π s.
  auto sine = *ParseSchedule("sine:-1000,1,0,0");
  const uint64_t first = MakeArrivals(sine, 0, 1, 1)->Next();
  EXPECT_NEAR(static_cast<double>(first) / 1e9, std::numbers::pi, 1e-6);
  EXPECT_GT(sine.RateAt(first), 0);
  // After the positive arc, the next one starts a period (2π s) later.
  EXPECT_NEAR(static_cast<double>(sine.NextPositiveNs(7'000'000'000)) / 1e9, 3 * std::numbers::pi, 1e-6);
  EXPECT_EQ(ParseSchedule("sine:-1,0,0,0")->NextPositiveNs(0), UINT64_MAX);
  // A zero stretch in mid-run costs the counts nothing.
  EXPECT_NEAR(static_cast<double>(CountArrivals(sine, 1, 20'000'000'000)), sine.ExpectedArrivals(20'000'000'000), 3);
}

// S1: a positive rate that cannot give the run one arrival is refused before
// the run, naming the flag; a rate that is zero all run long is not (it runs,
// and its result says no arrivals were due).
TEST(Schedule, ARateTooSmallForTheRunIsRefusedNamingTheFlag) {
  const uint64_t run = 1'000'000'000;
  for (const char* bad : {"constant:1e-9", "poisson:1e-12", "sine:1e-12,1,0,0", "steps:1s@1e-6", "constant:0.5"}) {
    Status st = CheckScheduleFitsRun(*ParseSchedule(bad), run, 0, "--schedule");
    ASSERT_FALSE(st.ok()) << bad;
    EXPECT_EQ(st.message().rfind("--schedule: ", 0), 0u) << st.message();
    EXPECT_NE(st.message().find("fewer than one"), std::string::npos) << st.message();
  }
  for (const char* ok : {"constant:1", "poisson:2", "sine:-1,0,0,0", "steps:1s@0", "steps:500ms@0,1s@10", "closed"})
    EXPECT_TRUE(CheckScheduleFitsRun(*ParseSchedule(ok), run, 0, "--schedule").ok()) << ok;
  // --ops alone: the ops must fall due within the arrivals' horizon (146 years).
  EXPECT_TRUE(CheckScheduleFitsRun(*ParseSchedule("constant:1e-6"), 0, 10, "--schedule").ok());
  for (const char* bad : {"constant:1e-9", "poisson:1e-12", "sine:-1,0,0,0"}) {
    Status st = CheckScheduleFitsRun(*ParseSchedule(bad), 0, 10, "--schedule");
    EXPECT_FALSE(st.ok()) << bad;
    EXPECT_NE(st.message().find("--ops"), std::string::npos) << st.message();
  }
  EXPECT_TRUE(CheckScheduleFitsRun(*ParseSchedule("steps:1s@0"), 0, 10, "--schedule").ok());
}

// Overflow is "too large", never "must be positive" or "not a number".
TEST(Schedule, AnOverflowingNumberIsTooLarge) {
  for (const char* bad : {"constant:1e309", "poisson:1e400/s", "sine:1e309,1,0,1", "steps:1e309s@10", "steps:1s@1e309"}) {
    auto r = ParseSchedule(bad);
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_NE(r.status().message().find("too large"), std::string::npos) << r.status().message();
  }
}

}  // namespace
}  // namespace storebench::driver
