// The outputs of a capacity search: the answer in one line, one line per step
// as it finishes, the table of every step, and the JSON document (schema
// "storebench.search/1").
//
// Answer sentences (the contract scripts and docs quote):
//   "highest rate meeting p99 <= 1.00 ms: 84,000 ops/s (80% of the closed-loop capacity), confirmed by 3 runs
//    (p99 0.61 ms, bound 0.83 ms; 10% above, 92,400 ops/s: p99 1.40 ms, bound 2.10 ms); 86,000 ops/s failed (…)"
//   "highest rate meeting …: at least 50,000 ops/s, the top of the search (…)"
//   "no rate meets …: even the lowest tried, 5,000 ops/s, failed (…)"
//   "no rate meeting … held when run again: …" (every confirmation round failed)
// and a warning line when the answer is above 90% of the closed-loop capacity.
// JSON keys: schema, tool, command, run_args, mode (bisect | sweep), slo[],
// confidence, precision, repeat, step_duration_s, top_ops_per_sec, top_source,
// capacity (the closed-loop step), capacity_ops_per_sec, outcome, answer,
// highest_passing_rate (the confirmed answer) and lowest_failing_rate (ops/s;
// null when none; any failed row, confirmation sets included),
// search_highest_passing_rate (before confirmation), all three from
// DeriveAnswers, interrupted, confirm_runs, confirmation (confirmed |
// stepped_down | unconfirmed | interrupted | off),
// confirmations[] (rounds: rate, above_rate, confirm and above steps, pass),
// answer_fraction_of_capacity, near_saturation, warning, and steps[] in the
// order run: target/achieved ops/s, fraction_of_capacity, p50/p99/p99.9 with
// their intervals (ci_ns and upper_ns null, with unbounded_reason, when too
// few ops bound them), backlog, keeps_pace, each SLO's check, pass, files, stored,
// set_aside[] (file, reason, slow_share, speed_min, stall_ns: runs repeated
// because the platform dipped or stalled) and unsteady_kept (runs judged
// although every repeat was spoilt too).
// Thread-safety: pure functions over values.
#pragma once

#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <vector>

#include "storebench/job/search.h"
#include "storebench/report/slo.h"

namespace storebench::report {

inline constexpr const char* kSearchSchema = "storebench.search/1";

// A run a search set aside and ran again because its platform spoilt it:
// its verdict would be the neighbour's, not the engine's. Either reason:
//   "dipped"  `platform.unsteady`: below 0.8 of its calibrated speed for more
//             than 5% of the time;
//   "stalled" the platform's longest stall (`platform.hiccup.max_ns`) alone
//             put more ops over a goal than the goal's percentile allows: it
//             exceeds the goal by more than (1 - percentile) of the run's
//             time (p99 <= 10 ms in a 5 s run: a stall over 60 ms).
struct SetAsideRun {
  std::string file;       // relative to --out
  std::string reason;     // "dipped" or "stalled"
  double slow_share = 0;  // platform.speed.slow_share
  double speed_min = 0;   // platform.speed.min
  double stall_ns = 0;    // platform.hiccup.max_ns
};
// Why a run document's platform spoilt it against `slos` (file left empty),
// or nullopt when it did not.
std::optional<SetAsideRun> PlatformSpoilt(const nlohmann::json& run, const std::vector<Slo>& slos);

struct SearchStep {
  StepVerdict verdict;
  std::vector<std::string> files;  // its run documents, relative to --out
  bool stored = false;             // reused from an earlier search, not run again
  std::vector<SetAsideRun> set_aside;  // runs repeated because the platform spoilt them, in the order run
  int unsteady_kept = 0;  // runs judged although their platform spoilt them (every repeat was spoilt too)
};

// One round of confirmation: runs at `rate` interleaved with runs 10% above it.
struct ConfirmRound {
  double rate = 0, above_rate = 0;
  SearchStep confirm, above;  // each set of runs judged together (RunsPercentileBound)
  bool pass() const { return confirm.verdict.pass; }
};

// A rate above this fraction of the closed-loop capacity has no steady state to report.
inline constexpr double kNearSaturation = 0.9;

struct SearchResult;

// One judged set of runs of a search's table: a step, or a confirmation
// round's set at its rate or 10% above. New kinds of rows (a step repeated
// because its platform dipped, say) are new kinds here, and DeriveAnswers
// decides in one place whether they count.
struct SearchRow {
  enum class Kind { kStep, kConfirm, kAbove };
  Kind kind = Kind::kStep;
  double rate = 0;
  bool pass = false;
  const SearchStep* set = nullptr;  // into the result the rows were taken from
};
// The open-loop steps in the order run, then each round's confirm and above sets.
std::vector<SearchRow> Rows(const SearchResult& result);

// What a search answers, derived from its own rows by DeriveAnswers alone, so
// that every output agrees with the table it prints, and a search stopped
// part way keeps the answers its rows already hold. 0 = none.
struct SearchAnswers {
  // The steps' highest passing rate below every failing step (before confirmation).
  double search_pass = 0;
  // The lowest rate of any failed row: a step, a confirmation set or a set 10% above.
  double lowest_fail = 0;
  // The answer: the highest rate of a confirmation set that held, below lowest_fail;
  // with --confirm 0, search_pass.
  double highest_pass = 0;
};
SearchAnswers DeriveAnswers(const SearchResult& result);

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
  int confirm_runs = 0;                      // per rate per round; 0 = no confirmation
  std::vector<ConfirmRound> confirmations;
  bool interrupted = false;  // stopped before its end (a signal or a failed run); the rows so far are kept
  double capacity_rate() const { return capacity ? capacity->verdict.achieved : 0; }
  SearchAnswers answers() const { return DeriveAnswers(*this); }
  // "confirmed", "stepped_down", "unconfirmed" (no round held), "interrupted" (stopped before a round held),
  // "off" (--confirm 0), "" (no step passed).
  std::string ConfirmationOutcome() const;
};

// The SLOs joined: "p99 <= 1.00 ms and read: p99.9 <= 5.00 ms".
std::string SloList(const std::vector<Slo>& slos);
// The answer in one line (no newline).
std::string AnswerLine(const SearchResult& result);
// The warning for an answer above kNearSaturation of the capacity; empty when none.
std::string SaturationWarning(const SearchResult& result);
// One line for a finished step: "40,000 ops/s target (81% of capacity): achieved 39,998, p99 … ± …, backlog 0 — pass";
// the fraction only when `capacity` > 0.
std::string StepLine(const SearchStep& step, double capacity = 0);
// One line for a confirmation round.
std::string ConfirmLine(const ConfirmRound& round, int runs);
// Every step, by rate: rate, achieved, p50/p99/p99.9 with intervals, backlog, verdict (ends with a newline).
std::string StepTable(const SearchResult& result);
nlohmann::json SearchJson(const SearchResult& result, const std::vector<std::string>& command,
                          const std::vector<std::string>& run_args);

}  // namespace storebench::report
