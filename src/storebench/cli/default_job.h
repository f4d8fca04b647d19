// The RocksDB default job: what the README's main command runs once the
// rocksdb backend is compiled in — prepare a small embedded data set in a local
// directory (reused on later runs), then a short two-phase run on it: closed
// loop for capacity, then open loop at 80% of it. Under a minute in total.
#pragma once

#include <atomic>

namespace storebench::cli {

// Where the default job keeps its data set, relative to the working directory.
inline constexpr const char* kDefaultRocksdbDir = "./storebench-data/rocksdb-default";

// Runs the job; returns the exit code (kExitBadInput when the rocksdb backend
// is not compiled in). `stop` (SIGINT) ends the current phase early.
int RunRocksdbDefaultJob(const std::atomic<bool>* stop);

}  // namespace storebench::cli
