// ProcLocks: who holds which file lock, from /proc/locks.
//
// Why it exists: a POSIX (fcntl) lock belongs to a process and a file, not to
// a descriptor, and closing ANY descriptor of that file drops every POSIX lock
// the process holds on it. RocksDB guards its directory with such a lock on
// DIR/LOCK, so a probe that opens and closes the engine's LOCK (to measure its
// page-cache residency, to warm or evict it) silently releases the engine's
// lock. io/ asks here which files this process holds POSIX locks on and never
// opens them; the data-set locks ask who holds a lock to name the holder.
// Inodes are matched by number alone: /proc/locks gives the super block's
// device, which stat(2) does not always give (btrfs subvolumes, overlayfs), so
// a match by number can only err towards leaving a file alone.
// Thread-safety: free functions without shared state.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace storebench {

struct ProcLock {
  enum class Kind { kPosix, kFlock, kOfd, kOther } kind = Kind::kOther;
  bool write = false;
  pid_t pid = 0;  // 0 where the kernel gives none (OFD locks say -1)
  uint64_t inode = 0;
};

// Parses the text of /proc/locks ("1: POSIX  ADVISORY  WRITE 1234 fe:00:5308417 0 EOF").
std::vector<ProcLock> ParseProcLocks(const std::string& text);
// The locks the kernel lists now; empty where /proc/locks cannot be read.
std::vector<ProcLock> ReadProcLocks();

// The inodes this process holds POSIX locks on: files no probe may open and close.
std::vector<uint64_t> InodesWithOwnPosixLocks();

// A process other than this one that holds a lock on `path` (POSIX, OFD or flock), if any is listed.
std::optional<pid_t> OtherLockHolder(const std::string& path);

// "pid 1234 (storebench)" from /proc/PID/comm, or "pid 1234" where that cannot be read.
std::string DescribeProcess(pid_t pid);

}  // namespace storebench
