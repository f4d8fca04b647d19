// Cache state: puts the data set into the page-cache state a run asks for
// (warm, cold, dropped, as it is) and measures its residency before and after.
// Thread-safety: free functions without shared state.
#pragma once

#include <nlohmann/json.hpp>
#include <span>
#include <string>

#include "storebench/backend/file/options.h"
#include "storebench/base/status.h"
#include "storebench/io/page_cache.h"

namespace storebench::backend::file {

// warm: read every file through; cold: fsync + posix_fadvise(DONTNEED) (no
// privilege needed); drop: /proc/sys/vm/drop_caches (root); asis: nothing.
Status ApplyCacheState(CacheState state, std::span<const std::string> paths);

// Residency as it goes into the JSON: {"resident_bytes", "fraction", "source",
// "dirty_bytes"}; values that cannot be known are the string "unknown".
nlohmann::json ResidencyJson(const StatusOr<io::Residency>& r);

// "42.0% of 1.0 GiB resident (cachestat)" or "unknown (…)" for the summary.
std::string ResidencyLine(const StatusOr<io::Residency>& r);

}  // namespace storebench::backend::file
