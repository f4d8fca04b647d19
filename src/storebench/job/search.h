// Capacity search on the job layer: the jobs a search runs and the order of
// its rates. A search takes a closed-loop job (what `run` would run), measures
// its capacity with that job as given, then runs it open loop at chosen
// rates: each step is the same job with a constant schedule and a fixed
// duration. RateSearch decides which rate comes next — bisection between a
// bottom and a top rate, or a fixed list (a sweep) — from pass/fail verdicts
// it is told; judging a step is the caller's business (report/slo.h).
// Thread-safety: value types and pure functions.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "storebench/job/job.h"

namespace storebench::job {

// The groups a search loads: the --class groups left closed-loop and without
// a role (or the one main group). Others (a writer, a class with its own
// schedule) run beside them unchanged.
struct SearchLoad {
  std::vector<std::string> groups;  // names as in the result ("main" without --class)
  std::vector<int> threads;         // per group, to split a rate
  int slots = 0;                    // ops the loaded groups can hold in flight (threads × iodepth)
};

// Refuses a job a search cannot step: it sets --schedule, --two-phase,
// --duration or --ops itself (InvalidArgument naming the flag), and needs at
// least one closed-loop group to load. Plans `job` to find its load.
StatusOr<SearchLoad> CheckSearchJob(const Job& job);

// The job of one step: `job` run for `duration_ns` (reporting every
// `interval_ns` unless the job sets --interval), with seed + `repeat` so
// repeats draw different keys, and — when `rate` > 0 — every loaded group at
// a constant share of `rate` ops/s in proportion to its threads.
Job StepJob(const Job& job, const SearchLoad& load, double rate, uint64_t duration_ns, uint64_t interval_ns,
            int repeat);

// Which rate to run next. Rates are whole ops/s, so a rerun asks for the same ones.
class RateSearch {
 public:
  enum class Outcome {
    kRunning,     // Next() has a rate
    kBracketed,   // highest pass and lowest fail within the precision
    kTopPasses,   // the top rate passes: the search cannot say how much higher
    kBottomFails, // even the bottom rate fails
    kSwept,       // every rate of the sweep ran
  };

  // Bisection: the top first, then the bottom, then midpoints of the bracket
  // until lowest fail − highest pass <= precision × lowest fail.
  static RateSearch Bisect(double bottom, double top, double precision);
  // Each rate once, in the order given.
  static RateSearch Sweep(std::vector<double> rates);

  // The next rate to run; nullopt when done.
  std::optional<double> Next() const;
  void Record(double rate, bool pass);
  Outcome outcome() const;

  // Highest passing rate below every failing one (0 = none), lowest failing rate (0 = none).
  double highest_pass() const { return highest_pass_; }
  double lowest_fail() const { return lowest_fail_; }

 private:
  bool sweep_ = false;
  double bottom_ = 0, top_ = 0, precision_ = 0;
  std::vector<double> rates_;  // sweep
  std::vector<std::pair<double, bool>> done_;
  double highest_pass_ = 0, lowest_fail_ = 0;
};

}  // namespace storebench::job
