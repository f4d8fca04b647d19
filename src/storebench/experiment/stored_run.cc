#include "storebench/experiment/stored_run.h"

#include <fmt/format.h>

#include "storebench/base/json_file.h"
#include "storebench/job/result_document.h"

namespace storebench::experiment {

StatusOr<std::optional<nlohmann::json>> ReusableRun(const std::filesystem::path& path, const nlohmann::json* config) {
  if (!std::filesystem::exists(path)) return std::optional<nlohmann::json>();
  auto doc = ReadJsonFile(path.string());
  // A whole run result by the rule `report` and `compare` read them with; anything else runs again.
  if (!doc.ok() || !job::CheckRunDocument(*doc, path.string()).ok()) return std::optional<nlohmann::json>();
  const nlohmann::json& interrupted = (*doc)["totals"].contains("interrupted") ? (*doc)["totals"]["interrupted"]
                                                                              : nlohmann::json();
  if (!interrupted.is_boolean() || interrupted.get<bool>()) return std::optional<nlohmann::json>();
  if (config && (*doc)["config"] != *config)
    return Status::InvalidArgument(fmt::format("--out: {} holds a run of other settings; use a new directory", path.string()));
  return std::optional<nlohmann::json>(std::move(*doc));
}

}  // namespace storebench::experiment
