// Cache state: puts the data set into the page-cache state a run asks for
// (warm, cold, dropped, as it is) and measures its residency before and after.
// Thread-safety: free functions without shared state; a RunWindow belongs to
// one caller, which serialises its calls.
#pragma once

#include <nlohmann/json.hpp>
#include <span>
#include <string>

#include "storebench/backend/file/options.h"
#include "storebench/base/status.h"
#include "storebench/io/page_cache.h"
#include "storebench/io/proc_io.h"

namespace storebench::backend::file {

// warm: read every file through; cold: fsync + posix_fadvise(DONTNEED) (no
// privilege needed); drop: /proc/sys/vm/drop_caches (root); asis: nothing.
Status ApplyCacheState(CacheState state, std::span<const std::string> paths);

// Residency as it goes into the JSON: {"resident_bytes", "fraction", "source",
// "dirty_bytes"}; values that cannot be known are the string "unknown".
nlohmann::json ResidencyJson(const StatusOr<io::Residency>& r);

// "42.0% of 1.0 GiB resident (cachestat)" or "unknown (…)" for the summary.
std::string ResidencyLine(const StatusOr<io::Residency>& r);

// num / den for the JSON; null when den is 0.
nlohmann::json Ratio(uint64_t num, uint64_t den);

// What the data backends (file, whisper) measure of the whole process around a
// run: the data set's residency before the warm-up (after the cache state was
// applied) and after the run, and /proc/self/io and getrusage deltas over the
// measured window only.
class RunWindow {
 public:
  static constexpr const char* kScope =
      "the measured window: warm-up and cache-state pass excluded; cache.before is taken before the warm-up";

  // Residency before, and the process snapshots.
  void Begin(std::span<const std::string> paths);
  // When the warm-up ends: the process snapshots again.
  void MeasureStarted();
  // The deltas and the residency after.
  void End(std::span<const std::string> paths);

  const StatusOr<io::ProcIo>& proc_delta() const { return proc_delta_; }
  const io::ResourceUsage& rusage_delta() const { return rusage_delta_; }
  const StatusOr<io::Residency>& before() const { return before_; }
  const StatusOr<io::Residency>& after() const { return after_; }

  // Adds /proc/self/io's figures to `io`, amplifications relative to `requested`
  // bytes; "unknown" and the reason when /proc/self/io could not be read.
  void AddProcIo(nlohmann::json* io, uint64_t requested) const;
  // {"state", "dataset_bytes", "before", "after"}.
  nlohmann::json CacheJson(CacheState state, uint64_t dataset_bytes) const;
  // CPU time, context switches and faults over the measured window.
  nlohmann::json CpuJson() const;

 private:
  void Snapshot();

  StatusOr<io::ProcIo> proc_before_ = io::ProcIo{}, proc_delta_ = io::ProcIo{};
  io::ResourceUsage rusage_before_, rusage_delta_;
  StatusOr<io::Residency> before_ = io::Residency{}, after_ = io::Residency{};
};

}  // namespace storebench::backend::file
