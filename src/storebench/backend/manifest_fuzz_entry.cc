#include "storebench/backend/manifest_fuzz_entry.h"

#include <exception>
#include <nlohmann/json.hpp>
#include <string_view>

#include "storebench/backend/file/dataset.h"
#include "storebench/backend/manifest_fields.h"
#include "storebench/backend/whisper/dataset.h"
#if STOREBENCH_HAVE_ROCKSDB
#include "storebench/backend/rocksdb/dataset.h"
#endif

namespace storebench::backend {
namespace {

constexpr const char* kDir = "/fuzz-dir";

// "" when `s` is a Corruption naming the manifest, else the broken promise.
std::string CheckError(const Status& s) {
  if (s.code() != Status::Code::kCorruption) return "not a Corruption: " + s.ToString();
  if (s.message().find(kDir) == std::string::npos) return "error does not name the manifest: " + s.message();
  return "";
}

std::string CheckParsed(ManifestKind kind, const nlohmann::json& j) {
  switch (kind) {
    case ManifestKind::kFile: {
      auto d = file::ParseManifest(j, kDir);
      if (!d.ok()) return CheckError(d.status());
      if (d->files < 1 || d->files > file::kMaxFiles || d->paths.size() != d->files) return "files out of range";
      if (d->file_size == 0 || d->file_size > file::kMaxFileSize) return "file_size out of range";
      return "";
    }
    case ManifestKind::kWhisper: {
      auto d = wsp::ParseManifest(j, kDir);
      if (!d.ok()) return CheckError(d.status());
      if (d->metrics < 1 || d->metrics > wsp::kMaxMetrics || d->archives.empty()) return "metrics or archives accepted out of range";
      if (!(d->x_files_factor >= 0 && d->x_files_factor <= 1)) return "xff out of range";
      return "";
    }
    case ManifestKind::kRocksdb: {
#if STOREBENCH_HAVE_ROCKSDB
      auto m = rocksdb_backend::ParseManifest(j, std::string(kDir) + "/" + rocksdb_backend::kManifestName);
      if (!m.ok()) return CheckError(m.status());
      if (m->num < 1 || m->num > rocksdb_backend::kMaxNum || m->key_size < 1 ||
          m->key_size > rocksdb_backend::kMaxKeySize || m->value_size > rocksdb_backend::kMaxValueSize)
        return "shape out of range";
      if (m->fill != "random" && m->fill != "seq") return "unknown fill accepted";
#endif
      return "";
    }
  }
  return "unknown kind";
}

}  // namespace

std::vector<ManifestKind> ManifestKinds() {
#if STOREBENCH_HAVE_ROCKSDB
  return {ManifestKind::kFile, ManifestKind::kWhisper, ManifestKind::kRocksdb};
#else
  return {ManifestKind::kFile, ManifestKind::kWhisper};
#endif
}

std::string CheckManifestBytes(ManifestKind kind, const uint8_t* data, size_t size) {
  try {
    auto j = ParseManifestText(std::string_view(reinterpret_cast<const char*>(data), size), kDir);
    if (!j.ok()) return CheckError(j.status());
    return CheckParsed(kind, *j);
  } catch (const std::exception& e) {
    return std::string("exception: ") + e.what();
  }
}

}  // namespace storebench::backend
