// The `matrix` subcommand: `storebench matrix --out DIR --repeat N
// --vary KEY=V1,V2[,…] [--vary …] [--order interleaved|random] [--seed S]
// [--cache-reset CMD] -- RUN-ARGS…`.
//
// Every variant (the cartesian product of the --vary lists) runs N times as a
// `storebench run` subprocess, interleaved A B C A B C … (or in a seeded random
// order within each round) so machine drift hits every variant alike. Each
// run's JSON lands in DIR/<variant>-<rep>.json beside DIR/manifest.json; a
// second invocation with the same settings runs only what is missing. At the
// end the directory is compared as by `storebench compare DIR`.
#pragma once

#include <CLI/CLI.hpp>
#include <atomic>
#include <string>
#include <vector>

#include "storebench/base/status.h"
#include "storebench/cli/compare_command.h"
#include "storebench/experiment/matrix_grid.h"
#include "storebench/job/job.h"

namespace storebench::cli {

// The options of `matrix` that take one value, typed (MatrixOptionTable()
// holds their defaults, ranges and help).
struct MatrixOptions {
  int repeat{};
  std::string order;  // interleaved or random
  uint64_t seed{};    // of --order random
  std::string cache_reset;
  std::vector<std::string> launcher;  // --launcher "mpirun -n 4", split into words: each run starts under it
};

const OptionTable<MatrixOptions>& MatrixOptionTable();

// Flags of `matrix`, as given.
struct MatrixFlags {
  std::string out;
  std::vector<std::string> vary;  // KEY=V1,V2,…
  std::vector<std::string> run_args;  // after `--`
  std::string html_path;              // --html: the report of the grid, written after it
  OptionValues options;               // MatrixOptionTable()'s, as text
  CompareFlags compare;
  job::ProgressMode progress = job::ProgressMode::kAuto;  // the grid's live line
};

void AddMatrixFlags(CLI::App* app, MatrixFlags* flags);

// One variant: its settings, display name and file stem (experiment/matrix_grid.h).
using MatrixVariant = experiment::MatrixVariant;

// The variants of `vary` in order (the first --vary changes slowest), each
// checked to be a valid `run` command with `run_args`; InvalidArgument names
// the flag and its accepted form.
StatusOr<std::vector<MatrixVariant>> PlanVariants(const std::vector<std::string>& vary,
                                                  const std::vector<std::string>& run_args);

// The `run` arguments of one variant writing its result to `json_path`.
std::vector<std::string> VariantRunArgs(const MatrixVariant& v, const std::vector<std::string>& run_args,
                                        const std::string& json_path);

// Runs a parsed `matrix`; returns the exit code. `stop` is set on SIGINT.
int ExecuteMatrix(const MatrixFlags& flags, const std::atomic<bool>* stop);

}  // namespace storebench::cli
