// WhisperFile: the file handle every whisper operation goes through, so that a
// benchmark can choose how bytes move and count every syscall they cost.
//
// Four modes:
//  * kExact: the header in one pread, points with pread/pwrite of exactly the
//    bytes needed; no lseek, no user-space buffer.
//  * kMinimal: the fewest syscalls. Reads land in an in-memory image of the
//    file's byte ranges, so nothing is read twice in one operation; Prefetch()
//    lets the algorithm load a range it is about to read piecewise in one
//    pread; the header pread also takes the first archive's base point; writes
//    change the image and Flush() writes each contiguous changed range with
//    one pwrite. The operation's logic is unchanged, so the bytes stored are
//    the same as in the other modes.
//  * kPythonUnbuffered: what whisper.py 1.1.4 does (BUFFERING = 0): every seek is
//    an lseek(2), every read/write one read(2)/write(2) at the file position.
//  * kBuffered: Python's io.BufferedRandom / BufferedReader with an N-byte buffer
//    (whisper.py before BUFFERING existed), emulated step by step after CPython
//    3.11's Modules/_io/bufferedio.c: seeks inside the buffer are free, misses
//    refill with N-byte read(2) calls, writes are buffered and flushed before
//    a seek out of the buffer, a refill, or close.
// The library issues the same logical seek/read/write sequence as whisper.py in
// the two Python modes, so their counters match what whisper.py would cost.
//
// Thread-safety: a WhisperFile is used by one thread at a time. HeaderCache is
// thread-safe and may be shared by many files and threads.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "storebench/base/status.h"
#include "storebench/whisper/format.h"

namespace storebench::whisper {

enum class IoMode { kExact, kMinimal, kPythonUnbuffered, kBuffered };

// "exact", "minimal", "python", "buffered": the names results and flags use.
std::string_view IoModeName(IoMode mode);

// Syscalls by kind and bytes moved by them; a plain value that callers sum and diff.
struct SyscallCounters {
  uint64_t open = 0, close = 0, pread = 0, pwrite = 0, read = 0, write = 0, lseek = 0, flock = 0,
           fadvise = 0, fstat = 0;
  uint64_t bytes_read = 0, bytes_written = 0;

  uint64_t syscalls() const {
    return open + close + pread + pwrite + read + write + lseek + flock + fadvise + fstat;
  }
  SyscallCounters& operator+=(const SyscallCounters& o);
  SyscallCounters operator-(const SyscallCounters& o) const;
  bool operator==(const SyscallCounters&) const = default;
};

// Headers by path, like whisper.py's CACHE_HEADERS. Thread-safe.
class HeaderCache {
 public:
  // The cached header of `path`, if any.
  std::optional<Header> Get(const std::string& path) const;
  // Stores (or replaces) the header of `path`.
  void Put(const std::string& path, const Header& header);
  // Forgets `path`; called when the header on disk changes.
  void Invalidate(const std::string& path);

 private:
  mutable std::mutex mu_;
  std::map<std::string, Header> headers_;
};

struct IoOptions {
  IoMode mode = IoMode::kExact;
  size_t buffer_size = 8192;  // kBuffered only: Python's io.DEFAULT_BUFFER_SIZE
  bool fadvise_random = false;  // posix_fadvise(POSIX_FADV_RANDOM) after open
  bool lock = false;            // flock(LOCK_EX) before reading the header, like whisper.LOCK
  HeaderCache* header_cache = nullptr;  // not owned; null disables caching
  // fstat on open so that archives past the end of the file are reported before
  // anything is written. Without it a short read is still reported as corruption.
  bool check_file_size = true;
  // kExact and kMinimal read the header with one pread sized for this many
  // archives and issue a second pread only when the file has more.
  uint32_t header_archives_hint = 3;
};

enum class OpenMode { kRead, kReadWrite, kCreate };

class WhisperFile {
 public:
  // Opens `path`; kCreate fails with InvalidArgument if the file exists (O_EXCL).
  // Syscalls are added to `counters` if not null, and always to counters().
  static StatusOr<std::unique_ptr<WhisperFile>> Open(const std::string& path, OpenMode mode,
                                                     const IoOptions& options, SyscallCounters* counters = nullptr);
  ~WhisperFile();
  WhisperFile(const WhisperFile&) = delete;
  WhisperFile& operator=(const WhisperFile&) = delete;

