// The `whisper` backend's worker: carbon's writer and Graphite's readers.
//
//  * update — one op is a carbon flush of one metric: update_many of K points
//    at consecutive intervals of the finest archive, continuing where the
//    metric's previous flush stopped (carbon writes a metric's points in time
//    order). The simulated clock `now` advances with the worker's flushes, so
//    that on average every metric receives K points per K intervals; `now`
//    never trails the newest point given. A metric that fell behind by more
//    than its finest archive's retention resumes at `now` (carbon would have
//    dropped that backlog). Values encode the metric and the interval (see
//    PointValue) so tests can check what whisper.py reads back.
//  * fetch — one op fetches (now - range, now] of one metric.
//  * mixed — each op is an update with probability --mix-update-ratio, else a fetch.
// Worker w of T owns the metrics i ≡ w (mod T), as carbon's writer threads own
// their metrics, so no file has two writers; --metric-dist picks among them.
// Everything follows from the seed: same seed, same ops, same files.
// Thread-safety: a worker belongs to the thread that made it; WhisperShared is
// read-only while workers run (the accounting and header cache are thread-safe).
#pragma once

#include <cstdint>
#include <memory>

#include "storebench/backend/backend.h"
#include "storebench/backend/whisper/accounting.h"
#include "storebench/backend/whisper/dataset.h"
#include "storebench/backend/whisper/options.h"

namespace storebench::backend::wsp {

enum Kind : uint32_t { kUpdateKind = 0, kFetchKind = 1 };
enum Outcome : uint32_t { kOk = 0, kError = 1 };

// What every worker of one run shares.
struct WhisperShared {
  WhisperOptions options;  // io.header_cache points at the backend's cache when enabled
  Dataset dataset;
  WhisperAccounting* accounting = nullptr;
  int total_threads = 1;
};

// The value stored for `metric` at `interval`: (metric + 1) · 10⁶ + the
// interval's index from the data set's aligned start, exact in a double.
double PointValue(const Dataset& dataset, uint64_t metric, int64_t interval);

// Makes the worker for `context` (called on the worker's thread).
StatusOr<std::unique_ptr<Worker>> NewWhisperWorker(const WhisperShared& shared, const WorkerContext& context);

}  // namespace storebench::backend::wsp
