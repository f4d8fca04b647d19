#include "storebench/driver/platform_meter.h"

#include <gtest/gtest.h>

#include "storebench/driver/threads.h"
#include "storebench/measure/wait.h"

namespace storebench::driver {
namespace {

// The meter ticks at its pace with positive unit times and a calibration,
// each tick later than the last, and its own CPU time is measured.
TEST(PlatformMeter, TicksComeAtItsPaceWithCalibratedUnits) {
  const std::vector<int> cpus = AllowedCpus();
  PlatformMeter meter({cpus.front()}, 1'000'000, 50'000);
  meter.Start();
  EXPECT_GT(meter.calibration().cpu_unit_ns, 0u);
  EXPECT_GT(meter.calibration().mem_unit_ns, 0u);
  std::vector<MeterTick> ticks;
  const measure::Clock& clock = measure::Clock::Default();
  // Waits for an event (20 ticks), not for a time; the fixture's timeout bounds it.
  while (ticks.size() < 20) {
    measure::SleepUntil(clock, clock.NowNs() + 2'000'000);
    meter.TakeTicks(0, &ticks);
  }
  meter.Stop();
  for (size_t i = 1; i < ticks.size(); ++i) EXPECT_GT(ticks[i].woke_ns, ticks[i - 1].woke_ns);
  size_t contention = 0;
  for (const MeterTick& t : ticks) {
    EXPECT_GT(t.cpu_unit_ns, 0u);
    EXPECT_GT(t.mem_unit_ns, 0u);
    contention += t.contention_unit_ns > 0;
  }
  // The contention unit runs on every 4th tick, the first one included.
  EXPECT_GT(ticks.front().contention_unit_ns, 0u);
  EXPECT_EQ(contention, (ticks.size() + 3) / 4);
  EXPECT_GT(meter.calibration().contention_unit_ns, 0u);
  EXPECT_GT(meter.CpuNs(), 0u);
  EXPECT_EQ(meter.dropped(), 0u);
}

// The units are deterministic work: more of it takes longer.
TEST(PlatformMeter, MoreIterationsOfTheUnitTakeLonger) {
  uint64_t small = UINT64_MAX, large = UINT64_MAX;
  for (int i = 0; i < 20; ++i) {
    small = std::min(small, RunCpuUnit(1000));
    large = std::min(large, RunCpuUnit(100000));
  }
  EXPECT_GT(large, small);
}

// Stop() with a cover instant returns once every thread ticked past it.
TEST(PlatformMeter, StopWaitsUntilTheMeterCoversTheEnd) {
  PlatformMeter meter({}, 1'000'000, 50'000);
  meter.Start();
  const uint64_t until = measure::Clock::Default().NowNs();
  meter.Stop(until);
  std::vector<MeterTick> ticks;
  meter.TakeTicks(0, &ticks);
  ASSERT_FALSE(ticks.empty());
  EXPECT_GE(ticks.back().woke_ns, until);
}

}  // namespace
}  // namespace storebench::driver
