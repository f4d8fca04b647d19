// The outputs of a run: the JSON result document (schema "storebench.run/1"),
// the interval CSV, the human summary and the live progress line.
//
// JSON layout (keys scripts rely on): schema, tool, command, config,
// environment, throughput.ops_per_sec, totals.{ops,errors,…},
// latency.{response,service}.{p50_ns,p90_ns,p99_ns,p999_ns,p9999_ns,max_ns,
// min_ns,mean_ns,stddev_ns,count,histogram}, schedule.start_lag, kinds.<name>,
// groups.<name>, intervals[], plus what the backend adds (io, cache, …).
// The `histogram` strings are lossless (measure::Histogram::Encode()), so
// later tools can merge runs and recompute any percentile.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "storebench/base/status.h"
#include "storebench/driver/runner.h"

namespace storebench::report {

inline constexpr const char* kRunSchema = "storebench.run/1";

nlohmann::json LatencyJson(const measure::Histogram& h);

// The whole result document. `config` and `environment` are stored as given;
// `backend_results` objects are merged at top level.
nlohmann::json BuildRunJson(const driver::RunResult& result, const nlohmann::json& config,
                            const nlohmann::json& environment, const nlohmann::json& backend_results,
                            const std::vector<std::string>& command);

// One line per interval: elapsed_s,ops,ops_per_sec,p50_ns,p99_ns,p999_ns,max_ns,backlog,…
std::string IntervalCsv(const driver::RunResult& result);

// The human summary (several lines, ends with a newline).
std::string HumanSummary(const driver::RunResult& result, const std::string& title,
                         const std::vector<std::string>& backend_lines);

// The one-line progress text for a tick.
std::string ProgressLine(const driver::IntervalStats& tick);

// Writes `text` to `path` through a temporary file and rename, so a reader
// never sees a half-written file.
Status WriteFileAtomically(const std::string& path, const std::string& text);

}  // namespace storebench::report
