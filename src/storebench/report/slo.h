// Latency goals (SLOs) and the verdict on one step of a capacity search.
//
// An SLO is `[SCOPE:]pNN<=DURATION`: a percentile of the response time (from
// the intended start, so queueing counts) over every op, or over one op kind
// or one --class when SCOPE names it (`read:p99<=1ms`). A step — one rate,
// run once or repeated — passes when
//   * every SLO holds with the stated confidence: the one-sided bootstrap
//     upper bound of the percentile (report/stats.h, BootstrapPercentile:
//     whole runs resampled when repeated, else single ops from the exact
//     histogram; RunsPercentileBound for confirmation runs) is at most the
//     goal; a percentile merely observed below the goal is not enough, and
//   * the store kept pace: in each run the loaded groups completed the
//     arrivals within max(1 % of them, the in-flight slots), and the backlog
//     at the end is within the same allowance (a growing queue fails even when
//     the percentile has not caught up with it yet).
// Everything is read from run documents (schema storebench.run/2), so a step
// stored by an earlier search is judged exactly as a fresh one.
// Thread-safety: pure functions over values.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "storebench/base/status.h"
#include "storebench/report/stats.h"

namespace storebench::report {

struct Slo {
  std::string text;      // as given
  std::string scope;     // op kind or class name; empty = every op
  double percentile = 0; // (0, 100]
  double goal_ns = 0;
  // "p99 <= 1 ms", "read: p99.9 <= 5 ms".
  std::string Describe() const;
};

// Parses one --slo; InvalidArgument naming --slo and the accepted form.
StatusOr<Slo> ParseSlo(const std::string& text);

// One step to judge: its target rate and its runs.
struct StepInput {
  double target = 0;                       // ops/s; 0 = the closed-loop capacity run
  std::vector<nlohmann::json> runs;        // run documents, one per repeat
  std::vector<std::string> load_groups;    // the groups the rate applies to
  int slots = 0;                           // in-flight ops the loaded groups can hold
  // Judge the runs together with RunsPercentileBound (a search's confirmation
  // runs: their spread counts) instead of BootstrapPercentile.
  bool across_runs = false;
};

struct SloCheck {
  Slo slo;
  PercentileInterval ci;
  bool pass = false;
};

struct StepVerdict {
  double target = 0;
  double achieved = 0;         // ops/s of the loaded groups over every run
  uint64_t ops = 0;            // measured ops, every group, every run
  double max_backlog = 0;      // over every interval of every run
  double end_backlog = 0;      // the largest backlog left at a run's end (last interval or unstarted)
  bool keeps_pace = true;
  std::vector<SloCheck> slos;
  PercentileInterval p50, p99, p999;  // every op's response time
  bool pass = false;
  int repeats = 0;
};

// Judges a step. InvalidArgument when an SLO's scope is neither an op kind nor
// a class of the runs (the line lists both); Corruption for a malformed document.
StatusOr<StepVerdict> JudgeStep(const StepInput& step, const std::vector<Slo>& slos, double confidence,
                                uint64_t seed);

// "p99 1.40 ms ± 0.10": a percentile and the half width of its interval, in one
// unit; "p99 4.28 ms [0.19, 17.64]" when the interval is lopsided; "p99 4.28
// ms, not bounded (n too small)" when too few ops bound it (never numbers).
std::string FormatWithin(const std::string& label, const PercentileInterval& ci);

}  // namespace storebench::report
