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

}  // namespace storebench::backend::file
