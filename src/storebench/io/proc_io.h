// Process-level accounting: /proc/self/io (bytes and syscalls the kernel
// attributes to this process, and bytes it really read from the device) and
// getrusage (CPU time, context switches, faults). Take a snapshot before and
// after a phase and subtract.
// Thread-safety: free functions and value types; reading is thread-safe.
#pragma once

#include <sys/time.h>

#include <cstdint>

#include "storebench/base/status.h"

namespace storebench::io {

struct ProcIo {
  uint64_t rchar = 0;        // bytes returned by read-like syscalls (page cache hits included)
  uint64_t wchar = 0;
  uint64_t syscr = 0;        // read-like syscalls
  uint64_t syscw = 0;
  uint64_t read_bytes = 0;   // bytes the process caused to be fetched from the device
  uint64_t write_bytes = 0;
  uint64_t cancelled_write_bytes = 0;

  ProcIo& operator-=(const ProcIo& o);
  friend ProcIo operator-(ProcIo a, const ProcIo& b) { return a -= b; }
};

// Reads /proc/self/io (or `path`, for tests); NotSupported when the kernel lacks task I/O accounting.
StatusOr<ProcIo> ReadProcIo(const char* path = "/proc/self/io");

// A getrusage time (seconds and microseconds) in nanoseconds.
inline uint64_t TimevalNs(const timeval& tv) {
  return static_cast<uint64_t>(tv.tv_sec) * 1000000000u + static_cast<uint64_t>(tv.tv_usec) * 1000u;
}

struct ResourceUsage {
  uint64_t user_ns = 0;
  uint64_t system_ns = 0;
  uint64_t voluntary_switches = 0;    // blocked, e.g. waiting for I/O
  uint64_t involuntary_switches = 0;  // preempted
  uint64_t major_faults = 0;          // faults that needed I/O (mmap reads of cold pages)
  uint64_t minor_faults = 0;

  ResourceUsage& operator-=(const ResourceUsage& o);
  friend ResourceUsage operator-(ResourceUsage a, const ResourceUsage& b) { return a -= b; }
};

// getrusage of the whole process (thread = false) or of the calling thread.
StatusOr<ResourceUsage> ReadResourceUsage(bool thread = false);

}  // namespace storebench::io
