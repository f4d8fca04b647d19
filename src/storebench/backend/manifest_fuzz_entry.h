// The check a fuzzer runs on every data-set manifest parser (file, whisper,
// rocksdb): any bytes either parse into values within the option ranges or
// give a Corruption naming the manifest file — never an exception, a crash
// or an allocation sized by the input. The corpus test runs the same check
// on hand-made manifests in every build.
// Thread-safety: pure functions.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace storebench::backend {

enum class ManifestKind : uint8_t { kFile = 0, kWhisper = 1, kRocksdb = 2 };

// The kinds this build has a parser for (rocksdb only with RocksDB).
std::vector<ManifestKind> ManifestKinds();

// "" when the parser kept its promise on `data`, else what it broke.
std::string CheckManifestBytes(ManifestKind kind, const uint8_t* data, size_t size);

}  // namespace storebench::backend
