#include "storebench/cli/run_command.h"

#include <unistd.h>

#include <cstdio>
#include <fmt/format.h>
#include <map>
#include <utility>
#include <vector>

#include "storebench/base/atomic_file.h"
#include "storebench/job/plan.h"
#include "storebench/job/run.h"
#include "storebench/report/hgrm.h"
#include "storebench/report/html_report.h"
#include "storebench/report/result.h"
#include "storebench/report/run_histograms.h"

namespace storebench::cli {
namespace {

// Registers one option of a table; what is given lands in `values`.
void AddOption(CLI::App* app, const OptionSpec& spec, const std::string& help, const std::string& default_value,
               const std::string& group, OptionValues* values) {
  const std::string name = "--" + spec.name;
  const std::string n = spec.name;
  CLI::Option* opt = nullptr;
  if (spec.is_flag()) {
    opt = app->add_flag_callback(name, [values, n] { (*values)[n] = "1"; }, help);
  } else {
    opt = app->add_option_function<std::string>(name, [values, n](const std::string& v) { (*values)[n] = v; }, help);
    if (!default_value.empty()) opt->default_str(default_value);
  }
  opt->group(group);
}

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
      AddOption(app, first, first.Help(), first.default_value, "Backend '" + o.front().first + "'", values);
      continue;
    }
    std::string help;
    for (const auto& [backend_name, spec] : o) {
      if (!help.empty()) help += "\n";
      help += spec->Help();
      if (!spec->default_value.empty()) help += fmt::format(" [{}: {}]", backend_name, spec->default_value);
    }
    AddOption(app, first, help, "", "Options of several backends (the chosen backend's default applies)", values);
  }
}

void AddCoreOptions(CLI::App* app, OptionValues* values, bool prepare) {
  for (const OptionSpec& spec : job::CoreOptionTable().Specs()) {
    if (prepare && spec.name != "seed") continue;
    AddOption(app, spec, spec.Help(), spec.default_value, "Run", values);
  }
}

// --hlog and --hgrm, from the typed result.
Status WriteHistogramFiles(const job::Outputs& out, const driver::RunResult& r) {
  if (!out.hlog_path.empty()) {
    auto log = report::RunResultHistogramLog(r);
    if (!log.ok()) return log.status();
    STOREBENCH_RETURN_IF_ERROR(WriteFileAtomically(out.hlog_path, *log));
  }
  if (!out.hgrm_path.empty() && r.total)
    STOREBENCH_RETURN_IF_ERROR(
        WriteFileAtomically(out.hgrm_path, report::PercentileDistribution(r.total->AllResponse(), 1e3)));
  return Status::Ok();
}

// --html: the report page of this one run, made from its result document.
Status WriteHtmlReport(const job::Outputs& out, const nlohmann::json& doc) {
  std::string source = out.json_path;
  const bool temporary = source.empty();
  if (temporary) {
    source = out.html_path + ".run." + std::to_string(getpid()) + ".json";
    STOREBENCH_RETURN_IF_ERROR(WriteFileAtomically(source, doc.dump() + "\n"));
  }
  report::HtmlReportOptions options;
  options.title = out.title;
  auto model = report::BuildReportModel({source}, options);
  if (temporary) ::unlink(source.c_str());
  if (!model.ok()) return model.status();
  auto page = report::RenderHtmlReport(*model, options);
  if (!page.ok()) return page.status();
  return WriteFileAtomically(out.html_path, *page);
}

}  // namespace

const CLI::Validator& NonEmptyPath() {
  static const CLI::Validator v(
      [](std::string& value) { return value.empty() ? std::string("give a file name, not an empty value") : ""; },
      "PATH", "non-empty path");
  return v;
}

int ReportError(const Status& status) {
  std::fprintf(stderr, "storebench: %s\n", status.message().c_str());
  if (status.code() == Status::Code::kInterrupted) return kExitInterrupted;
  return status.IsBadInput() ? kExitBadInput : kExitRunFailed;
}

