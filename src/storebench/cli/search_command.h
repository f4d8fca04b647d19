// The `search` subcommand: the highest rate at which latency goals still hold.
//
//   storebench search --slo "p99<=1ms" [--slo …] [--min-rate R] [--max-rate R|N%]
//     [--step-duration 10s] [--settle 0] [--repeat N] [--confirm 3] [--confidence 95] [--precision 2%]
//     [--sweep 10%,20%,…] [--out DIR] [--json FILE] -- RUN-ARGS…
//
// RUN-ARGS are parsed exactly as `run` parses them into a job::Job; the
// search itself (capacity, steps, confirmation, the steps stored in --out
// and reused by a rerun with the same RUN-ARGS and --step-duration) is
// experiment::RunSearch (experiment/search.h). This file holds the flags, the
// checks of RUN-ARGS, and what is printed and written at the end.
// Exit codes: 0 answer found, 1 even the lowest rate fails or no rate held in
// confirmation (or a step failed),
// 2 bad input, 130 interrupted (stored steps kept).
#pragma once

#include <CLI/CLI.hpp>
#include <atomic>
#include <string>
#include <vector>

#include "storebench/base/option_table.h"
#include "storebench/experiment/search.h"

namespace storebench::cli {

// The flags of `search` that take one value: their defaults, ranges and help,
// parsed into experiment::SearchOptions.
const OptionTable<experiment::SearchOptions>& SearchOptionTable();

struct SearchFlags {
  std::vector<std::string> slo;
  OptionValues options;  // SearchOptionTable()'s, as text
  std::string out;
  std::string json;
  std::vector<std::string> run_args;  // after `--`
};

void AddSearchFlags(CLI::App* app, SearchFlags* flags);

// Runs a parsed `search`; returns the exit code. `argv` is kept in the outputs.
int ExecuteSearch(const SearchFlags& flags, const std::vector<std::string>& argv, const std::atomic<bool>* stop);

}  // namespace storebench::cli
