// Internal: the pread/preadv2 loop every positional method shares.
//
// A regular file returns fewer bytes than asked only at end of file or when a
// signal interrupts; the loop continues after short reads and EINTR so callers
// see "short = EOF". With O_DIRECT a short read that ends off the alignment grid
// is the end of the file (the next read would be refused with EINVAL).
// The first call is inline and the loop is entered only when it came back
// short or failed: a whole read costs the syscall and two counter adds.
// Thread-safety: reentrant; `counters` belongs to the caller.
#pragma once

#include <sys/uio.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>

#include "storebench/io/counters.h"

namespace storebench::io {

// What one read delivered.
struct ReadOutcome {
  size_t bytes = 0;  // read before stopping
  int error = 0;     // errno that stopped the loop (EAGAIN with RWF_NOWAIT), 0 at EOF or done
};


// The rest of a read whose first call returned `first` (< length, or -1 with errno set).
ReadOutcome PreadLoopRest(int fd, char* buf, size_t length, uint64_t offset, uint32_t offset_align, int rwf_flags,
                          ssize_t first, IoCounters& counters);

// Reads `length` bytes at `offset` with pread (rwf_flags == 0) or preadv2(rwf_flags).
inline ReadOutcome PreadLoop(int fd, char* buf, size_t length, uint64_t offset, uint32_t offset_align, int rwf_flags,
                             IoCounters& counters) {
  if (length == 0) return {};
  ssize_t n;
  if (rwf_flags == 0) {
    n = pread(fd, buf, length, static_cast<off_t>(offset));
    counters.Count(Syscall::kPread);
  } else {
    iovec iov{buf, length};
    n = preadv2(fd, &iov, 1, static_cast<off_t>(offset), rwf_flags);
    counters.Count(Syscall::kPreadv2);
  }
  if (static_cast<size_t>(n) == length) [[likely]] {
    counters.bytes_transferred += length;
    return {length, 0};
  }
  return PreadLoopRest(fd, buf, length, offset, offset_align, rwf_flags, n, counters);
}

}  // namespace storebench::io
