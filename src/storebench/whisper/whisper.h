// The whisper database API, with whisper.py 1.1.4's semantics: create, update,
// update_many, fetch, info and set_aggregation on one metric file.
//
// Every function takes `now` explicitly (whisper.py defaults it to time.time())
// so that results are reproducible, and IoOptions choosing how bytes move (see
// file.h). Path-level functions open and close the file per call, as whisper.py
// does, adding their syscalls to `counters` when it is not null; the *File
// variants work on a handle the caller keeps open.
// Thread-safety: functions are reentrant; concurrent writers to one file need
// IoOptions::lock, as with whisper.py's LOCK.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "storebench/base/status.h"
#include "storebench/whisper/file.h"
#include "storebench/whisper/format.h"
#include "storebench/whisper/retention.h"

namespace storebench::whisper {

enum class Allocation { kZeroFill, kSparse, kFallocate };

struct CreateOptions {
  AggregationMethod aggregation = AggregationMethod::kAverage;
  double x_files_factor = 0.5;
  Allocation allocation = Allocation::kZeroFill;
};

// A point as a caller supplies it: any timestamp, any value.
struct TimedValue {
  int64_t timestamp = 0;
  double value = 0;
};

// fetch()'s answer: the intervals (from, until] in steps of `step`, one value or
// nullopt per step, exactly as whisper.py's (timeInfo, valueList).
struct FetchResult {
  int64_t from = 0, until = 0, step = 0;
  std::vector<std::optional<double>> values;
};

struct AggregationSetting {
  AggregationMethod method = AggregationMethod::kAverage;
  float x_files_factor = 0;
};

// Validates `archives` (see ValidateArchiveList) and writes a new file; InvalidArgument
// if it exists or the settings are invalid. A partly written file is removed.
Status Create(const std::string& path, std::vector<ArchiveSpec> archives, const CreateOptions& options,
              const IoOptions& io = {}, SyscallCounters* counters = nullptr);

// Stores `value` at `timestamp` (default `now`) in the best archive and propagates;
// InvalidArgument "Timestamp not covered..." unless 0 <= now - timestamp < maxRetention.
Status Update(const std::string& path, double value, std::optional<int64_t> timestamp, int64_t now,
              const IoOptions& io = {}, SyscallCounters* counters = nullptr);
Status UpdateFile(WhisperFile& file, double value, std::optional<int64_t> timestamp, int64_t now);

// Stores many points: newest first into the archives that can hold them, the last
// point of an interval winning, older-than-retention points dropped; then propagates.
Status UpdateMany(const std::string& path, std::vector<TimedValue> points, int64_t now,
                  const IoOptions& io = {}, SyscallCounters* counters = nullptr);
Status UpdateManyFile(WhisperFile& file, std::vector<TimedValue> points, int64_t now);

// Reads (from, until] from the archive whisper.py would choose (or the one with
// `seconds_per_point` if given); nullopt when the range is outside the retention.
StatusOr<std::optional<FetchResult>> Fetch(const std::string& path, int64_t from, int64_t until, int64_t now,
                                           const IoOptions& io = {}, SyscallCounters* counters = nullptr,
                                           std::optional<uint32_t> seconds_per_point = std::nullopt);
StatusOr<std::optional<FetchResult>> FetchFile(WhisperFile& file, int64_t from, int64_t until, int64_t now,
                                               std::optional<uint32_t> seconds_per_point = std::nullopt);

// The validated header of `path`.
StatusOr<Header> Info(const std::string& path, const IoOptions& io = {}, SyscallCounters* counters = nullptr);

// Rewrites the aggregation method and/or xFilesFactor (unset: keep) and returns the old
// ones; invalidates the header cache entry of `path`.
StatusOr<AggregationSetting> SetAggregation(const std::string& path, std::optional<AggregationMethod> method,
                                            std::optional<double> x_files_factor, const IoOptions& io = {},
                                            SyscallCounters* counters = nullptr);

}  // namespace storebench::whisper
