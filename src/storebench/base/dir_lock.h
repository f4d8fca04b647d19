// DirLock: one writer per directory. Whatever writes into a data set (its
// prepare, a run that writes: rocksdb, whisper updates) or into a matrix's or
// search's --out holds an exclusive flock(2) on the directory itself while it
// writes; a run that only reads holds a shared one, so readers run side by
// side but never beside a writer. A second writer is refused at once with one
// line naming the holder. The lock is taken on the directory, not on a file in
// it, so taking it writes nothing: a run against a database storebench did not
// make (db_bench's) leaves that directory as it was. The kernel drops the lock
// when the process ends, however it ends (a SIGKILL leaves no stale lock).
// It is a flock lock, not a POSIX one: no close() of another descriptor of
// the directory can drop it.
// Thread-safety: a DirLock is owned by one thread; distinct objects are independent.
#pragma once

#include <string>
#include <string_view>

#include "storebench/base/status.h"

namespace storebench {

class DirLock {
 public:
  enum class Mode { kExclusive, kShared };
  // Takes the lock of `dir` without waiting. InvalidArgument naming `flag`,
  // the directory and the holding process when another process holds it. Where
  // `dir` does not exist (or cannot be opened) it returns a lock that holds
  // nothing: the caller's own use fails there with a better message.
  static StatusOr<DirLock> Acquire(const std::string& dir, std::string_view flag, Mode mode = Mode::kExclusive);
  // Makes `dir` (and its parents) first: a command's output directory
  // (matrix's and search's --out). InvalidArgument naming `flag` when it
  // cannot be made.
  static StatusOr<DirLock> CreateAndAcquire(const std::string& dir, std::string_view flag);
  // One writer per output file that several runs of a command could share
  // (search's --json): the lock is DIR/.NAME.storebench.lock beside the file
  // (a symbolic link followed), so the file itself can still be replaced
  // atomically. InvalidArgument naming `flag` and the file when another process holds it.
  static StatusOr<DirLock> AcquireForFile(const std::string& file, std::string_view flag);

  DirLock() = default;
  DirLock(DirLock&& other) noexcept : fd_(other.fd_) { other.fd_ = -1; }
  DirLock& operator=(DirLock&& other) noexcept;
  DirLock(const DirLock&) = delete;
  DirLock& operator=(const DirLock&) = delete;
  ~DirLock();

  bool held() const { return fd_ >= 0; }

 private:
  explicit DirLock(int fd) : fd_(fd) {}
  // Locks `lock_path`; `flag` and `what` name the contested output in the message.
  static StatusOr<DirLock> Lock(const std::string& lock_path, std::string_view flag, const std::string& what);
  int fd_ = -1;
};

// The empty file older storebench versions locked; a data set that has one was made by storebench.
inline constexpr const char* kDirLockName = ".storebench.lock";

}  // namespace storebench
