#include "storebench/cli/run_command.h"

#include <fcntl.h>
#include <unistd.h>

#include <cstdio>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <map>
#include <set>
#include <utility>
#include <vector>

#include "storebench/base/units.h"
#include "storebench/driver/runner.h"
#include "storebench/report/environment.h"
#include "storebench/report/result.h"

namespace storebench::cli {
namespace {

// Every backend's options, each name once. An option several backends own
// (--data, --workload, --buffer, …) is listed once with each owner's meaning
// and default, since the default that applies is the chosen backend's.
void AddBackendOptions(CLI::App* app, RunFlags* flags) {
  std::vector<std::string> order;
  std::map<std::string, std::vector<std::pair<std::string, const backend::OptionSpec*>>> owners;
  for (const backend::BackendInfo& info : backend::Backends()) {
    for (const backend::OptionSpec& spec : info.options) {
      auto& o = owners[spec.name];
      if (o.empty()) order.push_back(spec.name);
      o.emplace_back(info.name, &spec);
    }
  }
  for (const std::string& n : order) {
    const auto& o = owners[n];
    const backend::OptionSpec& first = *o.front().second;
    std::string group = "Backend '" + o.front().first + "'";
    std::string help = first.help;
    std::string default_value = first.default_value;
    if (o.size() > 1) {
      group = "Options of several backends (the chosen backend's default applies)";
      help.clear();
      for (const auto& [backend_name, spec] : o) {
        if (!help.empty()) help += "\n";
        help += spec->help;
        if (!spec->default_value.empty()) help += fmt::format(" [{}: {}]", backend_name, spec->default_value);
      }
      default_value.clear();
    }
    const std::string name = "--" + n;
    if (first.is_flag) {
      app->add_flag_callback(name, [flags, n] { flags->backend_options[n] = "1"; }, help)->group(group);
    } else {
      auto* opt = app->add_option_function<std::string>(
          name, [flags, n](const std::string& v) { flags->backend_options[n] = v; }, help);
      opt->group(group);
      if (!default_value.empty()) opt->default_str(default_value);
    }
  }
}

// Defaults of the chosen backend's options, then what was given; an option
// of another backend is refused rather than silently ignored.
StatusOr<backend::OptionValues> WithDefaults(const backend::BackendInfo& info, const backend::OptionValues& given) {
  backend::OptionValues out;
  for (const auto& spec : info.options)
    if (!spec.default_value.empty()) out[spec.name] = spec.default_value;
  for (const auto& [k, v] : given) {
    bool owned = false;
    for (const auto& spec : info.options) owned = owned || spec.name == k;
    if (!owned) {
      std::vector<std::string> names;
      for (const auto& spec : info.options) names.push_back("--" + spec.name);
      return Status::InvalidArgument(fmt::format("--{}: not an option of backend '{}' (its options: {})", k, info.name,
                                                 names.empty() ? std::string("none") : fmt::format("{}", fmt::join(names, ", "))));
    }
    out[k] = v;
  }
  return out;
}

// --backend names no backend of this binary; a known one left out of the build says why.
Status UnknownBackend(const std::string& name) {
  std::string names;
  for (const auto& b : backend::Backends()) names += (names.empty() ? "" : ", ") + b.name;
  if (name == "rocksdb") {
    return Status::InvalidArgument(fmt::format(
        "--backend: 'rocksdb' is not in this binary: librocksdb-dev was missing when it was built (apt-get install "
        "librocksdb-dev, then rebuild); this binary has: {}",
        names));
  }
  return Status::InvalidArgument(fmt::format("--backend: unknown backend '{}'; expected one of: {}", name, names));
}

// Why a run that --max-errors ended failed, once its results are written.
Status StoppedOnErrors(const driver::RunResult& r) {
  return Status::IOError(fmt::format("--max-errors: the run stopped after {} failed ops; the results measured so far "
                                     "are written (see totals.outcomes)",
                                     r.total ? r.total->errors() : 0));
}

// Fails early, before the run, when an output file cannot be written.
Status CheckWritable(const std::string& path, const char* flag) {
  if (path.empty()) return Status::Ok();
  std::string probe = path + ".probe." + std::to_string(getpid());
  int fd = ::open(probe.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0)
    return Status::InvalidArgument(fmt::format("{}: cannot write '{}': {}", flag, path, std::strerror(errno)));
  ::close(fd);
  ::unlink(probe.c_str());
  return Status::Ok();
}

StatusOr<driver::WorkerGroup> ParseClass(const std::string& text, const RunFlags& flags) {
  // NAME:threads=2,schedule=constant:100,priority=0,role=writer,iodepth=1,ops=1000
  constexpr const char* kForm =
      "--class: expected NAME:key=value,... with keys threads, schedule, priority, role, iodepth, ops "
      "(e.g. high:threads=1,priority=0,schedule=closed)";
  driver::WorkerGroup g;
  auto colon = text.find(':');
  if (colon == std::string::npos || colon == 0)
    return Status::InvalidArgument(fmt::format("{}; got '{}'", kForm, text));
  g.name = text.substr(0, colon);
  g.threads = flags.threads;
  g.queue_depth = flags.iodepth;
  std::string schedule = flags.schedule.empty() ? "closed" : flags.schedule;
  // Values may contain commas (sine:A,B,C,D; steps:…,…): a piece without '='
  // continues the previous value.
  std::vector<std::pair<std::string, std::string>> kv;
  for (std::string_view piece : Split(std::string_view(text).substr(colon + 1), ',')) {
    auto eq = piece.find('=');
    if (eq == std::string_view::npos) {
      if (kv.empty()) return Status::InvalidArgument(fmt::format("{}; got '{}'", kForm, text));
      kv.back().second += "," + std::string(piece);
    } else {
      kv.emplace_back(std::string(piece.substr(0, eq)), std::string(piece.substr(eq + 1)));
    }
  }
  for (const auto& [key, value] : kv) {
    if (key == "threads" || key == "priority" || key == "iodepth" || key == "ops") {
      auto n = ParseCount(value, "--class " + key);
      if (!n.ok()) return n.status();
      if (key == "threads") g.threads = static_cast<int>(*n);
      if (key == "priority") g.priority = static_cast<int>(*n);
      if (key == "iodepth") g.queue_depth = static_cast<int>(*n);
      if (key == "ops") g.ops = *n;
    } else if (key == "schedule") {
      schedule = value;
    } else if (key == "role") {
      g.role = value;
    } else {
      return Status::InvalidArgument(fmt::format("{}; unknown key '{}'", kForm, key));
    }
  }
  auto spec = driver::ParseSchedule(schedule, "--class schedule");
  if (!spec.ok()) return spec.status();
  g.schedule = *spec;
  return g;
}

nlohmann::json ConfigJson(const RunFlags& f, const backend::OptionValues& backend_options) {
  nlohmann::json j = {{"backend", f.backend}, {"threads", f.threads},     {"iodepth", f.iodepth},
                      {"duration", f.duration}, {"ops", f.ops},           {"warmup", f.warmup}, {"max_errors", f.max_errors},
                      {"schedule", f.schedule}, {"interval", f.interval}, {"seed", f.seed},
                      {"histogram_digits", f.histogram_digits}};
  if (!f.classes.empty()) j["classes"] = f.classes;
  nlohmann::json b = nlohmann::json::object();
  for (const auto& [k, v] : backend_options) b[k] = v;
  j["backend_options"] = b;
  return j;
}

}  // namespace

int ReportError(const Status& status) {
  std::fprintf(stderr, "storebench: %s\n", status.message().c_str());
  if (status.code() == Status::Code::kInterrupted) return kExitInterrupted;
  return status.IsBadInput() ? kExitBadInput : kExitRunFailed;
}

void AddRunFlags(CLI::App* app, RunFlags* f) {
  app->add_option("--backend", f->backend, "backend: null, file, whisper, rocksdb (those compiled in)")
      ->capture_default_str();
  app->add_option("--threads", f->threads, "worker threads (closed loop) or arrival streams (open loop)")
      ->capture_default_str();
  app->add_option("--iodepth", f->iodepth, "ops in flight per worker (async backends)")->capture_default_str();
  app->add_option("--duration", f->duration, "measured time after warm-up, e.g. 10s, 2m");
  app->add_option("--ops", f->ops, "measured ops in total (split over the threads), e.g. 1M");
  app->add_option("--max-errors", f->max_errors,
                  "end the run once this many measured ops have failed (exit 1, results written); 0 = never")
      ->default_str("0");
  app->add_option("--warmup", f->warmup, "time before measuring, excluded from results, e.g. 2s")
      ->capture_default_str();
  app->add_option("--schedule", f->schedule,
                  "closed (default) | constant:RATE | poisson:RATE | sine:A,B,C,D | steps:DUR@RATE,... | trace:FILE");
  app->add_option("--two-phase", f->two_phase,
                  "measure closed-loop capacity, then run open loop at this fraction of it (0.8) or rate (40k/s)");
  app->add_option("--json", f->json_path, "write the result document (JSON) here");
  app->add_option("--csv", f->csv_path, "write the interval timeline (CSV) here");
  app->add_option("--interval", f->interval, "reporting interval, e.g. 1s, 500ms")->capture_default_str();
  app->add_option("--seed", f->seed, "seed for every random draw")->capture_default_str();
  app->add_option("--histogram-digits", f->histogram_digits, "significant digits of latency histograms (1-5)")
      ->capture_default_str();
  app->add_option("--class", f->classes,
                  "a worker group (query class), repeatable: NAME:threads=N,schedule=S,priority=P,role=R,iodepth=D,ops=N");
  app->add_option("--title", f->title, "title of the human summary");
  app->add_flag("--quiet", f->quiet, "no progress line and no summary");
  AddBackendOptions(app, f);
}

void AddPrepareFlags(CLI::App* app, RunFlags* f) {
  app->add_option("--backend", f->backend, "backend whose data set to make: file, whisper, rocksdb")->required();
  app->add_option("--seed", f->seed, "seed for generated content")->capture_default_str();
  AddBackendOptions(app, f);
}

StatusOr<driver::RunConfig> BuildRunConfig(const RunFlags& f) {
  driver::RunConfig c;
  if (f.threads < 1 || f.threads > 4096) return Status::InvalidArgument("--threads: expected a whole number from 1 to 4096");
  if (f.iodepth < 1 || f.iodepth > 65536) return Status::InvalidArgument("--iodepth: expected a whole number from 1 to 65536");
  if (f.histogram_digits < 1 || f.histogram_digits > 5)
    return Status::InvalidArgument("--histogram-digits: expected a whole number from 1 to 5");
  c.histogram.significant_digits = f.histogram_digits;
  if (!f.duration.empty()) {
    auto d = ParseDurationNs(f.duration, "--duration");
    if (!d.ok()) return d.status();
    if (*d == 0) return Status::InvalidArgument("--duration: must be positive, e.g. 10s");
    c.duration_ns = *d;
  }
  uint64_t ops = 0;
  if (!f.ops.empty()) {
    auto n = ParseCount(f.ops, "--ops");
    if (!n.ok()) return n.status();
    if (*n == 0) return Status::InvalidArgument("--ops: must be positive, e.g. 100000");
    ops = *n;
  }
  auto max_errors = ParseCount(f.max_errors, "--max-errors");
  if (!max_errors.ok()) return max_errors.status();
  c.max_errors = *max_errors;
  auto w = ParseDurationNs(f.warmup, "--warmup");
  if (!w.ok()) return w.status();
  c.warmup_ns = *w;
  auto iv = ParseDurationNs(f.interval, "--interval");
  if (!iv.ok()) return iv.status();
  if (*iv < 1'000'000) return Status::InvalidArgument("--interval: must be at least 1ms, e.g. 1s");
  c.interval_ns = *iv;
  c.seed = f.seed;
  c.groups.clear();
  if (f.classes.empty()) {
    driver::WorkerGroup g;
    g.threads = f.threads;
    g.queue_depth = f.iodepth;
    g.ops = ops;
    auto spec = driver::ParseSchedule(f.schedule.empty() ? "closed" : f.schedule);
    if (!spec.ok()) return spec.status();
    g.schedule = *spec;
    c.groups.push_back(g);
  } else {
    std::set<std::string> names;
    for (const auto& text : f.classes) {
      auto g = ParseClass(text, f);
      if (!g.ok()) return g.status();
      if (!names.insert(g->name).second)
        return Status::InvalidArgument(fmt::format("--class: the name '{}' is used twice", g->name));
      if (g->ops == 0 && ops) g->ops = ops;
      c.groups.push_back(*g);
    }
  }
  bool bounded = c.duration_ns > 0;
  for (const auto& g : c.groups) bounded = bounded || g.ops > 0 || g.schedule.EndNs() != UINT64_MAX;
  if (!bounded) return Status::InvalidArgument("--duration: give --duration or --ops (e.g. --duration 10s)");
  return c;
}

int ExecutePrepare(const RunFlags& f) {
  const backend::BackendInfo* info = backend::FindBackend(f.backend);
  if (!info) return ReportError(UnknownBackend(f.backend));
  if (!(info->capabilities & backend::kCanPrepare))
    return ReportError(Status::InvalidArgument(fmt::format("--backend: '{}' has no data set to prepare", f.backend)));
  backend::CommonOptions common;
  common.seed = f.seed;
  auto options = WithDefaults(*info, f.backend_options);
  if (!options.ok()) return ReportError(options.status());
  auto b = info->create(*options, common);
  if (!b.ok()) return ReportError(b.status());
  Status s = (*b)->Prepare();
  if (!s.ok()) return ReportError(s);
  for (const auto& line : (*b)->SummaryLines()) std::printf("%s\n", line.c_str());
  return kExitOk;
}

namespace {

// Applies what the backend's workload implies: its default schedule (when
// --schedule was not given) and the extra worker groups it needs.
Status ApplyBackendGroups(const backend::Backend& b, const RunFlags& f, driver::RunConfig* c) {
  std::string def = b.DefaultSchedule();
  if (f.schedule.empty() && !def.empty() && f.classes.empty()) {
    auto spec = driver::ParseSchedule(def, "--schedule (from the workload's flags)");
    if (!spec.ok()) return spec.status();
    c->groups[0].schedule = *spec;
  }
  for (const backend::ExtraGroup& e : b.ExtraGroups()) {
    driver::WorkerGroup g;
    g.name = e.name;
    g.role = e.role;
    g.threads = e.threads;
    if (e.rate > 0) {
      g.schedule.kind = driver::ScheduleSpec::Kind::kConstant;
      g.schedule.rate = e.rate;
      g.schedule.text = fmt::format("constant:{}", e.rate);
    }
    c->groups.push_back(g);
  }
  return Status::Ok();
}

// --two-phase: "0.8" = that fraction of the closed-loop capacity, "40k/s" = that rate.
struct TwoPhase {
  bool on = false;
  double fraction = 0;
  double rate = 0;
};
StatusOr<TwoPhase> ParseTwoPhase(const std::string& text) {
  TwoPhase t;
  if (text.empty()) return t;
  t.on = true;
  constexpr const char* kForm = "--two-phase: expected a fraction of the measured capacity in (0, 2], e.g. 0.8, or a "
                                "rate such as 40k/s";
  if (text.find("/s") != std::string::npos) {
    auto r = ParseRate(text, "--two-phase");
    if (!r.ok()) return Status::InvalidArgument(fmt::format("{}; got '{}'", kForm, text));
    t.rate = *r;
    return t;
  }
  auto v = ParseDouble(text, "--two-phase");
  if (!v.ok() || !(*v > 0) || *v > 2) return Status::InvalidArgument(fmt::format("{}; got '{}'", kForm, text));
  t.fraction = *v;
  return t;
}

struct Phase {
  driver::RunResult result;
  nlohmann::json backend_results;
  std::vector<std::string> backend_lines;
};

StatusOr<Phase> RunPhase(backend::Backend& b, const driver::RunConfig& config, const RunFlags& f,
                         const std::atomic<bool>* stop, const std::string& title) {
  const bool tty = isatty(STDOUT_FILENO) && !f.quiet;
  driver::ProgressFn progress;
  if (tty) {
    progress = [](const driver::IntervalStats& t) {
      std::printf("\r\033[K%s", report::ProgressLine(t).c_str());
      std::fflush(stdout);
    };
  }
  auto result = driver::RunLoad(b, config, stop, progress);
  if (tty) std::printf("\r\033[K");
  if (!result.ok()) return result.status();
  Phase p{std::move(*result), b.Results(), b.SummaryLines()};
  if (!f.quiet) {
    std::fputs(report::HumanSummary(p.result, title, p.backend_lines).c_str(), stdout);
    std::fflush(stdout);
  }
  return p;
}

}  // namespace

int ExecuteRun(const RunFlags& f, const std::vector<std::string>& argv, const std::atomic<bool>* stop) {
  const backend::BackendInfo* info = backend::FindBackend(f.backend);
  if (!info) return ReportError(UnknownBackend(f.backend));
  auto config = BuildRunConfig(f);
  if (!config.ok()) return ReportError(config.status());
  auto two_phase = ParseTwoPhase(f.two_phase);
  if (!two_phase.ok()) return ReportError(two_phase.status());
  if (two_phase->on && (config->groups.size() > 1 || config->groups[0].schedule.open_loop()))
    return ReportError(Status::InvalidArgument(
        "--two-phase: measures a closed loop first; do not combine it with --schedule or --class"));
  if (Status s = CheckWritable(f.json_path, "--json"); !s.ok()) return ReportError(s);
  if (Status s = CheckWritable(f.csv_path, "--csv"); !s.ok()) return ReportError(s);

  backend::CommonOptions common;
  common.seed = f.seed;
  common.threads = config->total_threads();
  common.queue_depth = f.iodepth;
  auto with_defaults = WithDefaults(*info, f.backend_options);
  if (!with_defaults.ok()) return ReportError(with_defaults.status());
  const backend::OptionValues& options = *with_defaults;
  auto made = info->create(options, common);
  if (!made.ok()) return ReportError(made.status());
  backend::Backend& b = **made;
  if (Status s = b.Open(); !s.ok()) return ReportError(s);
  if (Status s = ApplyBackendGroups(b, f, &*config); !s.ok()) return ReportError(s);

  std::string schedule_text = config->groups[0].schedule.open_loop() ? config->groups[0].schedule.text : "closed";
  std::string title = f.title.empty() ? fmt::format("storebench run --backend {} ({}, {} threads)", f.backend,
                                                    schedule_text, config->total_threads())
                                      : f.title;
  nlohmann::json two_phase_doc;
  if (two_phase->on) {
    auto p1 = RunPhase(b, *config, f, stop, "phase 1: closed loop, maximum throughput");
    if (!p1.ok()) return ReportError(p1.status());
    double capacity = p1->result.elapsed_s > 0 ? static_cast<double>(p1->result.total->ops()) / p1->result.elapsed_s : 0;
    double rate = two_phase->rate > 0 ? two_phase->rate : capacity * two_phase->fraction;
    nlohmann::json phase1 = report::BuildRunJson(p1->result, nullptr, nullptr, p1->backend_results, {});
    for (const char* k : {"schema", "tool", "command", "config", "environment"}) phase1.erase(k);
    two_phase_doc = {{"capacity_ops_per_sec", capacity},
                     {"fraction", two_phase->fraction},
                     {"target_ops_per_sec", rate},
                     {"phase1", phase1}};
    if (p1->result.interrupted || p1->result.stopped_on_errors || !(rate > 0)) {
      // Nothing more to run: keep phase 1 as the result.
      auto it = options.find("data");
      nlohmann::json doc = report::BuildRunJson(p1->result, ConfigJson(f, options),
                                                report::DescribeEnvironment(it == options.end() ? "" : it->second),
                                                p1->backend_results, argv);
      doc["two_phase"] = two_phase_doc;
      if (!f.json_path.empty())
        if (Status s = report::WriteFileAtomically(f.json_path, doc.dump(1) + "\n"); !s.ok()) return ReportError(s);
      if (p1->result.interrupted) return kExitInterrupted;
      return ReportError(p1->result.stopped_on_errors
                             ? StoppedOnErrors(p1->result)
                             : Status::IOError("--two-phase: phase 1 completed no ops"));
    }
    config->groups[0].schedule.kind = driver::ScheduleSpec::Kind::kConstant;
    config->groups[0].schedule.rate = rate;
    config->groups[0].schedule.text = fmt::format("constant:{:.0f}", rate);
    if (!f.quiet)
      std::printf("\nphase 2: open loop at %.0f ops/s (%s of the measured %.0f ops/s)\n", rate,
                  two_phase->rate > 0 ? "a given rate" : fmt::format("{:.0f}%", two_phase->fraction * 100).c_str(),
                  capacity);
    title = fmt::format("phase 2: open loop at {:.0f} ops/s", rate);
  }
  auto phase = RunPhase(b, *config, f, stop, title);
  if (!phase.ok()) return ReportError(phase.status());
  const driver::RunResult& result = phase->result;

  auto it = options.find("data");
  nlohmann::json env = report::DescribeEnvironment(it == options.end() ? "" : it->second);
  nlohmann::json cfg = ConfigJson(f, options);
  cfg["schedule"] = config->groups[0].schedule.open_loop() ? config->groups[0].schedule.text : "closed";
  nlohmann::json doc = report::BuildRunJson(result, cfg, env, phase->backend_results, argv);
  if (two_phase->on) doc["two_phase"] = two_phase_doc;
  if (!f.json_path.empty()) {
    if (Status s = report::WriteFileAtomically(f.json_path, doc.dump(1) + "\n"); !s.ok()) return ReportError(s);
  }
  if (!f.csv_path.empty()) {
    if (Status s = report::WriteFileAtomically(f.csv_path, report::IntervalCsv(result)); !s.ok())
      return ReportError(s);
  }
  if (result.interrupted) return kExitInterrupted;
  return result.stopped_on_errors ? ReportError(StoppedOnErrors(result)) : kExitOk;
}

}  // namespace storebench::cli
