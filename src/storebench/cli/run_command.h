// The `run` and `prepare` subcommands: Job → plan → result → files and exit
// code (their flags: run_flags.h). cli/ is the only layer that decides exit codes.
#pragma once

#include <CLI/CLI.hpp>
#include <atomic>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "storebench/cli/exit_code.h"
#include "storebench/cli/run_flags.h"
#include "storebench/base/status.h"
#include "storebench/job/job.h"

namespace storebench {
namespace job {
class MpiSession;
}
}  // namespace storebench

namespace storebench::cli {

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

// Writes an output with `write(path)`; when that fails (a full disk, a
// directory gone) writes it elsewhere rather than lose what was measured:
// the first of $TMPDIR, /var/tmp, /tmp and $HOME that takes it, as
// storebench-rescued-PID-NAME. Ok, or IOError "FLAG not written: WHY; its
// content is in RESCUED" (or "…nowhere else could take it either"). An
// existing file at `path` is left as it was (WriteFileAtomically).
Status WriteOrRescue(std::string_view flag, const std::string& path,
                     const std::function<Status(const std::string&)>& write);

}  // namespace storebench::cli
