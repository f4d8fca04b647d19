#include "storebench/driver/runner.h"

#include <algorithm>

#include "storebench/base/stop_signal.h"
#include "storebench/driver/load_run.h"

namespace storebench::driver {
namespace {

Status Validate(const RunConfig& config, const backend::Backend& backend) {
  if (config.groups.empty()) return Status::InvalidArgument("run: no worker groups");
  for (const WorkerGroup& g : config.groups) {
    if (g.threads < 1) return Status::InvalidArgument(fmt::format("--threads: must be at least 1 (group {})", g.name));
    if (g.queue_depth < 1) return Status::InvalidArgument("--iodepth: must be at least 1");
    STOREBENCH_RETURN_IF_ERROR(backend.CheckGroup({g.name, g.role, g.threads, g.queue_depth, g.priority}));
  }
  // job::MakePlan refuses an unbounded job; a share of --ops under MPI can still leave a rank none.
  if (!config.bounded()) return Status::InvalidArgument("run: give --duration or --ops (e.g. --duration 10s)");
  if (config.interval_ns < 1'000'000) return Status::InvalidArgument("--interval: must be at least 1ms");
  return Status::Ok();
}

}  // namespace

double RunResult::achieved_ops_per_sec() const {
  return elapsed_s > 0 && total ? static_cast<double>(total->ops()) / elapsed_s : 0;
}

PlatformFigures RunResult::platform() const {
  PlatformFigures sum;
  for (const IntervalStats& st : intervals) sum.Add(st.platform);
  return sum;
}

bool RunResult::sustained() const {
  if (!open_loop || !total) return true;
  const double ops = static_cast<double>(total->ops());
  // One op per server may be in flight or just due when the window closes: in
  // a short run that alone is more than 1%, and it is no sign of overload.
  const double slack = std::max(1.0, static_cast<double>(ideal_servers));
  return (ops >= kSustainedAchievedFraction * offered_ops || offered_ops - ops <= slack) &&
         static_cast<double>(unstarted) <= std::max(kSustainedBacklogFraction * ops, slack);
}

bool RunResult::no_arrivals_due() const {
  return open_loop && total && total->ops() == 0 && unstarted == 0 && unfinished == 0;
}

Percentiles PercentilesOf(const measure::Histogram& h) {
  return {h.ValueAtPercentile(50),   h.ValueAtPercentile(90),    h.ValueAtPercentile(99),
          h.ValueAtPercentile(99.9), h.ValueAtPercentile(99.99), h.max()};
}

StatusOr<RunResult> RunLoad(backend::Backend& backend, const RunConfig& config, const std::atomic<bool>* stop,
                            const ProgressFn& progress, const std::atomic<bool>* stonewall,
                            const std::function<void()>& wake) {
  STOREBENCH_RETURN_IF_ERROR(Validate(config, backend));
  static const std::atomic<bool> kNeverStop{false};
  // A stop signal may raise this thread to real-time priority to finish the
  // run promptly (base/stop_signal.h); what runs after the run does not keep it.
  const KeepThreadScheduling keep_scheduling;
  internal::LoadRun run(backend, config, stop ? stop : &kNeverStop, progress, stonewall, wake);
  run.MakeWorkers();
  run.PlaceThreads();
  STOREBENCH_RETURN_IF_ERROR(run.StartWorkers());
  STOREBENCH_RETURN_IF_ERROR(run.PrepareBackend());
  run.ReleaseWorkers();
  run.WarmUp();
  run.BeginMeasurement();
  run.Measure();
  STOREBENCH_RETURN_IF_ERROR(run.Finish());
  return run.TakeResult();
}

}  // namespace storebench::driver
