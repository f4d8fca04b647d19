// The flags of `run` and `prepare` (and of the default job), and the Job
// they describe: CLI11 option tables → job::Job. run_command.h runs the job.
#pragma once

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

#include "storebench/base/status.h"
#include "storebench/job/job.h"

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
// --metrics-listen, --metrics-linger, --quiet, --progress): `run`'s, and the
// default job's with no subcommand.
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

// CLI11's message for a parse error, in this project's words where CLI11's
// would puzzle a first-time user ("--json: given 2 times; give it once").
std::string ParseErrorText(const CLI::ParseError& error);

}  // namespace storebench::cli
