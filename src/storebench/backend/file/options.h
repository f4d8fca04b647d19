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

std::string_view WorkloadName(Workload w);

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
  bool verify = false;
  uint64_t columns = 4;        // columns workload: files read together per query
  bool serial_columns = false; // columns: one column read after the other instead of together
  bool fixed_buffers = false;  // io_uring: registered buffers for the reads
  // The read method's own options (io::MethodOptions), set from the flags below.
  uint64_t buffer = 8192;      // read: user-space buffer; 0 = exact-size reads
  uint64_t pool_threads = 4;
  bool no_nowait = false;
  io::Madvise madvise = io::Madvise::kNormal;
  bool sqpoll = false;
  bool register_files = false;

  // The method options these flags make (direct, buffer, madvise, sqpoll, …).
  io::MethodOptions MethodOptions() const;
  // Set by the backend from the flags: MethodOptions(), and align = block size when not given.
  io::MethodOptions method_options;
};

// The backend's options, declared once (become `run`/`prepare` flags).
const OptionTable<FileOptions>& FileOptionTable();

}  // namespace storebench::backend::file
