#include "storebench/cli/matrix_command.h"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fmt/format.h>
#include <random>
#include <set>

#include "storebench/base/units.h"
#include "storebench/base/atomic_file.h"
#include "storebench/base/dir_lock.h"
#include "storebench/cli/run_command.h"
#include "storebench/job/plan.h"
#include "storebench/report/compare.h"
#include "storebench/report/html_report.h"
#include "storebench/report/result.h"

extern char** environ;

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

struct Axis {
  std::string key;
  std::vector<std::string> values;
  bool is_flag = false;
};

StatusOr<Axis> ParseAxis(const std::string& text, CLI::App& run_app) {
  auto eq = text.find('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 == text.size())
    return Status::InvalidArgument(fmt::format("{}; got '{}'", kVaryForm, text));
  Axis axis;
  axis.key = text.substr(0, eq);
  if (axis.key == "json" || axis.key == "quiet")
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

std::string SafeStem(const std::string& name) {
  std::string s = name;
  for (char& c : s)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '.' && c != '-' && c != '=' && c != ',' && c != '+') c = '_';
  return s;
}

// Parses `args` as `run` would and builds its config, so a bad value fails
// before any run starts rather than after hours of a matrix.
Status CheckRunArgs(const std::vector<std::string>& args, const std::string& variant) {
  RunFlagTable run;
  std::vector<std::string> reversed(args.rbegin(), args.rend() - 1);  // CLI11 wants them reversed, without "run"
  try {
    run.app.parse(std::move(reversed));
  } catch (const CLI::ParseError& e) {
    return Status::InvalidArgument(fmt::format("matrix: variant {}: run arguments: {}", variant, e.what()));
  }
  NoteParsed(&run.app, &run.flags);
  auto job = ResolveJob(run.flags);
  if (!job.ok()) return Status::InvalidArgument(fmt::format("matrix: variant {}: {}", variant, job.status().message()));
  // The whole plan, backend options included: a bad value fails before the first run.
  auto plan = job::MakePlan(*job);
  if (!plan.ok()) return Status::InvalidArgument(fmt::format("matrix: variant {}: {}", variant, plan.status().message()));
  return Status::Ok();
}

// Runs argv[0] with `argv`; returns its exit code, or 128 + signal. stdout
// goes to /dev/null when `quiet`, so the matrix's own lines stay readable.
StatusOr<int> Spawn(const std::vector<std::string>& argv, bool quiet) {
  std::vector<char*> cargv;
  for (const auto& a : argv) cargv.push_back(const_cast<char*>(a.c_str()));
  cargv.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  if (quiet) posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
  // The child gets SIGPIPE's default back (this process ignores it).
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  sigset_t defaults;
  sigemptyset(&defaults);
  sigaddset(&defaults, SIGPIPE);
  posix_spawnattr_setsigdefault(&attr, &defaults);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGDEF);
  pid_t pid = 0;
  int err = posix_spawn(&pid, argv[0].c_str(), &actions, &attr, cargv.data(), environ);
  posix_spawnattr_destroy(&attr);
  posix_spawn_file_actions_destroy(&actions);
  if (err != 0) return ErrnoStatus("posix_spawn", argv[0], err);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) return ErrnoStatus("waitpid", argv[0], errno);
  }
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  return 128 + WTERMSIG(status);
}

nlohmann::json ManifestJson(const MatrixFlags& f, const std::vector<Axis>& axes, const std::vector<MatrixVariant>& variants) {
  nlohmann::json vary = nlohmann::json::array();
  for (const Axis& a : axes) vary.push_back({{"key", a.key}, {"values", a.values}});
  nlohmann::json vs = nlohmann::json::array();
  for (const MatrixVariant& v : variants) {
    nlohmann::json files = nlohmann::json::array(), settings = nlohmann::json::object();
    for (int rep = 1; rep <= f.repeat; ++rep) files.push_back(fmt::format("{}-{}.json", v.stem, rep));
    for (const auto& [k, val] : v.settings) settings[k] = val;
    vs.push_back({{"name", v.name}, {"settings", settings}, {"files", files}});
  }
  return {{"schema", report::kMatrixSchema}, {"run_args", f.run_args}, {"vary", vary},
          {"repeat", f.repeat},               {"order", f.order},       {"seed", f.seed},
          {"variants", vs}};
}

