// ProcessAccounting: what the driver measures of the whole process around a
// run, for every backend alike — CPU time, context switches and faults
// (getrusage), the kernel's view of the I/O (/proc/self/io) and the page-cache
// residency of the files the backend declares as its data set, before the
// warm-up and after the run. The process snapshots are taken again when the
// warm-up ends, so their deltas cover the measured window only.
// Figures() renders them as typed metrics under "cpu", "io" and "cache";
// ratios against the backend's own `io.requested_bytes` are definitions, so
// they stay exact when results merge.
// Thread-safety: one owner thread calls everything, in order.
#pragma once

#include <span>
#include <string>

#include "storebench/base/status.h"
#include "storebench/io/cache_state.h"
#include "storebench/io/page_cache.h"
#include "storebench/io/proc_io.h"
#include "storebench/measure/metrics.h"

namespace storebench::driver {

class ProcessAccounting {
 public:
  static constexpr const char* kScope =
      "the measured window: warm-up and cache-state pass excluded; cache.before is taken before the warm-up";

  // Residency before (when there are paths), and the process snapshots.
  void Begin(std::span<const std::string> paths);
  // When the warm-up ends: the process snapshots again.
  void MeasureStarted();
  // The deltas, and the residency after.
  void End(std::span<const std::string> paths);

  const io::ResourceUsage& rusage_delta() const { return rusage_delta_; }

  // cpu.*, io.* (the kernel's figures) and, with a data set, cache.*.
  void Figures(io::CacheState state, measure::MetricSet* out) const;

 private:
  void Snapshot();

  bool has_data_ = false;
  uint64_t dataset_bytes_ = 0;
  StatusOr<io::ProcIo> proc_before_ = io::ProcIo{}, proc_delta_ = io::ProcIo{};
  io::ResourceUsage rusage_before_, rusage_delta_;
  StatusOr<io::Residency> before_ = io::Residency{}, after_ = io::Residency{};
};

}  // namespace storebench::driver
