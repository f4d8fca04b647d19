// DirLock: one writer per directory. A data set's prepare and a matrix's
// --out hold an exclusive flock(2) on DIR/.storebench.lock while they write,
// so a second writer is refused at once with one line instead of both
// writing the same files. The kernel drops the lock when the process ends,
// however it ends (a SIGKILL leaves no stale lock); the empty lock file stays.
// Thread-safety: a DirLock is owned by one thread; distinct objects are independent.
#pragma once

#include <string>
#include <string_view>

#include "storebench/base/status.h"

namespace storebench {

class DirLock {
 public:
  // Takes the lock of `dir` without waiting. IOError naming `flag` and the
  // directory when another process holds it. Where no lock file can be made
  // (no such directory, read-only, no permission) it returns a lock that
  // holds nothing: the caller's own write fails there with a better message.
  static StatusOr<DirLock> Acquire(const std::string& dir, std::string_view flag);
  // Makes `dir` (and its parents) first: a command's output directory
  // (matrix's and search's --out). InvalidArgument naming `flag` when it
  // cannot be made.
  static StatusOr<DirLock> CreateAndAcquire(const std::string& dir, std::string_view flag);
  // One writer per output file that several runs of a command could share
  // (search's --json): the lock is DIR/.NAME.storebench.lock beside the file
  // (a symbolic link followed), so the file itself can still be replaced
  // atomically. IOError naming `flag` and the file when another process holds it.
  static StatusOr<DirLock> AcquireForFile(const std::string& file, std::string_view flag);

  DirLock() = default;
  DirLock(DirLock&& other) noexcept : fd_(other.fd_) { other.fd_ = -1; }
  DirLock& operator=(DirLock&& other) noexcept;
  DirLock(const DirLock&) = delete;
  DirLock& operator=(const DirLock&) = delete;
  ~DirLock();

 private:
  explicit DirLock(int fd) : fd_(fd) {}
  // Locks `lock_path`; `flag` and `what` name the contested output in the message.
  static StatusOr<DirLock> Lock(const std::string& lock_path, std::string_view flag, const std::string& what);
  int fd_ = -1;
};

inline constexpr const char* kDirLockName = ".storebench.lock";

}  // namespace storebench
