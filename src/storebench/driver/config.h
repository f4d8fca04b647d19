// RunConfig: everything the driver needs for one measured run, built once by
// the CLI and passed down. Plain data; nothing here is read from globals.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "storebench/driver/schedule.h"
#include "storebench/io/cache_state.h"
#include "storebench/measure/histogram.h"

namespace storebench::driver {

// A set of workers sharing a schedule and a role: the whole load of a simple
// run, or one query class (e.g. a high-priority scan beside a low-priority one,
// or the writer of readwhilewriting). Results are reported per group.
struct WorkerGroup {
  std::string name = "main";
  std::string role;      // passed to the backend (e.g. "writer"); empty = main workload
  int threads = 1;
  int queue_depth = 1;   // ops in flight per worker (needs an async backend when > 1)
  int priority = 0;      // read priority passed to the backend (lower = more urgent)
  ScheduleSpec schedule; // closed loop or open-loop arrivals for the whole group
  uint64_t ops = 0;      // measured ops for the whole group; 0 = no limit
};

// How a group's open-loop arrivals reach its workers (dispatch.h).
enum class Dispatch { kShared, kPartitioned };
// How a worker with nothing due waits for its next arrival (wait_policy.h).
//   spin: sleeps while it is far, spins the last 60 µs (precise, burns a CPU);
//   sleep: always gives the CPU back (a late wake-up shows as start lag);
//   adaptive: sleeps only while the arrival is further away than the host's
//   wake-up latency tail (measured at start-up, then followed per worker), and
//   stays awake for the rest, yielding the CPU on every turn when the workers
//   leave no CPU free.
// (Adaptive is first, so a RunConfig's zero value waits as `run` does by default.)
enum class WaitMode { kAdaptive, kSpin, kSleep };

// The settings `run` has options for are filled by job::MakePlan from the
// core options, whose table (job::CoreOptionTable()) holds their defaults;
// here they are zero until set, and a driver caller sets at least
// interval_ns (RunLoad refuses less than 1 ms).
struct RunConfig {
  std::vector<WorkerGroup> groups{WorkerGroup{}};
  uint64_t duration_ns = 0;  // measured time after warm-up; 0 = until ops or the schedule run out
  uint64_t warmup_ns = 0;
  uint64_t interval_ns = 0;
  uint64_t seed = 0;
  // In-flight ops still running this long after the end are counted as unfinished.
  uint64_t drain_timeout_ns = 10'000'000'000;
  // Stop the run once this many measured ops have failed (an "error:" outcome); 0 = never.
  uint64_t max_errors = 0;
  measure::HistogramOptions histogram;
  // Page-cache state the backend's data set (Backend::DataPaths()) is put in before the run.
  io::CacheState cache{};
  Dispatch dispatch{};
  WaitMode wait{};
  // CPUs the workers are pinned to (round robin); empty = not pinned. The
  // reporter and the hiccup meter go to the other allowed CPUs when there are any.
  std::vector<int> cpus;
  // When the arrivals start (Clock ns, e.g. a start common to several
  // processes); 0 or an instant already past = 1 ms after the workers are ready.
  uint64_t start_at_ns = 0;
  // Processes of this job that share this host's CPUs, each running these
  // workers (under mpirun: the ranks on this host). The wait policy and the
  // hiccup meter's period count the workers of all of them against the CPUs.
  int host_processes = 1;
  // The platform hiccup meter's sleep period; 0 = no meter (until set); kHiccupAuto = 1 ms
  // when the meter has a CPU the workers do not use, else 10 ms (each of its
  // wake-ups then preempts a worker: at 1 ms they were ~5/6 of the workers'
  // involuntary switches in a two-worker run on two CPUs).
  static constexpr uint64_t kHiccupAuto = UINT64_MAX;
  uint64_t hiccup_period_ns = 0;
  // The platform meter's period per CPU (platform_meter.h); 0 = off.
  uint64_t meter_period_ns = 40'000'000;

  int total_threads() const {
    int n = 0;
    for (const auto& g : groups) n += g.threads;
    return n;
  }
  // Whether the run ends by itself: a duration, a group's ops, or a schedule that runs out.
  bool bounded() const {
    bool b = duration_ns > 0;
    for (const auto& g : groups) b = b || g.ops > 0 || g.schedule.EndNs() != UINT64_MAX;
    return b;
  }
};

}  // namespace storebench::driver
