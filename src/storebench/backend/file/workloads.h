// The `file` backend's workers, one per workload:
//  * randread — one block per op at offsets drawn from --offset-dist over all
//    files' blocks; several ops in flight with an async method (--iodepth);
//  * seqread — each worker scans its share of the files (worker w of T: files
//    w, w+T, …) block by block; at --iodepth 1 through io::SequentialReader
//    (double buffering with --prefetch), deeper as in-flight block reads;
//  * columns — one op is a query reading the same block of K column files:
//    point reads at --offset-dist rows, together (one batch) or one by one
//    (--serial-columns), or with --offset-dist sequential a scan of all K
//    columns with one SequentialReader per column (ClickHouse's vertical
//    parallelization; --prefetch overlaps the columns' reads).
// Every worker owns its read-method objects, buffers and verifier; a read
// never allocates. Scans allocate a reader when they move to the next file.
// Thread-safety: a worker belongs to the thread that made it; FileShared is
// read-only while workers run (the pool and the accounting are thread-safe).
#pragma once

#include <cstdint>
#include <memory>

#include "storebench/backend/backend.h"
#include "storebench/backend/file/accounting.h"
#include "storebench/backend/file/dataset.h"
#include "storebench/backend/file/options.h"
#include "storebench/io/thread_pool.h"

namespace storebench::backend::file {

enum Outcome : uint32_t { kOk = 0, kErrorIo = 1, kErrorVerify = 2 };

// What every worker of one run shares.
struct FileShared {
  FileOptions options;
  Dataset dataset;
  io::ThreadPool* pool = nullptr;  // pread_threadpool's reads and sync prefetch; may be null
  FileAccounting* accounting = nullptr;
  int total_threads = 1;
  uint64_t start_ns = 0;           // set by BeforeRun, before any worker starts
};

// The read-method options one worker's method object gets, with `depth` reads in flight.
io::MethodOptions WorkerMethodOptions(const FileShared& shared, unsigned depth);

// Makes the worker for `context` (called on the worker's thread).
StatusOr<std::unique_ptr<Worker>> NewFileWorker(const FileShared& shared, const WorkerContext& context);

}  // namespace storebench::backend::file