// Refuses a directory holding a different matrix: mixing them would compare
// runs of other settings under these names.
Status CheckExistingManifest(const fs::path& path, const nlohmann::json& wanted) {
  if (!fs::exists(path)) return Status::Ok();
  std::FILE* file = std::fopen(path.c_str(), "r");
  if (!file) return ErrnoStatus("open", path.string(), errno);
  auto old = nlohmann::json::parse(file, nullptr, /*allow_exceptions=*/false);
  std::fclose(file);
  if (old.is_discarded() || old.value("schema", "") != report::kMatrixSchema)
    return Status::InvalidArgument(fmt::format("--out: {} is not a storebench matrix manifest", path.string()));
  if (old["run_args"] != wanted["run_args"] || old["vary"] != wanted["vary"])
    return Status::InvalidArgument(fmt::format(
        "--out: {} holds a matrix of other settings (run args {}, vary {}); use a new directory",
        path.parent_path().string(), old["run_args"].dump(), old["vary"].dump()));
  return Status::Ok();
}

bool RunIsStored(const fs::path& path) {
  if (!fs::exists(path)) return false;
  auto run = report::LoadRun(path.string());
  return run.ok() && !run->interrupted;
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
    for (const Axis& a : axes)
      if (arg == "--" + a.key || arg.rfind("--" + a.key + "=", 0) == 0)
        return Status::InvalidArgument(fmt::format("matrix: RUN-ARGS set --{}, which --vary varies", a.key));
  }
  std::vector<MatrixVariant> variants(1);
  for (const Axis& a : axes) {
    std::vector<MatrixVariant> next;
    for (const MatrixVariant& v : variants)
      for (const auto& value : a.values) {
        MatrixVariant n = v;
        n.settings.emplace_back(a.key, value);
        n.name += (n.name.empty() ? "" : ",") + a.key + "=" + value;
        next.push_back(std::move(n));
      }
    variants = std::move(next);
  }
  std::set<std::string> stems;
  for (MatrixVariant& v : variants) {
    v.stem = SafeStem(v.name);
    if (!stems.insert(v.stem).second)
      return Status::InvalidArgument(fmt::format("--vary: variants '{}' and another share the file name '{}'", v.name, v.stem));
    STOREBENCH_RETURN_IF_ERROR(CheckRunArgs(VariantRunArgs(v, run_args, "/dev/null"), v.name));
  }
  return variants;
}

}  // namespace

