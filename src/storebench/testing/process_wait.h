// Waiting for a child process's state in a test without sleeping a guessed
// time: the child's end wakes the waiter at once (a pidfd), and a condition
// on what the child has done (a line in its output, a file, a signal mask in
// /proc/PID/status) is checked every `recheck`, 5 ms unless the caller says
// otherwise.
//
// Written here because GoogleTest has no process helpers and the kernel's
// pidfd_open(2) has no glibc wrapper in Debian 12.
#pragma once

#include <poll.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <functional>

namespace storebench::testing {

enum class WaitEnd { kReady, kExited, kTimedOut };

// Waits until `ready()` holds (kReady), `pid` ends (kExited: it is reaped and
// *status holds its wait status) or `timeout` passes (kTimedOut). `ready` is
// checked first, then after each wake-up; without it, only the end wakes.
inline WaitEnd WaitUntil(pid_t pid, const std::function<bool()>& ready, std::chrono::milliseconds timeout, int* status,
                         std::chrono::milliseconds recheck = std::chrono::milliseconds(5)) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  const int pidfd = static_cast<int>(syscall(SYS_pidfd_open, pid, 0));
  // Without a pidfd (an old kernel) the end is noticed at the next recheck.
  const bool recheck_needed = ready || pidfd < 0;
  if (pidfd < 0) recheck = std::min(recheck, std::chrono::milliseconds(5));
  WaitEnd end = WaitEnd::kTimedOut;
  for (;;) {
    if (ready && ready()) {
      end = WaitEnd::kReady;
      break;
    }
    if (waitpid(pid, status, WNOHANG) == pid) {
      end = WaitEnd::kExited;
      break;
    }
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) break;
    pollfd end_fd{pidfd, POLLIN, 0};
    const auto wait = recheck_needed ? std::min(left, recheck) : left;
    poll(&end_fd, 1, static_cast<int>(std::max<int64_t>(1, wait.count())));
  }
  if (pidfd >= 0) close(pidfd);
  return end;
}

// Waits for `pid` to end for at most `timeout`; true (and *status) when it did.
inline bool WaitExit(pid_t pid, std::chrono::milliseconds timeout, int* status) {
  return WaitUntil(pid, nullptr, timeout, status) == WaitEnd::kExited;
}

}  // namespace storebench::testing
