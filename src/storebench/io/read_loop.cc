#include "storebench/io/read_loop.h"

#include <cerrno>

namespace storebench::io {

ReadOutcome PreadLoopRest(int fd, char* buf, size_t length, uint64_t offset, uint32_t offset_align, int rwf_flags,
                          ssize_t first, IoCounters& counters) {
  ReadOutcome out;
  ssize_t n = first;
  for (;;) {
    if (n < 0) {
      if (errno != EINTR) {
        out.error = errno;
        return out;
      }
      counters.resubmissions++;
    } else {
      if (n == 0) return out;
      counters.bytes_transferred += static_cast<uint64_t>(n);
      out.bytes += static_cast<size_t>(n);
      if (out.bytes >= length) return out;
      if ((offset + out.bytes) % offset_align != 0) return out;
      counters.resubmissions++;
    }
    if (rwf_flags == 0) {
      n = pread(fd, buf + out.bytes, length - out.bytes, static_cast<off_t>(offset + out.bytes));
      counters.Count(Syscall::kPread);
    } else {
      iovec iov{buf + out.bytes, length - out.bytes};
      n = preadv2(fd, &iov, 1, static_cast<off_t>(offset + out.bytes), rwf_flags);
      counters.Count(Syscall::kPreadv2);
    }
  }
}

}  // namespace storebench::io
