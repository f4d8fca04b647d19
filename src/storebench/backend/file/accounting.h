// FileAccounting: what the `file` backend reports about a run beyond latency —
// what the read methods asked of the kernel (IoCounters summed over every
// worker), the harness's own cost per op (below), and per worker group the reads and the time of the first full
// scan — as typed figures. What the kernel says it did (/proc/self/io), CPU
// time and page-cache residency are the driver's (driver/accounting.h).
//
// Harness cost, sampled: every 64th op of a worker opens a window that the
// worker's next op closes, at the same point of the cycle (its Submit(), or
// in its own closed loop right after the record) — one op's whole cycle: the
// loop and recording, offset generation, the backend and read-method
// layers, and the read itself. Inside the window every call into the read
// method (its syscalls, copies and waits) is timed. file.harness.window_ns and
// file.harness.method_ns sum both over the samples (file.harness.samples);
// file.harness_ns_per_op = (window_ns - method_ns) / samples is what the
// client spends per op outside the I/O — the time it adds to a bare loop of
// the same calls (bench/file_floor.cc) — and file.method_ns_per_op the I/O's.
// A preemption inside the read lands in both terms and cancels; a sample with
// more than 100 µs outside the method was descheduled there (no client work
// takes that long) and is left out, counted in file.harness.dropped. In an open
// loop the window also holds the wait for the next arrival when that is
// shorter: there the figure is an upper bound.
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

// Sampled ops' time, split at the read-method boundary (see the file comment).
struct HarnessSamples {
  uint64_t samples = 0;    // sampled ops
  uint64_t window_ns = 0;  // from each sampled op's Submit to the next Submit
  uint64_t method_ns = 0;  // of which inside read-method calls
  uint64_t dropped = 0;    // samples left out: > 100 µs outside the read method (descheduled)
};

// What one worker did, handed over when it finishes.
struct FileWorkerTotals {
  int group = 0;
  uint64_t ops = 0;               // ops started in the measured window
  uint64_t first_pass_ns = 0;     // scans: time from the run's start to the end of the first full pass; 0 = none
  bool scans = false;             // the worker scans (first_pass_ns is meaningful)
  HarnessSamples harness;         // measured window only
  io::IoCounters io;
  Status first_error;             // first I/O or verify failure: counted, the run goes on (file.first_error)
};

class FileAccounting {
 public:
  // Resets the totals.
  void Begin();
  void AddWorker(const FileWorkerTotals& totals);

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
  HarnessSamples harness_;  // summed over workers
  std::map<int, Group> groups_;
  Status first_error_;
};

}  // namespace storebench::backend::file
