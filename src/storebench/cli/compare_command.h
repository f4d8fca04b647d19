// The `compare` subcommand: `storebench compare RUN… [--baseline RUN]
// [--confidence 95|99|99.5|99.9] [--json FILE]`, where RUN is a result file,
// a comma-separated group of repeated runs, or a matrix directory.
#pragma once

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

#include "storebench/base/file_identity.h"
#include "storebench/base/option_table.h"
#include "storebench/base/status.h"
#include "storebench/report/compare.h"

namespace storebench::cli {

// --repeat of `matrix` (runs per variant) and of `search` (runs per step):
// from 1 to this many.
inline constexpr int kMaxRepeat = 10000;

// Flags of `compare` (and the comparison part of `matrix` and `report`), as given.
struct CompareFlags {
  std::vector<std::string> operands;
  std::string json_path;
  OptionValues comparison;  // ComparisonOptionTable()'s options, as text
};

// --baseline, --confidence, --latency, --bootstrap-seed and --paired: their
// defaults, ranges and help, parsed into report options.
const OptionTable<report::CompareOptions>& ComparisonOptionTable();

// A --confidence level, "95", "99", "99.5" or "99.9" (percent, "%" allowed),
// as a fraction; InvalidArgument names the flag and the accepted levels.
// `compare`, `matrix`, `report` and `search` take the same levels.
StatusOr<double> ParseConfidence(const std::string& text);

// Adds the comparison table's options (shared with `matrix` and `report`).
void AddComparisonFlags(CLI::App* app, CompareFlags* flags);
// Adds compare's own flags: the operands, --json and the comparison options.
void AddCompareFlags(CLI::App* app, CompareFlags* flags);

// Parses the comparison options into report options; InvalidArgument names
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
