#include "storebench/base/atomic_file.h"
#include "storebench/cli/report_command.h"

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fmt/format.h>

#include "storebench/cli/run_command.h"
#include "storebench/base/json_file.h"
#include "storebench/report/hdr_log.h"
#include "storebench/report/hgrm.h"
#include "storebench/report/html_report.h"
#include "storebench/report/result.h"
#include "storebench/report/run_histograms.h"

namespace storebench::cli {

void AddReportFlags(CLI::App* app, ReportFlags* f) {
  app->add_option("inputs", f->operands,
                  "RUN.json, several (overlaid), a matrix directory, or an HdrHistogram FILE.hlog")
      ->required();
  app->add_option("-o,--output", f->output, "the HTML report to write (default report.html)");
  app->add_option("--hlog", f->hlog_path, "write the HdrHistogram interval log of one RUN.json (or .hlog) here");
  app->add_option("--hgrm", f->hgrm_path,
                  "write the percentile distribution of one RUN.json or .hlog here, as HdrHistogram and wrk2 -L print it");
  app->add_option("--hgrm-unit", f->hgrm_unit, "value unit of --hgrm: ns, us or ms")->capture_default_str();
  app->add_option("--title", f->title, "the page's title");
  app->add_option("--chart-js", f->chart_js, "Chart.js to inline (Debian's libjs-chart.js)")->capture_default_str();
  AddComparisonFlags(app, &f->compare);
}

namespace {

StatusOr<double> UnitRatio(const std::string& unit) {
  if (unit == "ns") return 1.0;
  if (unit == "us") return 1e3;
  if (unit == "ms") return 1e6;
  return Status::InvalidArgument(fmt::format("--hgrm-unit: expected ns, us or ms; got '{}'", unit));
}

// The .hlog and .hgrm texts of one input: a run document (final histograms,
// run_histograms.h) or an .hlog (rewritten as storebench writes logs; its
// merged response or service histogram as the distribution).
struct HdrTexts {
  std::string hlog, hgrm;
};

StatusOr<HdrTexts> HdrTextsOf(const std::string& path, const std::string& latency, double unit_ratio) {
  auto in_file = [&](const Status& s) { return Status::Corruption(fmt::format("{}: {}", path, s.message())); };
  HdrTexts out;
  if (std::filesystem::path(path).extension() == ".hlog") {
    auto log = report::ReadHistogramLogFile(path);
    if (!log.ok()) return log.status();
    auto hlog = report::WriteHistogramLog(log->start_time_s, log->intervals);
    if (!hlog.ok()) return hlog.status();
    report::LatencyPair lat = report::ResponseAndService(*log);
    out.hlog = std::move(*hlog);
    out.hgrm = report::PercentileDistribution(latency == "service" ? lat.service : lat.response, unit_ratio);
    return out;
  }
  auto doc = ReadJsonFile(path);
  if (!doc.ok()) return doc.status();
  if (!report::IsRunDocument(*doc))
    return Status::InvalidArgument(
        fmt::format("{}: not a storebench run result (expected schema {}) nor an .hlog", path, report::kRunSchema));
  STOREBENCH_RETURN_IF_ERROR(report::CheckRunDocument(*doc, path));
  auto hlog = report::RunHistogramLog(*doc);
  if (!hlog.ok()) return in_file(hlog.status());
  auto hgrm = report::RunPercentileDistribution(*doc, latency, unit_ratio);
  if (!hgrm.ok()) return in_file(hgrm.status());
  out.hlog = std::move(*hlog);
  out.hgrm = std::move(*hgrm);
  return out;
}

int WriteHdrFiles(const ReportFlags& f, const std::string& latency) {
  if (f.operands.size() != 1)
    return ReportError(Status::InvalidArgument("--hlog/--hgrm: give exactly one input (RUN.json or FILE.hlog)"));
  auto ratio = UnitRatio(f.hgrm_unit);
  if (!ratio.ok()) return ReportError(ratio.status());
  auto texts = HdrTextsOf(f.operands[0], latency, *ratio);
  if (!texts.ok()) return ReportError(texts.status());
  if (!f.hlog_path.empty())
    if (Status s = WriteFileAtomically(f.hlog_path, texts->hlog); !s.ok()) return ReportError(s);
  if (!f.hgrm_path.empty())
    if (Status s = WriteFileAtomically(f.hgrm_path, texts->hgrm); !s.ok()) return ReportError(s);
  return kExitOk;
}

}  // namespace

int ExecuteReport(const ReportFlags& f) {
  auto compare = BuildCompareOptions(f.compare);
  if (!compare.ok()) return ReportError(compare.status());
  bool hdr = !f.hlog_path.empty() || !f.hgrm_path.empty();
  CommandFiles files;
  AddOperandInputs("INPUT", f.operands, &files);
  files.Output("-o", hdr ? f.output : f.output.empty() ? std::string("report.html") : f.output);
  files.Output("--hlog", f.hlog_path);
  files.Output("--hgrm", f.hgrm_path);
  if (Status s = files.Check(); !s.ok()) return ReportError(s);
  if (!hdr || !f.output.empty())
    if (::access(f.chart_js.c_str(), R_OK) != 0)
      return ReportError(Status::InvalidArgument(
          fmt::format("--chart-js: cannot read '{}': {}; give the path of Chart.js (Debian's libjs-chart.js)",
                      f.chart_js, std::strerror(errno))));
  if (hdr) {
    if (int rc = WriteHdrFiles(f, compare->latency); rc != kExitOk) return rc;
    if (f.output.empty()) return kExitOk;
  }
  report::HtmlReportOptions options;
  options.chart_js_path = f.chart_js;
  options.compare = *compare;
  options.title = f.title;
  auto model = report::BuildReportModel(f.operands, options);
  if (!model.ok()) return ReportError(model.status());
  auto html = report::RenderHtmlReport(*model, options);
  if (!html.ok()) return ReportError(html.status());
  std::string out = f.output.empty() ? "report.html" : f.output;
  if (Status s = WriteFileAtomically(out, *html); !s.ok()) return ReportError(s);
  std::printf("report: wrote %s (%zu bytes)\n", out.c_str(), html->size());
  return kExitOk;
}

}  // namespace storebench::cli
