// RunLoad(): drives a backend with the configured worker groups — closed loop
// (each worker keeps queue_depth ops in flight back to back) or open loop (an
// arrival schedule decides when each op should start) — and returns what was
// measured: totals, per-kind histograms, an interval timeline and the typed
// figures of the process and the backend. Before the run it puts the
// backend's data set into the configured page-cache state.
//
// Workers record into their own ThreadRecorder; the calling thread acts as the
// interval reporter and collects by buffer swap, so no operation ever waits on
// another thread's bookkeeping. Ops that complete during warm-up are counted
// apart and left out of every figure. A raised `stop` flag (SIGINT) ends the
// run early; what was measured up to then is returned, marked interrupted.
// Thread-safety: call from one thread; it starts and joins its own workers.
#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "storebench/backend/backend.h"
#include "storebench/driver/config.h"
#include "storebench/driver/cpu_account.h"
#include "storebench/driver/platform_timeline.h"
#include "storebench/measure/metrics.h"
#include "storebench/measure/sample.h"

namespace storebench::driver {

struct Percentiles {
  uint64_t p50 = 0, p90 = 0, p99 = 0, p999 = 0, p9999 = 0, max = 0;
};
Percentiles PercentilesOf(const measure::Histogram& h);

struct IntervalStats {
  double t_s = 0;       // end of the interval, seconds since measurement began
  double length_s = 0;
  uint64_t ops = 0, errors = 0, bytes = 0;
  double ops_per_sec = 0;
  Percentiles response, service;
  double backlog = 0;   // arrivals due but not yet started at the interval's end (open loop)
  uint64_t lag_ns = 0;  // how far the most-behind worker is behind schedule at the interval's end
  // The largest backlog and start lag within the interval, from what the
  // workers saw at each op's start (and the end-of-interval sample).
  double max_backlog = 0;
  uint64_t max_lag_ns = 0;
  uint64_t runqueue_wait_ns = 0;  // the workers' run-queue wait during the interval (schedstat)
  uint64_t hiccup_p99_ns = 0, hiccup_max_ns = 0;  // the platform hiccup meter's lateness
  CpuHeld cpu;  // who held the CPU during the interval (cpu_account.h)
  PlatformFigures platform;  // the platform meter's and the kernel's figures (platform_timeline.h)
  std::vector<uint64_t> group_ops;  // ops per worker group
  double offered_ops_per_sec = 0;   // open loop: the arrivals the schedule asked for in the interval, per second
  // Open loop, by arrival: the ops due in this interval (intended start in
  // [t_s − length, t_s) of the nominal grid) as the ideal client replays them
  // and as the run observed them (ideal_client.h). Filled at the end of the run.
  bool has_ideal = false;
  Percentiles ideal, arrival_observed;
  Percentiles steady;  // the steady-platform ideal client's (ideal_client.h)
  Percentiles own_cpu;  // the own-CPU ideal client's (ideal_client.h)
  Percentiles with_stops;  // the ideal client's with the platform's stops between ops (ideal_client.h)
  // The interval's histograms, lossless (Histogram::Encode()), so intervals of
  // several processes merge exactly.
  std::string response_histogram, service_histogram;
  // Per op kind (RunResult::layout.kinds), lossless: for per-kind logs (.hlog tags).
  std::vector<std::string> kind_response_histograms, kind_service_histograms;
  // Their names (RunResult::layout.kinds), shared by every interval of a run;
  // null where an interval was merged from several processes' messages.
  std::shared_ptr<const std::vector<std::string>> kinds;
  bool warmup = false;  // a progress tick during warm-up (not part of the results)
  // A progress tick of the ops that ended after the last full interval, when
  // the result folds them into that interval (too short to count): live
  // counters add them; it is not an interval of its own.
  bool folded = false;
  // Progress ticks of an open loop only (never in RunResult::intervals): the
  // ideal client's histograms (Histogram::Encode()) of the arrival intervals
  // its streamed replay closed since the last tick; the live page adds them up.
  std::vector<std::string> ideal_replayed;
  measure::MetricSet backend;  // Backend::IntervalFigures() at the interval's end
};

// An open-loop run sustained its offered rate when it achieved at least this
// share of it and ended with at most this share of its ops still due.
inline constexpr double kSustainedAchievedFraction = 0.99;
inline constexpr double kSustainedBacklogFraction = 0.01;

struct RunResult {
  measure::RecorderLayout layout;          // kinds are "group/kind" when there are several groups
  std::vector<std::string> group_names;
  std::vector<uint32_t> group_first_kind;  // index of each group's first kind in layout.kinds
  std::unique_ptr<measure::Sample> total;
  std::vector<IntervalStats> intervals;
  double elapsed_s = 0;      // measured time, warm-up excluded
  uint64_t warmup_ops = 0;
  uint64_t unfinished = 0;   // in flight at the end and not completed within the drain timeout
  uint64_t unstarted = 0;    // open loop: arrivals due before the end that never started
  bool interrupted = false;
  bool stopped_on_errors = false;  // RunConfig::max_errors failed ops ended the run
  bool open_loop = false;
  // The process-wide figures (cpu.*, io.* from /proc/self/io, cache.* of the
  // backend's data set) and the backend's own (Backend::Figures()).
  measure::MetricSet metrics;
  // The platform hiccup meter's lateness over the measured window (hiccup.h).
  std::optional<measure::Histogram> hiccups;
  uint64_t wakeup_latency_ns = 0;      // median, measured at start-up (threads.h)
  uint64_t wakeup_latency_p99_ns = 0;  // its tail: the wait policy's spin window floor
  double measure_start_epoch_s = 0;  // wall-clock time when the measured window began
  uint64_t spin_ns = 0;            // how close to an arrival workers stay awake (at the start; it adapts)
  bool wait_yields = false;        // the awake stretch yields the CPU (workers leave no CPU free)
  bool stonewalled = false;        // ended by the `stonewall` flag (another process finished first)
  // Interrupted: from the stop request to the last worker's end, and how many
  // busy workers were raised to finish first (threads.h RaiseToFinish); refused
  // when the process may not raise them (no CAP_SYS_NICE).
  uint64_t stop_wait_ns = 0;
  int stop_workers_raised = 0;
  bool stop_raise_refused = false;
  // Open loop: arrivals the schedules asked for in the measured window.
  double offered_ops = 0;
  // Phase 2 of a two-phase run: phase 1's capacity, the reference of each
  // interval's effective load (offered ÷ (capacity × the platform's speed)).
  double capacity_ops_per_sec = 0;
  // and phase 1's mean service time (exact: the histogram's sum ÷ count), the
  // reference of phase 2's: an engine that serves slower in phase 2 is offered more than its capacity.
  double capacity_service_mean_ns = 0;
  // Open loop: the ideal client (ideal_client.h) over the measured window,
  // and the run's own response times of the same ops; servers = Σ threads × depth.
  std::optional<measure::Histogram> ideal, ideal_observed;
  // The steady-platform ideal client over the same ops (absent without the platform meter).
  std::optional<measure::Histogram> steady;
  // The own-CPU ideal client over the same ops (service times less the workers' run-queue waits in them).
  std::optional<measure::Histogram> own_cpu;
  // The ideal client with the platform's stops its workers measured between ops (ideal_client.h).
  std::optional<measure::Histogram> with_stops;
  int ideal_servers = 0;
  uint64_t ideal_dropped = 0;  // records a full log dropped: the replay is inexact when > 0

