// Page-cache accounting and control for a set of files: how much of it is
// resident (before and after a run), and how to make it cold or warm.
//
// Residency uses cachestat(2) (Linux 6.5+) and falls back to mincore(2) over a
// read-only mapping. mincore reports every page resident to a caller that
// neither owns nor may write the file (Linux hides the real state from such
// callers), and newer kernels refuse cachestat to them with EPERM: those files
// are reported as unknown, never as a false 100 %.
//
// The rule for every function here: none opens a file this process holds a
// POSIX (fcntl) lock on. Closing any descriptor of a file drops every POSIX
// lock the process holds on it, so measuring, warming or evicting RocksDB's
// DIR/LOCK would release the engine's own lock a moment after DB::Open took
// it, and a second process could then open the same database. Such a file is
// left alone (counted as unknown residency, never warmed or evicted), whatever
// path list the caller gives; backends also declare only their data files
// (Backend::DataPaths()), never an engine's lock or control files.
// Thread-safety: free functions without shared state.
#pragma once

#include <cstdint>
#include <span>
#include <string>

#include "storebench/base/status.h"

namespace storebench::io {

enum class ResidencySource { kCachestat, kMincore, kUnknown };
std::string_view ResidencySourceName(ResidencySource s);

struct Residency {
  uint64_t files = 0;
  uint64_t file_bytes = 0;      // size of all files
  uint64_t known_bytes = 0;     // size of the files whose residency could be measured
  uint64_t resident_bytes = 0;  // cached bytes among the known files
  uint64_t dirty_bytes = 0;     // cachestat only
  uint64_t unknown_files = 0;   // files mincore/cachestat cannot measure truthfully
  ResidencySource source = ResidencySource::kUnknown;  // the method used for the known files

  bool known() const { return unknown_files == 0; }
  // resident / known bytes, in [0, 1]; only meaningful when known_bytes > 0.
  double fraction() const { return known_bytes == 0 ? 0.0 : static_cast<double>(resident_bytes) / known_bytes; }
};

struct ResidencyOptions {
  bool use_cachestat = true;  // false forces mincore (tests, comparisons)
};

// Measures how much of `paths` is in the page cache.
StatusOr<Residency> MeasureResidency(std::span<const std::string> paths, const ResidencyOptions& options = {});

// True when mincore on `path` tells this process the truth:
// it owns the file or may write it (Linux's can_do_mincore()).
bool MincoreIsTruthful(const std::string& path);

// Makes `paths` cold without root: fsync (so no page is dirty) then posix_fadvise(DONTNEED).
Status EvictFromCache(std::span<const std::string> paths);

// sync(), then writes "3" to `control` (/proc/sys/vm/drop_caches); a clear error when not permitted.
Status DropCaches(const char* control = "/proc/sys/vm/drop_caches");

// Reads `paths` through with read(2) in `buffer_size` chunks so they are cached; returns bytes read.
StatusOr<uint64_t> WarmCache(std::span<const std::string> paths, size_t buffer_size = 1 << 20);

}  // namespace storebench::io
