#include "storebench/whisper/header_fuzz_entry.h"

#include <cstring>
#include <span>

#include <fmt/format.h>

#include "storebench/whisper/format.h"

namespace storebench::whisper {

std::string CheckHeaderBytes(const uint8_t* data, size_t size) {
  std::span<const uint8_t> bytes(data, size);
  for (std::optional<uint64_t> file_size : {std::optional<uint64_t>(), std::optional<uint64_t>(size)}) {
    StatusOr<Header> h = ParseHeader(bytes, "fuzz.wsp", file_size);
    if (!h.ok()) {
      if (h.status().code() != Status::Code::kCorruption) return "non-corruption error: " + h.status().ToString();
      if (h.status().message().find("fuzz.wsp") == std::string::npos) return "error does not name the file";
      continue;
    }
    if (h->archives.empty() || h->archives.size() > kMaxArchives) return "bad archive count accepted";
    uint64_t previous_end = h->header_size();
    if (previous_end > size) return "header larger than the input accepted";
    for (const ArchiveInfo& a : h->archives) {
      if (a.points == 0 || a.seconds_per_point == 0) return "empty archive accepted";
      if (a.offset < previous_end) return "overlapping archive accepted";
      if (file_size && a.end() > *file_size) return "archive past the end of the file accepted";
      previous_end = a.end();
    }
    std::string again = SerializeHeader(*h);
    if (again.size() > size || std::memcmp(again.data(), data, again.size()) != 0) {
      return fmt::format("re-serialized header differs ({} bytes)", again.size());
    }
  }
  return "";
}

}  // namespace storebench::whisper
