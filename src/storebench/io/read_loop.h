// Internal: the pread/preadv2 loop every positional method shares.
//
// A regular file returns fewer bytes than asked only at end of file or when a
// signal interrupts; the loop continues after short reads and EINTR so callers
// see "short = EOF". With O_DIRECT a short read that ends off the alignment grid
// is the end of the file (the next read would be refused with EINVAL).
// Thread-safety: reentrant; `counters` belongs to the caller.
#pragma once

#include <cstddef>
#include <cstdint>

#include "storebench/io/counters.h"

namespace storebench::io {

struct ReadOutcome {
  size_t bytes = 0;  // read before stopping
  int error = 0;     // errno that stopped the loop (EAGAIN with RWF_NOWAIT), 0 at EOF or done
};

// Reads `length` bytes at `offset` with pread (rwf_flags == 0) or preadv2(rwf_flags).
ReadOutcome PreadLoop(int fd, char* buf, size_t length, uint64_t offset, uint32_t offset_align, int rwf_flags,
                      IoCounters& counters);

}  // namespace storebench::io
