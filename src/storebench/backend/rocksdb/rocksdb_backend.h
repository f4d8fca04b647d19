// The `rocksdb` backend: the real engine through the system's librocksdb,
// with db_bench's workloads (readrandom, multiget, overwrite, updaterandom,
// delete, scan, readwhilewriting, mixgraph), db_bench's key encoding and flag
// names, and a data set made by `storebench prepare --backend rocksdb`.
//
// Results: {"rocksdb": {found, not_found, found_ratio, …, statistics,
// perf_context, write_stalls}}; per interval: write-stop and delay state,
// L0 files, pending compaction bytes and, with --statistics, stall time.
#pragma once

#include "storebench/backend/backend.h"

namespace storebench::backend {

BackendInfo RocksdbBackendInfo();

}  // namespace storebench::backend
