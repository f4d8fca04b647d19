// The live progress line of every long step (prepare, run, matrix), and the
// text it shows.
//
// ProgressDisplay writes to one file descriptor (stderr), never to stdout,
// where summaries go. On a terminal it redraws one line in place ("\r" +
// erase), cut to the terminal's width (TIOCGWINSZ) so it never wraps, at most
// every 100 ms; elsewhere (mode always) it prints a plain line at most every
// few seconds, for logs and CI. Clear() (and the destructor) erase the live
// line, so whatever follows — the summary, an error, the shell prompt after
// SIGINT — starts on a clean line. Before drawing it flushes stdout, so a
// summary and the live line never interleave.
// Thread-safety: one thread at a time (the reporter or the main thread).
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "storebench/backend/backend.h"
#include "storebench/driver/runner.h"
#include "storebench/job/job.h"

namespace storebench::report {

class ProgressDisplay {
 public:
  struct Options {
    int fd = 2;                   // stderr
    double redraw_period_s = 0.1;  // terminal
    double plain_period_s = 5;    // not a terminal (mode always)
  };
  // `quiet` (run --quiet) turns it off whatever the mode.
  explicit ProgressDisplay(job::ProgressMode mode, bool quiet = false) : ProgressDisplay(mode, quiet, Options{}) {}
  ProgressDisplay(job::ProgressMode mode, bool quiet, Options options);
  ~ProgressDisplay() { Clear(); }
  ProgressDisplay(const ProgressDisplay&) = delete;
  ProgressDisplay& operator=(const ProgressDisplay&) = delete;

  bool on() const { return on_; }
  bool terminal() const { return terminal_; }
  // Shows `line` (one line, no newline), unless one was shown less than a
  // period ago and `force` is false.
  void Update(std::string_view line, bool force = false);
  // Whether Update() would draw now: lets a caller skip making a line.
  bool Due() const;
  // Erases the live line (terminal); nothing to do elsewhere.
  void Clear();

 private:
  bool on_ = false, terminal_ = false, drawn_ = false;
  Options options_;
  std::chrono::steady_clock::time_point last_{};
};

// "[#######.......]" of `width` characters in all, ASCII.
std::string ProgressBar(double fraction, int width);
// A short duration for a progress line: "0.8s", "12.3s", "4m05s", "2h04m".
std::string FormatSeconds(double s);

// The line of a prepare: the step, done out of the total as a bar and a
// percentage, the rate, elapsed and time left. Keeps the start of each step.
class PrepareProgressText {
 public:
  std::string Line(const backend::PrepareProgress& p);

 private:
  std::string step_;
  std::chrono::steady_clock::time_point step_start_{}, start_{};
  bool started_ = false;
};

// What a run's progress line needs to know of the phase being run.
struct RunPhaseInfo {
  // "closed loop,", "open loop constant:8000,", "phase 1 closed loop,", "phase 2 open loop 8.0k/s,"
  std::string phase;
  double warmup_s = 0;
  double duration_s = 0;          // 0: bounded by ops only
  uint64_t ops = 0;               // measured ops to run in all; 0: no limit
  // The open-loop groups' schedules: the target rate shown is theirs at the
  // tick (summed), so sine and step schedules show what they ask for then.
  std::vector<driver::ScheduleSpec> schedules;
};

// The line of a run: phase, elapsed out of the total (or ops out of --ops) as
// a bar, time left, and the interval's figures (throughput, latency; achieved
// vs target rate and backlog for an open loop). Counts the phase's ops.
class RunProgressText {
 public:
  // A new phase: the ops count starts again.
  void StartPhase(RunPhaseInfo info);
  std::string Line(const driver::IntervalStats& tick);
  // Before the phase's first tick: the phase that begins (warm-up, or
  // measuring when there is none) at 0% of its total, e.g.
  // "closed loop, warm-up [..........]   0% 0.0s/1.0s | starting".
  std::string Starting() const;

 private:
  // "[####......]  40% 4.0s/10.0s 6.0s left" (or ops of --ops) after `t_s` measured seconds.
  std::string MeasuredHead(double t_s) const;

  RunPhaseInfo info_;
  uint64_t ops_ = 0;
};

}  // namespace storebench::report
