// Runs a child process (a `storebench run` of a matrix, a --cache-reset
// command) and waits for it, with this process's signal set-up undone for the
// child: SIGPIPE's default back, no blocked signals (base/stop_signal.h blocks
// the stop signals here).
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "storebench/base/status.h"

namespace storebench::experiment {

// Runs argv[0] (found on PATH) with `argv`; returns its exit code, or 128 +
// the signal that ended it. stdout goes to /dev/null when `quiet`; `tick`
// (may be empty) is called about every 100 ms while the child runs;
// `stderr_fd` (if not -1) becomes the child's stderr.
StatusOr<int> SpawnAndWait(const std::vector<std::string>& argv, bool quiet, const std::function<void()>& tick = {},
                           int stderr_fd = -1);

}  // namespace storebench::experiment
