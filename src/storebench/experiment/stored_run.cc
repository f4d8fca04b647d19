#include "storebench/experiment/stored_run.h"

#include <fmt/format.h>

#include "storebench/base/json_file.h"
#include "storebench/report/result.h"

namespace storebench::experiment {

StatusOr<std::optional<nlohmann::json>> ReusableRun(const std::filesystem::path& path, const nlohmann::json* config) {
  if (!std::filesystem::exists(path)) return std::optional<nlohmann::json>();
  auto doc = ReadJsonFile(path.string());
  const std::string schema = doc.ok() && doc->is_object() ? doc->value("schema", "") : "";
  if (schema != report::kRunSchema && schema != report::kRunSchemaV1) return std::optional<nlohmann::json>();
  const nlohmann::json totals = doc->value("totals", nlohmann::json::object());
  if (!totals.is_object() || totals.value("interrupted", true)) return std::optional<nlohmann::json>();
  if (config && doc->value("config", nlohmann::json()) != *config)
    return Status::InvalidArgument(fmt::format("--out: {} holds a run of other settings; use a new directory", path.string()));
  return std::optional<nlohmann::json>(std::move(*doc));
}

}  // namespace storebench::experiment
