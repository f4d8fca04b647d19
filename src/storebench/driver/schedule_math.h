// Internal to driver/schedule.cc and driver/arrivals.cc: the arithmetic of a
// sine schedule that both the spec's expectations and its arrival stream use,
// and the unit they both count time in.
#pragma once

#include "storebench/driver/schedule.h"

namespace storebench::driver {

inline constexpr double kNsPerS = 1e9;

// Expected arrivals of a sine schedule in [0, t_s) (seconds), for the whole group.
double SineArrivals(const ScheduleSpec& spec, double t_s);

}  // namespace storebench::driver
