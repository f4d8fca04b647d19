// The `run` and `prepare` subcommands: flags → RunConfig and backend options,
// then the run and its outputs. cli/ is the only layer that decides exit codes.
#pragma once

#include <CLI/CLI.hpp>
#include <atomic>
#include <map>
#include <string>
#include <vector>

#include "storebench/backend/backend.h"
#include "storebench/driver/config.h"

namespace storebench::cli {

enum ExitCode { kExitOk = 0, kExitRunFailed = 1, kExitBadInput = 2, kExitInterrupted = 130 };

// Flags common to every `run`, as given on the command line.
struct RunFlags {
  std::string backend = "null";
  int threads = 1;
  int iodepth = 1;
  std::string duration;
  std::string ops;
  std::string warmup = "0";
  std::string max_errors = "0";  // failed ops that end the run; 0 = never
  std::string schedule;  // empty = closed, or what the backend's workload implies
  std::string two_phase;
  std::string json_path;
  std::string csv_path;
  std::string interval = "1s";
  uint64_t seed = 1;
  int histogram_digits = 3;
  std::string title;
  bool quiet = false;
  std::vector<std::string> classes;  // --class NAME:key=value,...
  backend::OptionValues backend_options;
};

// Adds run's flags (and every backend's options, grouped by backend) to `app`.
void AddRunFlags(CLI::App* app, RunFlags* flags);
// Adds prepare's flags.
void AddPrepareFlags(CLI::App* app, RunFlags* flags);

// Builds the driver config from parsed flags; InvalidArgument names the flag.
StatusOr<driver::RunConfig> BuildRunConfig(const RunFlags& flags);

// Runs a parsed `run`; returns the exit code. `argv` is kept in the JSON.
int ExecuteRun(const RunFlags& flags, const std::vector<std::string>& argv, const std::atomic<bool>* stop);
int ExecutePrepare(const RunFlags& flags);

// Prints "storebench: <message>" to stderr and returns the exit code for `status`.
int ReportError(const Status& status);

}  // namespace storebench::cli
