// Internal to driver/schedule.cc and driver/arrivals.cc: the arithmetic of a
// sine schedule that both the spec's expectations and its arrival stream use.
#pragma once

#include "storebench/driver/schedule.h"

namespace storebench::driver {

// Expected arrivals of a sine schedule in [0, t_s) (seconds), for the whole group.
double SineArrivals(const ScheduleSpec& spec, double t_s);

}  // namespace storebench::driver
