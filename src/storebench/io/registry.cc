#include <array>

#include <fmt/format.h>

#include "storebench/io/methods.h"

namespace storebench::io {
namespace {

struct Entry {
  const MethodInfo* info;
  std::unique_ptr<ReadMethod> (*make)(const MethodOptions&);
};

const std::array<Entry, 5>& Entries() {
  static const std::array<Entry, 5> entries = {{
      {&kBufferedReadInfo, NewBufferedRead},
      {&kPreadInfo, NewPread},
      {&kPreadThreadPoolInfo, NewPreadThreadPool},
      {&kMmapInfo, NewMmap},
      {&kIoUringInfo, NewIoUring},
  }};
  return entries;
}

}  // namespace

std::span<const MethodInfo> ReadMethods() {
  static const std::array<MethodInfo, 5> infos = [] {
    std::array<MethodInfo, 5> out{};
    for (size_t i = 0; i < out.size(); ++i) out[i] = *Entries()[i].info;
    return out;
  }();
  return infos;
}

StatusOr<std::unique_ptr<ReadMethod>> CreateReadMethod(std::string_view name, const MethodOptions& options) {
  for (const Entry& e : Entries()) {
    if (e.info->name != name) continue;
    if (options.direct && (e.info->capabilities & kCapDirect) == 0) {
      return Status::InvalidArgument(
          fmt::format("read method {} cannot use O_DIRECT (direct works with pread, pread_threadpool, io_uring)", name));
    }
    std::unique_ptr<ReadMethod> m = e.make(options);
    STOREBENCH_RETURN_IF_ERROR(m->AllocateFixedBuffers());
    STOREBENCH_RETURN_IF_ERROR(m->Init());
    return m;
  }
  std::string known;
  for (const Entry& e : Entries()) known += fmt::format("{}{}", known.empty() ? "" : ", ", e.info->name);
  return Status::InvalidArgument(fmt::format("unknown read method '{}' (known: {})", name, known));
}

}  // namespace storebench::io
