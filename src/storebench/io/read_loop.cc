#include "storebench/io/read_loop.h"

#include <sys/uio.h>
#include <unistd.h>

#include <cerrno>

namespace storebench::io {

ReadOutcome PreadLoop(int fd, char* buf, size_t length, uint64_t offset, uint32_t offset_align, int rwf_flags,
                      IoCounters& counters) {
  ReadOutcome out;
  while (out.bytes < length) {
    ssize_t n;
    if (rwf_flags == 0) {
      n = pread(fd, buf + out.bytes, length - out.bytes, static_cast<off_t>(offset + out.bytes));
      counters.Count(Syscall::kPread);
    } else {
      iovec iov{buf + out.bytes, length - out.bytes};
      n = preadv2(fd, &iov, 1, static_cast<off_t>(offset + out.bytes), rwf_flags);
      counters.Count(Syscall::kPreadv2);
    }
    if (n < 0) {
      if (errno == EINTR) {
        counters.resubmissions++;
        continue;
      }
      out.error = errno;
      return out;
    }
    if (n == 0) return out;
    counters.bytes_transferred += static_cast<uint64_t>(n);
    out.bytes += static_cast<size_t>(n);
    if (out.bytes < length) {
      if ((offset + out.bytes) % offset_align != 0) return out;
      counters.resubmissions++;
    }
  }
  return out;
}

}  // namespace storebench::io
