// UniqueFd: closes a file descriptor on every return path.
// Thread-safety: a value owned by one thread at a time.
#pragma once

#include <unistd.h>

namespace storebench::io {

struct UniqueFd {
  int fd;
  explicit UniqueFd(int f) : fd(f) {}
  ~UniqueFd() {
    if (fd >= 0) ::close(fd);
  }
  UniqueFd(const UniqueFd&) = delete;
  UniqueFd& operator=(const UniqueFd&) = delete;
};

}  // namespace storebench::io