void AddRunFlags(CLI::App* app, RunFlags* f) {
  job::Job& j = f->job;
  app->add_option("--backend", j.backend, "backend: null, file, whisper, rocksdb (those compiled in)")
      ->capture_default_str();
  AddCoreOptions(app, &j.options, false);
  app->add_option("--class", j.classes,
                  "a worker group (query class), repeatable: NAME:threads=N,schedule=S,priority=P,role=writer,"
                  "iodepth=D,ops=N");
  app->add_option("--json", j.outputs.json_path, "write the result document (JSON) here")->check(NonEmptyPath())->group("Outputs");
  app->add_option("--csv", j.outputs.csv_path, "write the interval timeline (CSV) here")->check(NonEmptyPath())->group("Outputs");
  app->add_option("--html", j.outputs.html_path, "write a self-contained HTML report of the run here")->check(NonEmptyPath())
      ->group("Outputs");
  app->add_option("--hlog", j.outputs.hlog_path,
                  "write the interval histograms as an HdrHistogram interval log (one tag per op kind) here")->check(NonEmptyPath())
      ->group("Outputs");
  app->add_option("--hgrm", j.outputs.hgrm_path,
                  "write the response-time percentile distribution in HdrHistogram's .hgrm form (microseconds) here")->check(NonEmptyPath())
      ->group("Outputs");
  app->add_option("--title", j.outputs.title, "title of the human summary")->group("Outputs");
  app->add_flag("--quiet", j.outputs.quiet, "no progress line and no summary")->group("Outputs");
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
  AddBackendOptions(app, &f->job.backend_options);
}

void NoteParsed(CLI::App* app, RunFlags* f) { f->backend_given = app->count("--backend") > 0; }

StatusOr<job::Job> ResolveJob(const RunFlags& f) {
  if (f.job_file.empty()) return f.job;
  auto base = job::Job::Load(f.job_file);
  if (!base.ok()) return base.status();
  base->Override(f.job, f.backend_given);
  return *base;
}

int ExecutePrepare(const job::Job& j, const std::atomic<bool>* stop) {
  auto report = job::PrepareJob(j, stop);
  if (!report.ok()) return ReportError(report.status());
  std::printf("%s: %s in %s %s\n", j.backend.c_str(), report->description.c_str(), report->where.c_str(),
              report->created ? fmt::format("prepared ({})", report->how).c_str()
                              : "already prepared and matching: nothing to do");
  return kExitOk;
}

int ExecuteRun(const job::Job& j, const std::vector<std::string>& argv, const std::atomic<bool>* stop, bool print_job) {
  auto plan = job::MakePlan(j);
  if (!plan.ok()) return ReportError(plan.status());
  if (print_job) {
    std::printf("%s\n", plan->job.ToJson().dump(1).c_str());
    return kExitOk;
  }
  const job::Outputs& out = j.outputs;
  if (!out.json_path.empty())
    if (Status s = CheckOutputPath(out.json_path, "--json"); !s.ok()) return ReportError(s);
  const std::vector<std::pair<const char*, const std::string*>> files = {
      {"--json", &out.json_path}, {"--csv", &out.csv_path}, {"--html", &out.html_path},
      {"--hlog", &out.hlog_path}, {"--hgrm", &out.hgrm_path}};
  for (size_t i = 0; i < files.size(); ++i) {
    if (files[i].second->empty()) continue;
    if (Status s = CheckOutputPath(*files[i].second, files[i].first); !s.ok()) return ReportError(s);
    for (size_t k = 0; k < i; ++k)
      if (*files[k].second == *files[i].second)
        return ReportError(Status::InvalidArgument(
            fmt::format("{}: the same file as {}; give each output its own file", files[i].first, files[k].first)));
  }

  const bool tty = isatty(STDOUT_FILENO) && !out.quiet;
  job::RunHooks hooks;
  hooks.stop = stop;
  if (tty) {
    hooks.progress = [](const driver::IntervalStats& t) {
      std::printf("\r\033[K%s", report::ProgressLine(t).c_str());
      std::fflush(stdout);
    };
  }
  bool first_phase = true;
  hooks.phase_started = [&](const std::string& line) {
    if (!out.quiet && !first_phase) std::printf("\n%s\n", line.c_str());
    first_phase = false;
  };
  hooks.phase_finished = [&](const driver::RunResult& r, const std::string& title) {
    if (tty) std::printf("\r\033[K");
    if (!out.quiet) {
      std::fputs(report::HumanSummary(r, title).c_str(), stdout);
      std::fflush(stdout);
    }
  };
  auto result = job::RunPlan(*plan, hooks);
  if (!result.ok()) return ReportError(result.status());
  auto doc = report::BuildRunJson(*result, argv);
  if (!doc.ok()) return ReportError(doc.status());
  if (!out.json_path.empty())
    if (Status s = WriteFileAtomically(out.json_path, doc->dump(1) + "\n"); !s.ok()) return ReportError(s);
  if (!out.csv_path.empty())
    if (Status s = WriteFileAtomically(out.csv_path, report::IntervalCsv(result->run)); !s.ok()) return ReportError(s);
  if (Status s = WriteHistogramFiles(out, result->run); !s.ok()) return ReportError(s);
  if (!out.html_path.empty())
    if (Status s = WriteHtmlReport(out, *doc); !s.ok()) return ReportError(s);
  if (result->run.interrupted) return kExitInterrupted;
  return result->failure.ok() ? kExitOk : ReportError(result->failure);
}

}  // namespace storebench::cli
