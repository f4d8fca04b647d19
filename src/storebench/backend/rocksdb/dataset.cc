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

#include "storebench/workload/random.h"

namespace storebench::backend::rocksdb_backend {

std::string Manifest::Flags() const {
  return fmt::format("--num {} --key-size {} --value-size {} --fill {}", num, key_size, value_size, fill);
}

bool HasDatabase(const std::string& dir) {
  struct stat st {};
  return ::stat((dir + "/CURRENT").c_str(), &st) == 0;
}

StatusOr<std::optional<Manifest>> ReadManifest(const std::string& dir) {
  std::string path = dir + "/" + kManifestName;
  std::ifstream in(path);
  if (!in) {
    if (errno == ENOENT) return std::optional<Manifest>();
    return ErrnoStatus("open", path, errno);
  }
  std::stringstream text;
  text << in.rdbuf();
  auto j = nlohmann::json::parse(text.str(), nullptr, false);
  Manifest m;
  try {
    m.num = j.at("num").get<uint64_t>();
    m.key_size = j.at("key_size").get<uint64_t>();
    m.value_size = j.at("value_size").get<uint64_t>();
    m.fill = j.at("fill").get<std::string>();
    m.seed = j.value("seed", uint64_t{0});
    m.compression = j.value("compression", std::string());
  } catch (const nlohmann::json::exception& e) {
    return Status::Corruption(fmt::format("{}: not a storebench manifest ({}); remove it or prepare into an empty "
                                          "directory",
                                          path, e.what()));
  }
  return std::optional<Manifest>(m);
}

Status WriteManifest(const std::string& dir, const Manifest& m) {
  nlohmann::json j = {{"tool", "storebench"}, {"num", m.num},   {"key_size", m.key_size},
                      {"value_size", m.value_size}, {"fill", m.fill}, {"seed", m.seed},
                      {"compression", m.compression}};
  std::string path = dir + "/" + kManifestName;
  return WriteFileAtomically(path, j.dump(1) + "\n");
}

Status ResolveShape(const std::optional<Manifest>& manifest, RocksdbConfig* c) {
  if (!manifest) return Status::Ok();
  auto check = [&](const char* flag, std::optional<uint64_t>* given, uint64_t prepared) -> Status {
    if (given->has_value() && **given != prepared)
      return Status::InvalidArgument(fmt::format(
          "--{} {}: {} was prepared with {}; drop --{} (the manifest supplies it) or prepare another --data "
          "with the sizes you want",
          flag, **given, c->data, manifest->Flags(), flag));
    *given = prepared;
    return Status::Ok();
  };
  STOREBENCH_RETURN_IF_ERROR(check("num", &c->num, manifest->num));
  STOREBENCH_RETURN_IF_ERROR(check("key-size", &c->key_size, manifest->key_size));
  STOREBENCH_RETURN_IF_ERROR(check("value-size", &c->value_size, manifest->value_size));
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
