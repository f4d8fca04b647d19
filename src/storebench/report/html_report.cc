#include "storebench/report/html_report.h"

#include <algorithm>
#include <cctype>
#include <optional>
#include <filesystem>
#include <fmt/format.h>
#include <map>
#include <set>

#include "storebench/base/units.h"
#include "storebench/driver/interval_rule.h"
#include "storebench/driver/schedule.h"
#include "storebench/report/causes.h"
#include "storebench/base/json_file.h"
#include "storebench/report/hdr_log.h"
#include "storebench/report/hgrm.h"
#include "storebench/report/html_phase.h"
#include "storebench/report/page_template.h"
#include "storebench/report/result.h"
#include "storebench/report/run_histograms.h"

namespace storebench::report {

// The page's skeleton, script and style (html/report.html, report.js, report.css), compiled in.
extern const std::string_view kReportScript;
extern const std::string_view kReportStyle;
extern const std::string_view kReportPage;

namespace {

namespace fs = std::filesystem;
using nlohmann::json;

std::string ShellQuote(const std::string& s) {
  bool plain = !s.empty() && std::all_of(s.begin(), s.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || std::string_view("_./:=,@%+-").find(c) != std::string_view::npos;
  });
  if (plain) return s;
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

std::string LatencyLine(const json& lat) {
  auto d = [&](const char* k) { return FormatDurationNs(lat.value(k, 0.0)); };
  return fmt::format("p50 {}, p99 {}, p99.9 {}, max {}", d("p50_ns"), d("p99_ns"), d("p999_ns"), d("max_ns"));
}

std::string RunSummary(const json& doc) {
  const json cfg = doc.value("config", json::object());
  const json totals = doc.value("totals", json::object());
  const bool open = doc.value("schedule", json::object()).value("open_loop", false);
  std::string s = fmt::format("{} backend, {}, {} threads: {:.0f} ops/s; {} {}; {} errors",
                              cfg.value("backend", "?"), cfg.value("schedule", "closed"), cfg.value("threads", 0),
                              doc.value("throughput", json::object()).value("ops_per_sec", 0.0),
                              open ? "response" : "latency",
                              LatencyLine(doc["latency"].value(open ? "response" : "service", json::object())),
                              totals.value("errors", 0));
  if (doc.contains("two_phase"))
    s += fmt::format(" (two-phase: capacity {:.0f} ops/s, phase 2 at {:.0f} ops/s)",
                     doc["two_phase"].value("capacity_ops_per_sec", 0.0),
                     doc["two_phase"].value("target_ops_per_sec", 0.0));
  if (totals.value("interrupted", false)) s += " — interrupted";
  return s;
}

// 1234567.8 -> "1,234,568".
std::string Grouped(double v) {
  const std::string digits = fmt::format("{:.0f}", std::abs(v));
  std::string out = v < 0 ? "-" : "";
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

// What went wrong in a run, in one sentence with its numbers, for the top of
// the page: an open loop that did not keep up with its offered rate
// (schedule.sustained), an interrupted run, failed ops. Empty when none.
std::string RunVerdict(const json& doc) {
  const json sched = doc.value("schedule", json::object());
  const json totals = doc.value("totals", json::object());
  std::vector<std::string> parts;
  if (sched.contains("sustained") && sched["sustained"].is_boolean() && !sched["sustained"].get<bool>()) {
    const double offered = sched.value("offered_ops_per_sec", 0.0), achieved = sched.value("achieved_ops_per_sec", 0.0);
    const double fraction = sched.value("achieved_fraction", offered > 0 ? achieved / offered : 0.0);
    std::string part = fmt::format("did not keep up with its offered rate (offered {} ops/s, achieved {} ops/s, {:.0f}%",
                                   Grouped(offered), Grouped(achieved), fraction * 100);
    if (sched.contains("end_backlog_ops"))
      part += fmt::format("; {} arrivals still waiting at the end", Grouped(sched.value("end_backlog_ops", 0.0)));
    parts.push_back(part + ")");
  }
  if (totals.value("interrupted", false)) {
    std::string of;
    const json cfg = doc.value("config", json::object());
    if (cfg.contains("duration") && cfg["duration"].is_string()) of = " of " + cfg["duration"].get<std::string>();
    parts.push_back(fmt::format("was interrupted (after {:.1f} s{}; the figures cover the {} ops measured before the "
                                "stop)", totals.value("elapsed_s", 0.0), of, Grouped(totals.value("ops", 0.0))));
  }
  const double errors = totals.value("errors", 0.0), ops = totals.value("ops", 0.0);
  if (errors > 0)
    parts.push_back(fmt::format("had errors ({} of {} ops failed, {:.2g}%{})", Grouped(errors), Grouped(ops),
                                ops > 0 ? 100 * errors / ops : 0.0,
                                totals.value("stopped_on_errors", false) ? "; stopped at --max-errors" : ""));
  if (parts.empty()) return "";
  std::string s = "This run ";
  for (size_t i = 0; i < parts.size(); ++i)
    s += (i == 0 ? "" : i + 1 == parts.size() ? " and " : ", ") + parts[i];
  return s + ".";
}

// The open loop's response tail in its four causes (report/causes.h), at the
// p99 and the max, for the top of the page. Empty without them (closed loop).
std::string RunCausesLine(const json& doc) {
  const json causes = doc.value("causes", json::object());
  std::vector<std::string> parts;
  for (const char* at : {"p99", "max"}) {
    const json c = causes.value(at, json::object());
    if (!c.contains("largest") || !c["largest"].is_string()) continue;
    std::string part = fmt::format("at the {} ({}) the largest is {} ({:.0f}%)", at,
                                   FormatDurationNs(c.value("observed_ns", 0.0)),
                                   CauseLabel(c["largest"].get<std::string>().c_str()),
                                   100 * c.value(c["largest"].get<std::string>(), 0.0));
    std::string rest;
    for (const char* k : {"queueing", "engine", "client", "platform"})
      rest += fmt::format("{}{} {:.0f}%", rest.empty() ? "" : ", ", k, 100 * c.value(k, 0.0));
    parts.push_back(part + ": " + rest);
  }
  if (parts.empty()) return "";
  return "The response tail's causes: " + parts[0] + (parts.size() > 1 ? "; " + parts[1] : "") + ".";
}

// Resource figures: the document's resources/cpu/io/cache objects and the
// backend's own figures (any other top-level object), plus per-op ratios
// computed here (DESIGN: ratios are computed when rendering).
json ResourceSections(const json& doc) {
  static const std::set<std::string> kNotResources = {"config", "environment", "throughput", "totals", "latency",
                                                      "schedule", "kinds", "groups", "tool", "two_phase", "causes"};
  json sections = json::object();
  double ops = doc.value("totals", json::object()).value("ops", 0.0);
  for (auto it = doc.begin(); it != doc.end(); ++it) {
    if (!it.value().is_object() || kNotResources.count(it.key())) continue;
    std::map<std::string, double> leaves;
    FlattenNumbers(it.key(), it.value(), &leaves);
    json rows = json::array();
    for (const auto& [k, val] : leaves) {
      json row = {{"name", k.substr(it.key().size() + 1)}, {"value", val}};
      const std::string& name = k;  // clang 14 cannot capture a structured binding
      auto has = [&](const char* part) { return name.find(part) != std::string::npos; };
      // Counts and totals get a per-op ratio; figures that are ratios already do not.
      bool per_op = (has("syscall") || has("bytes") || has("cpu_") || has("context_switches")) &&
                    !has("per_op") && !has("amplification") && !has("ratio") && !has("_s_per") &&
                    it.key() != "cache";  // residency is a state of the data set, not a cost of an op
      if (per_op && ops > 0) row["per_op"] = val / ops;
      rows.push_back(row);
    }
    for (auto s = it.value().begin(); s != it.value().end(); ++s)
      if (s.value().is_string()) rows.push_back({{"name", s.key()}, {"text", s.value()}});
    sections[it.key()] = rows;
  }
  return sections;
}

StatusOr<json> RunView(const std::string& path) {
  auto parsed = ReadJsonFile(path);
  if (!parsed.ok()) return parsed.status();
  const json& doc = *parsed;
  STOREBENCH_RETURN_IF_ERROR(CheckRunDocument(doc, path));  // the verdict compare and run --job give too
  auto fail = [&](const Status& s) { return Status::Corruption(fmt::format("{}: {}", path, s.message())); };
  json v = {{"name", fs::path(path).stem().string()}, {"path", path}, {"kind", "run"}};
  double warmup_s = 0;
  const json cfg = doc.value("config", json::object());
  if (cfg.contains("warmup") && cfg["warmup"].is_string()) {
    auto ns = ParseDurationNs(cfg["warmup"].get<std::string>(), "--warmup");
    if (ns.ok()) warmup_s = static_cast<double>(*ns) / 1e9;
  }
  json phases = json::array();
  if (doc.contains("two_phase") && doc["two_phase"].contains("phase1")) {
    auto p1 = PhaseView(doc["two_phase"]["phase1"], doc, "phase 1: closed loop (capacity)", warmup_s, true);
    if (!p1.ok()) return fail(p1.status());
    phases.push_back(std::move(*p1));
  }
  auto main = PhaseView(doc, doc,
                        doc.contains("two_phase") ? fmt::format("phase 2: open loop at {:.0f} ops/s",
                                                                doc["two_phase"].value("target_ops_per_sec", 0.0))
                                                  : "run",
                        warmup_s);
  if (!main.ok()) return fail(main.status());
  phases.push_back(std::move(*main));
  v["phases"] = phases;
  v["summary"] = RunSummary(doc);
  v["verdict"] = RunVerdict(doc);
  v["causes"] = RunCausesLine(doc);
  v["environment"] = doc.value("environment", json::object());
  std::string cmd;
  for (const auto& a : doc.value("command", json::array()))
    if (a.is_string()) cmd += (cmd.empty() ? "" : " ") + ShellQuote(a.get<std::string>());
  v["command_line"] = cmd;
  v["config"] = cfg;
  v["resources"] = ResourceSections(doc);
  v["totals"] = doc.value("totals", json::object());
  v["finished_at"] = doc.value("finished_at", "");
  return v;
}

// An HdrHistogram interval log as one run: each tag a kind.
StatusOr<json> HlogView(const std::string& path) {
  auto log = ReadHistogramLogFile(path);
  if (!log.ok()) return log.status();
  std::vector<double> starts;
  for (const auto& i : log->intervals) starts.push_back(i.start_s);
  std::sort(starts.begin(), starts.end());
  starts.erase(std::unique(starts.begin(), starts.end()), starts.end());
  std::map<double, size_t> row_of;
  for (size_t r = 0; r < starts.size(); ++r) row_of[starts[r]] = r;
  std::vector<std::string> tags = Tags(*log);
  std::vector<double> length(starts.size(), 0);
  std::map<std::string, std::vector<json>> tput;  // tag -> ops/s per row
  std::vector<measure::Histogram> resp, serv;
  measure::HistogramOptions opt = log->intervals.front().histogram.options();
  for (const auto& i : log->intervals) opt.highest = std::max(opt.highest, i.histogram.options().highest);
  resp.assign(starts.size(), measure::Histogram(opt));
  serv.assign(starts.size(), measure::Histogram(opt));
  const ResponseLines response = ResponseLinesOf(*log);
  for (const auto& i : log->intervals) {
    size_t r = row_of[i.start_s];
    length[r] = std::max(length[r], i.length_s);
    if (response(i.tag)) MergeLenient(&resp[r], i.histogram);
    if (IsServiceTag(i.tag)) MergeLenient(&serv[r], i.histogram);
    // Per tag: the kinds of a storebench log (its untagged line is "all"), or a foreign log's tags.
    if (IsServiceTag(i.tag) || (response.untagged && i.tag.empty() && tags.size() > 1)) continue;
    auto& col = tput[i.tag.empty() ? "(untagged)" : i.tag];
    col.resize(starts.size());
    col[r] = i.length_s > 0 ? static_cast<double>(i.histogram.count()) / i.length_s : 0.0;
  }
  json phase = {{"label", "HdrHistogram log"}, {"warmup_s", 0}};
  json t = json::array(), all = json::array();
  json lat = {{"response", json::object()}, {"service", json::object()}};
  bool have_service = std::any_of(tags.begin(), tags.end(), IsServiceTag);
  for (size_t r = 0; r < starts.size(); ++r) {
    t.push_back(starts[r] + length[r]);  // the end of the interval, as run documents give t_s
    all.push_back(length[r] > 0 ? static_cast<double>(resp[r].count()) / length[r] : 0.0);
    for (const char* which : {"response", "service"}) {
      const measure::Histogram& h = std::string(which) == "response" || !have_service ? resp[r] : serv[r];
      auto put = [&](const char* k, json value) { lat[which][k].push_back(h.count() ? value : json()); };
      put("p50", h.ValueAtPercentile(50));
      put("p99", h.ValueAtPercentile(99));
      put("p999", h.ValueAtPercentile(99.9));
      put("max", h.max());
    }
  }
  json throughput = {{"all", all}};
  if (tput.size() > 1)
    for (auto& [tag, col] : tput) throughput[tag] = col;
  phase["t"] = t;
  phase["length"] = length;
  phase["throughput"] = throughput;
  phase["latency"] = lat;
  phase["extra"] = json::object();
  json spectrum = json::array();
  for (const auto& tag : tags) {
    measure::Histogram h = MergedTag(*log, tag);
    if (h.count()) spectrum.push_back(Curve(tag.empty() ? "(untagged)" : tag, h));
  }
  phase["spectrum"] = spectrum;
  LatencyPair merged = ResponseAndService(*log);
  double span = starts.empty() ? 0 : starts.back() + length.back() - starts.front();
  phase["ops_per_sec"] = span > 0 ? static_cast<double>(merged.response.count()) / span : 0.0;
  json v = {{"name", fs::path(path).stem().string()}, {"path", path}, {"kind", "hlog"}, {"phases", {phase}}};
  std::string tag_list;
  for (const auto& tag : tags) tag_list += (tag_list.empty() ? "" : ", ") + (tag.empty() ? "(untagged)" : tag);
  auto p = [&](double q) { return FormatDurationNs(static_cast<double>(merged.response.ValueAtPercentile(q))); };
  v["summary"] = fmt::format("HdrHistogram log: {} intervals, tags {}: {} values, {:.0f} per second; p50 {}, p99 {}, "
                             "p99.9 {}, max {}",
                             starts.size(), tag_list, merged.response.count(), phase["ops_per_sec"].get<double>(),
                             p(50), p(99), p(99.9), FormatDurationNs(static_cast<double>(merged.response.max())));
  v["environment"] = {{"log start", log->start_time_s}};
  v["command_line"] = "";
  v["config"] = json::object();
  v["resources"] = json::object();
  return v;
}

StatusOr<json> OperandView(const std::string& path) {
  if (fs::path(path).extension() == ".hlog") return HlogView(path);
  return RunView(path);
}

// A series' spectra: the merge of its runs' last phases.
json SeriesSpectrum(const std::vector<std::string>& paths) {
  json curves = json::array();
  for (const char* which : {"response", "service"}) {
    std::optional<measure::Histogram> merged;
    for (const auto& p : paths) {
      std::optional<measure::Histogram> h;
      if (fs::path(p).extension() == ".hlog") {
        auto log = ReadHistogramLogFile(p);
        if (!log.ok()) continue;
        LatencyPair lp = ResponseAndService(*log);
        h = std::string(which) == "response" ? lp.response : lp.service;
      } else {
        auto doc = ReadJsonFile(p);
        if (!doc.ok()) continue;
        auto hh = HistogramAt(doc->value("latency", json::object()).value(which, json()), which);
        if (hh.ok()) h = std::move(*hh);
      }
      if (!h) continue;
      if (!merged) merged = std::move(*h);
      else MergeLenient(&*merged, *h);
    }
    if (merged && merged->count()) curves.push_back(Curve(which, *merged));
  }
  return curves;
}

}  // namespace

namespace {

// A matrix directory's variants as series, one per variant, into `series`.
Status AddMatrixSeries(const std::string& dir, json* series) {
  auto input = LoadCompareInput({dir});
  if (!input.ok()) return input.status();
  // The matrix manifest names each variant's files; LoadCompareInput kept their paths.
  for (const auto& g : input->groups) {
    json runs = json::array();
    std::vector<std::string> paths;
    for (const auto& r : g.runs) {
      auto v = OperandView(r.path);
      if (!v.ok()) return v.status();
      runs.push_back(std::move(*v));
      paths.push_back(r.path);
    }
    series->push_back({{"name", g.name}, {"runs", runs}, {"spectrum", SeriesSpectrum(paths)}});
  }
  return Status::Ok();
}

// Two series or more: compare's text and JSON into the model, and its verdicts as the summary.
Status AddComparison(const std::vector<std::string>& operands, const HtmlReportOptions& options, json* model,
                     std::string* summary) {
  auto input = LoadCompareInput(operands);
  if (!input.ok()) return input.status();
  auto cmp = Compare(*input, options.compare);
  if (!cmp.ok()) {
    (*model)["compare"] = {{"text", "not compared: " + cmp.status().message()}, {"json", nullptr}};
    return Status::Ok();
  }
  (*model)["compare"] = {{"text", cmp->text}, {"json", cmp->json}};
  for (const auto& c : cmp->json["comparisons"]) {
    std::string p99 =
        c.contains("latency") && c["latency"].contains("p99") ? c["latency"]["p99"].value("verdict", "") : "";
    *summary += fmt::format("{}{}: {}{}", summary->empty() ? "" : " · ", c.value("name", ""),
                            c["throughput"].value("verdict", ""), p99.empty() ? "" : "; p99: " + p99);
  }
  *summary = fmt::format("vs {}: {}", cmp->json.value("baseline", ""), *summary);
  return Status::Ok();
}

// Each run's sentence of `key` in turn, named when there are several: what
// went wrong (verdict) and the tail's causes.
std::string Sentences(const json& series, size_t runs, const char* key) {
  std::string all;
  for (const auto& s : series)
    for (const auto& r : s["runs"]) {
      std::string v = r.value(key, "");
      if (v.empty()) continue;
      if (runs > 1) v = r.value("name", std::string()) + ": " + v;
      all += (all.empty() ? "" : " ") + v;
    }
  return all;
}

}  // namespace

StatusOr<json> BuildReportModel(const std::vector<std::string>& operands, const HtmlReportOptions& options) {
  if (operands.empty()) return Status::InvalidArgument("report: give a run result, several, a matrix directory or a .hlog");
  json series = json::array();
  bool matrix = false;
  for (const auto& op : operands) {
    if (fs::is_directory(op)) {
      STOREBENCH_RETURN_IF_ERROR(AddMatrixSeries(op, &series));
      matrix = true;
      continue;
    }
    auto v = OperandView(op);
    if (!v.ok()) return v.status();
    std::string name = (*v)["name"];
    series.push_back({{"name", name}, {"runs", {*v}}, {"spectrum", SeriesSpectrum({op})}});
  }
  json model = {{"series", series}, {"tool", "storebench report"}};
  size_t runs = 0;
  for (const auto& s : series) runs += s["runs"].size();
  model["mode"] = matrix ? "matrix" : (series.size() > 1 ? "overlay" : "single");
  model["compare"] = nullptr;
  std::string summary;
  if (series.size() >= 2) STOREBENCH_RETURN_IF_ERROR(AddComparison(operands, options, &model, &summary));
  else if (runs == 1) summary = series[0]["runs"][0].value("summary", "");
  model["summary"] = summary;
  model["verdict"] = Sentences(series, runs, "verdict");
  model["causes"] = Sentences(series, runs, "causes");
  std::string title = options.title;
  if (title.empty()) {
    if (matrix) title = "storebench matrix: " + fs::path(operands.front()).filename().string();
    else if (series.size() > 1) title = fmt::format("storebench: {} runs overlaid", series.size());
    else title = "storebench: " + series[0].value("name", std::string());
  }
  model["title"] = title;
  return model;
}

namespace {

std::string EscapeHtml(std::string_view s) {
  std::string out;
  for (char c : s) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      default: out += c;
    }
  }
  return out;
}

// JSON inside a <script> element: "</" would end the element early.
std::string ScriptSafeJson(const json& j) {
  std::string s = j.dump(-1, ' ', false, json::error_handler_t::replace);
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '<' && i + 1 < s.size() && s[i + 1] == '/') out += "<\\";
    else out += s[i];
  }
  return out;
}

}  // namespace

