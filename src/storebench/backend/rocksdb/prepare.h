// `storebench prepare --backend rocksdb`: fillrandom / fillseq into --data.
#pragma once

#include <atomic>
#include <string>
#include <vector>

#include "storebench/backend/rocksdb/options.h"
#include "storebench/base/status.h"

namespace storebench::backend::rocksdb_backend {

// Makes the data set `config` describes, or reuses the one already there when
// its manifest matches (num, key and value size, fill). Fills as db_bench does
// (fillrandom: num keys drawn uniformly with replacement, so ~63% of indexes
// exist; fillseq: every index), then flushes and waits for compactions so runs
// start from a settled LSM tree. `report` says what was done.
// Errors: InvalidArgument for another data set in the directory, IOError with
// the cause (read-only, no space) when writing fails.
// The caller holds the directory's lock (job/data_dir.h). The manifest is written first
// with "complete": false and rewritten as complete after the fill, so a
// prepare interrupted (`stop`, checked between 1000-key batches: Interrupted)
// or killed leaves a DB that runs refuse and the next prepare restarts.
Status PrepareDataSet(const RocksdbConfig& config, PrepareReport* report, const std::atomic<bool>* stop = nullptr);

}  // namespace storebench::backend::rocksdb_backend
