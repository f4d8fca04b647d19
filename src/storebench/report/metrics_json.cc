#include "storebench/report/metrics_json.h"

#include <nlohmann/json.hpp>
#include <fmt/format.h>
#include <map>

#include "storebench/base/units.h"

namespace storebench::report {

using measure::Metric;
using measure::MetricKind;
using measure::MetricSet;
using measure::Unit;

nlohmann::json MetricValueJson(const MetricSet& set, const Metric& m) {
  if (!m.known) return "unknown";
  switch (m.kind) {
    case MetricKind::kCounter:
      return m.count;
    case MetricKind::kGauge:
      if (m.unit == Unit::kBool) return m.value != 0;
      if (m.value == static_cast<double>(static_cast<int64_t>(m.value)) && m.unit != Unit::kSeconds &&
          m.unit != Unit::kRatio)
        return static_cast<int64_t>(m.value);
      return m.value;
    case MetricKind::kText:
      return m.text;
    case MetricKind::kRatio: {
      const Metric* num = set.Find(m.num);
      const Metric* den = set.Find(m.den);
      if ((num && !num->known) || (den && !den->known)) return "unknown";
      auto v = set.Value(m.path);
      return v ? nlohmann::json(*v) : nlohmann::json(nullptr);
    }
  }
  return nullptr;
}

Status AddMetricsJson(const MetricSet& set, nlohmann::json* doc, const std::set<std::string>& reserved) {
  STOREBENCH_RETURN_IF_ERROR(set.Validate());
  for (const Metric& m : set.metrics()) {
    if (m.kind == MetricKind::kRatio && (!set.Find(m.num) || !set.Find(m.den))) continue;
    if (reserved.count(m.path[0]))
      return Status::InvalidArgument(fmt::format("result: figure {} would overwrite the core key '{}'", m.Name(), m.path[0]));
    nlohmann::json* node = doc;
    for (size_t i = 0; i + 1 < m.path.size(); ++i) {
      nlohmann::json& next = (*node)[m.path[i]];
      if (next.is_null()) next = nlohmann::json::object();
      if (!next.is_object())
        return Status::InvalidArgument(fmt::format("result: figure {} runs into the value at '{}'", m.Name(), m.path[i]));
      node = &next;
    }
    if (node->contains(m.path.back()))
      return Status::InvalidArgument(fmt::format("result: figure {} would overwrite a value", m.Name()));
    (*node)[m.path.back()] = MetricValueJson(set, m);
  }
  return Status::Ok();
}

std::string FormatMetric(const MetricSet& set, const measure::MetricPath& path) {
  const Metric* m = set.Find(path);
  if (!m) return "unknown";
  if (m->kind == MetricKind::kText) return m->text;
  auto v = set.Value(path);
  if (!v) return "unknown";
  switch (m->unit) {
    case Unit::kBytes: return FormatBytes(*v);
    case Unit::kNanoseconds: return FormatDurationNs(*v);
    case Unit::kSeconds: return fmt::format("{:.2f} s", *v);
    case Unit::kRatio: return fmt::format("{:.3f}", *v);
    case Unit::kBool: return *v != 0 ? "yes" : "no";
    case Unit::kPerSecond: return fmt::format("{:.0f}/s", *v);
    default:
      if (m->kind == MetricKind::kRatio) return fmt::format("{:.2f}", *v);
      return fmt::format("{:.0f}", *v);
  }
}

std::vector<std::string> MetricSummaryLines(const MetricSet& set) {
  std::vector<std::string> order;
  std::map<std::string, std::string> lines;
  for (const Metric& m : set.metrics()) {
    if (m.summary.empty()) continue;
    if (m.kind == MetricKind::kRatio && (!set.Find(m.num) || !set.Find(m.den))) continue;
    const std::string& owner = m.path[0];
    if (!lines.count(owner)) order.push_back(owner);
    std::string& line = lines[owner];
    line += fmt::format("{}{} {}", line.empty() ? "" : ", ", m.summary, FormatMetric(set, m.path));
  }
  std::vector<std::string> out;
  for (const std::string& owner : order) out.push_back(fmt::format("{:<9} {}", owner, lines[owner]));
  return out;
}

}  // namespace storebench::report
