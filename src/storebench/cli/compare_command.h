// The `compare` subcommand: `storebench compare RUN… [--baseline RUN]
// [--confidence 95|99|99.5|99.9] [--json FILE]`, where RUN is a result file,
// a comma-separated group of repeated runs, or a matrix directory.
#pragma once

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

#include "storebench/base/file_identity.h"
#include "storebench/base/status.h"
#include "storebench/report/compare.h"

namespace storebench::cli {

// Flags of `compare` (and the comparison part of `matrix`), as given.
struct CompareFlags {
  std::vector<std::string> operands;
  std::string baseline;
  std::string confidence = "99.5";
  std::string json_path;
  std::string latency = "response";
  uint64_t seed = 1;
  bool paired = false;
};

// Adds --baseline, --confidence, --latency and --seed (shared with `matrix`).
void AddComparisonFlags(CLI::App* app, CompareFlags* flags);
// Adds compare's own flags: the operands and --json.
void AddCompareFlags(CLI::App* app, CompareFlags* flags);

// Checks the flags and turns them into report options; InvalidArgument names
// the flag and its accepted form.
StatusOr<report::CompareOptions> BuildCompareOptions(const CompareFlags& flags);

// Compares `input`, prints the report to stdout, writes --json when given;
// returns the exit code.
int PrintComparison(const report::CompareInput& input, const CompareFlags& flags);

// Registers the files `operands` name as inputs of a command, each called
// `what` in messages: a result file, each file of a comma-separated group,
// every file of a directory.
void AddOperandInputs(std::string_view what, const std::vector<std::string>& operands, CommandFiles* files);

// Runs a parsed `compare`; returns the exit code.
int ExecuteCompare(const CompareFlags& flags);

}  // namespace storebench::cli
