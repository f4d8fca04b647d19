// The outputs of a capacity search: the answer in one line, one line per step
// as it finishes, the table of every step, and the JSON document (schema
// "storebench.search/1").
//
// Answer sentences (the contract scripts and docs quote):
//   "highest rate meeting p99 <= 1.00 ms: 84,000 ops/s; 86,000 ops/s failed (p99 1.40 ms ± 0.10)"
//   "highest rate meeting …: at least 50,000 ops/s, the top of the search (…)"
//   "no rate meets …: even the lowest tried, 5,000 ops/s, failed (…)"
// JSON keys: schema, tool, command, run_args, mode (bisect | sweep), slo[],
// confidence, precision, repeat, step_duration_s, top_ops_per_sec, top_source,
// capacity (the closed-loop step, when measured), outcome, answer,
// highest_passing_rate and lowest_failing_rate (ops/s; null when none), and
// steps[] in the order run: target/achieved ops/s, p50/p99/p99.9 with their
// intervals, backlog, keeps_pace, each SLO's check, pass, files, stored.
// Thread-safety: pure functions over values.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "storebench/job/search.h"
#include "storebench/report/slo.h"

namespace storebench::report {

inline constexpr const char* kSearchSchema = "storebench.search/1";

struct SearchStep {
  StepVerdict verdict;
  std::vector<std::string> files;  // its run documents, relative to --out
  bool stored = false;             // reused from an earlier search, not run again
};

struct SearchResult {
  std::vector<Slo> slos;
  double confidence = 0.95;
  double precision = 0.02;
  int repeat = 1;
  double step_duration_s = 0;
  bool sweep = false;
  double top = 0;                     // ops/s the search starts from
  std::string top_source;             // "closed-loop capacity" or "--max-rate"
  std::optional<SearchStep> capacity; // the closed-loop step, when measured
  std::vector<SearchStep> steps;      // open-loop steps in the order run
  job::RateSearch::Outcome outcome = job::RateSearch::Outcome::kRunning;
  double highest_pass = 0, lowest_fail = 0;
};

// The SLOs joined: "p99 <= 1.00 ms and read: p99.9 <= 5.00 ms".
std::string SloList(const std::vector<Slo>& slos);
// The answer in one line (no newline).
std::string AnswerLine(const SearchResult& result);
// One line for a finished step: "40,000 ops/s: achieved 39,998, p99 … ± …, backlog 0 — pass".
std::string StepLine(const SearchStep& step);
// Every step, by rate: rate, achieved, p50/p99/p99.9 with intervals, backlog, verdict (ends with a newline).
std::string StepTable(const SearchResult& result);
nlohmann::json SearchJson(const SearchResult& result, const std::vector<std::string>& command,
                          const std::vector<std::string>& run_args);

}  // namespace storebench::report
