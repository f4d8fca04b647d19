// Dataset: the `whisper` backend's data set — M metric files of one retention
// schema in a carbon-like tree (DIR/servers/host-0042/cpu/metric-0010752.wsp,
// kMetricsPerDir files per directory) and a manifest that says what the set
// is. The manifest is written last, so a prepare that stopped midway never
// passes for complete; running prepare again resumes it, keeping the files
// that already have the right header.
//
// Files are made by whisper::Create (whisper.py's zero fill, or sparse), then
// "aged": each archive gets a base point whose timestamp puts the data set's
// start time at a position derived from the metric id, as on a server whose
// files have been written for a while. A run's writes then land anywhere in
// each archive instead of all near the archives' first slots.
// Thread-safety: a Dataset is immutable once made and may be read from any thread.
#pragma once

#include <atomic>
#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <vector>

#include "storebench/backend/whisper/options.h"
#include "storebench/backend/backend.h"
#include "storebench/base/status.h"
#include "storebench/whisper/retention.h"

namespace storebench::backend::wsp {

inline constexpr const char* kManifestName = "storebench-whisper.json";
inline constexpr uint64_t kMetricsPerDir = 256;
// The simulated clock of every run starts here (2020-09-13T12:26:40Z), never
// at the wall clock, so that runs and their files are reproducible.
inline constexpr int64_t kStartTime = 1'600'000'000;
inline constexpr uint64_t kMaxMetrics = 100'000'000;  // as --metrics

struct Dataset {
  std::string dir;
  uint64_t metrics = 0;
  std::vector<whisper::ArchiveSpec> archives;  // sorted by precision, validated
  whisper::AggregationMethod aggregation = whisper::AggregationMethod::kAverage;
  double x_files_factor = 0.5;
  bool sparse = false;
  int64_t start = kStartTime;
  uint64_t file_bytes = 0;         // size of one metric file
  std::vector<std::string> paths;  // metric i's file is paths[i]

  uint64_t total_bytes() const { return metrics * file_bytes; }
  // "60:1440,300:8640,3600:43800": the archives in whisper-create's form.
  std::string Retention() const;
  // "1000 metrics × 631.4 KiB (616.6 MiB), 60:1440,300:8640,3600:43800, average, xff 0.5"
  std::string Describe() const;
};

// The path of metric `i` in a data set in `dir`.
std::string MetricPath(const std::string& dir, uint64_t i);

// The data set a manifest document of `dir` describes; every field checked
// for type and range (a bad one is Corruption naming the manifest and field).
StatusOr<Dataset> ParseManifest(const nlohmann::json& manifest, const std::string& dir);

// Makes the data set the options describe, or does nothing when `dir` already
// holds a matching one (`*created` tells which). Refuses a different existing
// set with the remedy, and a set larger than the free space before writing
// anything; on a write error (ENOSPC included) reports the file and cause.
// The caller holds the directory's lock (job/data_dir.h); `stop` (may be null) ends it
// between files with Interrupted. Whatever ended it (a stop, an error, a
// SIGKILL), the same prepare again resumes: files that match are kept, the
// others made again.
// `progress` (may be empty) hears of the metrics made after each file.
StatusOr<Dataset> PrepareDataset(const WhisperOptions& options, uint64_t seed, bool* created,
                                 const PrepareProgressFn& progress = {}, const std::atomic<bool>* stop = nullptr);

// Opens the set in options.data, checking it against the options that were
// given (metrics, retention, aggregation, xff) and that every file is there at
// full size. NotFound suggests `storebench prepare`; a mismatch is InvalidArgument.
StatusOr<Dataset> OpenDataset(const WhisperOptions& options);

}  // namespace storebench::backend::wsp
