#include "storebench/cli/run_flags.h"

#include <fmt/format.h>

#include <functional>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "storebench/backend/backend.h"
#include "storebench/base/units.h"
#include "storebench/cli/default_job.h"
#include "storebench/cli/table_flags.h"
#include "storebench/job/plan.h"
#include "storebench/live/graphite.h"
#include "storebench/live/metrics_server.h"

namespace storebench::cli {
namespace {

// Every backend's options, each name once. An option several backends own
// (--data, --workload, --buffer, …) is listed once with each owner's meaning
// and default, since the default that applies is the chosen backend's.
void AddBackendOptions(CLI::App* app, OptionValues* values) {
  std::vector<std::string> order;
  std::map<std::string, std::vector<std::pair<std::string, const OptionSpec*>>> owners;
  for (const backend::BackendInfo& info : backend::Backends()) {
    for (const OptionSpec& spec : info.options) {
      auto& o = owners[spec.name];
      if (o.empty()) order.push_back(spec.name);
      o.emplace_back(info.name, &spec);
    }
  }
  for (const std::string& n : order) {
    const auto& o = owners[n];
    const OptionSpec& first = *o.front().second;
    if (o.size() == 1) {
      AddTableOption(app, first, first.Help(), first.default_value, "Backend '" + o.front().first + "'", values);
      continue;
    }
    std::string help;
    for (const auto& [backend_name, spec] : o) {
      if (!help.empty()) help += "\n";
      help += spec->Help();
      if (!spec->default_value.empty()) help += fmt::format(" [{}: {}]", backend_name, spec->default_value);
    }
    AddTableOption(app, first, help, "", "Options of several backends (the chosen backend's default applies)", values);
  }
}

void AddCoreOptions(CLI::App* app, OptionValues* values, bool prepare) {
  for (const OptionSpec& spec : job::CoreOptionTable().Specs()) {
    if (prepare && spec.name != "seed") continue;
    AddTableOption(app, spec, spec.Help(), spec.default_value, "Run", values);
  }
}

// A CLI11 check from a parser that names its flag (given as ""): its message
// without the leading ": ", which CLI11 prefixes with the flag's name.
template <typename Parse>
std::function<std::string(const std::string&)> Checked(Parse parse) {
  return [parse](const std::string& v) {
    auto r = parse(v);
    return r.ok() ? std::string() : r.status().message().substr(2);
  };
}

}  // namespace

void AddProgressFlag(CLI::App* app, job::ProgressMode* mode) {
  app->add_option_function<std::string>(
         "--progress",
         [mode](const std::string& v) {
           *mode = v == "always" ? job::ProgressMode::kAlways
                   : v == "never" ? job::ProgressMode::kNever
                                  : job::ProgressMode::kAuto;
         },
         "live progress on stderr: auto (when stderr is a terminal), always (also to a file or pipe: a plain line "
         "every few seconds) or never")
      ->check(CLI::IsMember({"auto", "always", "never"}))
      ->default_str("auto")
      ->group("Outputs");
}

std::string ParseErrorText(const CLI::ParseError& error) {
  const std::string what = error.what();
  static const std::string kAtMost = ": At Most 1 required but received ";
  const size_t at = what.find(kAtMost);
  if (at != std::string::npos)
    return fmt::format("{}: given {} times; give it once", what.substr(0, at), what.substr(at + kAtMost.size()));
  return what;
}

void AddOutputFlags(CLI::App* app, job::Outputs* o) {
  app->add_option("--json", o->json_path, "write the result document (JSON) here")->group("Outputs");
  app->add_option("--csv", o->csv_path, "write the interval timeline (CSV) here")->group("Outputs");
  app->add_option("--html", o->html_path, "write a self-contained HTML report of the run here")
      ->group("Outputs");
  app->add_option("--hlog", o->hlog_path,
                  "write the interval histograms as an HdrHistogram interval log (one tag per op kind) here")
      ->group("Outputs");
  app->add_option("--hgrm", o->hgrm_path,
                  "write the response-time percentile distribution in HdrHistogram's .hgrm form (microseconds) here")
      ->group("Outputs");
  app->add_option("--title", o->title, "title of the human summary")->group("Outputs");
  app->add_option("--metrics-listen", o->metrics_listen,
                  "serve the run's live metrics (Prometheus text format, /metrics) at [HOST:]PORT (HOST: localhost "
                  "unless given); docs/live-metrics.md")
      ->check(Checked([](const std::string& v) { return live::ParseListenAddress(v, ""); }))
      ->group("Outputs");
  app->add_option("--metrics-linger", o->metrics_linger,
                  "with --metrics-listen: after the run, keep serving its final figures this long (e.g. 30s), so "
                  "that a scraper gets them; Ctrl-C ends it [default: 0]")
      ->check(Checked([](const std::string& v) { return ParseDurationNs(v, ""); }))
      ->needs("--metrics-listen")
      ->group("Outputs");
  app->add_option("--graphite", o->graphite,
                  "push each interval's figures to a Graphite server (carbon's plaintext protocol) at "
                  "HOST:PORT[/PREFIX] (PREFIX: storebench); a server down or slow drops points, counted in the "
                  "result, and never slows the run")
      ->check(Checked([](const std::string& v) { return live::ParseGraphiteTarget(v, ""); }))
      ->group("Outputs");
  app->add_flag("--quiet", o->quiet, "no progress line and no summary")->group("Outputs");
  AddProgressFlag(app, &o->progress);
}

void AddDefaultJobFlag(CLI::App* app, RunFlags* f) {
  app->add_flag("--default-job", f->default_job,
                "run the default job (what storebench runs with no subcommand: prepare, then a two-phase RocksDB "
                "run); flags given here override it")
      ->excludes("--job")
      ->group("Job");
}

void AddRunFlags(CLI::App* app, RunFlags* f) {
  job::Job& j = f->job;
  app->add_option("--backend", j.backend, "backend: null, file, whisper, rocksdb (those compiled in)")
      ->capture_default_str();
  AddCoreOptions(app, &j.options, false);
  app->add_option("--class", j.classes,
                  "a worker group (query class), repeatable: NAME:threads=N,schedule=S,priority=P,role=writer,"
                  "iodepth=D,ops=N");
  AddOutputFlags(app, &j.outputs);
  app->add_option("--job", f->job_file,
                  "run the job in FILE (a job JSON, or a result JSON whose config is the job); flags given here "
                  "override it")
      ->group("Job");
  app->add_flag("--print-job", f->print_job, "print the resolved job (JSON) and exit without running")->group("Job");
  AddBackendOptions(app, &j.backend_options);
}

void AddPrepareFlags(CLI::App* app, RunFlags* f) {
  app->add_option("--backend", f->job.backend, "backend whose data set to make: file, whisper, rocksdb")->required();
  AddCoreOptions(app, &f->job.options, true);
  AddProgressFlag(app, &f->job.outputs.progress);
  AddBackendOptions(app, &f->job.backend_options);
}

void NoteParsed(CLI::App* app, RunFlags* f) { f->backend_given = app->count("--backend") > 0; }

StatusOr<job::Job> ResolveJob(const RunFlags& f, const std::vector<std::string>& caller_sets) {
  if (f.job_file.empty() && !f.default_job) return f.job;
  StatusOr<job::Job> base = f.default_job ? StatusOr<job::Job>(DefaultRocksdbJob()) : job::Job::Load(f.job_file);
  if (!base.ok()) return base.status();
  for (const std::string& name : caller_sets) base->options.erase(name);
  base->Override(f.job, f.backend_given);
  return *base;
}

StatusOr<job::Job> ParseRunArgs(const std::vector<std::string>& args, const std::vector<std::string>& caller_sets) {
  CLI::App app;
  RunFlags flags;
  AddRunFlags(&app, &flags);
  try {
    app.parse(std::vector<std::string>(args.rbegin(), args.rend()));  // CLI11 wants them reversed
  } catch (const CLI::ParseError& e) {
    return Status::InvalidArgument(fmt::format("run arguments: {}", ParseErrorText(e)));
  }
  NoteParsed(&app, &flags);
  return ResolveJob(flags, caller_sets);
}

}  // namespace storebench::cli
