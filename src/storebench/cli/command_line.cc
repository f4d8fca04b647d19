// storebench: the command line. The only place that decides exit codes:
// 0 ok, 1 run failed, 2 bad usage or bad input, 130 interrupted (results kept).
#include "storebench/cli/command_line.h"

#include <csignal>
#include <cstdio>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include <fmt/format.h>

#include "storebench/base/build_info.h"
#include "storebench/base/stop_signal.h"
#include "storebench/job/mpi.h"
#include "storebench/cli/compare_command.h"
#include "storebench/cli/default_job.h"
#include "storebench/cli/help_command.h"
#include "storebench/cli/demo.h"
#include "storebench/cli/matrix_command.h"
#include "storebench/cli/report_command.h"
#include "storebench/cli/run_command.h"
#include "storebench/cli/search_command.h"
#include "storebench/cli/table_flags.h"
#include "storebench/whisper/tools.h"

namespace {

std::atomic<bool> g_stop{false};

using namespace storebench::cli;

// The command line: every subcommand's flags and where their values land.
struct CommandLine {
  CLI::App app{"storebench: a benchmark client and read-path toolkit for storage engines.\n"
               "Without a subcommand it runs the default job: a short two-phase RocksDB run\n"
               "(closed-loop capacity, then open loop at half of it) on a small data set it\n"
               "prepares in ./storebench-data (the null-backend demonstration without RocksDB)."};
  RunFlags default_flags, run_flags, prepare_flags;
  CompareFlags compare_flags;
  MatrixFlags matrix_flags;
  ReportFlags report_flags;
  SearchFlags search_flags;
  HelpFlags help_flags;
  CLI::App *help = nullptr;
  CLI::App *run = nullptr, *prepare = nullptr, *demo = nullptr, *compare = nullptr, *matrix = nullptr,
           *report = nullptr, *search = nullptr;

