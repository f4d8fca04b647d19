// IntervalCollector: turns what the workers recorded since the previous
// interval into one IntervalStats — counts, rates, merged and per-kind
// histograms, ops per group, the offered rate, and the backlog and start lag
// of the open-loop arrival sources. Internal to driver/ (load_run.h).
//
// It collects by buffer swap (measure::Collect): the workers keep recording
// meanwhile and never wait on it. Each interval joins the run's total as it
// is collected.
// Thread-safety: one thread (the interval reporter) calls Collect(); the
// workers, their recorders and the arrival sources may run concurrently.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "storebench/driver/dispatch.h"
#include "storebench/driver/runner.h"
#include "storebench/driver/worker_loop.h"
#include "storebench/measure/histogram.h"
#include "storebench/measure/recorder.h"
#include "storebench/measure/sample.h"

namespace storebench::driver::internal {

// An open-loop arrival source the reporter watches: a worker's own
// (partitioned) or its group's (shared).
struct SourceRef {
  ArrivalSource* source;
  WorkerProgress* own = nullptr;  // partitioned: the worker that publishes its next arrival
  uint32_t group = 0;
};

// A worker as the collector reads it.
struct CollectedWorker {
  measure::ThreadRecorder* recorder = nullptr;
  WorkerProgress* progress = nullptr;  // its start-lag and backlog maxima, taken each interval
  uint32_t group = 0;
  bool shared_source = false;  // takes its arrivals from its group's shared source
};

struct CollectorSetup {
  measure::RecorderLayout layout;          // the run's (RunResult::layout)
  std::vector<uint32_t> group_first_kind;  // index of each group's first kind in layout.kinds
  std::vector<uint32_t> closed_kinds;      // kinds of closed-loop groups: response time = service time
  std::vector<CollectedWorker> workers;
  std::vector<SourceRef> sources;
  const Timing* timing = nullptr;  // fixed before the first Collect()
};

class IntervalCollector {
 public:
  // Adds every collected interval into `*total` (same layout); the first
  // interval starts at timing->measure_start_ns.
  IntervalCollector(CollectorSetup setup, measure::Sample* total);

  // Adds the figures of an interval that are not in the records (run-queue
  // wait, CPU held, hiccups, backend gauges); called at the interval's end,
  // before it joins the total.
  using PlatformFn = std::function<void(uint64_t now, IntervalStats* st)>;

  // The interval from start_ns() to `now` (Clock ns), which becomes the next
  // interval's start. `while_waiting` runs while a writer is slow to swap
  // (measure::Collect); `platform`, if given, adds its figures.
  IntervalStats Collect(uint64_t now, const std::function<void()>& while_waiting, const PlatformFn& platform);

  uint64_t start_ns() const { return start_ns_; }

 private:
  void AddCounts(uint64_t now, IntervalStats* st) const;
  void AddHistograms(IntervalStats* st);
  void AddGroupOps(IntervalStats* st) const;
  void AddBacklogAndLag(uint64_t now, IntervalStats* st) const;
  void AddSeenMaxima(IntervalStats* st) const;

  const CollectorSetup setup_;
  const Timing& timing_;
  std::vector<measure::ThreadRecorder*> recorders_;
  measure::Sample* const total_;
  measure::Sample interval_;
  // Every kind merged, for the interval's percentiles: made once and reset per
  // interval (a reset clears only the recorded span; a new histogram would
  // allocate and zero every bucket each second).
  measure::Histogram response_, service_;
  std::shared_ptr<const std::vector<std::string>> kinds_;  // setup_.layout.kinds, shared by the intervals
  uint64_t start_ns_;
};

// Adds interval `b` (which follows `a`) into `a`: counts add, histograms merge,
// maxima are the larger, the end-of-interval sample is b's (the backend's
// figures too: its counters add, its gauges are b's).
void FoldInto(IntervalStats* a, const IntervalStats& b);

}  // namespace storebench::driver::internal
