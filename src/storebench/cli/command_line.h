// The storebench program: its subcommands' flags, MPI start-up, the stop
// signals, and the exit-code contract (0 ok, 1 run failed, 2 bad usage or bad
// input, 130 interrupted with results kept). main.cc only calls Main, so the
// command line compiles with the rest of cli/ (it and CLI11's inline code
// were a 20-30 s compile of their own).
#pragma once

namespace storebench::cli {

// Runs storebench with `argv` and returns the process's exit code.
int Main(int argc, char** argv);

}  // namespace storebench::cli
