// How storebench ends: the one mapping from a failure to its exit code and
// its one-line message. Only cli/ ends the process (docs/architecture.md);
// every command returns through here.
//
//   0    ok
//   1    the run failed (I/O, the engine, a step that did not hold)
//   2    bad usage or bad input: a flag or value (naming the flag and the
//        accepted form), a missing or corrupt data set (Status::IsBadInput)
//   130  interrupted (SIGINT/SIGTERM): results of what was measured are written
#pragma once

#include "storebench/base/status.h"

namespace storebench::cli {

enum ExitCode { kExitOk = 0, kExitRunFailed = 1, kExitBadInput = 2, kExitInterrupted = 130 };

// The exit code for `status` (kExitOk when it is ok).
int ExitCodeOf(const Status& status);

// Prints "storebench: <message>" to stderr and returns ExitCodeOf(status).
int ReportError(const Status& status);

// A child storebench's exit code as a failure of this one (a matrix's run):
// bad input stays bad input, anything else is a failed run. `what` names it.
Status ChildFailure(int exit_code, const std::string& what);

}  // namespace storebench::cli
