// The histograms of a run result document (schema storebench.run/1) in the
// shapes HdrHistogram's tools read: the interval log (.hlog) and the
// percentile distribution (.hgrm). A document yields one interval spanning
// the measured run, laid out as every storebench log (hdr_log.h): the
// untagged line is the response time of every op, then each kind's response
// histogram tagged with the kind and its service histogram with "KIND.service".
// Thread-safety: pure functions over values.
#pragma once

#include <nlohmann/json_fwd.hpp>
#include <string>
#include <vector>

#include "storebench/base/status.h"
#include "storebench/measure/histogram.h"
#include "storebench/report/hdr_log.h"

namespace storebench::report {

// Decodes doc.latency.<which> ("response" or "service"), or any object with a
// "histogram" string; Corruption names `what` when missing or malformed.
StatusOr<measure::Histogram> HistogramAt(const nlohmann::json& node, const std::string& what);

// Seconds since the epoch at which the measured run began: finished_at minus
// the elapsed time (0 when the document does not say).
double RunStartTime(const nlohmann::json& doc);

// The untagged line and one per kind and tag, each spanning the run (see
// above); kinds without ops are left out.
StatusOr<std::vector<HlogInterval>> RunFinalIntervals(const nlohmann::json& doc);

// The whole .hlog text for a run document.
StatusOr<std::string> RunHistogramLog(const nlohmann::json& doc);

// The .hgrm text of doc.latency.<which>, values divided by `unit_ratio`.
StatusOr<std::string> RunPercentileDistribution(const nlohmann::json& doc, const std::string& which,
                                                double unit_ratio);

}  // namespace storebench::report

namespace storebench::driver {
struct RunResult;
}

namespace storebench::report {

// The interval log of a measured run (layout in hdr_log.h): per interval,
// the untagged response histogram of every op, then per op kind its response
// histogram tagged with the kind ("group/kind" with several groups) and its
// service histogram tagged "KIND.service"; intervals and kinds without ops
// are left out. For `run --hlog`.
StatusOr<std::string> RunResultHistogramLog(const driver::RunResult& result);

}  // namespace storebench::report
