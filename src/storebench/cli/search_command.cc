#include "storebench/cli/search_command.h"

#include <cstdio>
#include <filesystem>
#include <fmt/format.h>

#include "storebench/base/atomic_file.h"
#include "storebench/base/dir_lock.h"
#include "storebench/base/units.h"
#include "storebench/cli/run_command.h"
#include "storebench/cli/table_flags.h"
#include "storebench/cli/compare_command.h"
#include "storebench/experiment/search.h"
#include "storebench/job/search.h"
#include "storebench/report/search_report.h"

namespace storebench::cli {
namespace {

namespace fs = std::filesystem;

// "2%" or "0.02": a fraction in [lo, hi] percent.
StatusOr<double> ParsePercent(std::string text, const char* flag, double lo, double hi, const char* form) {
  bool percent = false;
  if (!text.empty() && text.back() == '%') {
    text.pop_back();
    percent = true;
  }
  auto v = ParseDouble(text, flag);
  double f = v.ok() ? (percent ? *v / 100 : *v) : -1;
  if (!(f >= lo / 100 && f <= hi / 100)) return Status::InvalidArgument(fmt::format("{}: expected {}", flag, form));
  return f;
}

constexpr const char* kMaxRateForm = "a rate such as 100k, or a percentage of the closed-loop capacity such as 120%";
constexpr const char* kSweepForm = "fractions of the top rate such as 10%,20%,50%,100%";

// --max-rate: a rate, or (with %) a fraction of the capacity.
Status SetMaxRate(experiment::SearchOptions& o, const std::string& text) {
  if (!text.empty() && text.back() == '%') {
    auto v = ParsePercent(text, "--max-rate", 1, 1000, kMaxRateForm);
    if (!v.ok()) return v.status();
    o.max_fraction = *v;
    return Status::Ok();
  }
  auto r = ParseRate(text, "--max-rate");
  if (!r.ok()) return r.status();
  o.max_rate = *r;
  return Status::Ok();
}

StatusOr<int> ParseConfirm(const std::string& text) {
  auto n = ParseInteger(text, "--confirm", 0, 100);
  if (!n.ok() || (*n != 0 && *n < 3))
    return Status::InvalidArgument(
        "--confirm: expected 0 (no confirmation) or a whole number of confirmation runs from 3 to 100");
  return static_cast<int>(*n);
}

StatusOr<std::vector<double>> ParseSweep(const std::string& text) {
  std::vector<double> sweep;
  for (std::string_view piece : Split(text, ',')) {
    auto v = ParsePercent(std::string(piece), "--sweep", 0.01, 200, kSweepForm);
    if (!v.ok() || piece.find('%') == std::string_view::npos)
      return Status::InvalidArgument(fmt::format("--sweep: expected {}", kSweepForm));
    sweep.push_back(*v);
  }
  return sweep;
}

}  // namespace

const OptionTable<experiment::SearchOptions>& SearchOptionTable() {
  using O = experiment::SearchOptions;
  static const OptionTable<O> table = [] {
    OptionTable<O> t("search");
    t.Rate("min-rate", &O::min_rate, "lowest rate to try, e.g. 5k (default: 10% of the top)", "", false)
        .Custom({"max-rate", OptionType::kText,
                 "top rate to try: a rate such as 100k, or a percentage of the measured closed-loop capacity such as "
                 "150% (default: 120% when bisecting, 100% for --sweep)",
                 "", {}, "", ""},
                &SetMaxRate)
        .Duration("step-duration", &O::step_ns, "measured time of each step", "10s", 10'000'000)
        .Duration("settle", &O::settle_ns,
                  "idle time before each run after the first, so one step's aftermath (a draining backlog, "
                  "compaction, writeback) stays out of the next",
                  "0")
        .Integer("repeat", &O::repeat, "runs per step (whole runs are resampled when > 1)", "1", 1, kMaxRepeat)
        .Parsed("confirm", &O::confirm,
                "confirmation runs at the answer, interleaved with as many 10% above it, before it is given (0 = "
                "none: the answer is marked unconfirmed)",
                "3", "0, or 3 to 100", &ParseConfirm)
        .Parsed("confidence", &O::confidence, "confidence in percent that each SLO holds", "95",
                "95, 99, 99.5 or 99.9", &ParseConfidence)
        .Parsed("precision", &O::precision, "stop when the bracket is this narrow", "2%",
                "a relative width such as 2% or 0.02",
                [](const std::string& v) {
                  return ParsePercent(v, "--precision", 0.01, 50, "a relative width such as 2% or 0.02");
                })
        .Parsed("sweep", &O::sweep, "run these fractions of the top instead of bisecting", "",
                kSweepForm, &ParseSweep)
        .Require([](O& o) -> Status {
          if (o.max_rate > 0 && o.min_rate >= o.max_rate)
            return Status::InvalidArgument("--min-rate: must be below --max-rate");
          return Status::Ok();
        });
    return t;
  }();
  return table;
}

namespace {

StatusOr<experiment::SearchSettings> ParseSettings(const SearchFlags& f) {
  experiment::SearchSettings s;
  for (const std::string& text : f.slo) {
    auto slo = report::ParseSlo(text);
    if (!slo.ok()) return slo.status();
    s.slos.push_back(*slo);
  }
  STOREBENCH_RETURN_IF_ERROR(SearchOptionTable().Apply(f.options, &s));
  if (s.slos.empty() && s.sweep.empty())
    return Status::InvalidArgument("--slo: give at least one latency goal, e.g. --slo \"p99<=1ms\"");
  return s;
}

void Print(const std::string& line) {
  std::printf("%s\n", line.c_str());
  std::fflush(stdout);
}

// Writes the search document to --json and into --out.
Status WriteOutputs(const report::SearchResult& r, const SearchFlags& f, const std::vector<std::string>& argv) {
  const std::string text = report::SearchJson(r, argv, f.run_args).dump(1) + "\n";
  auto write = [&](const std::string& path) { return WriteFileAtomically(path, text); };
  if (!f.json.empty()) STOREBENCH_RETURN_IF_ERROR(WriteOrRescue("--json", f.json, write));
  if (!f.out.empty()) STOREBENCH_RETURN_IF_ERROR(WriteFileAtomically((fs::path(f.out) / "search.json").string(), text));
  return Status::Ok();
}

// What RUN-ARGS give, checked as a search's job, and the files the search reads and writes.
struct SearchJob {
  job::Job job;
  job::SearchLoad load;
};

StatusOr<SearchJob> CheckRunArgs(const SearchFlags& f) {
  // A --job file (a printed job or a result) always holds a duration and a
  // schedule: those are the search's to set for each step, as are ops and two-phase.
  auto job = ParseRunArgs(f.run_args, {"duration", "ops", "schedule", "two-phase"});
  if (!job.ok()) return Status::InvalidArgument("search: " + job.status().message());
  const job::Outputs& given = job->outputs;
  if (!given.json_path.empty() || !given.csv_path.empty() || !given.html_path.empty() || !given.hlog_path.empty() ||
      !given.hgrm_path.empty())
    return Status::InvalidArgument(
        "search: RUN-ARGS must not contain --json, --csv, --html, --hlog or --hgrm; search writes every step into "
        "--out and its own --json (`storebench report` makes the others from a step)");
  if (!given.metrics_listen.empty() || !given.graphite.empty())
    return Status::InvalidArgument(
        "search: RUN-ARGS must not contain --metrics-listen or --graphite; a search's steps are not served or "
        "pushed live (a matrix's runs are, one after another)");
  auto load = job::CheckSearchJob(*job);
  if (!load.ok()) return load.status();
  // The steps in --out are the search's own: read to resume, written as they run.
  CommandFiles files;
  files.InputDirectory("--out", f.out);
  for (size_t i = 0; i < f.run_args.size(); ++i) {
    const std::string& a = f.run_args[i];
    if (a == "--job" && i + 1 < f.run_args.size()) files.Input("--job", f.run_args[i + 1]);
    if (a.rfind("--job=", 0) == 0) files.Input("--job", a.substr(6));
  }
  files.Output("--json", f.json);
  files.OutputDirectory("--out", f.out);
  STOREBENCH_RETURN_IF_ERROR(files.Check());
  return SearchJob{std::move(*job), std::move(*load)};
}

// One search per --json at a time: two would each replace the other's
// document, and the one written last would pass for both.
StatusOr<DirLock> LockJson(const SearchFlags& f) {
  if (f.json.empty()) return DirLock();
  return DirLock::AcquireForFile(f.json, "--json");
}

}  // namespace

void AddSearchFlags(CLI::App* app, SearchFlags* f) {
  // One value per flag: a greedy vector option would swallow the `--` that starts RUN-ARGS.
  app->add_option("--slo", f->slo, "latency goal [KIND or CLASS:]pNN<=DURATION, e.g. p99<=1ms (repeatable)")
      ->allow_extra_args(false);
  AddTableOptions(app, SearchOptionTable().Specs(), &f->options);
  app->add_option("--out", f->out, "directory for every step's run result (a rerun reuses stored steps)");
  app->add_option("--json", f->json, "write the search document (storebench.search/1) here");
  app->add_option("run-args", f->run_args, "arguments of `storebench run` after --, e.g. -- --backend null");
}

int ExecuteSearch(const SearchFlags& f, const std::vector<std::string>& argv, const std::atomic<bool>* stop) {
  auto settings = ParseSettings(f);
  if (!settings.ok()) return ReportError(settings.status());
  auto job = CheckRunArgs(f);
  if (!job.ok()) return ReportError(job.status());
  auto json_lock = LockJson(f);
  if (!json_lock.ok()) return ReportError(json_lock.status());
  auto lock = experiment::OpenSearchDir(f.out, f.run_args, settings->step_ns);
  if (!lock.ok()) return ReportError(lock.status());

  experiment::SearchRequest request{std::move(job->job), std::move(job->load), std::move(*settings), f.out, argv};
  report::SearchResult r;
  if (Status searched = experiment::RunSearch(request, stop, Print, &r); !searched.ok()) {
    // From the first open-loop step on, a failed search still writes what it measured.
    if (r.interrupted)
      if (Status s = WriteOutputs(r, f, argv); !s.ok()) ReportError(s);
    return ReportError(searched);
  }

  std::printf("\n%s\n", report::StepTable(r).c_str());
  const std::string answer = report::AnswerLine(r);
  Print(answer);
  if (const std::string warning = report::SaturationWarning(r); !warning.empty()) Print(warning);
  if (Status s = WriteOutputs(r, f, argv); !s.ok()) return ReportError(s);
  if (r.answers().highest_pass == 0) return ReportError(Status::IOError("search: " + answer));
  return kExitOk;
}

}  // namespace storebench::cli
