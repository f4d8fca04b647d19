// RunAccounting: what the `whisper` backend reports about a run beyond
// latency — the syscalls and bytes whisper's updates and fetches cost (summed
// from every worker's own counters), what they asked to read, what the kernel
// says it read (/proc/self/io) and the data set's page-cache residency before
// and after; from these, read amplification and a page-cache hit ratio.
//
// Workers keep their counters while they run and hand them over once, in
// AddWorker(), when they are destroyed (before AfterRun), so the hot path
// shares nothing.
// Thread-safety: AddWorker() and MeasureStarted() may be called from any thread; Begin(), End(),
// Json() and Lines() from the main thread only, not while workers run.
#pragma once

#include <cstdint>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "storebench/backend/file/cache_state.h"
#include "storebench/backend/whisper/dataset.h"
#include "storebench/backend/whisper/options.h"
#include "storebench/base/status.h"
#include "storebench/io/page_cache.h"
#include "storebench/io/proc_io.h"
#include "storebench/whisper/file.h"

namespace storebench::backend::wsp {

// The cost of one kind of op (update or fetch) summed over ops.
struct OpTotals {
  uint64_t ops = 0;
  uint64_t errors = 0;
  uint64_t requested_read_bytes = 0;  // what whisper's algorithm asked to read
  uint64_t points = 0;                // updates: points given to update_many
  whisper::IoCounters io;             // syscalls and the bytes they moved

  OpTotals& operator+=(const OpTotals& o);
  OpTotals operator-(const OpTotals& o) const;
};

// What one worker did, handed over when it finishes.
struct WorkerTotals {
  OpTotals update, fetch;
  int64_t last_now = 0;  // the worker's simulated clock at its end
  Status first_error;
};

class RunAccounting {
 public:
  // Resets the totals and snapshots /proc/self/io and the residency (after the cache state was applied).
  void Begin(const Dataset& dataset);
  // When the warm-up ends: snapshots /proc/self/io again, so their deltas cover the
  // measured window only (the workers' own counters restart at the same point).
  void MeasureStarted();
  // Snapshots again; returns the first failure a worker reported (it fails the run).
  Status End(const Dataset& dataset);
  void AddWorker(const WorkerTotals& totals);

  nlohmann::json Json(const Dataset& dataset, const WhisperOptions& options) const;
  std::vector<std::string> Lines(const Dataset& dataset, const WhisperOptions& options) const;

 private:
  OpTotals All() const;
  // Page-cache hit ratio as BCC's cachestat counts it (page insertions, readahead
  // included, are misses), estimated: 1 - pages read from the device / pages the
  // data syscalls looked up. Null when unknown.
  nlohmann::json HitRatio() const;

  mutable std::mutex mu_;  // guards everything below against AddWorker
  OpTotals update_, fetch_;
  int64_t last_now_ = 0;
  Status first_error_;
  file::RunWindow window_;
};

}  // namespace storebench::backend::wsp