  // The name of the subcommand given, empty for none.
  std::string Subcommand() { return app.get_subcommands().empty() ? "" : app.get_subcommands().front()->get_name(); }
};

void SetUp(CommandLine* c) {
  CLI::App& app = c->app;
  app.require_subcommand(0, 1);
  app.set_version_flag("--version", [] {
    const storebench::BuildInfo& b = storebench::GetBuildInfo();
    return fmt::format("storebench {} (commit {}, {} build, {}; RocksDB {}, liburing {}, Open MPI mode: {}, sanitizers {})",
                       b.version, b.git_commit, b.build_type, b.compiler, b.rocksdb, b.liburing, b.mpi, b.sanitizers);
  });
  // The default job's flags: where its outputs go (as run's), and --print-job.
  c->default_flags.default_job = true;
  AddOutputFlags(&app, &c->default_flags.job.outputs);
  app.add_flag("--print-job", c->default_flags.print_job,
               "print the default job (JSON; storebench run --job FILE reruns it) and exit without running")
      ->group("Job");
  c->run = app.add_subcommand(
      "run", "run a workload against a backend and measure it (--default-job: the default job, changed by flags)");
  AddRunFlags(c->run, &c->run_flags);
  AddDefaultJobFlag(c->run, &c->run_flags);
  c->prepare = app.add_subcommand("prepare", "make a backend's data set");
  AddPrepareFlags(c->prepare, &c->prepare_flags);
  c->demo = app.add_subcommand("demo", "closed vs open loop on the null backend, with stalls");
  app.add_subcommand("whisper",
                     "whisper-create|update|fetch|info|dump in place of Graphite's scripts: "
                     "storebench whisper create|update|fetch|info|dump ARGS (same arguments and output)");
  c->compare = app.add_subcommand("compare", "is B faster than A? t-test and bootstrap CIs over run results");
  AddCompareFlags(c->compare, &c->compare_flags);
  c->matrix = app.add_subcommand("matrix", "run variants interleaved, repeated, stored in one directory; compare them");
  AddMatrixFlags(c->matrix, &c->matrix_flags);
  c->report = app.add_subcommand(
      "report", "a self-contained HTML report of runs, a matrix or an .hlog; HdrHistogram .hlog/.hgrm of a run");
  AddReportFlags(c->report, &c->report_flags);
  c->search = app.add_subcommand(
      "search", "the highest rate at which latency goals hold: closed-loop capacity, then bisected open loops");
  AddSearchFlags(c->search, &c->search_flags);
  c->help = app.add_subcommand("help", "the references the documentation holds, printed from the code (--markdown)");
  AddHelpFlags(c->help, &c->help_flags);
  RefuseEmptyValues(&app);
}

// Parses argv; returns an exit code when the process ends here (help, version, a parse error).
std::optional<int> Parse(CommandLine* c, int argc, char** argv, const storebench::job::MpiSession* mpi) {
  try {
    c->app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return c->app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return c->app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return c->app.exit(e);
  } catch (const CLI::ParseError& e) {
    if (mpi && mpi->rank() != 0) return kExitBadInput;  // rank 0 says it, once
    std::string where = c->Subcommand().empty() ? "" : " " + c->Subcommand();
    std::fprintf(stderr, "storebench%s: %s (see storebench%s --help)\n", where.c_str(), ParseErrorText(e).c_str(),
                 where.c_str());
    return kExitBadInput;
  }
  return std::nullopt;
}

// The first of the default job's flags given, if any.
const CLI::Option* DefaultJobFlagGiven(const CLI::App& app) {
  for (const CLI::Option* o : app.get_options())
    if ((o->get_group() == "Outputs" || o->get_group() == "Job") && o->count() > 0) return o;
  return nullptr;
}

// Under mpirun: run and prepare on every rank; anything else is refused.
int ExecuteUnderMpi(CommandLine& c, storebench::job::MpiSession& mpi, const std::vector<std::string>& args) {
  if (c.run->parsed()) {
    NoteParsed(c.run, &c.run_flags);
    return ExecuteRunMpi(mpi, c.run_flags, args, &g_stop);
  }
  if (c.prepare->parsed()) return ExecutePrepareMpi(mpi, c.prepare_flags.job);
  // Every rank would run the whole command on its own: one search, matrix
  // or report per rank, all writing the same files.
  if (mpi.rank() != 0) return kExitBadInput;
  const std::string what = c.Subcommand().empty() ? std::string("the default job") : c.Subcommand();
  return ReportError(storebench::Status::InvalidArgument(
      fmt::format("{}: not under mpirun, where each rank would run it on its own into the same files; run it once "
                  "without mpirun (matrix --launcher \"mpirun -n N\" runs each of its runs on N ranks)",
                  what)));
}

int Execute(CommandLine& c, const std::vector<std::string>& args, const CLI::Option* default_job_flag) {
  if (c.run->parsed()) {
    NoteParsed(c.run, &c.run_flags);
    auto job = ResolveJob(c.run_flags);
    if (!job.ok()) return ReportError(job.status());
    if (c.run_flags.default_job) return RunDefaultJob(*job, args, &g_stop, c.run_flags.print_job);
    return ExecuteRun(*job, args, &g_stop, c.run_flags.print_job, c.run_flags.job_file);
  }
  if (c.prepare->parsed()) return ExecutePrepare(c.prepare_flags.job, &g_stop);
  if (c.compare->parsed()) return ExecuteCompare(c.compare_flags);
  if (c.matrix->parsed()) return ExecuteMatrix(c.matrix_flags, &g_stop);
  if (c.report->parsed()) return ExecuteReport(c.report_flags);
  if (c.search->parsed()) return ExecuteSearch(c.search_flags, args, &g_stop);
  if (c.demo->parsed()) return RunDemo(&g_stop);
  if (c.help->parsed()) return ExecuteHelp(c.help_flags, c.app);
#if STOREBENCH_HAVE_ROCKSDB
  (void)default_job_flag;
  auto job = ResolveJob(c.default_flags);
  if (!job.ok()) return ReportError(job.status());
  return RunDefaultJob(*job, args, &g_stop, c.default_flags.print_job);
#else
  // Without RocksDB the default is the demonstration, which writes no files:
  // an output flag gets the default job's message instead of being ignored.
  if (default_job_flag) return RunDefaultJob(c.default_flags.job, args, &g_stop, c.default_flags.print_job);
  return RunDemo(&g_stop);
#endif
}

int Dispatch(int argc, char** argv) {
  std::vector<std::string> args(argv, argv + argc);
  // The whisper tools keep whisper-create/update/fetch/info/dump's own
  // argument syntax, so they are dispatched before this parser sees them.
  if (argc >= 2 && args[1] == "whisper")
    return storebench::whisper::RunWhisperTool({args.begin() + 2, args.end()}, std::cout, std::cerr);
  // SIGINT and SIGTERM (and, under mpirun, SIGUSR1: mpirun answers SIGINT by
  // tearing the job down itself and forwards SIGUSR1 to every rank) end the
  // run the graceful way, results kept; a second one ends the process. Before
  // any thread starts, MPI's included: they inherit the blocked mask.
  storebench::base::WatchStopSignals(&g_stop, storebench::job::LaunchedByMpi());
  // A closed pipe on stdout (`storebench run … | head`) must not kill the
  // process before it writes its result files; the write error is reported instead.
  std::signal(SIGPIPE, SIG_IGN);
  // Started by mpirun: every rank runs the job (job/mpi.h).
  std::unique_ptr<storebench::job::MpiSession> mpi;
  if (storebench::job::LaunchedByMpi()) {
    auto session = storebench::job::MpiSession::Init(&argc, &argv);
    if (!session.ok()) return ReportError(session.status());
    mpi = std::move(*session);
  }
  CommandLine c;
  SetUp(&c);
  if (auto done = Parse(&c, argc, argv, mpi.get())) return *done;
  const CLI::Option* default_job_flag = DefaultJobFlagGiven(c.app);
  if (!c.Subcommand().empty() && default_job_flag) {
    if (mpi && mpi->rank() != 0) return kExitBadInput;
    const std::string sub = c.Subcommand();
    return ReportError(storebench::Status::InvalidArgument(
        fmt::format("{} is given before the subcommand '{}': give it after it (storebench {} {} …)",
                    default_job_flag->get_name(), sub, sub, default_job_flag->get_name())));
  }
  if (mpi) return ExecuteUnderMpi(c, *mpi, args);
  return Execute(c, args, default_job_flag);
}

}  // namespace

namespace storebench::cli {

int Main(int argc, char** argv) {
  const int rc = Dispatch(argc, argv);
  // SIGPIPE is ignored, so a reader that went away shows up here: say so
  // rather than end silently (the result files were written before this).
  if (std::fflush(stdout) != 0 || std::ferror(stdout)) {
    std::fprintf(stderr, "storebench: writing to standard output failed (the reader closed it); result files, if "
                         "any, were written\n");
    return rc == 0 ? 1 : rc;
  }
  return rc;
}

}  // namespace storebench::cli
