// Running a planned job: opens the backend, runs the load (both phases of a
// two-phase job: closed-loop capacity, then an open loop at a fraction of
// it) and returns the typed result. Nothing here prints or writes a file;
// the hooks let a caller show progress and each phase's summary.
// Thread-safety: call from one thread; the driver starts its own workers.
#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "storebench/backend/backend.h"
#include "storebench/driver/runner.h"
#include "storebench/job/plan.h"

namespace storebench::job {

struct TwoPhaseResult {
  // Phase 1's capacity: the median of its intervals' ops/s (one stall cannot
  // move it as it moves the mean); the mean is kept beside it.
  double capacity_ops_per_sec = 0;
  double mean_ops_per_sec = 0;
  double fraction = 0;
  double target_ops_per_sec = 0;
  driver::RunResult phase1;
};

// The median of a closed-loop run's interval rates (intervals of at least half
// `interval_ns`), or its mean rate when it has none.
double CapacityOf(const driver::RunResult& r, uint64_t interval_ns);

struct JobResult {
  nlohmann::json config;       // the resolved job (Job::ToJson): reproduces this run
  nlohmann::json environment;  // DescribeEnvironment() of the backend's data directory
  std::string title;           // the last phase's title
  std::string schedule;        // the last phase's schedule as run ("closed", "constant:80000", …)
  driver::RunResult run;       // the last (or only) phase
  std::unique_ptr<TwoPhaseResult> two_phase;
  // Why the run failed after measuring something (its results are still
  // rendered): --max-errors reached, or phase 1 completed no ops.
  Status failure;
};

struct RunHooks {
  const std::atomic<bool>* stop = nullptr;
  driver::ProgressFn progress;
  // Before each phase of a two-phase job, with the phase's one-line description.
  std::function<void(const std::string& line)> phase_started;
  // After each phase, with its result and title.
  std::function<void(const driver::RunResult& result, const std::string& title)> phase_finished;
  // After the backend was opened (`opened` says how that went), before the
  // load: may refuse the run or set
  // plan.config (a scale-out run's common start).
  std::function<Status(Plan& plan, const Status& opened)> before_run;
  // Raised by another process of a scale-out run (see driver::RunLoad).
  const std::atomic<bool>* stonewall = nullptr;
  // Called at each of the driver's wakes in the measured window (driver::RunLoad).
  std::function<void()> wake;
};

// Opens the plan's backend and runs the job. Errors are what kept the run
// from measuring (opening the data set, a worker that could not start).
StatusOr<JobResult> RunPlan(Plan& plan, const RunHooks& hooks);

// `storebench prepare`: makes the job's backend data set; `progress` (may be
// empty) hears how far it is. `stop` (may be null) interrupts it:
// Status::Interrupted, leaving a state the same prepare resumes.
StatusOr<backend::PrepareReport> PrepareJob(const Job& job, const backend::PrepareProgressFn& progress = {},
                                            const std::atomic<bool>* stop = nullptr);

}  // namespace storebench::job
