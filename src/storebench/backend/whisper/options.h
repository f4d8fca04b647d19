// WhisperOptions: the `whisper` backend's flags, parsed once from the command
// line into a plain struct that prepare, the workers and the accounting read
// (never a flag map on the hot path).
// Thread-safety: a value type, read-only once parsed.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "storebench/backend/backend.h"
#include "storebench/whisper/file.h"
#include "storebench/whisper/format.h"

namespace storebench::backend::wsp {

enum class Workload { kUpdate, kFetch, kMixed };
std::string_view WorkloadName(Workload w);

// What `prepare` makes when the flags do not say (and `run` accepts from the manifest).
inline constexpr uint64_t kDefaultMetrics = 1000;
inline constexpr const char* kDefaultRetention = "60s:1d,5m:30d,1h:5y";

struct WhisperOptions {
  std::string data;                 // data set directory
  uint64_t metrics = 0;             // 0 = prepare: kDefaultMetrics; run: as the manifest says
  std::string retention;            // empty = prepare: kDefaultRetention; run: as the manifest says
  whisper::AggregationMethod aggregation = whisper::AggregationMethod::kAverage;
  double x_files_factor = 0.5;
  bool aggregation_given = false, xff_given = false;  // run: check them against the manifest only if given
  bool sparse = false;              // prepare: sparse files instead of whisper.py's zero fill

  Workload workload = Workload::kUpdate;
  uint32_t points_per_update = 10;  // K: points of one metric in one carbon flush
  int64_t fetch_range_s = 3600;     // fetch: the range (now - range, now]
  double update_ratio = 0.9;        // mixed: fraction of ops that are updates
  std::string metric_dist = "uniform";
  whisper::IoOptions io;            // mode, buffer size, fadvise, lock (header_cache set by the backend)
  bool header_cache = false;
  std::string io_name = "exact";    // --io as given
  uint64_t buffer = 0;              // --buffer as given
};


// The backend's options, declared once (become `run`/`prepare` flags).
const OptionTable<WhisperOptions>& WhisperOptionTable();

// Parses option values (tests and tools); InvalidArgument names the flag.
inline StatusOr<WhisperOptions> ParseWhisperOptions(const OptionValues& values) {
  return WhisperOptionTable().Parse(values);
}

}  // namespace storebench::backend::wsp
