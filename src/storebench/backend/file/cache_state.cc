#include "storebench/backend/file/cache_state.h"

#include <fmt/format.h>

#include "storebench/base/units.h"

namespace storebench::backend::file {

Status ApplyCacheState(CacheState state, std::span<const std::string> paths) {
  switch (state) {
    case CacheState::kAsIs:
      return Status::Ok();
    case CacheState::kWarm: {
      StatusOr<uint64_t> n = io::WarmCache(paths);
      return n.ok() ? Status::Ok() : n.status();
    }
    case CacheState::kCold:
      return io::EvictFromCache(paths);
    case CacheState::kDrop:
      return io::DropCaches();
  }
  return Status::Ok();
}

nlohmann::json ResidencyJson(const StatusOr<io::Residency>& r) {
  if (!r.ok()) return {{"resident_bytes", "unknown"}, {"fraction", "unknown"}, {"source", "unknown"},
                       {"error", r.status().message()}};
  nlohmann::json j;
  // A partly known set is reported as unknown: a sum over some files would read as a false fraction.
  if (r.value().known()) {
    j["resident_bytes"] = r.value().resident_bytes;
    j["fraction"] = r.value().fraction();
    j["source"] = io::ResidencySourceName(r.value().source);
    j["dirty_bytes"] = r.value().source == io::ResidencySource::kCachestat ? nlohmann::json(r.value().dirty_bytes)
                                                                     : nlohmann::json("unknown");
  } else {
    j["resident_bytes"] = "unknown";
    j["fraction"] = "unknown";
    j["source"] = "unknown";
    j["unknown_files"] = r.value().unknown_files;
    j["why"] = "mincore would report every page resident to a process that neither owns nor may write the file";
  }
  return j;
}

std::string ResidencyLine(const StatusOr<io::Residency>& r) {
  if (!r.ok()) return "unknown (" + r.status().message() + ")";
  if (!r.value().known()) return fmt::format("unknown ({} files cannot be measured truthfully)", r.value().unknown_files);
  return fmt::format("{:.1f}% of {} resident ({})", 100 * r.value().fraction(),
                     FormatBytes(static_cast<double>(r.value().file_bytes)), io::ResidencySourceName(r.value().source));
}

nlohmann::json Ratio(uint64_t num, uint64_t den) {
  if (den == 0) return nullptr;
  return static_cast<double>(num) / static_cast<double>(den);
}

void RunWindow::Snapshot() {
  proc_before_ = io::ReadProcIo();
  StatusOr<io::ResourceUsage> ru = io::ReadResourceUsage();
  rusage_before_ = ru.ok() ? *ru : io::ResourceUsage{};
}

void RunWindow::Begin(std::span<const std::string> paths) {
  before_ = io::MeasureResidency(paths);
  Snapshot();
}

void RunWindow::MeasureStarted() { Snapshot(); }

void RunWindow::End(std::span<const std::string> paths) {
  StatusOr<io::ResourceUsage> ru = io::ReadResourceUsage();
  rusage_delta_ = ru.ok() ? *ru - rusage_before_ : io::ResourceUsage{};
  StatusOr<io::ProcIo> proc = io::ReadProcIo();
  if (proc.ok() && proc_before_.ok()) {
    proc_delta_ = *proc - *proc_before_;
  } else {
    proc_delta_ = proc.ok() ? proc_before_.status() : proc.status();
  }
  after_ = io::MeasureResidency(paths);
}

void RunWindow::AddProcIo(nlohmann::json* io, uint64_t requested) const {
  nlohmann::json& j = *io;
  if (proc_delta_.ok()) {
    const io::ProcIo& p = proc_delta_.value();
    j["rchar_bytes"] = p.rchar;
    j["syscr"] = p.syscr;
    j["device_read_bytes"] = p.read_bytes;
    j["read_amplification"] = Ratio(p.read_bytes, requested);
    j["rchar_amplification"] = Ratio(p.rchar, requested);
  } else {
    for (const char* k : {"rchar_bytes", "syscr", "device_read_bytes", "read_amplification", "rchar_amplification"})
      j[k] = "unknown";
    j["proc_io_error"] = proc_delta_.status().message();
  }
}

nlohmann::json RunWindow::CacheJson(CacheState state, uint64_t dataset_bytes) const {
  return {{"state", CacheStateName(state)},
          {"dataset_bytes", dataset_bytes},
          {"before", ResidencyJson(before_)},
          {"after", ResidencyJson(after_)}};
}

nlohmann::json RunWindow::CpuJson() const {
  return {{"user_s", static_cast<double>(rusage_delta_.user_ns) / 1e9},
          {"sys_s", static_cast<double>(rusage_delta_.system_ns) / 1e9},
          {"voluntary_switches", rusage_delta_.voluntary_switches},
          {"involuntary_switches", rusage_delta_.involuntary_switches},
          {"major_faults", rusage_delta_.major_faults},
          {"minor_faults", rusage_delta_.minor_faults}};
}

}  // namespace storebench::backend::file
