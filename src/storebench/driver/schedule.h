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

// The stream for worker `index` of `count` sharing `spec`; `seed` drives Poisson draws.
std::unique_ptr<Arrivals> MakeArrivals(const ScheduleSpec& spec, int index, int count, uint64_t seed);

}  // namespace storebench::driver
