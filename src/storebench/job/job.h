// Job: one run of storebench as plain data — the backend and its options,
// the core options (threads, schedule, warm-up, duration or ops, seed, …),
// the worker groups (--class) and where the outputs go. Every command that
// runs load (run, the default job, demo, two-phase, matrix, search, MPI)
// builds a Job and hands it to the same functions (job/plan.h, job/run.h).
//
// Option values are text, as a user writes them ("10s", "4k"), keyed by
// option name: that is what a job file holds and what a result's `config`
// records, so a result reproduces its run. The typed values live in the Plan
// (plan.h), parsed by the option tables, never by hand.
// Thread-safety: a value type.
#pragma once

#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <vector>

#include "storebench/base/option_table.h"
#include "storebench/base/status.h"
#include "storebench/driver/config.h"
#include "storebench/io/cache_state.h"

namespace storebench::job {

inline constexpr const char* kJobSchema = "storebench.job/1";

// --two-phase, parsed.
struct TwoPhase {
  bool on = false;
  double fraction = 0;  // of the closed-loop capacity
  double rate = 0;      // or a given rate, ops/s
};

// Core options, typed: filled from Job::options by CoreOptionTable(), which
// holds every default. A CoreOptions the table has not filled holds zeros.
struct CoreOptions {
  int threads{};
  int iodepth{};
  uint64_t duration_ns{};  // 0 = until --ops or the schedule runs out
  uint64_t ops{};          // measured ops in total; 0 = no limit
  uint64_t warmup_ns{};
  uint64_t max_errors{};
  double max_error_ratio{};  // a run whose failed share is above this exits 1 (results written)
  std::optional<driver::ScheduleSpec> schedule;  // not given = closed, or what the backend's workload implies
  TwoPhase two_phase;
  uint64_t interval_ns{};
  uint64_t seed{};
  int histogram_digits{};
  io::CacheState cache{};
  driver::Dispatch dispatch{};
  driver::WaitMode wait{};
  std::vector<int> cpus;        // empty = not pinned
  uint64_t hiccup_period_ns{};  // driver::RunConfig::hiccup_period_ns
  bool stonewall{};  // MPI: the first rank to finish its --ops stops the others
};

const OptionTable<CoreOptions>& CoreOptionTable();

// When the live progress line is drawn (on stderr): auto = when stderr is a
// terminal, always = also to a file or pipe (a plain line every few seconds),
// never = only the final summary.
enum class ProgressMode { kAuto, kAlways, kNever };

// Where a run's outputs go; not part of the job a result records. The
// progress setting is here, not among the core options: it changes what is
// shown while a job runs, never what it measures, so a result need not record
// it and a matrix need not vary it.
struct Outputs {
  std::string json_path;
  std::string csv_path;
  std::string html_path;  // a self-contained HTML report of the run
  std::string hlog_path;  // HdrHistogram interval log
  std::string hgrm_path;  // HdrHistogram percentile distribution of the response time
  std::string title;
  // run --metrics-listen: where to serve the run's live metrics (live/metrics_server.h); "" = off.
  std::string metrics_listen;
  // run --metrics-linger: how long the endpoint keeps serving the final figures after the run (text; "" = 0).
  std::string metrics_linger;
  // run --graphite: HOST:PORT[/PREFIX] to push each interval's figures to (live/graphite.h); "" = off.
  std::string graphite;
  bool quiet = false;
  ProgressMode progress = ProgressMode::kAuto;
};

struct Job {
  std::string backend = "null";
  OptionValues options;            // core options, by name
  std::vector<std::string> classes;  // --class NAME:key=value,...
  OptionValues backend_options;    // the backend's options, by name
  Outputs outputs;

  // The `config` object of a result (outputs left out): the core options with
  // their defaults filled in, `classes` and `backend_options`.
  nlohmann::json ToJson() const;
  // Reads a job file, or the `config` of a result document. InvalidArgument
  // naming `source` and the key for anything that is not a job.
  static StatusOr<Job> FromJson(const nlohmann::json& doc, const std::string& source);
  // Reads FILE (a job or a result document).
  static StatusOr<Job> Load(const std::string& path);

  // `over` applied on top of this job: options, backend options and classes it gives win.
  void Override(const Job& over, bool backend_given);
};

}  // namespace storebench::job
