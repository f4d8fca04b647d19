// RunAccounting: what the `file` backend reports about a run beyond latency —
// what the read methods asked of the kernel (IoCounters summed over every
// worker), and per worker group the reads and the time of the first full
// scan — as typed figures. What the kernel says it did (/proc/self/io), CPU
// time and page-cache residency are the driver's (driver/accounting.h).
//
// Workers keep their own counters while they run and hand them over once, in
// AddWorker(), when they finish, so the hot path shares nothing.
// Thread-safety: AddWorker() may be called from any thread; Begin(), End() and
// Figures() from the main thread only, not while workers run.
#pragma once

#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "storebench/backend/file/dataset.h"
#include "storebench/backend/file/options.h"
#include "storebench/base/status.h"
#include "storebench/io/counters.h"
#include "storebench/measure/metrics.h"

namespace storebench::backend::file {

// What one worker did, handed over when it finishes.
struct WorkerTotals {
  int group = 0;
  uint64_t ops = 0;               // ops started in the measured window
  uint64_t first_pass_ns = 0;     // scans: time from the run's start to the end of the first full pass; 0 = none
  bool scans = false;             // the worker scans (first_pass_ns is meaningful)
  io::IoCounters io;
  Status first_error;             // first I/O or verify failure
};

class RunAccounting {
 public:
  // Resets the totals.
  void Begin();
  // Returns the first failure a worker reported (it fails the run).
  Status End();
  void AddWorker(const WorkerTotals& totals);

  void Figures(const Dataset& dataset, const FileOptions& options, measure::MetricSet* out) const;

 private:
  struct Group {
    uint64_t ops = 0;
    uint64_t requested_bytes = 0;
    uint64_t first_pass_ns = 0;  // the slowest worker's
    bool scans = false;
    bool all_passed = true;
  };
  uint64_t Ops() const;

  mutable std::mutex mu_;  // guards everything below against AddWorker
  io::IoCounters io_;
  std::map<int, Group> groups_;
  Status first_error_;
};

}  // namespace storebench::backend::file