void AddMatrixFlags(CLI::App* app, MatrixFlags* f) {
  app->add_option("--out", f->out, "directory for every run's JSON and the manifest (resumes what is there)")
      ->required()
      ->check(NonEmptyPath());
  app->add_option("--repeat", f->repeat, "runs per variant")->capture_default_str();
  // One value per --vary: a greedy vector option would swallow the `--` that starts RUN-ARGS.
  app->add_option("--vary", f->vary, "KEY=V1,V2,…: a run flag without dashes and its values (repeatable)")
      ->required()
      ->allow_extra_args(false);
  app->add_option("--order", f->order, "interleaved (A B C A B C …) or random (shuffled within each round)")
      ->capture_default_str();
  app->add_option("--seed", f->seed, "seed of --order random")->capture_default_str();
  app->add_option("--cache-reset", f->cache_reset, "shell command run before every run, e.g. to drop the page cache");
  app->add_option("--html", f->html_path, "after the grid, write its self-contained HTML report here")->check(NonEmptyPath());
  app->add_option("run-args", f->run_args, "arguments of `storebench run` after --, e.g. -- --backend null --duration 5s");
  AddComparisonFlags(app, &f->compare);
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

int ExecuteMatrix(const MatrixFlags& f, const std::atomic<bool>* stop) {
  if (f.repeat < 1 || f.repeat > 10000) return ReportError(Status::InvalidArgument("--repeat: expected a whole number from 1 to 10000"));
  if (!f.html_path.empty())
    if (Status s = CheckOutputPath(f.html_path, "--html"); !s.ok()) return ReportError(s);
  if (f.order != "interleaved" && f.order != "random")
    return ReportError(Status::InvalidArgument(fmt::format("--order: expected interleaved or random; got '{}'", f.order)));
  if (auto o = BuildCompareOptions(f.compare); !o.ok()) return ReportError(o.status());
  auto axes = ParseAxes(f.vary);
  if (!axes.ok()) return ReportError(axes.status());
  auto variants = VariantsOf(*axes, f.run_args);
  if (!variants.ok()) return ReportError(variants.status());

  const fs::path dir(f.out);
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) return ReportError(Status::InvalidArgument(fmt::format("--out: cannot create '{}': {}", f.out, ec.message())));
  // One matrix per directory at a time: two would run the same variants and overwrite each other's files.
  auto lock = DirLock::Acquire(dir.string(), "--out");
  if (!lock.ok()) return ReportError(lock.status());
  nlohmann::json manifest = ManifestJson(f, *axes, *variants);
  if (Status s = CheckExistingManifest(dir / report::kMatrixManifest, manifest); !s.ok()) return ReportError(s);
  if (Status s = WriteFileAtomically((dir / report::kMatrixManifest).string(), manifest.dump(1) + "\n"); !s.ok())
    return ReportError(s);

  // Rounds of every variant; random order shuffles within a round so each
  // variant still runs once per round.
  std::vector<std::pair<size_t, int>> plan;
  std::mt19937_64 rng(f.seed);
  for (int rep = 1; rep <= f.repeat; ++rep) {
    std::vector<size_t> round(variants->size());
    for (size_t i = 0; i < round.size(); ++i) round[i] = i;
    if (f.order == "random") std::shuffle(round.begin(), round.end(), rng);
    for (size_t v : round) plan.emplace_back(v, rep);
  }
  std::vector<std::pair<size_t, int>> todo;
  for (const auto& step : plan)
    if (!RunIsStored(dir / fmt::format("{}-{}.json", (*variants)[step.first].stem, step.second))) todo.push_back(step);
  std::printf("matrix: %zu variants x %d repeats = %zu runs in %s; %zu already stored, %zu to run (%s order)\n",
              variants->size(), f.repeat, plan.size(), f.out.c_str(), plan.size() - todo.size(), todo.size(),
              f.order.c_str());
  std::fflush(stdout);

  bool interrupted = false;
  for (size_t i = 0; i < todo.size() && !interrupted; ++i) {
    if (stop->load()) {
      interrupted = true;
      break;
    }
    const MatrixVariant& v = (*variants)[todo[i].first];
    const std::string path = (dir / fmt::format("{}-{}.json", v.stem, todo[i].second)).string();
    if (!f.cache_reset.empty()) {
      auto rc = Spawn({"/bin/sh", "-c", f.cache_reset}, /*quiet=*/false);
      if (!rc.ok()) return ReportError(rc.status());
      if (*rc != 0)
        return ReportError(Status::IOError(fmt::format("--cache-reset: '{}' exited with {}", f.cache_reset, *rc)));
    }
    std::vector<std::string> argv{"/proc/self/exe"};
    for (auto& a : VariantRunArgs(v, f.run_args, path)) argv.push_back(std::move(a));
    auto rc = Spawn(argv, /*quiet=*/true);
    if (!rc.ok()) return ReportError(rc.status());
    if (*rc == kExitInterrupted || stop->load()) {
      interrupted = true;
      break;
    }
    if (*rc != 0) {
      std::fprintf(stderr, "storebench: matrix: run %s #%d failed with exit code %d\n", v.name.c_str(), todo[i].second, *rc);
      return *rc == kExitBadInput ? kExitBadInput : kExitRunFailed;
    }
    auto run = report::LoadRun(path);
    if (!run.ok()) return ReportError(run.status());
    std::printf("[%zu/%zu] %s #%d: %.0f ops/s, p99 %s\n", i + 1, todo.size(), v.name.c_str(), todo[i].second,
                run->ops_per_sec, FormatDurationNs(run->response_p99_ns).c_str());
    std::fflush(stdout);
  }
  if (interrupted) {
    std::fprintf(stderr, "storebench: matrix interrupted; the stored runs are kept, run the same command to resume\n");
    return kExitInterrupted;
  }
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

}  // namespace storebench::cli
