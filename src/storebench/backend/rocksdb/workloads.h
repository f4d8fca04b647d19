// The rocksdb backend's workers: one class per workload (readrandom, multiget,
// overwrite, updaterandom, delete, scan, readwhilewriting, mixgraph), each
// drawing its own keys and executing one RocksDB call (or batch) per op.
//
// Keys are db_bench's encoding of a key index (workload/db_bench_key.h) and
// values db_bench's sizes, so data sets are interchangeable with db_bench.
// Per-op RocksDB errors are not fatal: they are counted by status outcome.
// Thread-safety: RunState is shared read-only by the workers except Fold(),
// which takes its mutex; a worker belongs to the thread that made it.
#pragma once

#include <rocksdb/db.h>

#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "storebench/backend/backend.h"
#include "storebench/backend/rocksdb/dataset.h"
#include "storebench/backend/rocksdb/options.h"
#include "storebench/workload/mixgraph.h"

namespace storebench::backend::rocksdb_backend {

// Outcome indexes of every rocksdb layout: found, not found, then errors by RocksDB status code.
enum Outcome : uint32_t {
  kOk = 0,
  kNotFound,
  kErrorIO,
  kErrorCorruption,
  kErrorBusy,
  kErrorTimedOut,
  kErrorIncomplete,
  kErrorAborted,
  kErrorOther
};

// The outcome for a RocksDB status (OK → kOk, NotFound → kNotFound, else the error).
uint32_t OutcomeOf(const rocksdb::Status& s);

// Op kinds and outcomes recorded for `w`: e.g. {"get"} for readrandom, {"get","put"} for readwhilewriting.
measure::RecorderLayout WorkloadLayout(Workload w);

// What workers add up over a run, folded in when each worker ends.
struct RunTotals {
  // Reads in the measured window (the warm-up is left out).
  uint64_t found = 0;      // keys read that exist (Get, each MultiGet key, valid Seek)
  uint64_t not_found = 0;  // keys read that do not
  uint64_t errors = 0;
  std::map<std::string, uint64_t> perf;  // perf context counters, summed over workers
};

// Everything the workers of one run share. The DB outlives every worker.
struct RunState {
  rocksdb::DB* db = nullptr;
  RocksdbConfig config;  // with num/key_size/value_size resolved
  rocksdb::ReadOptions read;
  rocksdb::WriteOptions write;
  std::unique_ptr<ValueSource> values;
  workload::Mixgraph mixgraph;

  // Adds one finished worker's figures; thread-safe.
  void Fold(const RunTotals& worker);
  RunTotals Totals() const;
  void ResetTotals();

 private:
  mutable std::mutex mu_;
  RunTotals totals_;
};

// Makes the worker for `context` (role "writer" = the readwhilewriting writer).
StatusOr<std::unique_ptr<Worker>> MakeRocksdbWorker(RunState* state, const WorkerContext& context);

}  // namespace storebench::backend::rocksdb_backend
