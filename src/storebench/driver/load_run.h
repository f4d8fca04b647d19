// LoadRun: one run of RunLoad (runner.h), its state and its steps in the
// order RunLoad calls them. Internal to the driver; its steps live in
// load_run_start.cc (workers made, placed, started, released), in
// load_run_measure.cc (warm-up, the measured window, the intervals) and in
// load_run_finish.cc (the stop, the last interval, the ideal clients, the
// figures).
#pragma once

#include "storebench/driver/runner.h"

#include <sched.h>
#include <time.h>

#include <algorithm>
#include <functional>
#include <optional>
#include <system_error>
#include <fmt/format.h>
#include <thread>

#include "storebench/base/stop_signal.h"
#include "storebench/driver/accounting.h"
#include "storebench/driver/dispatch.h"
#include "storebench/driver/hiccup.h"
#include "storebench/driver/ideal_client.h"
#include "storebench/driver/interval_collector.h"
#include "storebench/driver/interval_rule.h"
#include "storebench/driver/platform_watch.h"
#include "storebench/driver/threads.h"
#include "storebench/driver/wait_policy.h"
#include "storebench/driver/worker_loop.h"
#include "storebench/measure/clock.h"
#include "storebench/measure/recorder.h"
#include "storebench/measure/wait.h"
#include "storebench/workload/random.h"

namespace storebench::driver::internal {

// One run of RunLoad: its state, and its steps in the order RunLoad calls
// them. Per-worker state is made before any thread starts and outlives them
// all. The calling thread is the interval reporter for the whole run.
class LoadRun {
 public:
  LoadRun(backend::Backend& backend, const RunConfig& config, const std::atomic<bool>* stop, const ProgressFn& progress,
          const std::atomic<bool>* stonewall, const std::function<void()>& wake);
  // The start-up's one guard: until the workers are released to run, any
  // return aborts those started so far and joins them.
  ~LoadRun();
  LoadRun(const LoadRun&) = delete;
  LoadRun& operator=(const LoadRun&) = delete;

  void MakeWorkers();
  void PlaceThreads();
  Status StartWorkers();
  Status PrepareBackend();
  void ReleaseWorkers();
  void WarmUp();
  void BeginMeasurement();
  void Measure();
  Status Finish();
  RunResult TakeResult() { return std::move(result_); }

 private:
  enum Go : int { kWaitToGo = 0, kGoRun = 1, kGoAbort = 2 };

  // What the workers' totals add up to, for the metrics.
  struct WorkerTotals {
    uint64_t runqueue = 0, involuntary = 0, cpu = 0, sleeps = 0, late_sleeps = 0, late_yields = 0, max_window = 0;
  };

  void MakeLayout();
  void AddWorker(size_t gi, int i, int w, ArrivalSource* group_source, size_t log_budget);
  uint64_t ArrivalHorizon() const;
  void WorkerMain(int i);
  void Release(Go how);
  void JoinAll();
  bool AllDone() const;
  void FeedIdeal(bool last);
  void WarmupTick(uint64_t now);
  void StartMeters();
  uint64_t RunqueueDelta();
  void RaiseOnStop();
  bool Ended() const;
  IntervalStats CollectInterval(uint64_t now);
  // A progress tick's ideal_replayed: what the ideal clients closed since the last tick.
  void TakeReplayedIdeal(IntervalStats* st);
  void AddPlatformFigures(uint64_t now, IntervalStats* st);
  void StopWorkers();
  // The workers on this host's CPUs: this process's and its peers' (RunConfig::host_processes).
  size_t HostWorkers() const { return static_cast<size_t>(n_) * static_cast<size_t>(std::max(1, config_.host_processes)); }
  uint64_t MeasuredEnd() const;
  void CollectLastInterval();
  void AddIdealAndOffered();
  WorkerTotals AddWorkerTotals();
  void AddMetrics(const WorkerTotals& totals);

  backend::Backend& backend_;
  const RunConfig& config_;
  const std::atomic<bool>* const stop_;
  const ProgressFn& progress_;
  const std::atomic<bool>* const stonewall_;
  const std::function<void()>& wake_;
  const measure::Clock& clock_ = measure::Clock::Default();
  const int n_;
  // A run bounded by --duration alone lasts the duration, even when its
  // workers have nothing left to do before its end (an open loop's last
  // arrival falls short of it): `constant:10 --duration 1s` is 10 ops in 1 s,
  // not 10 ops in 0.9 s. A run that ends on its op count ends when its last op
  // completed (never before that op's intended start), not when this thread
  // next looks.
  const bool window_is_duration_;

  RunResult result_;
  std::atomic<bool> halt_{false};  // --max-errors reached
  std::atomic<uint64_t> failed_{0};
  const measure::RecorderLayout base_;  // the backend's: one group's kinds
  std::vector<char> error_outcomes_;

  std::vector<std::unique_ptr<measure::ThreadRecorder>> recorders_;
  std::vector<std::unique_ptr<internal::WorkerProgress>> progress_state_;
  // Arrival sources: a worker's own (partitioned) or its group's (shared).
  std::vector<std::unique_ptr<ArrivalSource>> sources_;
  std::vector<SourceRef> source_refs_;
  std::vector<internal::WorkerLoopArgs> args_;
  std::vector<backend::WorkerContext> contexts_;
  std::vector<uint32_t> worker_group_;
  internal::Timing timing_;
  // The ideal client's inputs (ideal_client.h): a log per open-loop worker.
  std::vector<std::unique_ptr<OpLog>> logs_;
  std::vector<ArrivalSource*> group_shared_;
  bool measure_waits_ = false;  // open-loop workers measure their waits for a CPU (worker_loop.h)
  std::vector<std::vector<int>> group_workers_;

  std::vector<int> allowed_;  // the CPUs the process may use
  std::vector<int> others_;   // with --cpus, the allowed ones the workers leave: the reporter's and the meter's
  size_t cpus_for_workers_ = 0;

  // Workers make their backend workers on their own threads, then wait for the start.
  std::vector<Status> worker_status_;
  std::atomic<int> ready_{0};
  std::atomic<int> go_{kWaitToGo};
  std::vector<std::thread> threads_;
  bool released_ = false;

  std::vector<std::string> data_paths_;
  ProcessAccounting accounting_;
  cpu_set_t reporter_mask_;
  bool pin_reporter_ = false;

  std::vector<std::unique_ptr<IdealClient>> ideal_clients_;
  std::vector<OpRecord> ideal_batch_;
  std::vector<size_t> ideal_taken_;  // per group: the ideal client's closed intervals handed to progress

  uint64_t hiccup_period_ = 0;
  std::optional<HiccupMeter> hiccups_;
  PlatformWatch platform_;
  std::vector<uint64_t> runqueue_seen_;  // each worker's schedstat run-queue wait at the last reading
  std::vector<internal::WorkerProgress*> accounted_;  // by CpuAccount's worker index
  std::optional<CpuAccount> cpu_account_;
  std::optional<internal::IntervalCollector> collector_;
  bool raised_for_stop_ = false;
  uint64_t end_ = 0;  // the measured window's end (Clock ns)
};

// Whether any group is bounded by --ops.
bool OpsBounded(const RunConfig& config);

// The ideal client's totals and per-interval figures into `r`: groups merged;
// arrival intervals past the last reported one (a remainder folded into it) go to it.
// `waits_measured`: every worker measured its waits for a CPU inside its ops;
// else the own-CPU replay is left out and the causes use the window's rate.
void AttachIdeal(const std::vector<std::unique_ptr<IdealClient>>& clients, bool waits_measured, RunResult* r);

}  // namespace storebench::driver::internal
