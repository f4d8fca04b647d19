#include "storebench/report/run_histograms.h"

#include <nlohmann/json.hpp>
#include <ctime>
#include <fmt/format.h>

#include "storebench/driver/runner.h"
#include "storebench/report/hgrm.h"

namespace storebench::report {

StatusOr<measure::Histogram> HistogramAt(const nlohmann::json& node, const std::string& what) {
  if (!node.is_object() || !node.contains("histogram") || !node["histogram"].is_string())
    return Status::Corruption(fmt::format("{}.histogram is missing", what));
  auto h = measure::Histogram::Decode(node["histogram"].get<std::string>());
  if (!h.ok()) return Status::Corruption(fmt::format("{}.histogram: {}", what, h.status().message()));
  return h;
}

double RunStartTime(const nlohmann::json& doc) {
  std::string finished = doc.value("finished_at", "");
  std::tm tm{};
  if (finished.empty() || !strptime(finished.c_str(), "%Y-%m-%dT%H:%M:%SZ", &tm)) return 0;
  double elapsed = doc.contains("totals") ? doc["totals"].value("elapsed_s", 0.0) : 0.0;
  return static_cast<double>(timegm(&tm)) - elapsed;
}

StatusOr<std::vector<HlogInterval>> RunFinalIntervals(const nlohmann::json& doc) {
  double elapsed = doc.contains("totals") ? doc["totals"].value("elapsed_s", 0.0) : 0.0;
  std::vector<HlogInterval> out;
  auto all = HistogramAt(doc.value("latency", nlohmann::json::object()).value("response", nlohmann::json()),
                         "latency.response");
  if (!all.ok()) return all.status();
  if (all->count() == 0) return Status::Corruption("the run has no op kind with recorded latencies");
  out.push_back({0.0, elapsed, "", std::move(*all)});
  const nlohmann::json kinds = doc.value("kinds", nlohmann::json::object());
  for (auto it = kinds.begin(); it != kinds.end(); ++it) {
    for (const char* which : {"response", "service"}) {
      auto h = HistogramAt(it.value().value(which, nlohmann::json()), fmt::format("kinds.{}.{}", it.key(), which));
      if (!h.ok()) return h.status();
      if (h->count() == 0) continue;
      std::string tag = std::string(which) == "response" ? it.key() : it.key() + kServiceTagSuffix;
      out.push_back({0.0, elapsed, tag, std::move(*h)});
    }
  }
  return out;
}

StatusOr<std::string> RunHistogramLog(const nlohmann::json& doc) {
  auto intervals = RunFinalIntervals(doc);
  if (!intervals.ok()) return intervals.status();
  return WriteHistogramLog(RunStartTime(doc), *intervals);
}

StatusOr<std::string> RunPercentileDistribution(const nlohmann::json& doc, const std::string& which,
                                                double unit_ratio) {
  auto h = HistogramAt(doc.value("latency", nlohmann::json::object()).value(which, nlohmann::json()),
                       "latency." + which);
  if (!h.ok()) return h.status();
  return PercentileDistribution(*h, unit_ratio);
}

}  // namespace storebench::report

namespace storebench::report {

StatusOr<std::string> RunResultHistogramLog(const driver::RunResult& r) {
  std::vector<HlogInterval> lines;
  for (const driver::IntervalStats& st : r.intervals) {
    const size_t kinds = std::min(st.kind_response_histograms.size(), r.layout.kinds.size());
    std::vector<HlogInterval> tagged;
    measure::Histogram all(r.layout.histogram);
    for (size_t k = 0; k < kinds; ++k) {
      for (bool service : {false, true}) {
        const std::string& text = service ? st.kind_service_histograms[k] : st.kind_response_histograms[k];
        auto h = measure::Histogram::Decode(text);
        if (!h.ok()) return h.status();
        if (h->count() == 0) continue;
        if (!service) MergeLenient(&all, *h);
        tagged.push_back({st.t_s - st.length_s, st.length_s,
                          r.layout.kinds[k] + (service ? kServiceTagSuffix : ""), std::move(*h)});
      }
    }
    if (all.count() == 0) continue;
    lines.push_back({st.t_s - st.length_s, st.length_s, "", std::move(all)});
    for (HlogInterval& t : tagged) lines.push_back(std::move(t));
  }
  return WriteHistogramLog(r.measure_start_epoch_s, lines);
}

}  // namespace storebench::report