  // Takes flock(LOCK_EX) once per handle when IoOptions::lock is set; a no-op otherwise.
  Status Lock();
  // Reserves [offset, offset + len) with posix_fallocate (not counted: glibc may emulate it).
  Status Allocate(uint64_t offset, uint64_t len);
  // Reads and validates the header (from the cache when enabled), taking the lock first if asked.
  StatusOr<Header> ReadHeader();
  // Reads exactly `n` bytes at `offset`; Corruption if the file ends first.
  Status ReadAt(uint64_t offset, void* buf, size_t n);
  // Writes `n` bytes at `offset` (buffered until flush in kBuffered mode, until Flush() in kMinimal).
  Status WriteAt(uint64_t offset, const void* buf, size_t n);
  // kMinimal: loads [offset, offset + n) into the image with at most one pread (only
  // the part not yet there; a range past the end of the file loads what exists).
  // A no-op in the other modes, which read exactly what the algorithm asks for.
  Status Prefetch(uint64_t offset, size_t n);
  // kMinimal: ReadAt for planning reads, not counted as asked for; kMinimal only.
  Status PeekAt(uint64_t offset, void* buf, size_t n);
  // kMinimal: writes every changed range (one pwrite per contiguous range the image
  // holds) and forgets the image, so the next operation reads the file afresh.
  // Every operation ends with it; Close() calls it too. A no-op in the other modes.
  Status Flush();
  // True in kMinimal, where planning reads ahead (Prefetch) saves syscalls.
  bool plans_reads() const { return options_.mode == IoMode::kMinimal; }
  // whisper.py calls fh.tell() in a few places; a syscall in the Python modes, free in kExact and kMinimal.
  Status PythonTell();
  // Flushes buffered writes (as Python's close does) and closes; idempotent.
  Status Close();
  // Forgets the cached header of this path (after the header was rewritten).
  void InvalidateCachedHeader();

  const std::string& path() const { return path_; }
  const IoOptions& options() const { return options_; }
  const SyscallCounters& counters() const { return own_; }
  // Bytes whisper's algorithm asked to read through this handle (headers from
  // the cache excluded), whatever the mode moved: the denominator of read amplification.
  uint64_t requested_read_bytes() const { return requested_read_bytes_; }
  std::optional<uint64_t> file_size() const { return file_size_; }

 private:
  WhisperFile(std::string path, int fd, bool writable, const IoOptions& options, SyscallCounters* sink);
  template <typename F>
  void Count(F&& bump);
  Status Fail(std::string_view op, int err);

  template <typename Syscall, typename Counter>
  StatusOr<size_t> Positioned(const char* op, uint64_t offset, size_t n, Syscall call, Counter counter);
  // One pread, counted; returns the bytes read (short at the end of the file).
  StatusOr<size_t> SysPread(uint64_t offset, void* buf, size_t n);
  // pwrite until all `n` bytes are written.
  Status SysPwriteAll(uint64_t offset, const void* buf, size_t n);
  // Raw syscalls, counted.
  StatusOr<int64_t> SysLseek(int64_t offset, int whence);
  StatusOr<size_t> SysRead(void* buf, size_t n);
  Status SysWriteAll(const void* buf, size_t n);

  // Python's file object.
  Status Seek(uint64_t target);
  Status Read(void* buf, size_t n);
  Status Write(const void* buf, size_t n);
  Status FlushWriteBuffer();
  Status FlushAndRewind();
  int64_t RawOffset() const;
  int64_t ReadAhead() const { return read_end_ != -1 ? read_end_ - pos_ : 0; }
  bool python_mode() const { return options_.mode == IoMode::kPythonUnbuffered || options_.mode == IoMode::kBuffered; }

  // kMinimal's image (minimal_file.cc): few extents per operation, their bytes in
  // one arena, so that an operation allocates a handful of times, not per range.
  struct Extent {
    uint64_t begin = 0, end = 0;              // file offsets
    size_t at = 0;                            // where its bytes start in arena_
    uint64_t dirty_begin = 0, dirty_end = 0;  // file offsets; empty when equal
    // Widens the changed span to cover [b, e).
    void MarkDirty(uint64_t b, uint64_t e);
  };
  // Adds bytes at `offset`; where the image already has bytes, `data` wins if `overwrite`.
  // `data` must not point into arena_.
  void Merge(uint64_t offset, const uint8_t* data, size_t n, bool overwrite, bool dirty);
  // [first, last + 1) of the bytes of [offset, offset + n) the image lacks; nullopt when it has them all.
  std::optional<std::pair<uint64_t, uint64_t>> Missing(uint64_t offset, size_t n) const;
  Status ImageRead(uint64_t offset, void* buf, size_t n);

  std::string path_;
  int fd_ = -1;
  bool writable_ = false;
  IoOptions options_;
  SyscallCounters* sink_ = nullptr;
  SyscallCounters own_;
  uint64_t requested_read_bytes_ = 0;
  std::optional<uint64_t> file_size_;
  bool locked_ = false;

  std::vector<Extent> extents_;  // sorted by begin; disjoint and not adjacent
  std::vector<uint8_t> arena_;   // extents' bytes; merged-away space is reused after Flush()
  std::vector<uint8_t> scratch_;  // what a pread brings, before it joins the image

  // BufferedRandom state, named as in bufferedio.c; -1 means "invalid".
  std::vector<uint8_t> buffer_;
  int64_t pos_ = 0, raw_pos_ = -1, read_end_ = -1, write_pos_ = 0, write_end_ = -1, abs_pos_ = -1;
};

}  // namespace storebench::whisper
