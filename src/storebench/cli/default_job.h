// The RocksDB default job: what the README's main command runs once the
// rocksdb backend is compiled in — prepare a small embedded data set in a local
// directory (reused on later runs), then a short two-phase run on it: closed
// loop for capacity, then open loop at 95% of it (1 worker). Under a minute in total.
//
// It is an ordinary job (DefaultRocksdbJob()): `storebench` with no
// subcommand runs it with the output flags given (--json, --csv, --html,
// --hlog, --hgrm, --progress), and `storebench run --default-job [FLAGS]`
// runs it with any run flag changed; --print-job prints it as a job file
// that `storebench run --job FILE` reruns.
#pragma once

#include <atomic>
#include <string>
#include <vector>

#include "storebench/job/job.h"

namespace storebench::cli {

// Where the default job keeps its data set, relative to the working directory.
inline constexpr const char* kDefaultRocksdbDir = "./storebench-data/rocksdb-default";

// The default job's options (no outputs).
job::Job DefaultRocksdbJob();

// Prepares the data set `job` names (a no-op when it exists and matches),
// then runs it; returns the exit code (kExitBadInput when the rocksdb backend
// is not compiled in). `argv` is kept in the result; `stop` (SIGINT) ends the
// current phase early. With `print_job`, prints the resolved job and runs nothing.
int RunDefaultJob(const job::Job& job, const std::vector<std::string>& argv, const std::atomic<bool>* stop,
                  bool print_job);

}  // namespace storebench::cli
