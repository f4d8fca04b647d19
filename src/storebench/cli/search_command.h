// The `search` subcommand: the highest rate at which latency goals still hold.
//
//   storebench search --slo "p99<=1ms" [--slo …] [--min-rate R] [--max-rate R|N%]
//     [--step-duration 10s] [--settle 0] [--repeat N] [--confirm 3] [--confidence 95] [--precision 2%]
//     [--sweep 10%,20%,…] [--out DIR] [--json FILE] -- RUN-ARGS…
//
// RUN-ARGS are parsed exactly as `run` parses them into a job::Job. The
// closed-loop capacity is always measured first with that job; the top is
// 120% of it (--max-rate N% another fraction, --max-rate R a rate), so that
// "none failed" means the open loop carried more than the closed loop did.
// Then open-loop steps of the same job at constant rates: the top, the
// bottom, then midpoints until the bracket is within --precision
// (job::RateSearch), or the --sweep fractions of the top (of the capacity
// by default). Each step is judged by report::JudgeStep (SLOs at
// --confidence, keeping pace, the run's own sustained verdict). The answer
// is then confirmed: --confirm runs at it interleaved with as many 10% above
// it, judged together (RunsPercentileBound); a rate that does not hold steps
// down by 10% and is confirmed again (at most kConfirmRounds rounds).
//
// Steps run in this process, each through job::MakePlan and job::RunPlan with a
// fresh plan and backend (opened and closed per step, as `run` does): the
// typed result comes back without a subprocess, SIGINT reaches the running
// step directly, and each step's document is the same `storebench.run/2` a
// `run --json` writes. With --out DIR every step's run document is stored
// (closed-<rep>.json, rate-<R>-<rep>.json, confirm-<R>-<i>.json,
// above-<R>-<i>.json) beside DIR/manifest.json; a rerun
// with the same RUN-ARGS and --step-duration reuses every stored step instead
// of running it again, and judges it exactly as before.
// Exit codes: 0 answer found, 1 even the lowest rate fails or no rate held in
// confirmation (or a step failed),
// 2 bad input, 130 interrupted (stored steps kept).
#pragma once

#include <CLI/CLI.hpp>
#include <atomic>
#include <string>
#include <vector>

#include "storebench/base/option_table.h"

namespace storebench::cli {

// The options of `search` that take one value, typed (SearchOptionTable()
// holds their defaults, ranges and help).
struct SearchOptions {
  double min_rate{};      // 0 = 10% of the top
  double max_rate{};      // --max-rate R; 0 = not given
  double max_fraction{};  // --max-rate N%: of the measured capacity; 0 = not given
  uint64_t step_ns{};
  uint64_t settle_ns{};
  int repeat{};
  int confirm{};  // runs at the answer (and as many 10% above) before it is given; 0 = none
  double confidence{};
  double precision{};
  std::vector<double> sweep;  // fractions of the top
};

const OptionTable<SearchOptions>& SearchOptionTable();

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
