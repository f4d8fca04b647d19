// A child's progress, relayed: `matrix` gives each `run` it starts a
// pseudo-terminal as stderr, so the child draws its own live line (phase,
// elapsed of the total, time left) as it would for a user; the grid reads it
// from the terminal's other side and shows it inside its own line. Whatever
// else the child writes there (an error line) is handed back to be printed.
// Thread-safety: one thread.
#pragma once

#include <string>

namespace storebench::cli {

class RelayedProgress {
 public:
  RelayedProgress() = default;
  ~RelayedProgress();
  RelayedProgress(const RelayedProgress&) = delete;
  RelayedProgress& operator=(const RelayedProgress&) = delete;

  // Opens the pseudo-terminal (raw, 512 columns so the child cuts nothing).
  // False when the platform has none: the caller estimates instead.
  bool Open();
  // The descriptor to give the child as its stderr; -1 before Open().
  int child_fd() const { return slave_; }
  // Reads what the child wrote so far; returns the lines it printed
  // (newline-terminated) other than its live line, which line() now holds.
  std::string Drain();
  // The child's latest live line; empty before its first or after it cleared it.
  const std::string& line() const { return line_; }

 private:
  int master_ = -1, slave_ = -1;
  std::string pending_, line_;
};

}  // namespace storebench::cli
