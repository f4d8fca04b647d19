#include "storebench/report/html_phase.h"

#include <algorithm>
#include <map>
#include <optional>
#include <set>

#include <fmt/format.h>

#include "storebench/driver/interval_rule.h"
#include "storebench/driver/schedule.h"
#include "storebench/report/hgrm.h"
#include "storebench/report/run_histograms.h"

namespace storebench::report {
namespace {

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
constexpr const char* kCauseNames[] = {"queueing", "engine", "client", "platform"};

// Spectrum points (x = 1/(1-p), value ns) along HdrHistogram's percentile
// iterator; the 100% row has no finite x and is drawn as the max instead.
json SpectrumPoints(const measure::Histogram& h) {
  json pts = json::array();
  for (const PercentileRow& r : PercentileRows(h))
    if (r.percentile < 100.0) pts.push_back({1.0 / (1.0 - r.percentile / 100.0), r.value});
  return pts;
}

}  // namespace

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

namespace {


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
    for (const char* k : kCauseNames)
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
}  // namespace

StatusOr<json> PhaseView(const json& doc, const json& groups_source, const std::string& label, double warmup_s,
                         bool phase1) {
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

}  // namespace storebench::report
