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

// Interval keys the page draws in their own charts; any other numeric figure
// in an interval object (run-queue waits, hiccups, backend gauges) is drawn
// in an "other figures" chart of its own key.
const std::set<std::string> kKnownIntervalKeys = {"t_s",     "length_s", "ops",     "errors",   "bytes",
                                                  "ops_per_sec", "backlog", "lag_ns", "response", "service",
                                                  "group_ops", "offered_ops_per_sec", "ideal", "cpu", "causes",
                                                  "steady", "platform"};

// Who held the CPU per interval (interval "cpu", driver/cpu_account.h) and the
// p99's causes (interval "causes", report/causes.h), each in its own chart.
constexpr const char* kCpuHolders[] = {"workers_ns", "engine_ns", "client_ns", "others_ns", "steal_ns"};
constexpr const char* kCauses[] = {"queueing", "engine", "client", "platform"};

// Spectrum points (x = 1/(1-p), value ns) along HdrHistogram's percentile
// iterator; the 100% row has no finite x and is drawn as the max instead.
json SpectrumPoints(const measure::Histogram& h) {
  json pts = json::array();
  for (const PercentileRow& r : PercentileRows(h))
    if (r.percentile < 100.0) pts.push_back({1.0 / (1.0 - r.percentile / 100.0), r.value});
  return pts;
}

json Curve(const std::string& label, const measure::Histogram& h) {
  return {{"label", label}, {"points", SpectrumPoints(h)}, {"max_ns", h.max()}, {"count", h.count()}};
}

void FlattenNumbers(const std::string& prefix, const json& v, std::map<std::string, double>* out) {
  if (v.is_number()) {
    (*out)[prefix] = v.get<double>();
  } else if (v.is_boolean()) {
    (*out)[prefix] = v.get<bool>() ? 1 : 0;
  } else if (v.is_object()) {
    for (auto it = v.begin(); it != v.end(); ++it) FlattenNumbers(prefix + "." + it.key(), it.value(), out);
  }
}

std::vector<std::string> GroupNames(const json& doc, size_t n) {
  std::vector<std::string> names;
  const json cfg = doc.value("config", json::object());
  if (cfg.contains("classes") && cfg["classes"].is_array())
    for (const auto& c : cfg["classes"])
      if (c.is_string()) names.push_back(c.get<std::string>().substr(0, c.get<std::string>().find(':')));
  for (size_t i = names.size(); i < n; ++i) names.push_back(fmt::format("group {}", i + 1));
  names.resize(n);
  return names;
}

// The arrival schedule an open-loop phase ran, when the result does not give
// the offered rate per interval (results older than offered_ops_per_sec):
// phase 2's constant rate of a two-phase run, or a one-group run's --schedule.
std::optional<driver::ScheduleSpec> OfferedSchedule(const json& doc, const json& run_doc, bool phase1) {
  if (phase1 || !doc.value("schedule", json::object()).value("open_loop", false)) return std::nullopt;
  if (run_doc.contains("two_phase")) {
    driver::ScheduleSpec s;
    s.kind = driver::ScheduleSpec::Kind::kConstant;
    s.rate = run_doc["two_phase"].value("target_ops_per_sec", 0.0);
    return s.rate > 0 ? std::optional(s) : std::nullopt;
  }
  const json cfg = run_doc.value("config", json::object());
  if (cfg.contains("classes") && cfg["classes"].is_array() && !cfg["classes"].empty()) return std::nullopt;
  const json effective = doc.value("schedule", json::object()).value("effective", json());
  if (!effective.is_string()) return std::nullopt;
  auto s = driver::ParseSchedule(effective.get<std::string>());
  if (!s.ok() || !s->open_loop() || s->kind == driver::ScheduleSpec::Kind::kTrace) return std::nullopt;
  return *s;
}

// The intervals that count (driver/interval_rule.h).
json WithoutShortLast(json intervals, size_t* left_out) {
  std::vector<double> lengths;
  for (const auto& i : intervals) lengths.push_back(i.value("length_s", 0.0));
  const size_t counted = driver::CountedIntervals(lengths, 0);
  *left_out = lengths.size() - counted;
  if (counted < lengths.size()) intervals.erase(intervals.begin() + static_cast<ptrdiff_t>(counted), intervals.end());
  return intervals;
}

// The interval timeline of one phase in columns, a row per interval; a
// figure a row lacks is null in its column.
class Timeline {
 public:
  Timeline(const json& groups_source, std::optional<driver::ScheduleSpec> schedule, double warmup_s)
      : groups_source_(groups_source), schedule_(std::move(schedule)), warmup_s_(warmup_s) {
    tput_["all"] = json::array();
  }

  void AddRow(size_t row, const json& i) {
    const double length = i.value("length_s", 0.0);
    t_.push_back(i.value("t_s", 0.0));
    len_.push_back(length);
    AddThroughput(row, i, length);
    AddLatency(i);
    AddOffered(i, length);
    AddCpuAndCauses(i);
    AddPlatform(i);
    backlog_.push_back(i.value("backlog", 0.0));
    lag_.push_back(i.value("lag_ns", 0.0));
    AddExtra(row, i);
  }

