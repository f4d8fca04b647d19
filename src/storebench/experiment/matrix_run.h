// Runs a matrix's runs that are not stored yet, in the grid's order
// (experiment::OrderRuns), each as a child `storebench run` (spawn.h) that
// writes its run document into the matrix's directory: a resumed matrix runs
// only the rest. cli/matrix_command.cc plans the grid from the flags, says
// how a child's command line is built, and draws the progress.
#pragma once

#include <atomic>
#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "storebench/base/status.h"
#include "storebench/experiment/matrix_grid.h"
#include "storebench/report/compare.h"

namespace storebench::experiment {

// One run of the grid still to do, as its child is started.
struct GridChild {
  size_t index = 0;    // among the runs to do
  size_t variant = 0;  // among the variants
  int repeat = 0;
  std::string path;               // the run document the child writes
  std::vector<std::string> argv;  // its command line
  int stderr_fd = -1;             // the child's stderr; -1 = this process's
};

// What the grid's runner is told as it goes (each may be empty).
struct GridWatch {
  std::function<void(GridChild*)> before;                        // may change argv's progress flag and stderr_fd
  std::function<void(const GridChild&)> tick;                    // about every 100 ms while the child runs
  std::function<void(const GridChild&, double seconds)> after;   // the child ended, whatever its exit code
  std::function<void(const GridChild&, const report::RunRecord&)> stored;  // its run document, read back
};

// How the grid's runs ended when no error stopped them.
struct GridEnd {
  bool interrupted = false;  // stopped here between children
  int failed_exit_code = 0;  // a child that exited non-zero (interrupted too): its exit code
  std::string failed;        // that child's run, "VARIANT #REPEAT"
};

struct GridRunSettings {
  std::string out_dir;
  std::string cache_reset;  // a shell command run before each child; "" = none
  // The child's command line for a variant and the run document it writes.
  std::function<std::vector<std::string>(const MatrixVariant&, const std::string& path)> command;
};

// Runs `order.todo` in order. An error (a child that could not be started, a
// --cache-reset that failed, a document that cannot be read) is the status;
// a stop or a child's non-zero exit ends the grid as GridEnd says (cli/
// maps the exit code: cli/exit_code.h).
StatusOr<GridEnd> RunGridChildren(const std::vector<MatrixVariant>& variants, const GridOrder& order,
                                  const GridRunSettings& settings, const std::atomic<bool>* stop,
                                  const GridWatch& watch);

}  // namespace storebench::experiment
