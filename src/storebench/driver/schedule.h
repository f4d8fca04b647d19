// Arrival schedules: when each op of an open-loop run should start.
//
// A ScheduleSpec is parsed once from text (`closed`, `constant:RATE`,
// `poisson:RATE`, `sine:A,B,C,D`, `steps:DUR@RATE,…`, `trace:FILE`). Each
// worker gets its own Arrivals stream carrying 1/N of the load: rates are
// divided among the N workers of a group (a split Poisson process is again
// Poisson), and a trace is dealt out round-robin. The intended start of each op
// is taken from the stream, never from the previous completion, so a slow
// target cannot slow the arrivals down (no coordinated omission).
// Thread-safety: a ScheduleSpec is immutable and shareable; an Arrivals stream
// belongs to one worker, except ExpectedBefore(), which only reads immutable
// state and may be called by the reporter.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "storebench/base/status.h"

namespace storebench::driver {

// The fastest arrival rate a schedule may ask for: one arrival per nanosecond
// of the clock arrivals are scheduled on.
inline constexpr double kMaxRatePerSec = 1e9;

// The latest arrival any stream yields (ns since the start of arrivals, about
// 146 years): later ones are "none". Far below UINT64_MAX, so that an
// arrival time plus the run's start instant never wraps.
inline constexpr uint64_t kArrivalHorizonNs = uint64_t{1} << 62;

struct ScheduleSpec {
  enum class Kind { kClosed, kConstant, kPoisson, kSine, kSteps, kTrace } kind = Kind::kClosed;
  double rate = 0;                 // constant, poisson: ops/s for the whole group
  double a = 0, b = 0, c = 0, d = 0;  // sine: rate(t) = a*sin(b*t + c) + d, t in s
  struct Step {
    uint64_t duration_ns;
    double rate;
  };
  std::vector<Step> steps;
  std::shared_ptr<const std::vector<uint64_t>> trace;  // arrival offsets in ns, sorted
  std::string text;                                    // as given
  double phase_ns = 0;  // constant: the first arrival's offset (staggers several processes sharing a rate)

  bool open_loop() const { return kind != Kind::kClosed; }
  // Instantaneous group rate at t (ns since measurement start); 0 for closed.
  double RateAt(uint64_t t_ns) const;
  // Time at which the schedule has no more arrivals (UINT64_MAX if never).
  uint64_t EndNs() const;
  // The highest rate it asks for (ops/s): a trace's densest second; 0 for closed.
  double PeakRate() const;
  // Expected arrivals of the whole group in [0, t_ns); a trace's exact count.
  double ExpectedArrivals(uint64_t t_ns) const;
  // The first instant after t_ns at which the rate is positive (sine, steps);
  // UINT64_MAX when it never is again. Always > t_ns.
  uint64_t NextPositiveNs(uint64_t t_ns) const;
  // The part of this schedule that process `rank` of `ranks` runs when they
  // share it side by side (MPI ranks): rates divided (a split Poisson process is
  // again Poisson), constant arrivals interleaved evenly across the ranks, a
  // trace dealt out round-robin. The ranks together offer the whole schedule.
  ScheduleSpec ShareOf(int rank, int ranks) const;
};

// Parses a --schedule value. A trace file is read here: one arrival time per
// line in seconds from the start (fractions allowed), '#' comments, sorted.
StatusOr<ScheduleSpec> ParseSchedule(std::string_view text, std::string_view flag = "--schedule");

class Arrivals {
 public:
  virtual ~Arrivals() = default;
  // Intended start of the next op, ns since the start of arrivals; UINT64_MAX when exhausted.
  virtual uint64_t Next() = 0;
  // Expected number of this stream's arrivals in [0, t_ns) — for the backlog estimate.
  virtual double ExpectedBefore(uint64_t t_ns) const = 0;
};

// The stream for worker `index` of `count` sharing `spec`; `seed` drives Poisson
// draws. It yields no arrival at or after `horizon_ns` (the run's end, when
// known): Next() then returns UINT64_MAX at once, however far the next
// arrival lies or however long the rate stays zero.
std::unique_ptr<Arrivals> MakeArrivals(const ScheduleSpec& spec, int index, int count, uint64_t seed,
                                       uint64_t horizon_ns = kArrivalHorizonNs);

// Refuses, before a run, a schedule whose rate is too small for the run to
// hold one arrival: `run_ns` is the run's length in arrival time (warm-up and
// --duration; 0 when only `ops` bounds it). With a length, a positive rate
// expecting fewer than one arrival in it is refused; a schedule whose rate is
// zero all run long (steps at 0, a sine below zero) is accepted and measures
// 0 ops. With --ops alone, the ops must be due within kArrivalHorizonNs.
// `flag` names where the schedule came from, e.g. "--schedule".
Status CheckScheduleFitsRun(const ScheduleSpec& spec, uint64_t run_ns, uint64_t ops, std::string_view flag);

}  // namespace storebench::driver
