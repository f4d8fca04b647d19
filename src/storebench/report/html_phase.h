// The HTML report's view of one phase of a run document: its interval
// timeline in columns (a row per interval that counts, driver/interval_rule.h;
// a figure a row lacks is null in its column) and its latency spectra, as the
// page (html/report.js) draws them. Used by html_report.cc only.
#pragma once

#include <map>
#include <nlohmann/json.hpp>
#include <string>

#include "storebench/base/status.h"
#include "storebench/measure/histogram.h"

namespace storebench::report {

// A spectrum curve of `h` (x = 1/(1-p), value ns), labelled.
nlohmann::json Curve(const std::string& label, const measure::Histogram& h);

// Every number under `v`, as "prefix.key.key" → value, into `out`.
void FlattenNumbers(const std::string& prefix, const nlohmann::json& v, std::map<std::string, double>* out);

// One phase of `doc`: {label, warmup_s, t, columns…, spectrum, ops_per_sec,
// short_intervals_left_out}. `groups_source`: the document naming the worker
// groups (the run's own, or the two-phase parent's); `phase1`: phase 1 of a
// two-phase run (a closed loop: no offered schedule).
StatusOr<nlohmann::json> PhaseView(const nlohmann::json& doc, const nlohmann::json& groups_source,
                                   const std::string& label, double warmup_s, bool phase1 = false);

}  // namespace storebench::report
