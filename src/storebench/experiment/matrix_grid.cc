#include "storebench/experiment/matrix_grid.h"

#include <algorithm>
#include <cctype>
#include <fmt/format.h>
#include <random>
#include <set>

#include "storebench/base/json_file.h"
#include "storebench/experiment/stored_run.h"
#include "storebench/report/compare.h"

namespace storebench::experiment {
namespace {

namespace fs = std::filesystem;

std::string SafeStem(const std::string& name) {
  std::string s = name;
  for (char& c : s)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '.' && c != '-' && c != '=' && c != ',' && c != '+') c = '_';
  return s;
}

}  // namespace

StatusOr<std::vector<MatrixVariant>> CrossAxes(const std::vector<MatrixAxis>& axes) {
  std::vector<MatrixVariant> variants(1);
  for (const MatrixAxis& a : axes) {
    std::vector<MatrixVariant> next;
    for (const MatrixVariant& v : variants)
      for (const auto& value : a.values) {
        MatrixVariant n = v;
        n.settings.emplace_back(a.key, value);
        n.name += (n.name.empty() ? "" : ",") + a.key + "=" + value;
        next.push_back(std::move(n));
      }
    variants = std::move(next);
  }
  std::set<std::string> stems;
  for (MatrixVariant& v : variants) {
    v.stem = SafeStem(v.name);
    if (!stems.insert(v.stem).second)
      return Status::InvalidArgument(fmt::format("--vary: variants '{}' and another share the file name '{}'", v.name, v.stem));
  }
  return variants;
}

std::string RunFileName(const MatrixVariant& v, int rep) { return fmt::format("{}-{}.json", v.stem, rep); }

nlohmann::json GridManifest(const GridSettings& s, const std::vector<MatrixAxis>& axes,
                            const std::vector<MatrixVariant>& variants) {
  nlohmann::json vary = nlohmann::json::array();
  for (const MatrixAxis& a : axes) vary.push_back({{"key", a.key}, {"values", a.values}});
  nlohmann::json vs = nlohmann::json::array();
  for (const MatrixVariant& v : variants) {
    nlohmann::json files = nlohmann::json::array(), settings = nlohmann::json::object();
    for (int rep = 1; rep <= s.repeat; ++rep) files.push_back(RunFileName(v, rep));
    for (const auto& [k, val] : v.settings) settings[k] = val;
    vs.push_back({{"name", v.name}, {"settings", settings}, {"files", files}});
  }
  return {{"schema", report::kMatrixSchema}, {"run_args", s.run_args}, {"vary", vary},
          {"repeat", s.repeat},               {"order", s.order},       {"seed", s.seed},
          {"launcher", s.launcher},           {"variants", vs}};
}

Status CheckExistingManifest(const std::filesystem::path& path, const nlohmann::json& wanted) {
  if (!fs::exists(path)) return Status::Ok();
  STOREBENCH_RETURN_IF_ERROR(CheckResumableManifest(path, wanted, {"run_args", "vary"}, "matrix"));
  auto read = ReadJsonFile(path.string());
  if (!read.ok()) return read.status();
  const nlohmann::json& old = *read;
  // One launcher for every run of a variant: two-rank and one-process runs are different measurements.
  const nlohmann::json old_launcher = old.value("launcher", nlohmann::json::array());
  if (old_launcher != wanted["launcher"]) {
    std::string words;
    for (const auto& w : old_launcher) words += (words.empty() ? "" : " ") + w.get<std::string>();
    return Status::InvalidArgument(fmt::format(
        "--launcher: {} holds runs started {}; resume with the same --launcher, or use a new directory",
        path.parent_path().string(), words.empty() ? std::string("without a launcher") : "under '" + words + "'"));
  }
  return Status::Ok();
}

bool RunIsStored(const std::filesystem::path& path) {
  auto run = ReusableRun(path);
  return run.ok() && run->has_value();
}

GridOrder OrderRuns(const std::filesystem::path& dir, const GridSettings& s, const std::vector<MatrixVariant>& variants) {
  GridOrder o;
  std::mt19937_64 rng(s.seed);
  for (int rep = 1; rep <= s.repeat; ++rep) {
    std::vector<size_t> round(variants.size());
    for (size_t i = 0; i < round.size(); ++i) round[i] = i;
    if (s.order == "random") std::shuffle(round.begin(), round.end(), rng);
    for (size_t v : round) o.runs.emplace_back(v, rep);
  }
  for (const auto& step : o.runs)
    if (!RunIsStored(dir / RunFileName(variants[step.first], step.second))) o.todo.push_back(step);
  return o;
}

}  // namespace storebench::experiment
