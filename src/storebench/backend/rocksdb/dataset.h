// The data set in a RocksDB directory: its shape (key count, key and value
// sizes, how it was filled), recorded by `prepare` in a small manifest beside
// RocksDB's own files, and the value bytes written into it.
//
// A DB that db_bench filled has no manifest: then the shape comes from the
// --num/--key-size/--value-size flags (db_bench's defaults when absent).
// Pure functions and immutable objects; thread-safe.
#pragma once

#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <string_view>

#include "storebench/backend/rocksdb/options.h"
#include "storebench/base/status.h"

namespace storebench::backend::rocksdb_backend {

inline constexpr const char* kManifestName = "storebench-manifest.json";
// The ranges of --num, --key-size and --value-size, which a manifest must keep to.
inline constexpr uint64_t kMaxNum = uint64_t{1} << 40;
inline constexpr uint64_t kMaxKeySize = 1'000'000;
inline constexpr uint64_t kMaxValueSize = uint64_t{1} << 30;

struct Manifest {
  uint64_t num = 0;
  uint64_t key_size = 0;
  uint64_t value_size = 0;
  std::string fill;  // "random" | "seq"
  uint64_t seed = 0;
  std::string compression;
  // False while a prepare is filling the DB: written before the fill and
  // rewritten as true after it, so a killed prepare is recognised as one.
  bool complete = true;

  // "--num N --key-size K --value-size V --fill F": how to prepare it again.
  std::string Flags() const;
};

// A manifest document (from `path`), every field checked for type and range;
// Corruption names the file and the field.
StatusOr<Manifest> ParseManifest(const nlohmann::json& manifest, const std::string& path);
// The manifest of `dir`: nullopt when there is none; Corruption when unreadable.
StatusOr<std::optional<Manifest>> ReadManifest(const std::string& dir);
// Writes the manifest atomically (temporary file + rename).
Status WriteManifest(const std::string& dir, const Manifest& manifest);

// True when `dir` holds a RocksDB database (a CURRENT file).
bool HasDatabase(const std::string& dir);

// Fills config->num/key_size/value_size from `manifest` where unset; a given
// flag that differs from the manifest is InvalidArgument naming both. Without
// a manifest (a DB db_bench filled) --num must be given; an incomplete
// manifest (an unfinished prepare) is refused.
Status ResolveShape(const std::optional<Manifest>& manifest, RocksdbConfig* config);

// The value bytes db_bench writes: a 1 MiB ring (at least one value long) of
// compressible text — each 100-byte piece is 50 random printable bytes
// repeated, so snappy halves it as db_bench's --compression_ratio=0.5 does.
// Values are consecutive slices of the ring, read through a caller-owned cursor.
class ValueSource {
 public:
  ValueSource(uint64_t max_value_size, uint64_t seed);
  // `len` bytes starting at *cursor (wrapping to 0 when they would not fit); advances *cursor.
  std::string_view Next(uint64_t len, uint64_t* cursor) const {
    if (*cursor + len > data_.size()) *cursor = 0;
    std::string_view v(data_.data() + *cursor, len);
    *cursor += len;
    return v;
  }

 private:
  std::string data_;
};

}  // namespace storebench::backend::rocksdb_backend
