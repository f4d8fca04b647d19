// The data set's directory, as the commands that use it hold it.
//
// Every command that writes into a data set holds the directory's lock
// (base/dir_lock.h) for as long as it writes: `prepare` exclusively, `run`
// exclusively when its backend writes (rocksdb, whisper updates) and shared
// when it only reads. And `prepare` writes only into a directory storebench
// made: a missing or empty one, or one that holds storebench's marker. A
// directory holding anything else (a user's files, db_bench's database) is
// refused before anything is written, for every backend alike; a prepare that
// fails (not one that is interrupted, which the same prepare resumes) takes
// back what it wrote into a directory that was missing or empty.
// Thread-safety: objects owned by one thread.
#pragma once

#include <string>

#include "storebench/backend/backend.h"
#include "storebench/base/dir_lock.h"
#include "storebench/base/status.h"

namespace storebench::job {

// The empty file that marks a directory as storebench's data set. Its name is
// the lock file older versions made, so the sets they prepared are recognised.
inline constexpr const char* kDataSetMarker = kDirLockName;

// The lock a run holds on its backend's data directory (none without one).
StatusOr<DirLock> LockDataSetForRun(const backend::Backend& b);

class PrepareClaim {
 public:
  // Makes `dir` when missing, locks it, refuses a non-empty directory without
  // the marker (InvalidArgument naming the path and a file found there), then
  // writes the marker.
  static StatusOr<PrepareClaim> Take(const std::string& dir);
  // After a failed prepare: empties a directory that was empty and removes
  // one this claim made, so the directory is as it was found.
  void Undo();

 private:
  DirLock lock_;
  std::string dir_;
  std::string made_;  // the topmost directory this claim created; empty if none
  bool was_empty_ = false;
};

}  // namespace storebench::job
