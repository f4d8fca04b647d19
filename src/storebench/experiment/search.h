// A rate search: the highest rate at which latency goals still hold
// (`storebench search`; cli/search_command.h turns its flags into a
// SearchRequest and prints and writes the result).
//
// The closed-loop capacity is always measured first with the job; the top is
// 120% of it (max_fraction another fraction, max_rate a rate), so that "none
// failed" means the open loop carried more than the closed loop did. Then
// open-loop steps of the same job at constant rates: the top, the bottom,
// then midpoints until the bracket is within `precision` (job::RateSearch),
// or the `sweep` fractions of the top. Each step is judged by
// report::JudgeStep (SLOs at `confidence`, keeping pace, the run's own
// sustained verdict). The answer is then confirmed: `confirm` runs at it
// interleaved with as many 10% above it, judged together; a rate that does
// not hold steps down by 10% and is confirmed again (at most 5 rounds).
// Steps run in this process (experiment/search_steps.h).
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "storebench/base/dir_lock.h"
#include "storebench/base/status.h"
#include "storebench/job/job.h"
#include "storebench/job/search.h"
#include "storebench/report/search_report.h"
#include "storebench/report/slo.h"

namespace storebench::experiment {

// The settings of a search that take one value (cli's SearchOptionTable
// holds their flags, defaults, ranges and help).
struct SearchOptions {
  double min_rate{};      // 0 = 10% of the top
  double max_rate{};      // a rate; 0 = not given
  double max_fraction{};  // of the measured capacity; 0 = not given
  uint64_t step_ns{};
  uint64_t settle_ns{};
  int repeat{};
  int confirm{};  // runs at the answer (and as many 10% above) before it is given; 0 = none
  double confidence{};
  double precision{};
  std::vector<double> sweep;  // fractions of the top
};

// The options and the latency goals.
struct SearchSettings : SearchOptions {
  std::vector<report::Slo> slos;
};

struct SearchRequest {
  job::Job job;                   // RUN-ARGS as `run` parses them
  job::SearchLoad load;           // what job::CheckSearchJob found in the job
  SearchSettings settings;
  std::string out_dir;            // every step's run document is stored here; "" = none
  std::vector<std::string> argv;  // the command line, kept in every step's document
};

// Locks `out_dir` (one search per directory at a time) and writes its
// manifest, or checks that the manifest there is of this search: steps of
// another job would answer another question. An empty `out_dir` is no lock.
StatusOr<DirLock> OpenSearchDir(const std::string& out_dir, const std::vector<std::string>& run_args,
                                uint64_t step_ns);

// Runs the search into `result`, calling `print` with a line per step as it
// ends. A failure (or SIGINT) from the first open-loop step on marks
// `result` interrupted: it holds what was measured, to be written. A failure
// before it (the closed-loop run, the rates to try) leaves nothing to write.
Status RunSearch(const SearchRequest& request, const std::atomic<bool>* stop,
                 const std::function<void(const std::string&)>& print, report::SearchResult* result);

}  // namespace storebench::experiment
