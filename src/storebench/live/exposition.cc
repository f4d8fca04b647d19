#include "storebench/live/exposition.h"

#include <fmt/format.h>

#include <algorithm>
#include <utility>

#include "storebench/live/graphite.h"

namespace storebench::live {
namespace {

// The R10 preferred numbers, rounded as the exposition shows them.
constexpr double kR10[] = {1, 1.25, 1.6, 2, 2.5, 3.15, 4, 5, 6.3, 8};

// A label value with Prometheus' escapes (backslash, double quote, newline).
std::string LabelValue(std::string_view v) {
  std::string out;
  for (char c : v) {
    if (c == '\\' || c == '"') out += '\\';
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    out += c;
  }
  return out;
}


}  // namespace

std::vector<uint64_t> LatencyBounds(uint64_t highest_ns) {
  std::vector<uint64_t> bounds;
  for (double decade = 1e3;; decade *= 10) {  // from 1 us
    for (double m : kR10) {
      bounds.push_back(static_cast<uint64_t>(m * decade + 0.5));
      if (bounds.back() >= highest_ns) return bounds;
    }
  }
}

const std::vector<MetricInfo>& MetricReference() {
  static const std::vector<MetricInfo> kInfo = {
      {"storebench_run_info", "gauge", "backend, version",
       "1; its labels say which backend runs and which storebench serves the page"},
      {"storebench_phase", "gauge", "phase",
       "1 for the phase being run (its warm-up included); no series between phases and after the run"},
      {"storebench_warmup", "gauge", "", "1 while the running phase warms up (its ops are not counted), else 0"},
      {"storebench_op_latency_seconds", "histogram", "phase, op, timing",
       "latency of the phase's measured ops by op kind; timing=response is from the intended start (the open "
       "loop's arrival; the actual start in a closed loop), timing=service from the actual start"},
      {"storebench_ideal_latency_seconds", "histogram", "phase",
       "the ideal client's response times (the same arrivals and service times through FIFO servers), open loop: "
       "added as its replay closes each arrival interval (a little behind the response series), exact for the "
       "whole phase when it ends"},
      {"storebench_tail_cause_ratio", "gauge", "phase, tail, cause",
       "an open-loop phase's causes of its tail (tail: p99 or max; cause: queueing, engine, client, platform; "
       "they sum to 1), published when the phase ends (docs/platform.md)"},
      {"storebench_ops_total", "counter", "phase", "ops completed in the phase's measured intervals"},
      {"storebench_errors_total", "counter", "phase", "of them, ops that failed"},
      {"storebench_bytes_total", "counter", "phase", "bytes the ops read or wrote"},
      {"storebench_interval_end_seconds", "gauge", "", "end of the last interval, seconds since measuring began"},
      {"storebench_achieved_ops_per_second", "gauge", "", "ops/s in the last interval"},
      {"storebench_offered_ops_per_second", "gauge", "", "open loop: the arrivals the schedule asked for in the "
                                                          "last interval, per second (0 in a closed loop)"},
      {"storebench_backlog_ops", "gauge", "", "open loop: arrivals due and not started at the last interval's end"},
      {"storebench_start_lag_seconds", "gauge", "",
       "open loop: how far the most-behind worker was behind schedule at the last interval's end"},
      {"storebench_max_start_lag_seconds", "gauge", "", "open loop: the largest start lag within the last interval"},
      {"storebench_platform_speed", "gauge", "",
       "the platform meter's speed in the last interval (1 = as calibrated, 0.5 = half); absent without the meter"},
  };
  return kInfo;
}

namespace {

// A family's "# HELP" and "# TYPE" lines, from the reference.
std::string Header(std::string_view name) {
  for (const MetricInfo& m : MetricReference())
    if (m.name == name) return fmt::format("# HELP {0} {1}\n# TYPE {0} {2}\n", m.name, m.help, m.type);
  return std::string();
}

}  // namespace

std::string MetricsMarkdown() {
  std::string s = "| metric | type | labels | meaning |\n|---|---|---|---|\n";
  for (const MetricInfo& m : MetricReference()) {
    std::string help = m.help;
    for (size_t at = help.find('|'); at != std::string::npos; at = help.find('|', at + 2)) help.replace(at, 1, "\\|");
    s += fmt::format("| `{}` | {} | {} | {} |\n", m.name, m.type, m.labels.empty() ? "" : "`" + m.labels + "`", help);
  }
  s += "\nGraphite (run --graphite HOST:PORT[/PREFIX]), one point per interval, stamped with the second it ended:\n\n"
       "| path | meaning |\n|---|---|\n";
  for (const auto& [field, help] : GraphiteFields()) s += fmt::format("| `PREFIX.{}` | {} |\n", field, help);
  return s;
}

LiveMetrics::LiveMetrics(std::string backend, std::string version, const measure::HistogramOptions& histograms)
    : backend_(std::move(backend)),
      version_(std::move(version)),
      bounds_(LatencyBounds(histograms.highest)),
      scratch_(histograms) {
  for (uint64_t b : bounds_) bound_text_.push_back(fmt::format("{}", static_cast<double>(b) / 1e9));
  Render();
}

void LiveMetrics::StartPhase(std::string phase) {
  phases_.push_back(Phase{});
  phases_.back().name = std::move(phase);
  running_ = true;
  warmup_ = false;
  last_.reset();
  Render();
}

void LiveMetrics::Add(Series* s, const measure::Histogram& h) const {
  if (s->counts.empty()) s->counts.assign(bounds_.size(), 0);
  size_t i = 0;  // the buckets come in ascending order: the bound only moves up
  h.ForEachBucket([&](uint64_t lo, uint64_t /*hi*/, uint64_t n) {
    while (i < bounds_.size() && bounds_[i] < lo) ++i;
    if (i < s->counts.size()) s->counts[i] += n;  // beyond the last bound: +Inf only
  });
  s->count += h.count();
  s->sum_s += h.mean() * static_cast<double>(h.count()) / 1e9;
}

void LiveMetrics::OnInterval(const driver::IntervalStats& st) {
  if (phases_.empty()) StartPhase("run");
  warmup_ = st.warmup;
  if (!st.folded) {  // a folded tick is not an interval: its ops count, its rates would mislead
    last_ = Gauges{st.t_s,
                   st.ops_per_sec,
                   st.offered_ops_per_sec,
                   st.backlog,
                   static_cast<double>(st.lag_ns) / 1e9,
                   static_cast<double>(st.max_lag_ns) / 1e9,
                   st.platform.empty() ? std::nullopt : std::optional<double>(st.platform.speed())};
  }
  if (!st.warmup) {
    Phase& p = phases_.back();
    p.ops += st.ops, p.errors += st.errors, p.bytes += st.bytes;
    auto add = [&](const std::string& op, const char* timing, const std::string& text) {
      scratch_.Reset();
      if (scratch_.MergeEncoded(text).ok()) Add(&p.latency[{op, timing}], scratch_);
    };
    auto kind = [&](size_t k) { return st.kinds && k < st.kinds->size() ? (*st.kinds)[k] : fmt::format("kind{}", k); };
    for (size_t k = 0; k < st.kind_response_histograms.size(); ++k) add(kind(k), "response", st.kind_response_histograms[k]);
    for (size_t k = 0; k < st.kind_service_histograms.size(); ++k) add(kind(k), "service", st.kind_service_histograms[k]);
    // An interval merged from several processes carries the kinds together only.
    if (st.kind_response_histograms.empty() && !st.response_histogram.empty()) {
      add("all", "response", st.response_histogram);
      add("all", "service", st.service_histogram);
    }
    for (const std::string& text : st.ideal_replayed) {
      scratch_.Reset();
      if (scratch_.MergeEncoded(text).ok()) Add(&p.ideal, scratch_);
      p.has_ideal = true;
    }
  }
  Render();
}

void LiveMetrics::FinishPhase(const driver::RunResult& r) {
  if (phases_.empty()) return;
  if (r.ideal) {  // the whole replay, the last ops included: it replaces what the ticks added up
    phases_.back().ideal = Series{};
    Add(&phases_.back().ideal, *r.ideal);
    phases_.back().has_ideal = true;
  }
  if (const report::RunCauses c = report::CausesOf(r); c.p99.known) phases_.back().causes = c;
  running_ = false;
  warmup_ = false;
  Render();
}

std::shared_ptr<const std::string> LiveMetrics::Page() const {
  std::lock_guard<std::mutex> lock(mu_);
  return page_;
}

void LiveMetrics::RenderSeries(std::string* out, std::string_view name, std::string_view labels,
                               const Series& s) const {
  uint64_t cumulative = 0;
  for (size_t i = 0; i < bounds_.size(); ++i) {
    cumulative += s.counts.empty() ? 0 : s.counts[i];
    *out += fmt::format("{}_bucket{{{},le=\"{}\"}} {}\n", name, labels, bound_text_[i], cumulative);
  }
  *out += fmt::format("{}_bucket{{{},le=\"+Inf\"}} {}\n", name, labels, s.count);
  *out += fmt::format("{}_sum{{{}}} {}\n{}_count{{{}}} {}\n", name, labels, s.sum_s, name, labels, s.count);
}

void LiveMetrics::Render() {
  std::string out = Header("storebench_run_info");
  out += fmt::format("storebench_run_info{{backend=\"{}\",version=\"{}\"}} 1\n", LabelValue(backend_),
                     LabelValue(version_));
  out += Header("storebench_phase");
  if (running_) out += fmt::format("storebench_phase{{phase=\"{}\"}} 1\n", LabelValue(phases_.back().name));
  out += Header("storebench_warmup");
  out += fmt::format("storebench_warmup {}\n", running_ && warmup_ ? 1 : 0);
  out += Header("storebench_op_latency_seconds");
  for (const Phase& p : phases_)
    for (const auto& [key, series] : p.latency)
      RenderSeries(&out, "storebench_op_latency_seconds",
                   fmt::format("phase=\"{}\",op=\"{}\",timing=\"{}\"", LabelValue(p.name), LabelValue(key.first),
                               key.second),
                   series);
  out += Header("storebench_ideal_latency_seconds");
  for (const Phase& p : phases_)
    if (p.has_ideal)
      RenderSeries(&out, "storebench_ideal_latency_seconds", fmt::format("phase=\"{}\"", LabelValue(p.name)),
                   p.ideal);
  out += Header("storebench_tail_cause_ratio");
  for (const Phase& p : phases_) {
    if (!p.causes) continue;
    for (auto [tail, causes] : {std::pair{"p99", &p.causes->p99}, std::pair{"max", &p.causes->max}})
      for (const char* cause : {"queueing", "engine", "client", "platform"})
        out += fmt::format("storebench_tail_cause_ratio{{phase=\"{}\",tail=\"{}\",cause=\"{}\"}} {}\n",
                           LabelValue(p.name), tail, cause, causes->share(cause));
  }
  for (auto [name, field] : {std::pair{"storebench_ops_total", &Phase::ops},
                             std::pair{"storebench_errors_total", &Phase::errors},
                             std::pair{"storebench_bytes_total", &Phase::bytes}}) {
    out += Header(name);
    for (const Phase& p : phases_) out += fmt::format("{}{{phase=\"{}\"}} {}\n", name, LabelValue(p.name), p.*field);
  }
  if (last_) {
    const Gauges& g = *last_;
    for (auto [name, value] : {std::pair{"storebench_interval_end_seconds", g.t_s},
                               std::pair{"storebench_achieved_ops_per_second", g.achieved},
                               std::pair{"storebench_offered_ops_per_second", g.offered},
                               std::pair{"storebench_backlog_ops", g.backlog},
                               std::pair{"storebench_start_lag_seconds", g.lag_s},
                               std::pair{"storebench_max_start_lag_seconds", g.max_lag_s}})
      out += Header(name) + fmt::format("{} {}\n", name, value);
    if (g.speed) out += Header("storebench_platform_speed") + fmt::format("storebench_platform_speed {}\n", *g.speed);
  }
  auto page = std::make_shared<const std::string>(std::move(out));
  std::lock_guard<std::mutex> lock(mu_);
  page_ = std::move(page);
}

}  // namespace storebench::live
