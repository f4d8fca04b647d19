// The platform meter's ticks (platform_meter.h) as a speed over time, per
// CPU: the work a CPU could do between two instants, in ns at nominal speed
// (speed 1 for the whole span = the span's length), and the figures of an
// interval. The steady-platform ideal client (ideal_client.h) replays each
// op's service time as the work its CPU could do while the op ran.
//
// Definitions: a tick that woke at w after a stop S, whose integer unit ran
// at speed s (capped at 1), covers the span from the previous tick's wake-up
// p to w: speed s over [p, w − S), speed 0 over [w − S, w). Time before the
// first tick or after the last runs at speed 1 (nothing measured it).
// A meter at 40 ms sees a stop only from when its tick was due: one that
// began while it slept is placed by the hiccup meter's stops (hiccup.h, at
// 1 ms; AddStop()): when one of them began before the tick's stop and lasted
// into it, the platform stopped both threads at once, and the tick's stop
// starts where the hiccup meter's did (not before p). The hiccup meter's
// stops must be added before the ticks they place.
// Thread-safety: one thread (the reporter) uses a timeline.
#pragma once

#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

#include "storebench/driver/kernel_platform.h"
#include "storebench/driver/platform_meter.h"

namespace storebench::driver {

// A share of the run's time is "slow" where the speed is below this.
inline constexpr double kSlowSpeed = 0.8;
// A run is on an unsteady platform when more than this share of its measured
// time was slow (summed over the metered CPUs, over their covered time).
inline constexpr double kUnsteadyShare = 0.05;

// What the meter saw over a window, summed over its CPUs so that windows,
// CPUs and processes add up exactly (speed = work / span).
struct PlatformFigures {
  uint32_t cpus = 0;        // metered CPUs (summed across processes)
  uint64_t span_ns = 0;     // covered time, summed over CPUs
  uint64_t work_ns = 0;     // work at nominal speed the CPUs could do in it
  uint64_t stopped_ns = 0;  // of it, stops (speed 0)
  uint64_t slow_ns = 0;     // of it, time at speed below kSlowSpeed (stops included)
  double speed_min = 0;     // the slowest integer unit's speed (0 = no tick)
  double memory_speed_min = 0;  // the slowest memory unit's speed
  // The contention unit (platform_meter.h; reported, not used to normalize):
  // its speed × the time the meter ran (span − stops), summed, and its slowest.
  uint64_t contention_work_ns = 0;
  double contention_speed_min = 0;
  uint64_t ticks = 0;
  KernelReading kernel;     // the kernel's own figures over the window (deltas)

  bool empty() const { return ticks == 0; }
  double speed() const { return span_ns ? static_cast<double>(work_ns) / static_cast<double>(span_ns) : 1.0; }
  // The contention unit's mean speed while the CPUs ran (1 when nothing measured it).
  double contention_speed() const {
    const uint64_t ran = span_ns - std::min(stopped_ns, span_ns);
    return ran ? static_cast<double>(contention_work_ns) / static_cast<double>(ran) : 1.0;
  }
  double slow_share() const { return span_ns ? static_cast<double>(slow_ns) / static_cast<double>(span_ns) : 0.0; }
  // The stops as time on one CPU (the mean over the metered CPUs).
  uint64_t stopped_per_cpu_ns() const { return cpus ? stopped_ns / cpus : stopped_ns; }
  // Adds another window (the next one, or the same window of another process).
  void Add(const PlatformFigures& o);
  // Adds the same window of another process (CPUs add up).
  void AddProcess(const PlatformFigures& o);
};

class PlatformTimeline {
 public:
  // `cpus`: the CPU each meter thread runs on (-1: unpinned); nominal unit times.
  PlatformTimeline(std::vector<int> cpus, MeterCalibration cal, uint64_t start_ns);

  // Appends meter i's next tick (in its time order).
  void Add(size_t meter, const MeterTick& t);
  // A stop the hiccup meter saw, [begin_ns, end_ns) (in its time order).
  void AddStop(uint64_t begin_ns, uint64_t end_ns);
  // Work (ns at nominal speed) CPU `cpu` could do in [a, b]; a CPU without a
  // meter of its own (or -1) gets the mean over the meters.
  double Work(int cpu, uint64_t a, uint64_t b) const;
  // Every meter has ticked at or after this instant.
  uint64_t covered_ns() const;
  // Forgets what is before `t_ns` (no later lookup starts before it).
  void PruneBefore(uint64_t t_ns);
  // The figures of ticks added since the last call, and starts the next window.
  PlatformFigures TakeWindow();

 private:
  struct Point {
    uint64_t t_ns;
    double work_ns;  // cumulative
  };
  struct Meter {
    int cpu = -1;
    uint64_t last_ns = 0;
    double work_ns = 0;
    double contention = 1;  // the last contention unit's speed: it holds until the next tick that runs it
    std::vector<Point> points;  // from head on
    size_t head = 0;
  };
  double WorkOf(const Meter& m, uint64_t t) const;  // cumulative work at t
  // Where a tick's stop that the meter saw from `from` began, once the hiccup
  // meter's stops place it (not before `not_before`, the previous tick).
  uint64_t StopBegin(uint64_t from, uint64_t not_before) const;

  MeterCalibration cal_;
  std::vector<Meter> meters_;
  std::vector<std::pair<uint64_t, uint64_t>> stops_;  // the hiccup meter's, [begin, end)
  PlatformFigures window_;
};

}  // namespace storebench::driver