  double achieved_ops_per_sec() const;
  double offered_ops_per_sec() const { return elapsed_s > 0 ? offered_ops / elapsed_s : 0; }
  // The platform meter's figures over the measured window (its intervals' sum).
  PlatformFigures platform() const;
  // Open loop: achieved >= 99% of offered and at most 1% of ops left due
  // (unstarted), each with a slack of one op per server (threads × depth).
  bool sustained() const;
  // Open loop: no arrival fell due in the measured window (nothing ran, none
  // was left unstarted or unfinished) — a rate that stayed zero, or a next
  // arrival beyond the run's end. The result is valid and says so.
  bool no_arrivals_due() const;
};

using ProgressFn = std::function<void(const IntervalStats&)>;

// Runs the load. Errors: a backend's NewWorker() failure or an invalid config.
// `stonewall`, when raised, ends the run like `stop` without marking it
// interrupted (another process of a scale-out run finished its ops first).
// `wake`, when given, is called on the reporter thread each time it wakes in
// the measured window (at least every 20 ms): a scale-out run takes its
// messages there. It must return promptly.
StatusOr<RunResult> RunLoad(backend::Backend& backend, const RunConfig& config, const std::atomic<bool>* stop,
                            const ProgressFn& progress = nullptr, const std::atomic<bool>* stonewall = nullptr,
                            const std::function<void()>& wake = nullptr);

}  // namespace storebench::driver
