// Rendering typed metrics (measure::MetricSet): into the result document at
// their paths, and as summary lines. Ratios are evaluated here, from the
// counters they name, so merged results render exact ratios.
#pragma once

#include <nlohmann/json_fwd.hpp>
#include <set>
#include <string>
#include <vector>

#include "storebench/base/status.h"
#include "storebench/measure/metrics.h"

namespace storebench::report {

// A metric's value as JSON: counters as integers, flags as booleans, gauges
// and ratios as numbers (a ratio over 0 is null), unknown figures as "unknown".
nlohmann::json MetricValueJson(const measure::MetricSet& set, const measure::Metric& m);

// Writes every metric of `set` into `doc` at its path (["io", "ops"] → doc.io.ops).
// A ratio whose operands are missing is left out. InvalidArgument when a path
// would overwrite a value already in `doc` or a top-level key in `reserved`.
Status AddMetricsJson(const measure::MetricSet& set, nlohmann::json* doc, const std::set<std::string>& reserved = {});

// "4.0 KiB", "1.23 ms", "0.982", "12345": a metric's value for people.
std::string FormatMetric(const measure::MetricSet& set, const measure::MetricPath& path);

// The summary lines of the metrics marked `summary`, one line per owner:
// "rocksdb: found 63.2%, not found 36.8%, …".
std::vector<std::string> MetricSummaryLines(const measure::MetricSet& set);

}  // namespace storebench::report
