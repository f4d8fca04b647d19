#include "storebench/cli/matrix_command.h"

#include <unistd.h>

#include <time.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <functional>
#include <optional>
#include <cstdio>
#include <filesystem>
#include <fmt/format.h>
#include <random>
#include <set>

#include "storebench/base/units.h"
#include "storebench/base/atomic_file.h"
#include "storebench/cli/relayed_progress.h"
#include "storebench/base/dir_lock.h"
#include "storebench/base/json_file.h"
#include "storebench/cli/run_command.h"
#include "storebench/cli/table_flags.h"
#include "storebench/experiment/matrix_grid.h"
#include "storebench/experiment/matrix_run.h"
#include "storebench/job/plan.h"
#include "storebench/report/compare.h"
#include "storebench/report/html_report.h"
#include "storebench/report/progress.h"
#include "storebench/report/result.h"

namespace storebench::cli {
namespace {

namespace fs = std::filesystem;

constexpr const char* kVaryForm =
    "--vary: expected KEY=V1,V2[,…] where KEY is a `run` flag without its dashes (e.g. --vary threads=1,2; "
    "on/off flags take 1 and 0)";

// The `run` subcommand's flags, to look KEYs up and to check variants' arguments.
struct RunFlagTable {
  CLI::App app;
  RunFlags flags;
  RunFlagTable() { AddRunFlags(&app, &flags); }
};

// A `run` flag that takes no value (e.g. --null-async): varied as 1 (given) or 0 (omitted).
bool IsOnOffFlag(const CLI::Option* opt) { return opt->get_expected_max() == 0; }

using Axis = experiment::MatrixAxis;

StatusOr<Axis> ParseAxis(const std::string& text, CLI::App& run_app) {
  auto eq = text.find('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 == text.size())
    return Status::InvalidArgument(fmt::format("{}; got '{}'", kVaryForm, text));
  Axis axis;
  axis.key = text.substr(0, eq);
  if (axis.key == "json" || axis.key == "quiet" || axis.key == "progress")
    return Status::InvalidArgument(fmt::format("--vary: '{}' is set by matrix itself and cannot be varied", axis.key));
  const CLI::Option* opt = run_app.get_option_no_throw("--" + axis.key);
  if (axis.key.rfind("-", 0) == 0 || opt == nullptr)
    return Status::InvalidArgument(fmt::format("{}; '{}' is not a run flag (see storebench run --help)", kVaryForm, axis.key));
  axis.is_flag = IsOnOffFlag(opt);
  std::set<std::string> seen;
  for (std::string_view v : Split(std::string_view(text).substr(eq + 1), ',')) {
    if (v.empty()) return Status::InvalidArgument(fmt::format("{}; empty value in '{}'", kVaryForm, text));
    if (axis.is_flag && v != "1" && v != "0")
      return Status::InvalidArgument(
          fmt::format("--vary: '{}' is an on/off flag; expected {}=1,0 (1 gives the flag, 0 omits it)", axis.key, axis.key));
    if (!seen.insert(std::string(v)).second)
      return Status::InvalidArgument(fmt::format("--vary: value '{}' of '{}' is given twice", v, axis.key));
    axis.values.emplace_back(v);
  }
  return axis;
}


// Parses `args` as `run` would and builds its config, so a bad value fails
// before any run starts rather than after hours of a matrix. Returns how long
// the run should take (warm-up and duration of each phase; 0 if ops bound it).
StatusOr<double> CheckRunArgs(const std::vector<std::string>& args, const std::string& variant) {
  auto job = ParseRunArgs(std::vector<std::string>(args.begin() + 1, args.end()));  // without "run"
  if (!job.ok()) return Status::InvalidArgument(fmt::format("matrix: variant {}: {}", variant, job.status().message()));
  // The whole plan, backend options included: a bad value fails before the first run.
  auto plan = job::MakePlan(*job);
  if (!plan.ok()) return Status::InvalidArgument(fmt::format("matrix: variant {}: {}", variant, plan.status().message()));
  const driver::RunConfig& c = plan->config;
  uint64_t end = UINT64_MAX;
  for (const driver::WorkerGroup& g : c.groups) end = std::min(end, g.schedule.EndNs());
  const double phase_s = c.duration_ns ? static_cast<double>(c.warmup_ns + c.duration_ns) / 1e9
                         : end != UINT64_MAX ? static_cast<double>(end) / 1e9
                                             : 0;
  return phase_s * (plan->core.two_phase.on ? 2 : 1);
}





StatusOr<std::vector<Axis>> ParseAxes(const std::vector<std::string>& vary) {
  RunFlagTable run;
  std::vector<Axis> axes;
  std::set<std::string> keys;
  for (const auto& text : vary) {
    auto axis = ParseAxis(text, run.app);
    if (!axis.ok()) return axis.status();
    if (!keys.insert(axis->key).second)
      return Status::InvalidArgument(fmt::format("--vary: '{}' is varied twice; list its values in one --vary", axis->key));
    axes.push_back(std::move(*axis));
  }
  if (axes.empty()) return Status::InvalidArgument(kVaryForm);
  size_t variants = 1;
  for (const Axis& a : axes) variants *= a.values.size();
  if (variants < 2)
    return Status::InvalidArgument("--vary: gives one variant; a matrix compares at least two (e.g. --vary threads=1,2)");
  return axes;
}

// The cartesian product of `axes` (the first axis changes slowest), each
// variant checked to be a valid `run` command.
StatusOr<std::vector<MatrixVariant>> VariantsOf(const std::vector<Axis>& axes, const std::vector<std::string>& run_args) {
  for (const auto& arg : run_args) {
    if (arg == "--json" || arg.rfind("--json=", 0) == 0)
      return Status::InvalidArgument("matrix: RUN-ARGS must not contain --json; matrix writes DIR/<variant>-<rep>.json");
    // Every run would write the same file, each over the last.
    for (const char* output : {"--csv", "--html", "--hlog", "--hgrm"})
      if (arg == output || arg.rfind(std::string(output) + "=", 0) == 0)
        return Status::InvalidArgument(fmt::format(
            "matrix: RUN-ARGS must not contain {}; every run would write that one file: matrix writes "
            "DIR/<variant>-<rep>.json, and `storebench report` makes {} from one of them",
            output, output == std::string_view("--csv") ? "the rest" : output));
    for (const Axis& a : axes)
      if (arg == "--" + a.key || arg.rfind("--" + a.key + "=", 0) == 0)
        return Status::InvalidArgument(fmt::format("matrix: RUN-ARGS set --{}, which --vary varies", a.key));
  }
  auto variants = experiment::CrossAxes(axes);
  if (!variants.ok()) return variants.status();
  for (MatrixVariant& v : *variants) {
    auto expected = CheckRunArgs(VariantRunArgs(v, run_args, "/dev/null"), v.name);
    if (!expected.ok()) return expected.status();
    v.expected_s = *expected;
  }
  return variants;
}

}  // namespace

const OptionTable<MatrixOptions>& MatrixOptionTable() {
  using O = MatrixOptions;
  static const OptionTable<O> table = [] {
    OptionTable<O> t("matrix");
    t.Integer("repeat", &O::repeat, "runs per variant", "3", 1, kMaxRepeat)
        .Enum("order", &O::order,
              std::vector<std::pair<std::string, std::string>>{{"interleaved", "interleaved"}, {"random", "random"}},
              "interleaved (A B C A B C …) or random (shuffled within each round)", "interleaved")
        .Integer("seed", &O::seed, "seed of --order random", "1", 0, INT64_MAX)
        .Text("cache-reset", &O::cache_reset, "shell command run before every run, e.g. to drop the page cache", "",
              "")
        .Parsed("launcher", &O::launcher, "start every run under this command, e.g. \"mpirun -n 4\" (scale-out)", "",
                "a command and its arguments, quoted as in a shell",
                [](const std::string& v) { return SplitShellWords(v, "--launcher"); });
    return t;
  }();
  return table;
}

void AddMatrixFlags(CLI::App* app, MatrixFlags* f) {
  app->add_option("--out", f->out, "directory for every run's JSON and the manifest (resumes what is there)")
      ->required();
  // One value per --vary: a greedy vector option would swallow the `--` that starts RUN-ARGS.
  app->add_option("--vary", f->vary, "KEY=V1,V2,…: a run flag without dashes and its values (repeatable)")
      ->required()
      ->allow_extra_args(false);
  AddTableOptions(app, MatrixOptionTable().Specs(), &f->options);
  app->add_option("--html", f->html_path, "after the grid, write its self-contained HTML report here");
  app->add_option("run-args", f->run_args, "arguments of `storebench run` after --, e.g. -- --backend null --duration 5s");
  AddComparisonFlags(app, &f->compare);
  AddProgressFlag(app, &f->progress);
}

StatusOr<std::vector<MatrixVariant>> PlanVariants(const std::vector<std::string>& vary,
                                                  const std::vector<std::string>& run_args) {
  auto axes = ParseAxes(vary);
  if (!axes.ok()) return axes.status();
  return VariantsOf(*axes, run_args);
}


std::vector<std::string> VariantRunArgs(const MatrixVariant& v, const std::vector<std::string>& run_args,
                                        const std::string& json_path) {
  RunFlagTable run;
  std::vector<std::string> args{"run"};
  args.insert(args.end(), run_args.begin(), run_args.end());
  for (const auto& [key, value] : v.settings) {
    if (IsOnOffFlag(run.app.get_option("--" + key))) {
      if (value == "1") args.push_back("--" + key);
    } else {
      args.push_back("--" + key + "=" + value);
    }
  }
  args.insert(args.end(), {"--json", json_path, "--quiet"});
  return args;
}

namespace {

// "[7/40] block-size=8k, run 2 of 10, grid ~3m10s left | " + the child's own
// line when it is relayed, else "[7/40] block-size=8k, run 2 of 10
// [####......]  45% 2.3s/~5.0s | grid ~3m10s left" (an estimate).
// `seen_s`: per variant, how long its last run took (0: none yet), a better
// guess than the configured length (start-up, prepare checks, --ops runs).
std::string GridLine(const std::vector<std::pair<size_t, int>>& todo, const std::vector<MatrixVariant>& variants,
                     const std::vector<double>& seen_s, size_t i, int repeat, double run_s, double finished_s,
                     const std::string& child_line) {
  const MatrixVariant& v = variants[todo[i].first];
  const double expected = seen_s[todo[i].first] > 0 ? seen_s[todo[i].first] : v.expected_s;
  std::string line = fmt::format("[{}/{}] {}, run {} of {}", i + 1, todo.size(), v.name, todo[i].second, repeat);
  if (!child_line.empty()) line += ",";
  else if (expected > 0)
    line += fmt::format(" {} {:3.0f}% {}/~{}", report::ProgressBar(run_s / expected, 12),
                        std::min(99.0, std::floor(run_s / expected * 100)), report::FormatSeconds(run_s),
                        report::FormatSeconds(expected));
  else
    line += " " + report::FormatSeconds(run_s);
  // Per run: its variant's last run, else the mean of the runs finished so
  // far, else its configured length.
  double left = 0;
  bool known = true;
  for (size_t k = i; k < todo.size(); ++k) {
    const double per = seen_s[todo[k].first] > 0 ? seen_s[todo[k].first]
                       : i > 0                   ? finished_s / static_cast<double>(i)
                                                 : variants[todo[k].first].expected_s;
    known = known && per > 0;
    left += k == i ? std::max(per - run_s, 0.0) : per;
  }
  if (known) line += (child_line.empty() ? " | grid ~" : " grid ~") + report::FormatSeconds(left) + " left";
  if (!child_line.empty()) line += " | " + child_line;
  return line;
}


// The grid as planned: every flag checked and every variant planned before a run starts.
struct Grid {
  MatrixOptions options;
  experiment::GridSettings settings;
  std::vector<Axis> axes;
  std::vector<MatrixVariant> variants;
  experiment::GridOrder order;  // (variant, repeat): every run in order, and those not stored yet
};

StatusOr<Grid> PlanGrid(const MatrixFlags& f) {
  Grid g;
  STOREBENCH_RETURN_IF_ERROR(MatrixOptionTable().Apply(f.options, &g.options));
  CommandFiles files;
  AddOperandInputs("run", {f.out}, &files);  // the stored runs of a resumed matrix
  files.Output("--html", f.html_path);
  files.Output("--json", f.compare.json_path);
  files.OutputDirectory("--out", f.out);
  STOREBENCH_RETURN_IF_ERROR(files.Check());
  STOREBENCH_RETURN_IF_ERROR(BuildCompareOptions(f.compare).status());
  auto axes = ParseAxes(f.vary);
  if (!axes.ok()) return axes.status();
  g.axes = std::move(*axes);
  auto variants = VariantsOf(g.axes, f.run_args);
  if (!variants.ok()) return variants.status();
  g.variants = std::move(*variants);
  g.settings = {f.run_args, g.options.repeat, g.options.order, g.options.seed, g.options.launcher};
  return g;
}


// Under a launcher (mpirun) the program is found by path: the binary's own.
std::vector<std::string> RunCommand(const Grid& g, const MatrixVariant& v, const std::vector<std::string>& run_args,
                                    const std::string& path) {
  std::vector<std::string> argv = g.options.launcher;
  if (!argv.empty()) {
    char self[4096];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    argv.emplace_back(n > 0 ? std::string(self, static_cast<size_t>(n)) : std::string("/proc/self/exe"));
  } else {
    argv.emplace_back("/proc/self/exe");
  }
  for (auto& a : VariantRunArgs(v, run_args, path)) argv.push_back(std::move(a));
  return argv;
}

// The grid's progress: how long each variant's last run took, and the runs so far.
struct GridTimes {
  using Clock = std::chrono::steady_clock;
  static double SecondsSince(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }
  double finished_s = 0;       // wall time of the runs finished so far in this invocation
  std::vector<double> seen_s;  // per variant
  Clock::time_point run_start;
};

// Every run still to do, in order (experiment::RunGridChildren), drawn on the
// terminal; returns the exit code (kExitOk when all ran).
int RunGrid(const MatrixFlags& f, const Grid& g, const std::atomic<bool>* stop) {
  report::ProgressDisplay display(f.progress);
  GridTimes times;
  times.seen_s.assign(g.variants.size(), 0);
  // On a terminal the child draws its own line on a pseudo-terminal and the
  // grid relays it; elsewhere (or without a pty) the child stays --quiet and
  // its progress is estimated from its length.
  std::optional<RelayedProgress> relay;
  bool relayed = false;
  experiment::GridWatch watch;
  watch.before = [&](experiment::GridChild* child) {
    relay.emplace();
    relayed = display.on() && display.terminal() && relay->Open();
    if (relayed) {  // the child's summary still goes to /dev/null; its live line to the relay
      auto quiet = std::find(child->argv.begin(), child->argv.end(), "--quiet");
      *quiet = "--progress=always";
    }
    child->stderr_fd = relay->child_fd();
    times.run_start = GridTimes::Clock::now();
  };
  if (display.on())
    watch.tick = [&](const experiment::GridChild& child) {
      if (relayed) {
        if (std::string printed = relay->Drain(); !printed.empty()) {
          display.Clear();
          std::fputs(printed.c_str(), stderr);
        }
      }
      if (!display.Due()) return;
      display.Update(GridLine(g.order.todo, g.variants, times.seen_s, child.index, g.options.repeat,
                              GridTimes::SecondsSince(times.run_start), times.finished_s, relay->line()));
    };
  watch.after = [&](const experiment::GridChild& child, double seconds) {
    if (relayed) {
      display.Clear();
      std::fputs(relay->Drain().c_str(), stderr);
    }
    times.seen_s[child.variant] = seconds;
    times.finished_s += seconds;
    display.Clear();
    relay.reset();  // the child's pseudo-terminal closes with it
    relayed = false;
  };
  watch.stored = [&](const experiment::GridChild& child, const report::RunRecord& run) {
    std::printf("[%zu/%zu] %s #%d: %.0f ops/s, p99 %s\n", child.index + 1, g.order.todo.size(),
                g.variants[child.variant].name.c_str(), child.repeat, run.ops_per_sec,
                FormatDurationNs(run.response_p99_ns).c_str());
    std::fflush(stdout);
  };
  experiment::GridRunSettings settings{f.out, g.options.cache_reset,
                                       [&](const MatrixVariant& v, const std::string& path) {
                                         return RunCommand(g, v, f.run_args, path);
                                       }};
  auto end = experiment::RunGridChildren(g.variants, g.order, settings, stop, watch);
  if (!end.ok()) return ReportError(end.status());
  if (end->interrupted || end->failed_exit_code == kExitInterrupted || (end->failed_exit_code != 0 && stop->load()))
    return kExitInterrupted;
  if (end->failed_exit_code != 0)
    return ReportError(ChildFailure(end->failed_exit_code, "matrix: run " + end->failed));
  return kExitOk;
}

// After the grid: the comparison of the directory, and --html.
int Conclude(const MatrixFlags& f) {
  std::printf("\n");
  auto input = report::LoadCompareInput({f.out});
  if (!input.ok()) return ReportError(input.status());
  const int rc = PrintComparison(*input, f.compare);
  if (!f.html_path.empty()) {
    report::HtmlReportOptions options;
    auto model = report::BuildReportModel({f.out}, options);
    if (!model.ok()) return ReportError(model.status());
    auto page = report::RenderHtmlReport(*model, options);
    if (!page.ok()) return ReportError(page.status());
    if (Status s = WriteFileAtomically(f.html_path, *page); !s.ok()) return ReportError(s);
  }
  return rc;
}

}  // namespace

int ExecuteMatrix(const MatrixFlags& f, const std::atomic<bool>* stop) {
  auto grid = PlanGrid(f);
  if (!grid.ok()) return ReportError(grid.status());
  const fs::path dir(f.out);
  // One matrix per directory at a time: two would run the same variants and overwrite each other's files.
  auto lock = DirLock::CreateAndAcquire(dir.string(), "--out");
  if (!lock.ok()) return ReportError(lock.status());
  nlohmann::json manifest = experiment::GridManifest(grid->settings, grid->axes, grid->variants);
  if (Status s = experiment::CheckExistingManifest(dir / report::kMatrixManifest, manifest); !s.ok())
    return ReportError(s);
  if (Status s = WriteFileAtomically((dir / report::kMatrixManifest).string(), manifest.dump(1) + "\n"); !s.ok())
    return ReportError(s);
  grid->order = experiment::OrderRuns(dir, grid->settings, grid->variants);
  std::printf("matrix: %zu variants x %d repeats = %zu runs in %s; %zu already stored, %zu to run (%s order)\n",
              grid->variants.size(), grid->options.repeat, grid->order.runs.size(), f.out.c_str(),
              grid->order.runs.size() - grid->order.todo.size(), grid->order.todo.size(), grid->options.order.c_str());
  std::fflush(stdout);
  const int rc = RunGrid(f, *grid, stop);
  if (rc == kExitInterrupted) {
    std::fprintf(stderr, "storebench: matrix interrupted; the stored runs are kept, run the same command to resume\n");
    return kExitInterrupted;
  }
  if (rc != kExitOk) return rc;
  return Conclude(f);
}

}  // namespace storebench::cli
