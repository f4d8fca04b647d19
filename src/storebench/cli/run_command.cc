#include "storebench/cli/run_command.h"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fmt/format.h>
#include <functional>
#include <memory>
#include <utility>
#include <vector>

#include "storebench/base/atomic_file.h"
#include "storebench/base/file_identity.h"
#include "storebench/base/units.h"
#include "storebench/job/mpi.h"
#include "storebench/job/plan.h"
#include "storebench/job/run.h"
#include "storebench/live/live_outputs.h"
#include "storebench/report/hgrm.h"
#include "storebench/report/html_report.h"
#include "storebench/report/progress.h"
#include "storebench/report/result.h"
#include "storebench/report/run_histograms.h"

namespace storebench::cli {
namespace {

// --hlog and --hgrm, from the typed result.
Status WriteHlog(const std::string& path, const driver::RunResult& r) {
  auto log = report::RunResultHistogramLog(r);
  if (!log.ok()) return log.status();
  return WriteFileAtomically(path, *log);
}

// The result document as text. A message may carry bytes that are not
// UTF-8 (a file name on Linux is any bytes, an errno text from a damaged
// data set): they are replaced (U+FFFD) rather than let the writer throw
// and lose the run's result.
std::string ResultText(const nlohmann::json& doc) {
  return doc.dump(1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

// --html: the report page of this one run at `html_path`, made from its
// result document (the --json file when it was written, else a temporary
// copy beside the page).
Status WriteHtmlReport(const job::Outputs& out, const std::string& html_path, const nlohmann::json& doc,
                       bool json_written) {
  std::string source = json_written ? out.json_path : "";
  const bool temporary = source.empty();
  if (temporary) {
    source = html_path + ".run." + std::to_string(getpid()) + ".json";
    STOREBENCH_RETURN_IF_ERROR(WriteFileAtomically(source, ResultText(doc)));
  }
  report::HtmlReportOptions options;
  options.title = out.title;
  auto model = report::BuildReportModel({source}, options);
  if (temporary) ::unlink(source.c_str());
  if (!model.ok()) return model.status();
  auto page = report::RenderHtmlReport(*model, options);
  if (!page.ok()) return page.status();
  return WriteFileAtomically(html_path, *page);
}

// The result document first, then the other files made from it. A file that
// cannot be written (its disk filled or its directory went away during the
// run) does not keep the others from being written, and is written elsewhere
// (WriteOrRescue) rather than lost; an existing file at its path is left as it was
// (WriteFileAtomically). Each failure is named with where its content went,
// and the run failed (1).
Status WriteOutputs(const job::Outputs& out, const nlohmann::json& doc, const driver::RunResult& run) {
  std::string failed;
  auto attempt = [&](const char* flag, const std::string& path, const std::function<Status(const std::string&)>& write) {
    if (path.empty()) return false;
    Status s = WriteOrRescue(flag, path, write);
    if (!s.ok()) failed += (failed.empty() ? "" : "; ") + s.message();
    return s.ok();
  };
  const bool json = attempt("--json", out.json_path,
                            [&](const std::string& p) { return WriteFileAtomically(p, ResultText(doc)); });
  attempt("--csv", out.csv_path, [&](const std::string& p) { return WriteFileAtomically(p, report::IntervalCsv(run)); });
  attempt("--hlog", out.hlog_path, [&](const std::string& p) { return WriteHlog(p, run); });
  if (run.total)
    attempt("--hgrm", out.hgrm_path, [&](const std::string& p) {
      return WriteFileAtomically(p, report::PercentileDistribution(run.total->AllResponse(), 1e3));
    });
  attempt("--html", out.html_path, [&](const std::string& p) { return WriteHtmlReport(out, p, doc, json); });
  if (failed.empty()) return Status::Ok();
  return Status::IOError(failed + " (the run finished; its other outputs were written)");
}

// A schedule as the progress line names it: "constant:8000", or "steps" for a long one.
std::string ShortSchedule(const std::string& text) {
  return text.size() <= 20 ? text : text.substr(0, text.find(':'));
}

// What the progress line of a phase run with `c` shows against.
report::RunPhaseInfo PhaseInfo(const driver::RunConfig& c, std::string phase) {
  report::RunPhaseInfo info;
  info.phase = std::move(phase);
  info.warmup_s = static_cast<double>(c.warmup_ns) / 1e9;
  uint64_t end = UINT64_MAX;
  for (const driver::WorkerGroup& g : c.groups) {
    info.ops += g.ops;
    end = std::min(end, g.schedule.EndNs());
    if (g.schedule.open_loop() && g.schedule.kind != driver::ScheduleSpec::Kind::kTrace)
      info.schedules.push_back(g.schedule);
  }
  if (c.duration_ns) info.duration_s = static_cast<double>(c.duration_ns) / 1e9;
  else if (end != UINT64_MAX && end > c.warmup_ns) info.duration_s = static_cast<double>(end - c.warmup_ns) / 1e9;
  return info;
}

// Where an output goes when the place it was asked for cannot take it at the
// end of a run (its disk filled, its directory went away): what was measured
// — maybe a night's run — is kept rather than lost. The first of $TMPDIR,
// /var/tmp, /tmp and $HOME that takes it, as storebench-rescued-PID-NAME.
// Empty when none does (the summary on stdout is then all that is left).
std::string Rescue(const std::string& path, const std::function<Status(const std::string&)>& write) {
  const std::string name = fmt::format("storebench-rescued-{}-{}", getpid(), std::filesystem::path(path).filename().string());
  std::vector<std::string> dirs;
  if (const char* tmp = std::getenv("TMPDIR"); tmp && *tmp) dirs.push_back(tmp);
  dirs.insert(dirs.end(), {"/var/tmp", "/tmp"});
  if (const char* home = std::getenv("HOME"); home && *home) dirs.push_back(home);
  for (const std::string& dir : dirs) {
    const std::string target = (std::filesystem::path(dir) / name).string();
    if (write(target).ok()) return target;
  }
  return "";
}

// Every output path proved writable (output_path.h), and no output on the file
// of another or of the --job file, however the paths are spelled: checked
// before the run.
Status CheckOutputs(const job::Outputs& out, const std::string& job_file) {
  const std::vector<std::pair<const char*, const std::string*>> files = {
      {"--json", &out.json_path}, {"--csv", &out.csv_path}, {"--html", &out.html_path},
      {"--hlog", &out.hlog_path}, {"--hgrm", &out.hgrm_path}};
  CommandFiles identities;
  identities.Input("--job", job_file);
  for (const auto& [flag, path] : files) {
    identities.Output(flag, *path);
  }
  return identities.Check();
}

}  // namespace

Status WriteOrRescue(std::string_view flag, const std::string& path,
                     const std::function<Status(const std::string&)>& write) {
  Status s = write(path);
  if (s.ok()) return s;
  const std::string rescued = Rescue(path, write);
  return Status::IOError(fmt::format("{} not written: {}; {}", flag, s.message(),
                                     rescued.empty() ? std::string("nowhere else could take it either")
                                                     : "its content is in " + rescued));
}

int ExecutePrepare(const job::Job& j, const std::atomic<bool>* stop) {
  report::ProgressDisplay display(j.outputs.progress);
  report::PrepareProgressText text;
  backend::PrepareProgressFn progress;
  if (display.on()) {
    progress = [&](const backend::PrepareProgress& p) {
      const bool last = p.total > 0 && p.done == p.total;  // 100% is always shown
      if (last || display.Due()) display.Update(text.Line(p), last);
    };
  }
  auto report = job::PrepareJob(j, progress, stop);
  display.Clear();
  if (!report.ok()) return ReportError(report.status());
  std::printf("%s: %s in %s %s\n", j.backend.c_str(), report->description.c_str(), report->where.c_str(),
              report->created ? fmt::format("prepared ({})", report->how).c_str()
                              : "already prepared and matching: nothing to do");
  return kExitOk;
}


int ExecuteRun(const job::Job& j, const std::vector<std::string>& argv, const std::atomic<bool>* stop, bool print_job,
               const std::string& job_file) {
  auto plan = job::MakePlan(j);
  if (!plan.ok()) return ReportError(plan.status());
  if (print_job) {
    std::printf("%s\n", plan->job.ToJson().dump(1).c_str());
    return kExitOk;
  }
  const job::Outputs& out = j.outputs;
  if (Status s = CheckOutputs(out, job_file); !s.ok()) return ReportError(s);

  // The live endpoint binds before the run: a port in use is refused (exit 2) before anything is measured.
  auto live = live::LiveOutputs::Start(out, j.backend, plan->config.histogram);
  if (!live.ok()) return ReportError(live.status());
  report::ProgressDisplay display(out.progress, out.quiet);
  report::RunProgressText text;
  const driver::ScheduleSpec& first = plan->config.groups[0].schedule;
  text.StartPhase(PhaseInfo(plan->config, plan->core.two_phase.on ? "phase 1 closed loop,"
                                          : first.open_loop() && plan->config.groups.size() == 1
                                              ? "open loop " + ShortSchedule(first.text) + ","
                                              : "closed loop,"));
  // Until the first tick (up to one --interval after the warm-up began, and
  // opening the backend before that) a terminal shows the phase that begins
  // with its total; a log's one line per period is kept for figures.
  if (display.terminal()) display.Update(text.Starting(), true);
  job::RunHooks hooks;
  hooks.stop = stop;
  if (display.on() || (*live)->on()) {
    // On the reporter thread, once per interval (every 20 ms in warm-up): never on a worker's path.
    hooks.progress = [&](const driver::IntervalStats& t) {
      (*live)->OnInterval(t);
      if (!display.on()) return;
      const std::string line = text.Line(t);  // counts the ops, so made for every tick
      display.Update(line);
    };
  }
  bool first_phase = true;
  hooks.phase_started = [&](const std::string& line) {
    (*live)->StartPhase(first_phase ? "phase1" : "phase2");
    if (!first_phase) {
      // RunPlan has set the open loop's rate in the plan before this call.
      const driver::ScheduleSpec& s = plan->config.groups[0].schedule;
      text.StartPhase(PhaseInfo(plan->config, "phase 2 open loop " + FormatCompactCount(s.rate) + "/s,"));
      if (!out.quiet) std::printf("\n%s\n", line.c_str());
      if (display.terminal()) display.Update(text.Starting(), true);
    }
    first_phase = false;
  };
  hooks.phase_finished = [&](const driver::RunResult& r, const std::string& title) {
    (*live)->FinishPhase(r);
    display.Clear();
    if (!out.quiet) {
      std::fputs(report::HumanSummary(r, title).c_str(), stdout);
      std::fflush(stdout);
    }
  };
  auto result = job::RunPlan(*plan, hooks);
  display.Clear();
  if (!result.ok()) return ReportError(result.status());
  auto doc = report::BuildRunJson(*result, argv);
  if (!doc.ok()) return ReportError(doc.status());
  if (nlohmann::json pushed = (*live)->Finish(); !pushed.is_null()) (*doc)["live"] = std::move(pushed);
  if (Status s = WriteOutputs(out, *doc, result->run); !s.ok()) return ReportError(s);
  if (!result->run.interrupted) (*live)->Linger(stop);
  if (result->run.interrupted) return kExitInterrupted;
  return result->failure.ok() ? kExitOk : ReportError(result->failure);
}

}  // namespace storebench::cli

namespace storebench::cli {
namespace {

// The exit code every rank returns, and the message only rank 0 prints.
int RankError(const job::MpiSession& session, const Status& status) {
  return session.rank() == 0 ? ReportError(status) : ExitCodeOf(status);
}

// The summary's line of a scale-out run's ranks: the slowest and the fastest, the start skew and the finish spread.
std::string RanksLine(const nlohmann::json& mpi, const nlohmann::json& ranks) {
  auto by_rate = [](const nlohmann::json& a, const nlohmann::json& b) {
    return a["ops_per_sec"].get<double>() < b["ops_per_sec"].get<double>();
  };
  const auto slow = std::min_element(ranks.begin(), ranks.end(), by_rate);
  const auto fast = std::max_element(ranks.begin(), ranks.end(), by_rate);
  return fmt::format("  ranks     slowest rank {} on {}: {:.0f} ops/s; fastest rank {} on {}: {:.0f} ops/s; "
                     "start skew <= {}, finish spread {:.3f} s\n",
                     (*slow)["rank"].get<int>(), (*slow)["host"].get<std::string>(),
                     (*slow)["ops_per_sec"].get<double>(), (*fast)["rank"].get<int>(),
                     (*fast)["host"].get<std::string>(), (*fast)["ops_per_sec"].get<double>(),
                     FormatDurationNs(mpi["start_skew_ns"].get<double>()), mpi["finish_spread_s"].get<double>());
}

}  // namespace

int ExecuteRunMpi(job::MpiSession& session, const RunFlags& flags, const std::vector<std::string>& argv,
                  const std::atomic<bool>* stop) {
  const bool root = session.rank() == 0;
  StatusOr<job::Job> mine = Status::Ok();
  std::unique_ptr<live::LiveOutputs> live;
  if (root) {
    mine = ResolveJob(flags);
    // Checked once, here: a bad job is refused by rank 0 alone (ShareJob fails every rank).
    auto plan = mine.ok() ? job::MakePlan(*mine) : StatusOr<job::Plan>(mine.status());
    if (!plan.ok()) mine = plan.status();
    if (mine.ok())
      if (Status s = CheckOutputs(mine->outputs, flags.job_file); !s.ok()) mine = s;
    // Rank 0 serves and pushes the merged intervals: an address it cannot bind is refused the same way.
    if (mine.ok() && !flags.print_job) {
      auto started = live::LiveOutputs::Start(mine->outputs, mine->backend, plan->config.histogram);
      if (started.ok()) live = std::move(*started);
      else mine = started.status();
    }
  }
  auto shared = session.ShareJob(mine);
  if (!shared.ok()) return RankError(session, shared.status());
  if (root && flags.print_job) {
    std::printf("%s\n", shared->ToJson().dump(1).c_str());
  }
  if (flags.print_job) return kExitOk;
  const job::Outputs& out = shared->outputs;
  // Rank 0 shows the merged intervals; the other ranks show nothing.
  report::ProgressDisplay display(out.progress, out.quiet || !root);
  report::RunProgressText text;
  report::RunPhaseInfo info;
  info.phase = fmt::format("{} ranks,", session.size());
  text.StartPhase(info);
  job::RunHooks hooks;
  hooks.stop = stop;
  if (display.on() || live) {
    hooks.progress = [&](const driver::IntervalStats& t) {
      if (live) live->OnInterval(t);
      if (display.on()) display.Update(text.Line(t));
    };
  }
  job::MpiRunOptions options;
  if (!root)
    if (auto own = ResolveJob(flags); own.ok()) options.own_job = own->ToJson();
  auto result = job::RunJobMpi(session, *shared, options, hooks);
  display.Clear();
  if (!result.ok()) return RankError(session, result.status());
  const bool interrupted = stop->load();
  if (!root) return interrupted ? kExitInterrupted : kExitOk;
  job::JobResult& merged = result->merged;
  auto doc = report::BuildRunJson(merged, argv);
  if (!doc.ok()) return ReportError(doc.status());
  (*doc)["mpi"] = result->mpi;
  (*doc)["ranks"] = result->ranks;
  if (!out.quiet) {
    std::fputs((report::HumanSummary(merged.run, fmt::format("{} ({} ranks on {} hosts)", merged.title,
                                                             result->mpi["ranks"].get<int>(),
                                                             result->mpi["hosts"].size())) +
                RanksLine(result->mpi, result->ranks))
                   .c_str(),
               stdout);
    std::fflush(stdout);
  }
  live->FinishPhase(merged.run);
  if (nlohmann::json pushed = live->Finish(); !pushed.is_null()) (*doc)["live"] = std::move(pushed);
  if (Status s = WriteOutputs(out, *doc, merged.run); !s.ok()) return ReportError(s);
  if (!interrupted && !merged.run.interrupted) live->Linger(stop);
  if (interrupted || merged.run.interrupted) return kExitInterrupted;
  return merged.failure.ok() ? kExitOk : ReportError(merged.failure);
}

int ExecutePrepareMpi(job::MpiSession& session, const job::Job& j) {
  auto lines = job::PrepareJobMpi(session, j);
  if (!lines.ok()) return RankError(session, lines.status());
  for (const std::string& line : *lines) std::printf("%s\n", line.c_str());
  return kExitOk;
}

}  // namespace storebench::cli
