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

Status CheckResumableManifest(const std::filesystem::path& path, const nlohmann::json& wanted,
                              const std::vector<std::string>& same, const std::string& what) {
  if (!std::filesystem::exists(path)) return Status::Ok();
  const std::string dir = path.parent_path().string();
  auto read = ReadJsonFile(path.string());
  if (!read.ok() && read.status().code() != Status::Code::kCorruption) return read.status();
  const nlohmann::json& schema = read.ok() && read->is_object() && read->contains("schema") ? (*read)["schema"]
                                                                                             : nlohmann::json();
  if (schema != wanted["schema"])
    return Status::InvalidArgument(fmt::format("--out: {} is not a storebench {} directory", dir, what));
  std::string settings;
  bool differs = false;
  for (const std::string& key : same) {
    const nlohmann::json old = read->contains(key) ? (*read)[key] : nlohmann::json();
    differs = differs || old != wanted[key];
    settings += fmt::format("{}{} {}", settings.empty() ? "" : ", ", key, old.dump());
  }
  if (differs)
    return Status::InvalidArgument(
        fmt::format("--out: {} holds a {} of other settings ({}); use a new directory", dir, what, settings));
  return Status::Ok();
}

}  // namespace storebench::experiment
