#include <array>
#include <string>
#include <type_traits>

#include <fmt/format.h>

#include "storebench/io/methods.h"

namespace storebench::io {
namespace {

struct Entry {
  const MethodInfo* info;
  std::unique_ptr<ReadMethod> (*make)(const MethodOptions&);
};

// Every read method, in --method's order: adding one is one line here (and
// its declarations in methods.h).
const auto& Entries() {
  static const auto entries = std::to_array<Entry>({
      {&kBufferedReadInfo, NewBufferedRead},
      {&kPreadInfo, NewPread},
      {&kPreadThreadPoolInfo, NewPreadThreadPool},
      {&kMmapInfo, NewMmap},
      {&kIoUringInfo, NewIoUring},
  });
  return entries;
}

// "pread, pread_threadpool, io_uring": the names of the methods with `capability`.
std::string NamesWith(uint32_t capability) {
  std::string names;
  for (const Entry& e : Entries())
    if (e.info->capabilities & capability) names += fmt::format("{}{}", names.empty() ? "" : ", ", e.info->name);
  return names;
}

}  // namespace

std::span<const MethodInfo> ReadMethods() {
  static const auto infos = [] {
    std::array<MethodInfo, std::tuple_size_v<std::remove_cvref_t<decltype(Entries())>>> out{};
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
          fmt::format("read method {} cannot use O_DIRECT (direct works with {})", name, NamesWith(kCapDirect)));
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
