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
// Phase 2 of a two-phase run: how busy the engine was and how fast it served
// against phase 1. busy = Σ service time ÷ (servers × measured time);
// offered_load = offered ops/s × phase 2's mean service time ÷ servers (the
// load at the engine's own phase-2 speed); slowdown = phase 2's mean service
// time ÷ phase 1's. All 0 outside phase 2.
struct EngineBusy {
  double busy = 0, offered_load = 0, service_mean_ns = 0, phase1_service_mean_ns = 0;
  int servers = 0;
  double slowdown() const { return phase1_service_mean_ns > 0 ? service_mean_ns / phase1_service_mean_ns : 0; }
};
EngineBusy EngineBusyOf(const driver::RunResult& r);
// "  engine    busy 0.91 of phase 2's time on 1 server; service mean 9.62 us, 1.01× phase 1's 9.55 us\n", and when
// the engine served 5% slower or more: "…: the offered rate was 1.26 of what it served at that speed" ("" outside
// phase 2).
std::string EngineBusyLine(const driver::RunResult& r);
// A phase-2 engine serves 5% slower than in phase 1 or more: the line says what that did to the load.
inline constexpr double kEngineSlowdown = 1.05;
// The first summary line's flag ("" on a steady platform).
std::string UnsteadyLine(const driver::RunResult& r);

}  // namespace storebench::report
