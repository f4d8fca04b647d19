#include "storebench/job/run.h"

#include <algorithm>
#include <optional>

#include <sys/stat.h>

#include <fmt/format.h>

#include "storebench/base/output_path.h"
#include "storebench/driver/threads.h"
#include "storebench/driver/interval_rule.h"
#include "storebench/job/data_dir.h"
#include "storebench/job/environment.h"

namespace storebench::job {
namespace {

std::string ScheduleText(const driver::RunConfig& c) {
  return c.groups[0].schedule.open_loop() ? c.groups[0].schedule.text : "closed";
}

StatusOr<driver::RunResult> RunPhase(Plan& plan, const RunHooks& hooks, const std::string& title,
                                     const TwoPhaseResult* two_phase = nullptr) {
  auto r = driver::RunLoad(*plan.backend, plan.config, hooks.stop, hooks.progress, hooks.stonewall, hooks.wake);
  if (!r.ok()) return r.status();
  if (two_phase) {
    r->capacity_ops_per_sec = two_phase->capacity_ops_per_sec;
    if (two_phase->phase1.total) r->capacity_service_mean_ns = two_phase->phase1.total->AllService().mean();
  }
  if (hooks.phase_finished) hooks.phase_finished(*r, title);
  return r;
}

Status StoppedOnErrors(const driver::RunResult& r) {
  return Status::IOError(fmt::format("--max-errors: the run stopped after {} failed ops; the results measured so far "
                                     "are written (see totals.outcomes)",
                                     r.total ? r.total->errors() : 0));
}

// --data must name a directory (or nothing yet, for prepare to make).
Status CheckDataDir(const backend::Backend& b) {
  const std::string dir = b.DataDir();
  struct stat st {};
  if (dir.empty() || ::stat(dir.c_str(), &st) != 0 || S_ISDIR(st.st_mode)) return Status::Ok();
  return Status::InvalidArgument(
      fmt::format("--data: '{}' is a {}; give the data set's directory", dir, S_ISREG(st.st_mode) ? "file" : "special file"));
}

// A run in which too many ops failed has measured mostly failures: its
// figures are written but it does not pass for a good run.
Status ErrorShare(const driver::RunResult& r, double max_ratio) {
  if (!r.total || r.total->ops() == 0 || max_ratio >= 1) return Status::Ok();
  const double ratio = static_cast<double>(r.total->errors()) / static_cast<double>(r.total->ops());
  if (ratio <= max_ratio) return Status::Ok();
  return Status::IOError(fmt::format("--max-error-ratio: {:.4g}% of the ops failed ({} of {}), more than {:.4g}%; the "
                                     "results are written (see totals.outcomes)",
                                     ratio * 100, r.total->errors(), r.total->ops(), max_ratio * 100));
}

}  // namespace

double CapacityOf(const driver::RunResult& r, uint64_t interval_ns) {
  // The intervals that count (driver/interval_rule.h).
  std::vector<double> lengths, rates;
  for (const driver::IntervalStats& st : r.intervals) lengths.push_back(st.length_s), rates.push_back(st.ops_per_sec);
  rates.resize(driver::CountedIntervals(lengths, static_cast<double>(interval_ns) / 1e9));
  if (rates.empty()) return r.elapsed_s > 0 ? static_cast<double>(r.total->ops()) / r.elapsed_s : 0;
  std::sort(rates.begin(), rates.end());
  const size_t m = rates.size() / 2;
  return rates.size() % 2 ? rates[m] : (rates[m - 1] + rates[m]) / 2;
}

StatusOr<JobResult> RunPlan(Plan& plan, const RunHooks& hooks) {
  backend::Backend& b = *plan.backend;
  Status opened = CheckDataDir(b);
  // Held until the run returns: no other storebench writes the set meanwhile.
  StatusOr<DirLock> data_lock = opened.ok() ? LockDataSetForRun(b) : StatusOr<DirLock>(DirLock());
  if (opened.ok() && !data_lock.ok()) opened = data_lock.status();
  if (opened.ok() && b.WritesData()) opened = CheckDataDirectoryWritable(b.DataDir(), "--data");
  if (opened.ok()) opened = b.Open();
  if (hooks.before_run) {
    // Called on failure too, so the processes of a scale-out run learn of it together.
    Status agreed = hooks.before_run(plan, opened);
    if (!agreed.ok()) opened = agreed;
  }
  STOREBENCH_RETURN_IF_ERROR(opened);
  JobResult out;
  out.config = plan.job.ToJson();
  out.environment = DescribeEnvironment(b.DataDir());
  const Outputs& o = plan.job.outputs;
  out.title = !o.title.empty() ? o.title
                               : fmt::format("storebench run --backend {} ({}, {} threads)", plan.job.backend,
                                             ScheduleText(plan.config), plan.config.total_threads());
  if (plan.core.two_phase.on) {
    const std::string title1 = "phase 1: closed loop, maximum throughput";
    if (hooks.phase_started) hooks.phase_started(title1);
    auto p1 = RunPhase(plan, hooks, title1);
    if (!p1.ok()) return p1.status();
    auto tp = std::make_unique<TwoPhaseResult>();
    tp->capacity_ops_per_sec = CapacityOf(*p1, plan.config.interval_ns);
    tp->mean_ops_per_sec = p1->elapsed_s > 0 ? static_cast<double>(p1->total->ops()) / p1->elapsed_s : 0;
    tp->fraction = plan.core.two_phase.fraction;
    tp->target_ops_per_sec =
        plan.core.two_phase.rate > 0 ? plan.core.two_phase.rate : tp->capacity_ops_per_sec * plan.core.two_phase.fraction;
    const double rate = tp->target_ops_per_sec;
    if (p1->interrupted || p1->stopped_on_errors || !(rate > 0)) {
      // Nothing more to run: phase 1 is the result.
      out.failure = p1->stopped_on_errors ? StoppedOnErrors(*p1)
                    : p1->interrupted     ? Status::Ok()
                                          : Status::IOError("--two-phase: phase 1 completed no ops");
      out.schedule = "closed";
      out.title = title1;
      out.run = std::move(*p1);  // phase1 stays empty: the result is phase 1
      out.environment["wakeup_latency_ns"] = out.run.wakeup_latency_ns;
      out.two_phase = std::move(tp);
      return out;
    }
    tp->phase1 = std::move(*p1);
    driver::ScheduleSpec& s = plan.config.groups[0].schedule;
    s.kind = driver::ScheduleSpec::Kind::kConstant;
    s.rate = rate;
    s.text = fmt::format("constant:{:.0f}", rate);
    out.title = fmt::format("phase 2: open loop at {:.0f} ops/s", rate);
    if (hooks.phase_started)
      hooks.phase_started(fmt::format(
          "phase 2: open loop at {:.0f} ops/s ({} of the measured {:.0f} ops/s, the median of phase 1's intervals)", rate,
          plan.core.two_phase.rate > 0 ? std::string("a given rate") : fmt::format("{:.0f}%", plan.core.two_phase.fraction * 100),
          tp->capacity_ops_per_sec));
    out.two_phase = std::move(tp);
  }
  auto r = RunPhase(plan, hooks, out.title, out.two_phase.get());
  if (!r.ok()) return r.status();
  out.schedule = ScheduleText(plan.config);
  out.run = std::move(*r);
  out.environment["wakeup_latency_ns"] = out.run.wakeup_latency_ns;
  out.environment["open_loop_spin_ns"] = out.run.spin_ns;
  out.environment["wakeup_latency_p99_ns"] = out.run.wakeup_latency_p99_ns;
  out.environment["open_loop_wait_yields"] = out.run.wait_yields;
  out.environment["cpus_allowed"] = driver::AllowedCpus().size();
  if (out.run.stopped_on_errors) out.failure = StoppedOnErrors(out.run);
  if (out.failure.ok() && !out.run.interrupted) out.failure = ErrorShare(out.run, plan.core.max_error_ratio);
  return out;
}

StatusOr<backend::PrepareReport> PrepareJob(const Job& job, const backend::PrepareProgressFn& progress,
                                            const std::atomic<bool>* stop) {
  const backend::BackendInfo* info = backend::FindBackend(job.backend);
  if (!info) return UnknownBackend(job.backend);
  if (!(info->capabilities & backend::kCanPrepare))
    return Status::InvalidArgument(fmt::format("--backend: '{}' has no data set to prepare", job.backend));
  CoreOptions core;
  STOREBENCH_RETURN_IF_ERROR(CoreOptionTable().Apply(job.options, &core));
  backend::CommonOptions common;
  common.seed = core.seed;
  common.stop = stop;
  auto b = info->create(job.backend_options, common);
  if (!b.ok()) return b.status();
  STOREBENCH_RETURN_IF_ERROR(CheckDataDir(**b));
  // Prepare writes the data set: a directory it cannot write (read-only, a
  // pseudo file system, a full disk, a name too long) is refused before
  // anything is made; then the directory is claimed (job/data_dir.h).
  std::optional<PrepareClaim> claim;
  if (!(*b)->DataDir().empty()) {
    STOREBENCH_RETURN_IF_ERROR(CheckOutputDirectory((*b)->DataDir(), "--data"));
    auto taken = PrepareClaim::Take((*b)->DataDir());
    if (!taken.ok()) return taken.status();
    claim = std::move(*taken);
  }
  backend::PrepareReport report;
  report.progress = progress;
  Status made = (*b)->Prepare(&report);
  report.progress = nullptr;  // it may refer to the caller's locals
  if (!made.ok() && made.code() != Status::Code::kInterrupted && claim) claim->Undo();
  STOREBENCH_RETURN_IF_ERROR(made);
  return report;
}

}  // namespace storebench::job
