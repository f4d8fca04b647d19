// The loop each worker thread runs: submit ops at the intended times (open
// loop) or back to back (closed loop), keep up to queue_depth in flight, and
// record every completion into the worker's own recorder. Internal to driver/.
#pragma once

#include <atomic>
#include <cstdint>
#include <vector>

#include "storebench/backend/backend.h"
#include "storebench/driver/config.h"
#include "storebench/driver/dispatch.h"
#include "storebench/driver/ideal_client.h"
#include "storebench/driver/schedule.h"
#include "storebench/driver/wait_policy.h"
#include "storebench/measure/op_policy.h"

namespace storebench::driver::internal {

// Instants shared by all workers, fixed before they start (Clock ns): the
// measured window every op's policy draws its lines by (OpWindow:
// measure_start_ns, the end of warm-up, and end_ns), and the loop's own.
struct Timing : measure::OpWindow {
  uint64_t start_ns = 0;  // arrivals' t = 0
  uint64_t drain_timeout_ns = 0;
  // Waiting for an arrival (wait_policy.h).
  WaitPolicy wait;
};

// What a worker publishes for the reporter; written by the worker, read by the
// reporter with relaxed loads (on its own cache line, never shared by workers).
struct alignas(64) WorkerProgress {
  std::atomic<uint64_t> next_intended_ns{UINT64_MAX};  // absolute; UINT64_MAX = none pending
  std::atomic<uint64_t> warmup_ops{0};
  std::atomic<uint64_t> unfinished{0};
  std::atomic<uint64_t> unstarted{0};  // open loop, partitioned: due before the stop, never started
  // The largest start lag and backlog seen at an op's start since the reporter
  // last took them (it resets them to 0 each interval).
  std::atomic<uint64_t> max_lag_ns{0};
  std::atomic<uint64_t> max_backlog{0};
  // Set when an op starts behind arrivals already due; the reporter clears it
  // at each of its wake-ups (CpuAccount::Slot).
  std::atomic<bool> behind{false};
  std::atomic<int> tid{0};
  // Over the measured window, set when the worker ends: its run-queue wait,
  // involuntary switches and time on a CPU.
  std::atomic<uint64_t> runqueue_wait_ns{0};
  std::atomic<uint64_t> involuntary_switches{0};
  std::atomic<uint64_t> cpu_ns{0};
  // Its time on a CPU since the thread began, when it ended (the reporter's
  // last CPU account reads it after the thread is gone: cpu_account.h).
  std::atomic<uint64_t> cpu_at_end_ns{0};
  std::atomic<uint64_t> sleeps{0}, late_sleeps{0}, late_yields{0}, max_spin_window_ns{0};  // the wait policy, set at the end
  std::atomic<uint64_t> finished_ns{0};  // Clock ns when its loop ended (after its last op completed)
  // Open loop: false when it did not measure its waits for a CPU inside its
  // ops (not asked to, or no schedstat descriptor could be had).
  std::atomic<bool> waits_measured{true};
  std::atomic<bool> done{false};
};

struct WorkerLoopArgs {
  backend::Worker* worker = nullptr;
  ArrivalSource* source = nullptr;  // null = closed loop; own or shared (dispatch.h)
  bool shared_source = false;       // unstarted arrivals are counted by the runner
  WorkerProgress* progress = nullptr;
  const Timing* timing = nullptr;
  int queue_depth = 1;
  OpLog* log = nullptr;  // open loop: every op, warm-up included, for the ideal client (ideal_client.h)
  // Open loop: measure the worker's waits for a CPU inside its ops
  // (OpRecord::preempted_ns); the runner asks it of every worker or of none.
  bool measure_waits = false;
  // What happens around each op (measure/op_policy.h): its window is *timing
  // and its warm-up count progress->warmup_ops; its ops_limit is for closed
  // loops (an open loop's is its source's).
  measure::OpPolicy::Args policy;
};

void RunWorkerLoop(const WorkerLoopArgs& args);

}  // namespace storebench::driver::internal