  void Into(json* v, bool open_loop) {
    (*v)["t"] = t_;
    (*v)["length"] = len_;
    (*v)["throughput"] = tput_;
    (*v)["offered"] = have_offered_ ? offered_ : json();
    if (have_ideal_) lat_["ideal"] = {{"p99", ideal_p99_}};
    (*v)["latency"] = lat_;
    (*v)["schedule"] = {{"backlog", backlog_}, {"lag_ns", lag_}, {"open_loop", open_loop}};
    (*v)["extra"] = extra_;
    (*v)["cpu_held"] = have_cpu_ ? cpu_held_ : json();
    (*v)["causes"] = have_causes_ ? causes_ : json();
    (*v)["platform"] = have_speed_ ? platform_ : json();
  }

 private:
  void AddThroughput(size_t row, const json& i, double length) {
    tput_["all"].push_back(i.value("ops_per_sec", 0.0));
    if (!i.contains("group_ops") || !i["group_ops"].is_array()) return;
    if (group_names_.empty()) group_names_ = GroupNames(groups_source_, i["group_ops"].size());
    for (size_t g = 0; g < i["group_ops"].size() && g < group_names_.size(); ++g) {
      json& col = tput_[group_names_[g]];
      if (col.is_null()) col = json(std::vector<json>(row, nullptr));
      col.push_back(length > 0 ? i["group_ops"][g].get<double>() / length : 0.0);
    }
  }

  void AddLatency(const json& i) {
    for (const char* which : {"response", "service"}) {
      const json p = i.value(which, json::object());
      for (const char* k : {"p50", "p99", "p999", "max"}) {
        json& col = lat_[which][k];
        if (col.is_null()) col = json::array();
        std::string key = std::string(k) + "_ns";
        col.push_back(p.contains(key) ? p[key] : json());
      }
    }
    const json ideal = i.value("ideal", json::object());
    if (ideal.is_object() && ideal.contains("p99_ns")) {
      ideal_p99_.push_back(ideal["p99_ns"]);
      have_ideal_ = true;
    } else {
      ideal_p99_.push_back(nullptr);
    }
  }

  // The open loop's offered rate: the interval's own, or the schedule's at its middle.
  void AddOffered(const json& i, double length) {
    if (i.contains("offered_ops_per_sec") && i["offered_ops_per_sec"].is_number()) {
      offered_.push_back(i["offered_ops_per_sec"]);
      have_offered_ = true;
    } else if (schedule_) {
      const double mid_s = warmup_s_ + i.value("t_s", 0.0) - length / 2;  // arrivals start with the warm-up
      offered_.push_back(schedule_->RateAt(static_cast<uint64_t>(std::max(mid_s, 0.0) * 1e9)));
      have_offered_ = true;
    } else {
      offered_.push_back(nullptr);
    }
  }

  void AddCpuAndCauses(const json& i) {
    const json cpu = i.value("cpu", json::object());
    have_cpu_ = have_cpu_ || !cpu.empty();
    for (const char* k : kCpuHolders)
      cpu_held_[k].push_back(cpu.contains(k) && cpu[k].is_number() ? cpu[k] : json());
    const json p99_causes = i.value("causes", json::object()).value("p99", json::object());
    have_causes_ = have_causes_ || !p99_causes.empty();
    for (const char* k : kCauses)
      causes_[k].push_back(p99_causes.contains(k) && p99_causes[k].is_number() ? p99_causes[k] : json());
  }

  // The platform meter's speed per interval (driver/platform_meter.h), drawn under the latency.
  void AddPlatform(const json& i) {
    const json p = i.value("platform", json::object());
    for (const char* k : {"speed", "speed_min", "stopped_ns", "slow_share"}) {
      json& col = platform_[k];
      if (col.is_null()) col = json::array();
      const bool known = p.is_object() && p.contains(k) && p[k].is_number();
      col.push_back(known ? p[k] : json());
      if (known && std::string(k) == "speed") have_speed_ = true;
    }
  }

  // Every numeric figure the page has no chart of its own for.
  void AddExtra(size_t row, const json& i) {
    for (auto it = i.begin(); it != i.end(); ++it) {
      if (kKnownIntervalKeys.count(it.key())) continue;
      std::map<std::string, double> leaves;
      FlattenNumbers(it.key(), it.value(), &leaves);
      for (const auto& [leaf, value] : leaves) {
        json& col = extra_[it.key()][leaf];
        if (col.is_null()) col = json(std::vector<json>(row, nullptr));
        col.push_back(value);
      }
    }
  }

  const json& groups_source_;
  const std::optional<driver::ScheduleSpec> schedule_;
  const double warmup_s_;
  std::vector<std::string> group_names_;
  json t_ = json::array(), len_ = json::array();
  std::map<std::string, json> tput_;
  json lat_ = {{"response", json::object()}, {"service", json::object()}};
  json backlog_ = json::array(), lag_ = json::array();
  // The open loop's offered rate and the ideal client's p99 per interval.
  json offered_ = json::array(), ideal_p99_ = json::array();
  bool have_offered_ = false, have_ideal_ = false;
  json cpu_held_ = json::object(), causes_ = json::object();  // holder/cause -> column
  bool have_cpu_ = false, have_causes_ = false;
  json platform_ = json::object();  // speed, speed_min, stopped_ns, slow_share -> column
  bool have_speed_ = false;
  std::map<std::string, std::map<std::string, json>> extra_;  // key -> leaf -> column
};

