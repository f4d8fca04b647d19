// The `run` and `prepare` subcommands: flags → Job → plan → result → files
// and exit code. cli/ is the only layer that decides exit codes.
#pragma once

#include <CLI/CLI.hpp>
#include <atomic>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "storebench/cli/exit_code.h"
#include "storebench/base/status.h"
#include "storebench/job/job.h"

namespace storebench {
namespace job {
class MpiSession;
}
}  // namespace storebench

namespace storebench::cli {

// What `run`'s flags gave: the options given (only those), the job file and
// what to do with it.
struct RunFlags {
  job::Job job;              // the values given on the command line
  bool backend_given = false;
  std::string job_file;      // --job FILE
  bool print_job = false;    // --print-job
  bool default_job = false;  // --default-job: the default job (default_job.h) in place of a --job file
};

// Adds run's flags (core options, every backend's options grouped by backend,
// outputs, --job, --print-job) to `app`, collected into `flags`.
void AddRunFlags(CLI::App* app, RunFlags* flags);
// Adds --progress auto|always|never (an output setting: job::Outputs).
void AddProgressFlag(CLI::App* app, job::ProgressMode* mode);
// Adds the output flags (--json, --csv, --html, --hlog, --hgrm, --title,
// --quiet, --progress): `run`'s, and the default job's with no subcommand.
void AddOutputFlags(CLI::App* app, job::Outputs* outputs);
// Adds --default-job (run only: matrix and search take their own jobs).
void AddDefaultJobFlag(CLI::App* app, RunFlags* flags);
// Adds prepare's flags.
void AddPrepareFlags(CLI::App* app, RunFlags* flags);
// After parsing: whether --backend was on the command line.
void NoteParsed(CLI::App* app, RunFlags* flags);

// The job `flags` describe: the --job file or the default job (if either)
// with the command line's values on top. The core options named in
// `caller_sets` are dropped from the file (a search sets each step's duration
// itself), not from the command line.
StatusOr<job::Job> ResolveJob(const RunFlags& flags, const std::vector<std::string>& caller_sets = {});

// Parses `args` (what follows `storebench run`) exactly as `run` does, --job
// file included, into the job they describe. InvalidArgument with CLI11's or
// the job file's message.
StatusOr<job::Job> ParseRunArgs(const std::vector<std::string>& args, const std::vector<std::string>& caller_sets = {});

// Runs a job; returns the exit code. `argv` is kept in the JSON. `job_file`,
// the --job it came from, is an input no output may replace.
int ExecuteRun(const job::Job& job, const std::vector<std::string>& argv, const std::atomic<bool>* stop,
               bool print_job = false, const std::string& job_file = "");
int ExecutePrepare(const job::Job& job, const std::atomic<bool>* stop);

// Under mpirun: `run` and `prepare` on every rank; rank 0 plans the job from
// `flags`, shares it, merges and writes the result. Every rank returns the same exit code.
int ExecuteRunMpi(job::MpiSession& session, const RunFlags& flags, const std::vector<std::string>& argv,
                  const std::atomic<bool>* stop);
int ExecutePrepareMpi(job::MpiSession& session, const job::Job& job);

// CLI11's message for a parse error, in this project's words where CLI11's
// would puzzle a first-time user ("--json: given 2 times; give it once").
std::string ParseErrorText(const CLI::ParseError& error);

// Writes an output with `write(path)`; when that fails (a full disk, a
// directory gone) writes it elsewhere rather than lose what was measured:
// the first of $TMPDIR, /var/tmp, /tmp and $HOME that takes it, as
// storebench-rescued-PID-NAME. Ok, or IOError "FLAG not written: WHY; its
// content is in RESCUED" (or "…nowhere else could take it either"). An
// existing file at `path` is left as it was (WriteFileAtomically).
Status WriteOrRescue(std::string_view flag, const std::string& path,
                     const std::function<Status(const std::string&)>& write);

}  // namespace storebench::cli
