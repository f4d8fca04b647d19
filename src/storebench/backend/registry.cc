#include <fmt/format.h>
#include <functional>

#include "storebench/backend/backend.h"
#include "storebench/backend/null/null_backend.h"
#include "storebench/backend/file/file_backend.h"
#include "storebench/backend/whisper/whisper_backend.h"
#if STOREBENCH_HAVE_ROCKSDB
#include "storebench/backend/rocksdb/rocksdb_backend.h"
#endif

namespace storebench::backend {

// An explicit list: static self-registration is dropped by the linker from
// static libraries, and an explicit list shows what the binary contains.
const std::vector<BackendInfo>& Backends() {
  static const std::vector<BackendInfo> all = [] {
    std::vector<BackendInfo> v;
    v.push_back(NullBackendInfo());
    v.push_back(FileBackendInfo());
    v.push_back(WhisperBackendInfo());
#if STOREBENCH_HAVE_ROCKSDB
    v.push_back(RocksdbBackendInfo());
#endif
    return v;
  }();
  return all;
}

Status Backend::CheckGroup(const GroupSettings& group) const {
  if (group.queue_depth > 1)
    return Status::InvalidArgument(fmt::format(
        "--iodepth {}: this backend completes each op before it starts the next; use --iodepth 1", group.queue_depth));
  return Status::Ok();
}

const BackendInfo* FindBackend(std::string_view name) {
  for (const BackendInfo& b : Backends())
    if (b.name == name) return &b;
  return nullptr;
}

}  // namespace storebench::backend
