// How a worker waits for its next open-loop arrival: the wait policy.
//
// A sleep on this kind of host wakes ~50 µs late at the median and up to a few
// milliseconds late in the tail; a worker that sleeps through a gap shorter
// than that tail adds the tail to the start lag it reports. So a worker sleeps
// only while the arrival is further away than its spin window, and spends the
// window awake. The window starts at the wake-up latency tail measured at
// start-up and follows what this worker's own sleeps overshoot: a sleep that
// woke later than the window widens it to that lateness (up to a cap); sleeps
// that woke in time narrow it slowly back towards the measured floor.
//
// Awake is not the same as owning a CPU. When the workers leave no CPU free
// (as many workers as CPUs), the awake stretch yields the CPU on every turn
// (sched_yield), so the reporter, the hiccup meter and the engine's own threads
// run as soon as they are runnable; otherwise it spins with a pause. A thread
// that yields stays runnable behind every other runnable thread, where one
// that sleeps is woken with the scheduler's credit: beside a busy neighbour a
// yield came back 2.6-3.1 ms late (docs/open-loop.md). So when a yielding
// stretch ends later than the window (what a sleep would have cost), the
// worker sleeps through its next kSleepTurns windows instead, then tries
// yielding again. A yielding stretch is late for another reason too: the
// platform stopped the CPU (a host that did not run the vCPU for a
// millisecond), and sleeping would then only add a wake-up to the next stops.
// A worker that can tell the two apart (its run-queue wait over the stretch)
// confirms a late yield itself (`confirm_late_yields`): only another thread's
// hold on the CPU turns the next windows into sleeps.
//
// Under a real-time policy (chrt) the window does not adapt: a real-time
// thread's sleeps wake in time unless the kernel's real-time throttling
// stopped it (sched_rt_runtime_us: 50 ms of every second once real-time
// threads have run 950 ms), and widening the window then would spin more and
// keep the throttle on — measured: 2.9 s of user CPU in a 3 s run at 11 %
// load, and p99 35.7 ms against 0.2 ms sleeping.
//
// Thread-safety: a Waiter belongs to one worker thread. WaitPolicy is plain data.
#pragma once

#include <cstdint>

#include "storebench/driver/config.h"
#include "storebench/measure/clock.h"

namespace storebench::driver {

struct WaitPolicy {
  uint64_t floor_ns = 60'000;   // the window never narrows below this (0 = always sleep)
  uint64_t cap_ns = 60'000;     // nor widens above this
  bool adapt = false;           // follow this worker's own oversleeps
  bool yield = false;           // awake stretch gives the CPU to any runnable thread
};

// The policy of each --wait mode; `tail_ns` is the measured wake-up latency
// tail, `cpus_left` whether the workers leave a CPU free for everything else,
// `realtime` whether the workers run under SCHED_FIFO or SCHED_RR.
WaitPolicy WaitPolicyFor(WaitMode mode, uint64_t tail_ns, bool cpus_left, bool realtime = false);
// Whether the calling thread runs under a real-time policy (SCHED_FIFO, SCHED_RR).
bool RunsRealtime();

class Waiter {
 public:
  // `confirm_late_yields`: a late yielding stretch only marks itself
  // (late_yield_pending()); the caller decides with YieldWasLate().
  explicit Waiter(const WaitPolicy& p, bool confirm_late_yields = false)
      : p_(p), window_ns_(p.floor_ns), max_window_ns_(p.floor_ns), confirm_late_yields_(confirm_late_yields) {}

  // Waits towards `deadline_ns` (Clock ns): sleeps while it is more than the
  // window away, at most `max_sleep_ns` at once so the caller re-checks its
  // stop flag; returns after one sleep, or at the deadline after staying awake.
  void WaitTowards(const measure::Clock& clock, uint64_t deadline_ns, uint64_t max_sleep_ns);

  // The last wait's final gap, when it ended awake at its deadline: the
  // clock's last read before the deadline and its first read at or after it
  // (both 0 when the wait slept or the deadline had passed already). One turn
  // of the awake loop takes ~50 ns spinning and ~1 µs yielding; a gap far
  // longer is time the worker, awake, did not run: another thread held its
  // CPU (its run-queue wait says how long) or the platform stopped the CPU.
  struct Gap {
    uint64_t before_ns = 0, after_ns = 0;
  };
  Gap last_gap() const { return gap_; }
  // The last wait was a yielding stretch that ended later than the window
  // (only with confirm_late_yields; cleared by the next wait).
  bool late_yield_pending() const { return late_pending_; }
  // Another thread held the CPU through that lateness: sleep the next kSleepTurns windows.
  void YieldWasLate() {
    ++late_yields_;
    sleep_turns_ = kSleepTurns;
  }

  uint64_t window_ns() const { return window_ns_; }
  uint64_t max_window_ns() const { return max_window_ns_; }
  uint64_t sleeps() const { return sleeps_; }
  uint64_t late_sleeps() const { return late_sleeps_; }  // woke later than the window then was
  // Yielding stretches that ended later than the window: each one made the
  // next kSleepTurns windows sleeps.
  uint64_t late_yields() const { return late_yields_; }
  static constexpr uint32_t kSleepTurns = 256;

 private:
  WaitPolicy p_;
  uint64_t window_ns_;
  uint64_t max_window_ns_;
  uint64_t sleeps_ = 0, late_sleeps_ = 0, late_yields_ = 0;
  uint32_t sleep_turns_ = 0;  // windows left to sleep through after a late yield
  bool confirm_late_yields_;
  bool late_pending_ = false;
  Gap gap_;
};

}  // namespace storebench::driver
