// The self-contained HTML report: one file with the charting library, the
// page's script and style and the data inlined, so it opens from disk on a
// machine without network.
//
// Inputs (operands): a run result (FILE.json, schema storebench.run/1),
// several of them (overlaid, one colour each), a matrix directory (the
// compare table with verdicts and confidence intervals, and each variant's
// runs) or an HdrHistogram interval log (FILE.hlog: each tag drawn as a kind).
//
// Charting library: Chart.js 3 from Debian's libjs-chart.js, read at run time
// from /usr/share/javascript/chart.js/chart.min.js and never copied into the
// repository. Chosen because it is a Debian package (so setup.sh installs it
// like every other dependency, no npm step), draws log axes and legends out
// of the box and needs no date adapter for a seconds axis.
//
// The page marks itself when done: <div id="sb-ready" data-charts="N"
// data-empty="ids of charts without data" data-errors="N"> and a list of any
// JavaScript errors in <pre id="sb-errors"> (the browser test reads them).
// Thread-safety: pure functions over values; reads files.
#pragma once

#include <nlohmann/json_fwd.hpp>
#include <string>
#include <vector>

#include "storebench/base/status.h"
#include "storebench/report/compare.h"

namespace storebench::report {

inline constexpr const char* kChartJsPath = "/usr/share/javascript/chart.js/chart.min.js";
inline constexpr const char* kChartJsPackage = "libjs-chart.js";

struct HtmlReportOptions {
  std::string chart_js_path = kChartJsPath;  // tests may point elsewhere
  CompareOptions compare;                    // for matrices and several inputs
  std::string title;                         // empty: derived from the inputs
};

// The data the page draws (also useful to tests): {title, summary, mode,
// series: [{name, runs: [run view], spectrum}], compare}. See html_report.cc
// for the run view's fields. Errors name the operand.
StatusOr<nlohmann::json> BuildReportModel(const std::vector<std::string>& operands, const HtmlReportOptions& options);

// The whole HTML page for `model`. IOError names the package when Chart.js is missing.
StatusOr<std::string> RenderHtmlReport(const nlohmann::json& model, const HtmlReportOptions& options);

}  // namespace storebench::report
