#include "storebench/backend/rocksdb/dataset.h"

#include "storebench/base/atomic_file.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <fmt/format.h>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "storebench/backend/manifest_fields.h"
#include "storebench/workload/random.h"

namespace storebench::backend::rocksdb_backend {

std::string Manifest::Flags() const {
  return fmt::format("--num {} --key-size {} --value-size {} --fill {}", num, key_size, value_size, fill);
}

bool HasDatabase(const std::string& dir) {
  struct stat st {};
  return ::stat((dir + "/CURRENT").c_str(), &st) == 0;
}

StatusOr<Manifest> ParseManifest(const nlohmann::json& j, const std::string& path) {
  ManifestFields f(path, j);
  Manifest m;
  m.num = f.Count("num", 1, kMaxNum);
  m.key_size = f.Count("key_size", 1, kMaxKeySize);
  m.value_size = f.Count("value_size", 0, kMaxValueSize);
  m.fill = f.Choice("fill", {"random", "seq"});
  if (f.Has("seed")) m.seed = f.Count("seed", 0, UINT64_MAX);
  if (f.Has("compression")) m.compression = f.Choice("compression", {"none", "snappy", "zlib", "bzip2", "lz4", "lz4hc",
                                                                     "xpress", "zstd"});
  // Manifests before "complete" was written were written last, so they are complete.
  m.complete = !f.Has("complete") || f.Flag("complete");
  if (!f.status().ok()) return f.status();
  return m;
}

StatusOr<std::optional<Manifest>> ReadManifest(const std::string& dir) {
  std::string path = dir + "/" + kManifestName;
  auto j = ReadManifestFile(path);
  if (!j.ok()) {
    if (j.status().code() == Status::Code::kNotFound) return std::optional<Manifest>();
    return j.status();
  }
  auto m = ParseManifest(*j, path);
  if (!m.ok()) return m.status();
  return std::optional<Manifest>(*m);
}

Status WriteManifest(const std::string& dir, const Manifest& m) {
  nlohmann::json j = {{"tool", "storebench"}, {"num", m.num},   {"key_size", m.key_size},
                      {"value_size", m.value_size}, {"fill", m.fill}, {"seed", m.seed},
                      {"compression", m.compression}, {"complete", m.complete}};
  std::string path = dir + "/" + kManifestName;
  return WriteFileAtomically(path, j.dump(1) + "\n");
}

Status ResolveShape(const std::optional<Manifest>& manifest, RocksdbConfig* c) {
  if (!manifest) {
    if (c->num.has_value()) return Status::Ok();
    return Status::InvalidArgument(fmt::format(
        "--data {}: the database there has no storebench manifest (db_bench's, or a prepare that did not finish); "
        "give its shape with --num (and --key-size/--value-size unless db_bench's 16 and 100), or prepare it again",
        c->data));
  }
  if (!manifest->complete)
    return Status::Corruption(fmt::format("--data {}: the prepare that made it did not finish ({} says complete: "
                                          "false); run the same prepare again to restart it",
                                          c->data, kManifestName));
  // Every setting fixed when the set was prepared, one row each: a run that
  // gives another value would measure a set it does not describe.
  struct Fixed {
    const char* flag;
    std::optional<std::string> given;
    std::string prepared;
  };
  auto text = [](const std::optional<uint64_t>& v) {
    return v ? std::optional<std::string>(std::to_string(*v)) : std::nullopt;
  };
  const Fixed fixed[] = {
      {"num", text(c->num), std::to_string(manifest->num)},
      {"key-size", text(c->key_size), std::to_string(manifest->key_size)},
      {"value-size", text(c->value_size), std::to_string(manifest->value_size)},
      {"compression", c->compression.empty() ? std::nullopt : std::optional<std::string>(c->compression),
       manifest->compression},
  };
  for (const Fixed& f : fixed)
    if (f.given && *f.given != f.prepared)
      return Status::InvalidArgument(fmt::format(
          "--{} {}: {} was prepared with {} --compression {}; drop --{} (the manifest supplies it) or prepare "
          "another --data with the settings you want",
          f.flag, *f.given, c->data, manifest->Flags(), manifest->compression, f.flag));
  c->num = manifest->num;
  c->key_size = manifest->key_size;
  c->value_size = manifest->value_size;
  return Status::Ok();
}

ValueSource::ValueSource(uint64_t max_value_size, uint64_t seed) {
  workload::Random rng(seed);
  const size_t size = std::max<uint64_t>(1 << 20, max_value_size);
  data_.reserve(size + 100);
  char raw[50];
  while (data_.size() < size) {
    for (char& ch : raw) ch = static_cast<char>(' ' + rng.Uniform(95));
    data_.append(raw, sizeof raw);
    data_.append(raw, sizeof raw);
  }
}

}  // namespace storebench::backend::rocksdb_backend
