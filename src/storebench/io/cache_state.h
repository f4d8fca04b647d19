// CacheState: the page-cache state a run asks its data set to be in before
// it starts — warm (read through), cold (fsync + fadvise DONTNEED, no
// privilege needed), drop (/proc/sys/vm/drop_caches, root) or as it is.
// Thread-safety: free functions without shared state.
#pragma once

#include <span>
#include <string>
#include <string_view>

#include "storebench/base/status.h"

namespace storebench::io {

enum class CacheState { kAsIs, kWarm, kCold, kDrop };

std::string_view CacheStateName(CacheState state);

// Puts `paths` into `state`.
Status ApplyCacheState(CacheState state, std::span<const std::string> paths);

}  // namespace storebench::io
