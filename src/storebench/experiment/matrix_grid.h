// A matrix's grid: its variants (the cartesian product of the varied
// settings), the order its runs go in (rounds, so that machine drift hits
// every variant alike), and the directory that stores them (one JSON per run
// beside a manifest, so a second invocation runs only what is missing).
// What a run is, and how a setting becomes its flags, is the caller's
// (cli/matrix_command.cc): this is the orchestration only.
// Thread-safety: value types and functions over them; reads the directory.
#pragma once

#include <cstdint>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "storebench/base/status.h"

namespace storebench::experiment {

// One varied setting and its values.
struct MatrixAxis {
  std::string key;
  std::vector<std::string> values;
  bool is_flag = false;  // a flag without a value: varied as 1 (given) or 0 (omitted)
};

// One variant: its settings, display name and file stem.
struct MatrixVariant {
  std::string name;  // "threads=2,prefetch=1"
  std::string stem;  // name made safe for a file name
  std::vector<std::pair<std::string, std::string>> settings;
  double expected_s = 0;  // warm-up + duration of its run (both phases); 0 when bounded by ops only
};

// How the grid runs (matrix's flags).
struct GridSettings {
  std::vector<std::string> run_args;  // of every run
  int repeat = 1;
  std::string order = "interleaved";  // or random: shuffled within each round
  uint64_t seed = 1;
  std::vector<std::string> launcher;  // every run starts under it (e.g. mpirun)
};

// The cartesian product of `axes`, the first changing slowest, each variant
// named and given a file stem; InvalidArgument when two variants would share
// a file name.
StatusOr<std::vector<MatrixVariant>> CrossAxes(const std::vector<MatrixAxis>& axes);

// The file of repeat `rep` (1-based) of `v`, in the grid's directory.
std::string RunFileName(const MatrixVariant& v, int rep);

// The manifest that describes the grid (report::kMatrixSchema).
nlohmann::json GridManifest(const GridSettings& s, const std::vector<MatrixAxis>& axes,
                            const std::vector<MatrixVariant>& variants);
// Refuses a directory holding a different matrix (`path`: its manifest; the
// rule of stored_run.h: CheckResumableManifest, then the same --launcher):
// mixing them would compare runs of other settings under these names.
Status CheckExistingManifest(const std::filesystem::path& path, const nlohmann::json& wanted);

// A run stored whole, to be reused (stored_run.h: ReusableRun).
bool RunIsStored(const std::filesystem::path& path);

// (variant index, repeat) pairs: every run in the order they go, and those not stored in `dir`.
struct GridOrder {
  std::vector<std::pair<size_t, int>> runs, todo;
};
GridOrder OrderRuns(const std::filesystem::path& dir, const GridSettings& s, const std::vector<MatrixVariant>& variants);

}  // namespace storebench::experiment
