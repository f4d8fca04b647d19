#include "storebench/job/result_document.h"

#include <cmath>
#include <fmt/format.h>

#include "storebench/measure/histogram.h"

namespace storebench::job {
namespace {

Status CheckHistogram(const nlohmann::json& latency, const char* which, const std::string& path) {
  const auto* node = latency.is_object() && latency.contains(which) ? &latency[which] : nullptr;
  if (!node || !node->is_object() || !node->contains("histogram") || !(*node)["histogram"].is_string())
    return Status::Corruption(fmt::format("{}: latency.{}.histogram is missing", path, which));
  auto h = measure::Histogram::Decode((*node)["histogram"].get<std::string>());
  if (!h.ok()) return Status::Corruption(fmt::format("{}: latency.{}.histogram: {}", path, which, h.status().message()));
  return Status::Ok();
}

// A rate is never negative nor infinite; such a document was edited or broken.
Status CheckRate(const nlohmann::json& node, const char* key, const std::string& where, const std::string& path) {
  if (!node.is_object() || !node.contains(key) || !node[key].is_number())
    return Status::Corruption(fmt::format("{}: malformed run result: {} is missing", path, where));
  const double rate = node[key].get<double>();
  if (!(rate >= 0) || !std::isfinite(rate))
    return Status::Corruption(fmt::format("{}: malformed run result: {} is {}", path, where, rate));
  return Status::Ok();
}

}  // namespace

bool IsRunDocument(const nlohmann::json& doc) {
  if (!doc.is_object()) return false;
  const std::string schema = doc.contains("schema") && doc["schema"].is_string() ? doc["schema"].get<std::string>() : "";
  return schema == kRunSchema || schema == kRunSchemaV1;
}

Status CheckRunDocument(const nlohmann::json& doc, const std::string& path) {
  if (!IsRunDocument(doc))
    return Status::Corruption(fmt::format("{}: not a storebench run result (expected schema {})", path, kRunSchema));
  if (!doc.contains("config") || !doc["config"].is_object())
    return Status::Corruption(fmt::format("{}: malformed run result: config is not an object", path));
  if (!doc.contains("totals") || !doc["totals"].is_object())
    return Status::Corruption(fmt::format("{}: malformed run result: totals is missing", path));
  STOREBENCH_RETURN_IF_ERROR(
      CheckRate(doc.value("throughput", nlohmann::json()), "ops_per_sec", "throughput.ops_per_sec", path));
  const nlohmann::json intervals = doc.value("intervals", nlohmann::json::array());
  if (!intervals.is_array()) return Status::Corruption(fmt::format("{}: malformed run result: intervals", path));
  for (const auto& i : intervals)
    STOREBENCH_RETURN_IF_ERROR(CheckRate(i, "ops_per_sec", "an interval's ops_per_sec", path));
  const nlohmann::json latency = doc.value("latency", nlohmann::json());
  STOREBENCH_RETURN_IF_ERROR(CheckHistogram(latency, "response", path));
  return CheckHistogram(latency, "service", path);
}

}  // namespace storebench::job
