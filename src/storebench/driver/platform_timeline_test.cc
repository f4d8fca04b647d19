#include "storebench/driver/platform_timeline.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "storebench/driver/kernel_platform.h"

namespace storebench::driver {
namespace {

constexpr uint64_t kMs = 1'000'000;
constexpr uint32_t kNominal = 1000;  // ns of the integer unit at speed 1

MeterCalibration Cal() { return {{kNominal, kNominal, 0}, {}, 0}; }

MeterTick Tick(uint64_t woke, uint64_t stopped = 0, uint32_t unit = kNominal) { return {woke, stopped, unit, kNominal}; }

// A 3 ms stop inside a 10 ms span at full speed: the CPU could do 7 ms of
// work in that span, and none inside the stop itself.
TEST(PlatformTimeline, AStopIsWorkTheCpuCouldNotDo) {
  PlatformTimeline t({0}, Cal(), 0);
  t.Add(0, Tick(5 * kMs));
  t.Add(0, Tick(15 * kMs, 3 * kMs));  // the stop is [12, 15) ms
  t.Add(0, Tick(20 * kMs));
  EXPECT_DOUBLE_EQ(t.Work(0, 5 * kMs, 15 * kMs), 7.0 * kMs);
  EXPECT_DOUBLE_EQ(t.Work(0, 12 * kMs, 15 * kMs), 0.0);
  EXPECT_DOUBLE_EQ(t.Work(0, 11 * kMs, 13 * kMs), 1.0 * kMs);
  // Outside what the meter covered, the CPU counts at speed 1.
  EXPECT_DOUBLE_EQ(t.Work(0, 20 * kMs, 25 * kMs), 5.0 * kMs);
  EXPECT_EQ(t.covered_ns(), 20 * kMs);
}

// A stop that began while the meter slept (a 40 ms tick due at 40 ms woke at
// 62 ms: it saw 22 ms) is placed by the hiccup meter's stop [25, 62) ms, which
// began earlier and lasted into it: the CPU did no work from 25 ms. A hiccup
// stop that ended before the tick's began, or one that began later, moves
// nothing; and no stop reaches back before the previous tick.
TEST(PlatformTimeline, TheHiccupMetersStopPlacesWhereAStopBegan) {
  PlatformTimeline t({0}, Cal(), 0);
  t.AddStop(25 * kMs, 62 * kMs);
  t.Add(0, Tick(62 * kMs, 22 * kMs));
  EXPECT_DOUBLE_EQ(t.Work(0, 0, 25 * kMs), 25.0 * kMs);
  EXPECT_DOUBLE_EQ(t.Work(0, 25 * kMs, 62 * kMs), 0.0);
  EXPECT_EQ(t.TakeWindow().stopped_ns, 37 * kMs);

  t.AddStop(70 * kMs, 75 * kMs);  // ended before the next stop began
  t.AddStop(95 * kMs, 100 * kMs);  // began inside it
  t.Add(0, Tick(102 * kMs, 20 * kMs));  // the meter saw [82, 102)
  EXPECT_DOUBLE_EQ(t.Work(0, 62 * kMs, 82 * kMs), 20.0 * kMs);
  EXPECT_EQ(t.TakeWindow().stopped_ns, 20 * kMs);

  PlatformTimeline u({0}, Cal(), 0);
  u.Add(0, Tick(10 * kMs));
  u.AddStop(0, 30 * kMs);  // began before the previous tick
  u.Add(0, Tick(30 * kMs, 5 * kMs));
  EXPECT_DOUBLE_EQ(u.Work(0, 10 * kMs, 30 * kMs), 0.0);
  EXPECT_DOUBLE_EQ(u.Work(0, 0, 10 * kMs), 10.0 * kMs);
}

// A tick within 2% of its nominal time, or within the unit's own noise at
// calibration when that is larger, is the meter's scatter, not a slower
// platform: its span counts at speed 1. The slowest unit is still reported as
// measured.
TEST(PlatformTimeline, TheMetersOwnScatterReadsAsFullSpeed) {
  PlatformTimeline t({0}, Cal(), 0);
  t.Add(0, Tick(10 * kMs, 0, kNominal * 1015 / 1000));
  EXPECT_DOUBLE_EQ(t.Work(0, 0, 10 * kMs), 10.0 * kMs);
  EXPECT_NEAR(t.TakeWindow().speed_min, 1000.0 / 1015, 1e-9);
  t.Add(0, Tick(20 * kMs, 0, kNominal * 1025 / 1000));  // 2.4% slow: counts
  EXPECT_NEAR(t.Work(0, 10 * kMs, 20 * kMs), 10.0 * kMs * 1000 / 1025, 1.0);

  MeterCalibration noisy = Cal();
  noisy.cpu_noise = 0.04;
  PlatformTimeline u({0}, noisy, 0);
  u.Add(0, Tick(10 * kMs, 0, kNominal * 1035 / 1000));
  EXPECT_DOUBLE_EQ(u.Work(0, 0, 10 * kMs), 10.0 * kMs);
  u.Add(0, Tick(20 * kMs, 0, kNominal * 2));
  EXPECT_DOUBLE_EQ(u.Work(0, 10 * kMs, 20 * kMs), 5.0 * kMs);
}

// The nominal time is the calibration's 10th percentile; the noise is how far
// below 1 the slowest group's fastest run reads, capped at kMaxNoise.
TEST(PlatformMeter, CalibrationGivesTheNominalTimeAndTheUnitsNoise) {
  std::vector<uint64_t> runs;
  for (int g = 0; g < 16; ++g)
    for (int r = 0; r < 4; ++r) runs.push_back(r == 0 ? 1000 : 1100);  // every group's fastest is 1000
  runs[4 * 7] = 1030;  // group 7's fastest run is 3% slower than nominal
  uint64_t nominal = 0;
  double noise = 0;
  NominalAndNoise(runs, 4, &nominal, &noise);
  EXPECT_EQ(nominal, 1000u);
  EXPECT_NEAR(noise, 1 - 1000.0 / 1030, 1e-12);
  for (int g = 0; g < 16; ++g) runs[4 * g] = 1100;  // no fast run at all: the nominal is 1100
  runs[0] = 5000, runs[1] = runs[2] = runs[3] = 5000;  // one group 4.5x slow
  NominalAndNoise(runs, 4, &nominal, &noise);
  EXPECT_EQ(nominal, 1100u);
  EXPECT_DOUBLE_EQ(noise, kMaxNoise);
}

// A unit that took twice its nominal time: the span before it ran at half speed.
TEST(PlatformTimeline, ASlowUnitHalvesTheWorkOfItsSpan) {
  PlatformTimeline t({0}, Cal(), 0);
  t.Add(0, Tick(10 * kMs, 0, 2 * kNominal));
  t.Add(0, Tick(20 * kMs));
  EXPECT_DOUBLE_EQ(t.Work(0, 0, 10 * kMs), 5.0 * kMs);
  EXPECT_DOUBLE_EQ(t.Work(0, 10 * kMs, 20 * kMs), 10.0 * kMs);
  // A faster unit than calibrated counts as speed 1, not more.
  t.Add(0, Tick(30 * kMs, 0, kNominal / 2));
  EXPECT_DOUBLE_EQ(t.Work(0, 20 * kMs, 30 * kMs), 10.0 * kMs);
}

// Each meter's ticks are read against its own CPU's calibration: a CPU
// whose unit calibrated 10% slower runs at speed 1 at that time, and at 0.5
// at twice it; the other CPU keeps the shared nominal time.
TEST(PlatformTimeline, EachMeterIsReadAgainstItsOwnCpusCalibration) {
  MeterCalibration cal = Cal();
  cal.per_meter = {UnitTimes{kNominal, kNominal, 0}, UnitTimes{kNominal * 11 / 10, kNominal, 0}};
  PlatformTimeline t({0, 1}, cal, 0);
  t.Add(0, Tick(10 * kMs, 0, kNominal * 11 / 10));
  t.Add(1, Tick(10 * kMs, 0, kNominal * 11 / 10));
  t.Add(1, Tick(20 * kMs, 0, kNominal * 22 / 10));
  EXPECT_DOUBLE_EQ(t.Work(0, 0, 10 * kMs), 10.0 * kMs / 1.1);
  EXPECT_DOUBLE_EQ(t.Work(1, 0, 10 * kMs), 10.0 * kMs);
  EXPECT_DOUBLE_EQ(t.Work(1, 10 * kMs, 20 * kMs), 5.0 * kMs);
}

// The contention unit is reported, not used: twice its nominal time halves
// its speed over the time the meter ran (stops excluded), and the work the
// CPU could do, which the steady client replays, does not move.
TEST(PlatformTimeline, TheContentionUnitIsReportedOverTheTimeTheMeterRan) {
  PlatformTimeline t({0}, MeterCalibration{{kNominal, kNominal, kNominal}, {}, 0}, 0);
  MeterTick slow{10 * kMs, 2 * kMs, kNominal, kNominal, 2 * kNominal};  // ran 8 ms at contention speed 0.5
  MeterTick fast{20 * kMs, 0, kNominal, kNominal, kNominal};           // ran 10 ms at contention speed 1
  t.Add(0, slow);
  t.Add(0, fast);
  EXPECT_DOUBLE_EQ(t.Work(0, 0, 20 * kMs), 18.0 * kMs);
  const PlatformFigures f = t.TakeWindow();
  EXPECT_EQ(f.contention_work_ns, 14 * kMs);
  EXPECT_DOUBLE_EQ(f.contention_speed(), 14.0 / 18.0);
  EXPECT_DOUBLE_EQ(f.contention_speed_min, 0.5);
  EXPECT_DOUBLE_EQ(f.speed(), 18.0 / 20.0);
  // Windows and processes add up.
  PlatformFigures both = f;
  both.AddProcess(f);
  EXPECT_DOUBLE_EQ(both.contention_speed(), 14.0 / 18.0);
  // A tick that did not run the unit (0) keeps the last speed it measured and is no minimum.
  PlatformTimeline held({0}, MeterCalibration{{kNominal, kNominal, kNominal}, {}, 0}, 0);
  held.Add(0, MeterTick{10 * kMs, 0, kNominal, kNominal, 2 * kNominal});
  held.Add(0, MeterTick{20 * kMs, 0, kNominal, kNominal, 0});
  const PlatformFigures h = held.TakeWindow();
  EXPECT_EQ(h.contention_work_ns, 10 * kMs);
  EXPECT_DOUBLE_EQ(h.contention_speed_min, 0.5);
  PlatformTimeline first({0}, MeterCalibration{{kNominal, kNominal, kNominal}, {}, 0}, 0);
  first.Add(0, MeterTick{10 * kMs, 0, kNominal, kNominal, 0});
  EXPECT_EQ(first.TakeWindow().contention_work_ns, 10 * kMs) << "before any sample: speed 1";
}

// An op on a CPU with a meter uses that meter's timeline; an unknown CPU the mean.
TEST(PlatformTimeline, AnUnknownCpuGetsTheMeanOfTheMeters) {
  PlatformTimeline t({0, 1}, Cal(), 0);
  t.Add(0, Tick(10 * kMs, 10 * kMs));  // CPU 0 stopped for the whole span
  t.Add(1, Tick(10 * kMs));
  EXPECT_DOUBLE_EQ(t.Work(0, 0, 10 * kMs), 0.0);
  EXPECT_DOUBLE_EQ(t.Work(1, 0, 10 * kMs), 10.0 * kMs);
  EXPECT_DOUBLE_EQ(t.Work(-1, 0, 10 * kMs), 5.0 * kMs);
  EXPECT_DOUBLE_EQ(t.Work(7, 0, 10 * kMs), 5.0 * kMs);
}

// A window's figures add up: span, work, stops, time below 0.8, slowest unit.
TEST(PlatformTimeline, AWindowsFiguresAddUp) {
  PlatformTimeline t({0}, Cal(), 0);
  t.Add(0, Tick(10 * kMs));
  t.Add(0, Tick(20 * kMs, 2 * kMs));
  t.Add(0, Tick(30 * kMs, 0, 2 * kNominal));
  PlatformFigures w = t.TakeWindow();
  EXPECT_EQ(w.ticks, 3u);
  EXPECT_EQ(w.span_ns, 30 * kMs);
  EXPECT_EQ(w.stopped_ns, 2 * kMs);
  EXPECT_EQ(w.work_ns, 10 * kMs + 8 * kMs + 5 * kMs);
  EXPECT_EQ(w.slow_ns, 2 * kMs + 10 * kMs);
  EXPECT_DOUBLE_EQ(w.speed_min, 0.5);
  EXPECT_DOUBLE_EQ(w.speed(), 23.0 / 30.0);
  EXPECT_EQ(t.TakeWindow().ticks, 0u);
  // Two processes' windows: CPUs add up, so the per-CPU stop stays the mean.
  PlatformFigures a = w;
  a.AddProcess(w);
  EXPECT_EQ(a.cpus, 2u);
  EXPECT_EQ(a.stopped_per_cpu_ns(), 2 * kMs);
}

// Pruning keeps lookups from the pruned instant on exact.
TEST(PlatformTimeline, PruningKeepsLaterLookupsExact) {
  PlatformTimeline t({0}, Cal(), 0);
  for (uint64_t i = 1; i <= 10000; ++i) t.Add(0, Tick(i * kMs, i % 2 ? kMs / 2 : 0));
  const double before = t.Work(0, 9000 * kMs + kMs / 4, 9500 * kMs);
  t.PruneBefore(9000 * kMs);
  EXPECT_DOUBLE_EQ(t.Work(0, 9000 * kMs + kMs / 4, 9500 * kMs), before);
}

TEST(KernelPlatform, ParsesCgroupV1AndV2CpuStat) {
  auto v1 = ParseCpuStat("nr_periods 10\nnr_throttled 4\nthrottled_time 123456789\nnr_bursts 0\n");
  ASSERT_TRUE(v1);
  EXPECT_EQ(v1->nr_periods, 10u);
  EXPECT_EQ(v1->nr_throttled, 4u);
  EXPECT_EQ(v1->throttled_ns, 123456789u);
  auto v2 = ParseCpuStat("usage_usec 5\nuser_usec 3\nsystem_usec 2\nnr_periods 7\nnr_throttled 2\nthrottled_usec 1500\n");
  ASSERT_TRUE(v2);
  EXPECT_EQ(v2->throttled_ns, 1'500'000u);
  // v2 without the cpu controller has no throttling fields: missing, not 0.
  EXPECT_FALSE(ParseCpuStat("usage_usec 5\nuser_usec 3\nsystem_usec 2\n"));
}

TEST(KernelPlatform, ParsesPressure) {
  auto p = ParsePressure("some avg10=0.00 avg60=0.00 avg300=0.00 total=1500\nfull avg10=0.00 avg60=0.00 avg300=0.00 total=20\n");
  ASSERT_TRUE(p);
  EXPECT_EQ(p->some_ns, 1'500'000u);
  EXPECT_EQ(p->full_ns, 20'000u);
  EXPECT_FALSE(ParsePressure("garbage"));
}

// /proc/self/cgroup's cpu line leads to the v1 controller's cpu.stat; a
// hierarchy without one falls back to v2's; neither: "" (missing).
TEST(KernelPlatform, FindsTheCpuControllersStat) {
  const auto root = std::filesystem::temp_directory_path() / ("sb-cgroup-" + std::to_string(::getpid()));
  std::filesystem::remove_all(root);
  std::filesystem::create_directories(root / "cpu,cpuacct/job");
  std::filesystem::create_directories(root / "unified/other");
  std::ofstream(root / "cpu,cpuacct/job/cpu.stat") << "nr_periods 1\nnr_throttled 0\nthrottled_time 0\n";
  std::ofstream(root / "unified/other/cpu.stat") << "usage_usec 1\nnr_periods 1\nnr_throttled 1\nthrottled_usec 1\n";
  EXPECT_EQ(FindCpuStat("3:cpu,cpuacct:/job\n0::/other\n", root.string()), (root / "cpu,cpuacct/job/cpu.stat").string());
  EXPECT_EQ(FindCpuStat("3:memory:/x\n0::/other\n", root.string()), (root / "unified/other/cpu.stat").string());
  EXPECT_EQ(FindCpuStat("3:memory:/x\n", root.string()), "");
  std::filesystem::remove_all(root);
}

TEST(KernelPlatform, DeltasKeepMissingSourcesMissing) {
  KernelReading a, b;
  a.cpu = Pressure{100, 10};
  b.cpu = Pressure{250, 15};
  b.cgroup = CgroupCpu{5, 2, 1000};  // appeared: no baseline, so no delta
  const KernelReading d = Delta(a, b);
  ASSERT_TRUE(d.cpu);
  EXPECT_EQ(d.cpu->some_ns, 150u);
  EXPECT_FALSE(d.cgroup);
  EXPECT_FALSE(d.memory);
}

}  // namespace
}  // namespace storebench::driver
