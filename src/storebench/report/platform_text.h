// The platform meter's figures as the outputs show them: the JSON object of
// an interval, the CSV columns, the summary's speed line and its first-line
// flag. One owner for each, so that every output says the same.
// Thread-safety: pure functions.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "storebench/driver/runner.h"

namespace storebench::report {

// An interval's `platform` object: speed, speed_min, memory_speed_min,
// contention_speed, contention_speed_min,
// stopped_ns, slow_share, and the kernel's throttling and pressure (null
// where the kernel has no such source).
nlohmann::json PlatformIntervalJson(const driver::PlatformFigures& f);
// The run's platform speed figures from its metrics (exact across merged results).
struct RunPlatform {
  bool metered = false;
  double speed_mean = 1, speed_min = 0, slow_share = 0;
  double contention_mean = 1, contention_min = 0;  // the contention unit (reported, not in the causes)
  uint64_t stopped_ns = 0;  // per metered CPU
  double meter_cost = 0;    // share of one CPU
  bool unsteady() const { return metered && slow_share > driver::kUnsteadyShare; }
};
RunPlatform RunPlatformOf(const driver::RunResult& r);

// CSV: the header's platform columns and one interval's values (same count).
std::string PlatformCsvHeader();
std::string PlatformCsvValues(const driver::IntervalStats& st);

// "  speed     platform speed mean 0.98, min 0.62 at 14 s, below 0.8 for 3% of the time, stopped 12 ms, cgroup
// throttled 1.2 s, steal 0%, PSI cpu some 0.40 s; meter cost 0.21% of a CPU\n" ("" without the meter).
std::string SpeedLine(const driver::RunResult& r);
// Two-phase phase 2: an interval's effective load, offered ÷ (phase 1's
// capacity × the platform's speed in it); 0 when either is unknown.
double EffectiveLoad(const driver::RunResult& r, const driver::IntervalStats& st);
// "  load      effective load median 0.95, highest 1.21 at 12 s: …\n" ("" outside phase 2).
std::string EffectiveLoadLine(const driver::RunResult& r);
// The first summary line's flag ("" on a steady platform).
std::string UnsteadyLine(const driver::RunResult& r);

}  // namespace storebench::report
