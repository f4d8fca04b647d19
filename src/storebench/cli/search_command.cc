#include "storebench/cli/search_command.h"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fmt/format.h>
#include <thread>

#include "storebench/base/atomic_file.h"
#include "storebench/base/dir_lock.h"
#include "storebench/base/file_identity.h"
#include "storebench/base/json_file.h"
#include "storebench/base/units.h"
#include "storebench/cli/run_command.h"
#include "storebench/cli/table_flags.h"
#include "storebench/experiment/stored_run.h"
#include "storebench/cli/compare_command.h"
#include "storebench/job/plan.h"
#include "storebench/job/run.h"
#include "storebench/job/search.h"
#include "storebench/report/compare.h"
#include "storebench/report/result.h"
#include "storebench/report/search_report.h"

namespace storebench::cli {
namespace {

namespace fs = std::filesystem;

constexpr const char* kManifest = "manifest.json";
constexpr const char* kDirSchema = report::kSearchDirSchema;
constexpr uint64_t kBootstrapSeed = 1;
constexpr double kDefaultTopFraction = 1.2;  // of the closed-loop capacity, for bisection
constexpr double kAbove = 1.1;               // confirmation's second rate, and each step down
constexpr int kConfirmRounds = 5;
// Seeds of confirmation runs: step seed + these + i, apart from the steps' repeats.
constexpr int kConfirmSeed = 1000, kAboveSeed = 2000;
// A run the platform spoilt is run again up to this many times; repeat k
// adds k × kRepeatSeed to its seed.
constexpr int kPlatformRepeats = 2, kRepeatSeed = 100000;

// The options, and the latency goals.
struct Settings : SearchOptions {
  std::vector<report::Slo> slos;
};

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
Status SetMaxRate(SearchOptions& o, const std::string& text) {
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

const OptionTable<SearchOptions>& SearchOptionTable() {
  using O = SearchOptions;
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

StatusOr<Settings> ParseSettings(const SearchFlags& f) {
  Settings s;
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

// Refuses a directory that holds steps of another job: their results would answer another question.
Status PrepareOutDir(const fs::path& dir, const nlohmann::json& manifest) {
  const fs::path path = dir / kManifest;
  if (fs::exists(path)) {
    auto old = ReadJsonFile(path.string());
    if (!old.ok() || old->value("schema", "") != kDirSchema)
      return Status::InvalidArgument(fmt::format("--out: {} is not a storebench search directory", dir.string()));
    if ((*old)["run_args"] != manifest["run_args"] || (*old)["step_duration_ns"] != manifest["step_duration_ns"])
      return Status::InvalidArgument(fmt::format(
          "--out: {} holds the steps of another search (run args {}, step duration {} ns); use a new directory",
          dir.string(), (*old)["run_args"].dump(), (*old)["step_duration_ns"].dump()));
    return Status::Ok();
  }
  return WriteFileAtomically(path.string(), manifest.dump(1) + "\n");
}

// Runs steps: each repeat is one job through MakePlan/RunPlan, or its stored document.
class StepRunner {
 public:
  StepRunner(const job::Job& job, const job::SearchLoad& load, const Settings& s, const SearchFlags& f,
             const std::vector<std::string>& argv, const std::atomic<bool>* stop)
      : job_(job), load_(load), settings_(s), flags_(f), argv_(argv), stop_(stop) {}

  // The step at `rate` ops/s (0 = the closed loop), judged.
  StatusOr<report::SearchStep> Run(double rate) {
    report::SearchStep step;
    std::vector<nlohmann::json> docs;
    for (int rep = 1; rep <= settings_.repeat; ++rep) {
      const std::string file = rate > 0 ? fmt::format("rate-{:.0f}-{}.json", rate, rep) : fmt::format("closed-{}.json", rep);
      STOREBENCH_RETURN_IF_ERROR(Add(rate, rep, file, &step, &docs));
    }
    STOREBENCH_RETURN_IF_ERROR(Judge(rate, std::move(docs), /*across_runs=*/false, &step));
    return step;
  }

  // A confirmation round: --confirm runs at `rate` interleaved with as many at `above`, each set judged together.
  StatusOr<report::ConfirmRound> Confirm(double rate, double above) {
    report::ConfirmRound round;
    round.rate = rate;
    round.above_rate = above;
    std::vector<nlohmann::json> at, over;
    for (int i = 1; i <= settings_.confirm; ++i) {
      STOREBENCH_RETURN_IF_ERROR(
          Add(rate, kConfirmSeed + i, fmt::format("confirm-{:.0f}-{}.json", rate, i), &round.confirm, &at));
      STOREBENCH_RETURN_IF_ERROR(
          Add(above, kAboveSeed + i, fmt::format("above-{:.0f}-{}.json", above, i), &round.above, &over));
    }
    STOREBENCH_RETURN_IF_ERROR(Judge(rate, std::move(at), true, &round.confirm));
    STOREBENCH_RETURN_IF_ERROR(Judge(above, std::move(over), true, &round.above));
    return round;
  }

 private:
  // Runs (or reads) one run into `step` and `docs`. A run the platform
  // spoilt (dipped or stalled, report::PlatformSpoilt) is set aside,
  // recorded, and run again with other keys, up to kPlatformRepeats times:
  // its verdict would be the neighbour's. Passing or failing alike, so the
  // repeats do not lean the search either way. The last repeat counts even if
  // it was spoilt too, marked.
  Status Add(double rate, int seed_offset, const std::string& file, report::SearchStep* step,
             std::vector<nlohmann::json>* docs) {
    if (docs->empty()) step->stored = true;
    for (int attempt = 0;; ++attempt) {
      const std::string name =
          attempt == 0 ? file : fmt::format("{}-repeat{}.json", file.substr(0, file.size() - 5), attempt);
      bool stored = false;
      auto doc = RunOne(rate, seed_offset + attempt * kRepeatSeed, name, &stored);
      if (!doc.ok()) return doc.status();
      step->stored = step->stored && stored;
      auto spoilt = report::PlatformSpoilt(*doc, settings_.slos);
      if (spoilt && attempt < kPlatformRepeats) {
        spoilt->file = name;
        step->set_aside.push_back(std::move(*spoilt));
        continue;
      }
      if (spoilt) ++step->unsteady_kept;
      step->files.push_back(name);
      docs->push_back(std::move(*doc));
      return Status::Ok();
    }
  }

  Status Judge(double rate, std::vector<nlohmann::json> docs, bool across_runs, report::SearchStep* step) {
    report::StepInput input;
    input.target = rate;
    input.load_groups = load_.groups;
    input.slots = load_.slots;
    input.runs = std::move(docs);
    input.across_runs = across_runs;
    auto verdict = report::JudgeStep(input, settings_.slos, settings_.confidence, kBootstrapSeed);
    if (!verdict.ok()) return verdict.status();
    step->verdict = std::move(*verdict);
    return Status::Ok();
  }

  StatusOr<nlohmann::json> RunOne(double rate, int rep, const std::string& file, bool* stored) {
    const uint64_t interval = std::max<uint64_t>(settings_.step_ns / 10, 1'000'000);
    job::Job step_job = job::StepJob(job_, load_, rate, settings_.step_ns, interval, rep);
    step_job.outputs = {};
    step_job.outputs.quiet = true;
    auto plan = job::MakePlan(step_job);
    if (!plan.ok()) return plan.status();
    const fs::path path = fs::path(flags_.out) / file;
    if (!flags_.out.empty()) {
      const nlohmann::json config = plan->job.ToJson();
      auto reusable = experiment::ReusableRun(path, &config);
      if (!reusable.ok()) return reusable.status();
      if (reusable->has_value()) {
        *stored = true;
        return std::move(**reusable);
      }
    }
    if (ran_any_) Settle();
    ran_any_ = true;
    job::RunHooks hooks;
    hooks.stop = stop_;
    auto result = job::RunPlan(*plan, hooks);
    if (!result.ok()) return result.status();
    if (result->run.interrupted || stop_->load())
      return Status::Interrupted(
          "search interrupted; the steps stored in --out are kept: run the same command to resume");
    if (!result->failure.ok()) return result->failure;
    auto doc = report::BuildRunJson(*result, argv_);
    if (!doc.ok()) return doc.status();
    if (!flags_.out.empty()) STOREBENCH_RETURN_IF_ERROR(WriteFileAtomically(path.string(), doc->dump(1) + "\n"));
    return *doc;
  }

  // Idles --settle before a run that follows another, in slices so SIGINT is seen.
  void Settle() const {
    const auto end = std::chrono::steady_clock::now() + std::chrono::nanoseconds(settings_.settle_ns);
    while (!stop_->load() && std::chrono::steady_clock::now() < end)
      std::this_thread::sleep_for(std::min<std::chrono::nanoseconds>(end - std::chrono::steady_clock::now(),
                                                                     std::chrono::milliseconds(10)));
  }

  bool ran_any_ = false;
  const job::Job& job_;
  const job::SearchLoad& load_;
  const Settings& settings_;
  const SearchFlags& flags_;
  const std::vector<std::string>& argv_;
  const std::atomic<bool>* stop_;
};

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

// One search per directory at a time: two would overwrite each other's steps.
StatusOr<DirLock> OpenOutDir(const SearchFlags& f, const Settings& settings) {
  DirLock lock;
  if (f.out.empty()) return lock;
  auto locked = DirLock::CreateAndAcquire(f.out, "--out");
  if (!locked.ok()) return locked.status();
  lock = std::move(*locked);
  nlohmann::json manifest = {{"schema", kDirSchema}, {"run_args", f.run_args}, {"step_duration_ns", settings.step_ns}};
  STOREBENCH_RETURN_IF_ERROR(PrepareOutDir(f.out, manifest));
  return lock;
}

// The closed-loop capacity, always: the top comes from it unless --max-rate
// gives a rate, and an answer is reported as a fraction of it.
Status MeasureCapacity(StepRunner& runner, const Settings& settings, report::SearchResult* r) {
  auto cap = runner.Run(0);
  if (!cap.ok()) return cap.status();
  Print("[capacity] " + report::StepLine(*cap));
  const double capacity = cap->verdict.achieved;
  if (!(capacity > 0)) return Status::IOError("search: the closed-loop run completed no ops");
  bool meets = !r->slos.empty();
  for (const auto& c : cap->verdict.slos) meets = meets && c.pass;
  if (meets)
    Print(fmt::format("the closed-loop capacity, {} ops/s, meets {}: latency does not limit this load below its "
                      "capacity; searching for the highest rate an open loop sustains",
                      FormatCount(capacity), report::SloList(r->slos)));
  r->capacity = std::move(*cap);
  if (settings.max_rate > 0) {
    r->top = settings.max_rate;
    r->top_source = "--max-rate";
  } else {
    const double fraction = settings.max_fraction > 0 ? settings.max_fraction : r->sweep ? 1 : kDefaultTopFraction;
    r->top = std::round(capacity * fraction);
    r->top_source = fraction == 1 ? std::string("the closed-loop capacity")
                                  : fmt::format("{:g}% of the closed-loop capacity", fraction * 100);
  }
  return Status::Ok();
}

// The bisection from the top down to --min-rate, or the sweep.
StatusOr<job::RateSearch> RatesToTry(const Settings& settings, const report::SearchResult& r) {
  const double bottom = settings.min_rate > 0 ? settings.min_rate : std::round(0.1 * r.top);
  if (bottom >= r.top)
    return Status::InvalidArgument(fmt::format("--min-rate: {} ops/s is not below the top rate, {} ops/s",
                                               FormatCount(bottom), FormatCount(r.top)));
  std::vector<double> sweep_rates;
  for (double fraction : settings.sweep) sweep_rates.push_back(fraction * r.top);
  return r.sweep ? job::RateSearch::Sweep(sweep_rates) : job::RateSearch::Bisect(bottom, r.top, settings.precision);
}

// A step at each rate `search` asks for, into `r`. The answers are not kept
// here: DeriveAnswers reads them from r's rows, whenever the search stops.
Status SearchRates(StepRunner& runner, job::RateSearch& search, report::SearchResult* r) {
  while (auto rate = search.Next()) {
    auto step = runner.Run(*rate);
    if (!step.ok()) return step.status();
    search.Record(*rate, step->verdict.pass);
    Print(fmt::format("[{}] {}", r->steps.size() + 1, report::StepLine(*step, r->capacity->verdict.achieved)));
    r->steps.push_back(std::move(*step));
  }
  r->outcome = search.outcome();
  return Status::Ok();
}

// Confirmation: the answer holds when run again, or the search steps down by 10% and tries again.
Status ConfirmAnswer(StepRunner& runner, const Settings& settings, report::SearchResult* r) {
  if (settings.confirm == 0) return Status::Ok();
  double candidate = r->answers().search_pass;
  for (int round = 0; candidate > 0 && round < kConfirmRounds; ++round) {
    auto c = runner.Confirm(candidate, std::round(candidate * kAbove));
    if (!c.ok()) return c.status();
    Print(fmt::format("[confirm {}] {}", round + 1, report::ConfirmLine(*c, settings.confirm)));
    const bool held = c->pass();
    r->confirmations.push_back(std::move(*c));
    if (held) break;
    candidate = std::round(candidate / kAbove);
    if (candidate < 1) break;
  }
  return Status::Ok();
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
  auto lock = OpenOutDir(f, *settings);
  if (!lock.ok()) return ReportError(lock.status());

  report::SearchResult r;
  r.slos = settings->slos;
  r.confidence = settings->confidence;
  r.precision = settings->precision;
  r.repeat = settings->repeat;
  r.step_duration_s = static_cast<double>(settings->step_ns) / 1e9;
  r.sweep = !settings->sweep.empty();
  r.confirm_runs = settings->confirm;
  StepRunner runner(job->job, job->load, *settings, f, argv, stop);
  if (Status s = MeasureCapacity(runner, *settings, &r); !s.ok()) return ReportError(s);
  auto search = RatesToTry(*settings, r);
  if (!search.ok()) return ReportError(search.status());
  // A search that fails from here on still writes what it measured.
  Status searched = SearchRates(runner, *search, &r);
  if (searched.ok()) searched = ConfirmAnswer(runner, *settings, &r);
  if (!searched.ok()) {
    r.interrupted = true;
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
