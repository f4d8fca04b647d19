// FileOptions: the `file` backend's flags, parsed once from the command line
// into a plain struct that every part of the backend reads (and never a flag
// map on the hot path).
// Thread-safety: a value type, read-only once parsed.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "storebench/backend/backend.h"
#include "storebench/io/read_method.h"

namespace storebench::backend::file {

enum class Workload { kRandRead, kSeqRead, kColumns };
enum class CacheState { kAsIs, kWarm, kCold, kDrop };

std::string_view WorkloadName(Workload w);
std::string_view CacheStateName(CacheState c);

struct FileOptions {
  std::string data;            // data set directory
  uint64_t files = 0;          // 0 = as the data set says (run) / 4 (prepare)
  uint64_t file_size = 0;      // bytes per file; 0 = as the data set says (run) / 256 MiB (prepare)
  Workload workload = Workload::kRandRead;
  uint64_t block_size = 4096;  // bytes per read request
  uint64_t align = 0;          // randread offset alignment; 0 = block size
  std::string method = "pread";
  std::string offset_dist = "uniform";
  bool sequential_columns = false;  // columns: offset-dist "sequential" = a scan of the column files
  bool direct = false;
  bool prefetch = false;
  CacheState cache = CacheState::kAsIs;
  bool verify = false;
  uint64_t columns = 4;        // columns workload: files read together per query
  bool serial_columns = false; // columns: one column read after the other instead of together
  io::MethodOptions method_options;  // buffer, madvise, sqpoll, register files, pool size
  bool fixed_buffers = false;  // io_uring: registered buffers for the reads
};

// Parses the backend's option values (defaults already filled in); InvalidArgument names the flag.
StatusOr<FileOptions> ParseFileOptions(const OptionValues& values);

// The options the backend declares (become `run`/`prepare` flags).
std::vector<OptionSpec> FileOptionSpecs();

}  // namespace storebench::backend::file