StatusOr<std::string> RenderHtmlReport(const json& model, const HtmlReportOptions& options) {
  auto chart = ReadTextFile(options.chart_js_path);
  if (!chart.ok())
    return Status::IOError(fmt::format("report: Chart.js is missing at {} (install Debian's {}: scripts/setup.sh or "
                                        "apt-get install {}): {}",
                                        options.chart_js_path, kChartJsPackage, kChartJsPackage, chart.status().message()));
  if (chart->find("</script") != std::string::npos)
    return Status::Corruption(fmt::format("report: {} contains '</script' and cannot be inlined", options.chart_js_path));
  const std::string title = EscapeHtml(model.value("title", "storebench report"));
  const std::string verdict = EscapeHtml(model.value("verdict", "")), summary = EscapeHtml(model.value("summary", ""));
  const std::string causes = EscapeHtml(model.value("causes", "")), data = ScriptSafeJson(model);
  return FillTemplate(kReportPage, {{"title", title},
                                    {"style", kReportStyle},
                                    {"verdict", verdict},
                                    {"summary", summary},
                                    {"causes", causes},
                                    {"chart_js_package", kChartJsPackage},
                                    {"chart_js_path", options.chart_js_path},
                                    {"chart_js", *chart},
                                    {"data", data},
                                    {"script", kReportScript}});
}

}  // namespace storebench::report