// Response and service time spectra of the phase, and each kind's response (several kinds only).
StatusOr<json> Spectrum(const json& doc) {
  json spectrum = json::array();
  for (const char* which : {"response", "service"}) {
    auto h = HistogramAt(doc.value("latency", json::object()).value(which, json()), std::string("latency.") + which);
    if (!h.ok()) return h.status();
    spectrum.push_back(Curve(which, *h));
  }
  const json kinds = doc.value("kinds", json::object());
  if (kinds.size() > 1)
    for (auto it = kinds.begin(); it != kinds.end(); ++it) {
      auto h = HistogramAt(it.value().value("response", json()), "kinds." + it.key() + ".response");
      if (h.ok() && h->count()) spectrum.push_back(Curve(it.key() + " response", *h));
    }
  return spectrum;
}

// One phase of a run document: the interval timeline in columns, and spectra.
StatusOr<json> PhaseView(const json& doc, const json& groups_source, const std::string& label, double warmup_s,
                         bool phase1 = false) {
  json v = {{"label", label}, {"warmup_s", warmup_s}};
  size_t left_out = 0;
  const json intervals = WithoutShortLast(doc.value("intervals", json::array()), &left_out);
  v["short_intervals_left_out"] = left_out;
  Timeline timeline(groups_source, OfferedSchedule(doc, groups_source, phase1), warmup_s);
  for (size_t row = 0; row < intervals.size(); ++row) timeline.AddRow(row, intervals[row]);
  timeline.Into(&v, doc.value("schedule", json::object()).value("open_loop", false));
  auto spectrum = Spectrum(doc);
  if (!spectrum.ok()) return spectrum.status();
  v["spectrum"] = std::move(*spectrum);
  v["ops_per_sec"] = doc.value("throughput", json::object()).value("ops_per_sec", 0.0);
  return v;
}

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

StatusOr<json> BuildReportModel(const std::vector<std::string>& operands, const HtmlReportOptions& options) {
  if (operands.empty()) return Status::InvalidArgument("report: give a run result, several, a matrix directory or a .hlog");
  json series = json::array();
  std::vector<std::string> compare_operands;
  bool matrix = false;
  for (const auto& op : operands) {
    if (fs::is_directory(op)) {
      auto input = LoadCompareInput({op});
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
        series.push_back({{"name", g.name}, {"runs", runs}, {"spectrum", SeriesSpectrum(paths)}});
      }
      matrix = true;
      compare_operands.push_back(op);
      continue;
    }
    auto v = OperandView(op);
    if (!v.ok()) return v.status();
    std::string name = (*v)["name"];
    series.push_back({{"name", name}, {"runs", {*v}}, {"spectrum", SeriesSpectrum({op})}});
    compare_operands.push_back(op);
  }
  json model = {{"series", series}, {"tool", "storebench report"}};
  size_t runs = 0;
  for (const auto& s : series) runs += s["runs"].size();
  model["mode"] = matrix ? "matrix" : (series.size() > 1 ? "overlay" : "single");
  model["compare"] = nullptr;
  std::string summary;
  if (series.size() >= 2) {
    auto input = LoadCompareInput(compare_operands);
    if (!input.ok()) return input.status();
    auto cmp = Compare(*input, options.compare);
    if (cmp.ok()) {
      model["compare"] = {{"text", cmp->text}, {"json", cmp->json}};
      for (const auto& c : cmp->json["comparisons"]) {
        std::string p99 = c.contains("latency") && c["latency"].contains("p99")
                              ? c["latency"]["p99"].value("verdict", "")
                              : "";
        summary += fmt::format("{}{}: {}{}", summary.empty() ? "" : " · ", c.value("name", ""),
                               c["throughput"].value("verdict", ""), p99.empty() ? "" : "; p99: " + p99);
      }
      summary = fmt::format("vs {}: {}", cmp->json.value("baseline", ""), summary);
    } else {
      model["compare"] = {{"text", "not compared: " + cmp.status().message()}, {"json", nullptr}};
    }
  } else if (runs == 1) {
    summary = series[0]["runs"][0].value("summary", "");
  }
  model["summary"] = summary;
  // Each run's sentence of `key` in turn, named when there are several: what
  // went wrong (verdict) and the tail's causes.
  auto sentences = [&](const char* key) {
    std::string all;
    for (const auto& s : series)
      for (const auto& r : s["runs"]) {
        std::string v = r.value(key, "");
        if (v.empty()) continue;
        if (runs > 1) v = r.value("name", std::string()) + ": " + v;
        all += (all.empty() ? "" : " ") + v;
      }
    return all;
  };
  model["verdict"] = sentences("verdict");
  model["causes"] = sentences("causes");
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
