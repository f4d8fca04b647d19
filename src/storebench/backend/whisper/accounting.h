// WhisperAccounting: what the `whisper` backend reports about a run beyond
// latency, as typed figures — the syscalls and bytes whisper's updates and
// fetches cost (summed from every worker's own counters) and what they asked
// to read; with the driver's /proc/self/io figures these give read
// amplification and an estimated page-cache hit ratio (ratios, computed when
// rendering).
//
// Workers keep their counters while they run and hand them over once, in
// AddWorker(), when they are destroyed (before AfterRun), so the hot path
// shares nothing.
// Thread-safety: AddWorker() may be called from any thread; Begin(), End() and
// Figures() from the main thread only, not while workers run.
#pragma once

#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

#include "storebench/backend/whisper/dataset.h"
#include "storebench/backend/whisper/options.h"
#include "storebench/base/status.h"
#include "storebench/measure/metrics.h"
#include "storebench/whisper/file.h"

namespace storebench::backend::wsp {

// The cost of one kind of op (update or fetch) summed over ops.
struct OpTotals {
  uint64_t ops = 0;
  uint64_t errors = 0;
  uint64_t requested_read_bytes = 0;  // what whisper's algorithm asked to read
  uint64_t points = 0;                // updates: points given to update_many
  whisper::SyscallCounters io;        // syscalls and the bytes they moved

  OpTotals& operator+=(const OpTotals& o);
  OpTotals operator-(const OpTotals& o) const;
};

// What one worker did, handed over when it finishes.
struct WhisperWorkerTotals {
  OpTotals update, fetch;
  int64_t last_now = 0;  // the worker's simulated clock at its end
  Status first_error;
};

class WhisperAccounting {
 public:
  // Resets the totals.
  void Begin(const Dataset& dataset);
  // Returns the first failure a worker reported; Figures() shows it as first_error.
  Status End();
  void AddWorker(const WhisperWorkerTotals& totals);

  void Figures(const Dataset& dataset, const WhisperOptions& options, measure::MetricSet* out) const;

 private:
  OpTotals All() const;

  mutable std::mutex mu_;  // guards everything below against AddWorker
  OpTotals update_, fetch_;
  int64_t last_now_ = 0;
  Status first_error_;
};

}  // namespace storebench::backend::wsp
