// SequentialReader: scans one file of a ReadMethod in order, buffer by buffer,
// with optional prefetch by double buffering — the read of the next buffer is
// in flight while the caller consumes the current one (ClickHouse's
// "prefetch"). Over an async method (kCapAsync) the next read is submitted to
// the method; over a sync method it runs on a ThreadPool when one is given
// (the method object is then used by one thread at a time, never two), else
// reads simply happen in order without overlap.
//
// Thread-safety: one reader per thread. While it is alive the reader is the
// only user of its ReadMethod object.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <limits>
#include <memory>
#include <mutex>
#include <span>

#include "storebench/base/status.h"
#include "storebench/io/aligned_buffer.h"
#include "storebench/io/read_method.h"
#include "storebench/io/thread_pool.h"

namespace storebench::io {

struct PrefetchOptions {
  size_t buffer_size = 1 << 20;  // bytes per read; a multiple of the alignment with O_DIRECT
  bool prefetch = true;          // double buffering; false = one buffer, read on demand
  int priority = 0;              // request priority (pool and pread_threadpool order)
  ThreadPool* pool = nullptr;    // runs a sync method's reads ahead; ignored for async methods
  uint64_t begin = 0;            // first byte to read (aligned with O_DIRECT)
  uint64_t end = std::numeric_limits<uint64_t>::max();  // one past the last byte, clipped to the file size
};

class SequentialReader {
 public:
  // Prepares a scan of `file` (an index opened on `method`) and issues the first read(s).
  static StatusOr<std::unique_ptr<SequentialReader>> Create(ReadMethod& method, int file,
                                                           const PrefetchOptions& options);
  ~SequentialReader();
  SequentialReader(const SequentialReader&) = delete;
  SequentialReader& operator=(const SequentialReader&) = delete;

  // The next bytes of the range, in order; empty at the end. Valid until the next call.
  StatusOr<std::span<const char>> Next();
  // File offset of the first byte the next Next() returns.
  uint64_t position() const { return position_; }

 private:
  enum class State { kIdle, kPending, kReady };
  struct Chunk;
  class Task;

  SequentialReader(ReadMethod& method, int file, const PrefetchOptions& options, uint64_t end);
  Status Issue(int index);
  Status Wait(int index);
  void Drain();

  ReadMethod& method_;
  const int file_;
  const PrefetchOptions options_;
  const uint64_t end_;
  const bool async_;        // reads go through method_.Submit/Reap
  ThreadPool* const pool_;  // sync method with a pool, else null
  uint64_t next_offset_;    // offset of the next read to issue
  uint64_t position_;
  int current_ = 0;
  int returned_ = -1;  // chunk handed to the caller, refilled on the next call
  std::unique_ptr<Chunk[]> chunks_;
  std::mutex mu_;  // pool mode: guards Chunk::state and results
  // Pool mode: one Read() at a time on the method object. Both chunks may sit
  // on pool threads at once, and a method object (its counters, the `read`
  // method's buffer and file position) serves one thread at a time.
  std::mutex read_mu_;
  std::condition_variable cv_;
};

}  // namespace storebench::io
