// The outputs of a run: the JSON result document (schema "storebench.run/2"; compare also reads run/1),
// the interval CSV, and the human summary (the live progress line is progress.h).
//
// JSON layout (keys scripts rely on): schema, tool, command, config,
// environment, throughput.ops_per_sec, totals.{ops,errors,…},
// latency.{response,service}.{p50_ns,p90_ns,p99_ns,p999_ns,p9999_ns,max_ns,
// min_ns,mean_ns,stddev_ns,count,histogram}, schedule.start_lag, kinds.<name>,
// groups.<name>, intervals[], resources; the process-wide figures cpu, io
// (/proc/self/io) and cache (the data set's page-cache residency) for every
// backend; and the backend's own figures under its name (file, whisper,
// rocksdb, null) or under io (what its read path counted).
// The `histogram` strings are lossless (measure::Histogram::Encode()), so
// later tools can merge runs and recompute any percentile.
#pragma once

#include <nlohmann/json_fwd.hpp>
#include <string>
#include <vector>

#include "storebench/base/status.h"
#include "storebench/driver/runner.h"
#include "storebench/job/result_document.h"
#include "storebench/job/run.h"

namespace storebench::report {

// The run document's schemas and the one check of a stored result, shared
// with `run --job` (job/result_document.h).
using job::CheckRunDocument;
using job::IsRunDocument;
using job::kRunSchema;
using job::kRunSchemaV1;

nlohmann::json LatencyJson(const measure::Histogram& h);

// What a run observed minus what the ideal client (driver/ideal_client.h)
// would have, at the same percentiles of the same ops (signed ns).
struct ClientAdded {
  int64_t p50 = 0, p99 = 0, p999 = 0, max = 0;
};
ClientAdded ClientAddedOf(const measure::Histogram& observed, const measure::Histogram& ideal);

// The figures of one measured phase: throughput, totals, latency, schedule,
// resources, kinds, groups, intervals and the typed metrics.
StatusOr<nlohmann::json> PhaseJson(const driver::RunResult& result);

// The whole result document of a job's run; `command` is the argv kept in it.
StatusOr<nlohmann::json> BuildRunJson(const job::JobResult& result, const std::vector<std::string>& command);

// One line per interval: elapsed_s,ops,ops_per_sec,p50_ns,p99_ns,p999_ns,max_ns,backlog,…
std::string IntervalCsv(const driver::RunResult& result);

// The human summary (several lines, ends with a newline), the backend's and
// the process's figures included.
std::string HumanSummary(const driver::RunResult& result, const std::string& title);

// The `tool` object: name, version, commit, build type, compiler, library versions.
nlohmann::json ToolJson();

}  // namespace storebench::report
