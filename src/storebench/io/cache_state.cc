#include "storebench/io/cache_state.h"

#include "storebench/io/page_cache.h"

namespace storebench::io {

std::string_view CacheStateName(CacheState state) {
  switch (state) {
    case CacheState::kAsIs: return "asis";
    case CacheState::kWarm: return "warm";
    case CacheState::kCold: return "cold";
    case CacheState::kDrop: return "drop";
  }
  return "asis";
}

Status ApplyCacheState(CacheState state, std::span<const std::string> paths) {
  switch (state) {
    case CacheState::kAsIs:
      return Status::Ok();
    case CacheState::kWarm: {
      StatusOr<uint64_t> n = WarmCache(paths);
      return n.ok() ? Status::Ok() : n.status();
    }
    case CacheState::kCold:
      return EvictFromCache(paths);
    case CacheState::kDrop:
      return DropCaches();
  }
  return Status::Ok();
}

}  // namespace storebench::io
