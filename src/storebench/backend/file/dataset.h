// Dataset: the `file` backend's data set — N files of equal size in one
// directory, every block stamped (stamp.h), and a manifest that says what the
// set is. The manifest is written last, after every file is complete and
// synced, so a prepare that failed midway (ENOSPC, a crash) never leaves a set
// that passes for complete.
// Thread-safety: a Dataset is immutable once made and may be read from any thread.
#pragma once

#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

#include "storebench/backend/backend.h"
#include <nlohmann/json_fwd.hpp>

#include "storebench/base/status.h"

namespace storebench::backend::file {

inline constexpr const char* kManifestName = "storebench-file.json";
inline constexpr uint64_t kMaxFiles = 100000;
inline constexpr uint64_t kMaxFileSize = uint64_t{1} << 50;

struct Dataset {
  std::string dir;
  uint64_t files = 0;
  uint64_t file_size = 0;
  uint64_t seed = 0;  // content seed, from the manifest
  std::vector<std::string> paths;

  uint64_t total_bytes() const { return files * file_size; }
  std::string Describe() const;  // "4 files of 256.0 MiB (1.0 GiB)"
};

// The path of file `i` of a data set in `dir`.
std::string DataFilePath(const std::string& dir, uint64_t i);

// The data set a manifest document of `dir` describes; every field checked
// for type and range (a bad one is Corruption naming the manifest and field).
StatusOr<Dataset> ParseManifest(const nlohmann::json& manifest, const std::string& dir);

// Makes the data set, or does nothing when `dir` already holds a matching one
// (`*created` tells which). Refuses a different existing set; on any write
// error (ENOSPC included) removes the files it wrote and reports the cause.
// `progress` (may be empty) hears of the bytes written after each chunk.
// The caller (job::PrepareJob) holds the directory's lock and claim (job/data_dir.h);
// `stop` (may be null) ends it between 1 MiB writes with Interrupted, leaving
// no manifest, so the next prepare rewrites the set.
StatusOr<Dataset> PrepareDataset(const std::string& dir, uint64_t files, uint64_t file_size, uint64_t seed,
                                 bool* created, const PrepareProgressFn& progress = {},
                                 const std::atomic<bool>* stop = nullptr);

// Opens the set in `dir`, checking it against `files` and `file_size` (0 =
// accept what the manifest says) and that every file is there at full size.
// NotFound suggests `storebench prepare`; a mismatch is InvalidArgument.
StatusOr<Dataset> OpenDataset(const std::string& dir, uint64_t files, uint64_t file_size);

}  // namespace storebench::backend::file
