// IoCounters: what one read-method object asked of the kernel and got back.
//
// Plain integers, written only by the thread that owns the method object (work
// done on pool threads is folded in when its completion is reaped), so the hot
// path touches no shared cache line. Sum the objects of all workers with +=
// after the run; subtract two snapshots with - to get the cost of a phase.
// Thread-safety: a value type; not synchronised.
#pragma once

#include <array>
#include <cstdint>
#include <string_view>

namespace storebench::io {

// The system calls a read method can make, counted by kind.
enum class Syscall : uint8_t {
  kOpen,
  kClose,
  kStatx,
  kRead,
  kPread,
  kPreadv2,
  kLseek,
  kMmap,
  kMunmap,
  kMadvise,
  kIoUringEnter,
  kIoUringRegister,
  kCount,
};
inline constexpr size_t kSyscallKinds = static_cast<size_t>(Syscall::kCount);

// Lower-case syscall name ("pread64" is reported as "pread").
std::string_view SyscallName(Syscall kind);

struct IoCounters {
  std::array<uint64_t, kSyscallKinds> syscalls{};
  uint64_t requests = 0;         // reads accepted by Submit
  uint64_t completions = 0;      // reads finished (successfully or not)
  uint64_t errors = 0;           // completions that carried an errno
  uint64_t bytes_requested = 0;  // sum of request lengths
  uint64_t bytes_returned = 0;   // bytes delivered to the caller
  uint64_t bytes_transferred = 0;  // bytes moved by read syscalls (> returned when buffering)
  uint64_t inline_reads = 0;     // pread_threadpool: served by preadv2(RWF_NOWAIT) in the caller
  uint64_t pool_reads = 0;       // pread_threadpool: handed to the thread pool
  uint64_t resubmissions = 0;    // short reads, EAGAIN or EINTR continued with another read
  // Time inside the method proper (its syscalls, copies and waits: the
  // DoSubmit/DoSubmitBatch/DoReap calls) while the owner had timing on
  // (ReadMethod::set_timing), and how many calls that was.
  uint64_t timed_calls = 0;
  uint64_t timed_ns = 0;

  void Count(Syscall kind, uint64_t n = 1) { syscalls[static_cast<size_t>(kind)] += n; }
  uint64_t Of(Syscall kind) const { return syscalls[static_cast<size_t>(kind)]; }
  // Syscalls of every kind, setup (open, statx, mmap, register) included.
  uint64_t TotalSyscalls() const;
  // Only the kinds that move data or wait for it (read, pread, preadv2, io_uring_enter, lseek).
  uint64_t DataSyscalls() const;

  bool operator==(const IoCounters& other) const = default;
  IoCounters& operator+=(const IoCounters& other);
  IoCounters& operator-=(const IoCounters& other);
  friend IoCounters operator+(IoCounters a, const IoCounters& b) { return a += b; }
  friend IoCounters operator-(IoCounters a, const IoCounters& b) { return a -= b; }
};

}  // namespace storebench::io
