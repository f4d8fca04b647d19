// What the driver asks of the platform about its own threads: the run-queue
// wait and involuntary context switches of a thread (how long it was ready to
// run but had no CPU), how late a sleep wakes up, which CPUs the process may
// use, and pinning a thread to CPUs.
// Thread-safety: free functions; each reads or changes only the calling
// thread, except RunqueueWaitNs(tid), which reads another thread's /proc entry,
// and RaiseToFinish, which changes the threads it is given.
#pragma once

#include <pthread.h>
#include <sched.h>
#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "storebench/base/status.h"
#include "storebench/measure/clock.h"

namespace storebench::driver {

struct ThreadSched {
  uint64_t runqueue_wait_ns = 0;     // /proc/thread-self/schedstat, 2nd field
  uint64_t involuntary_switches = 0;  // getrusage(RUSAGE_THREAD).ru_nivcsw
  uint64_t cpu_ns = 0;                // time on a CPU: schedstat's 1st field (else rusage user + sys)
};

pid_t CurrentTid();
// The calling thread's figures so far.
ThreadSched OwnThreadSched();
// Another thread's run-queue wait so far; nullopt when it has exited or schedstat is missing.
std::optional<uint64_t> RunqueueWaitNs(pid_t tid);

// The calling thread's run-queue wait, read through a descriptor kept open
// (one pread of /proc/thread-self/schedstat, ~1.7 us on this project's VM).
// Construct and read on the thread it is about. At most kMaxOpen readers
// hold a descriptor at once in the process (an engine's files come first);
// ok() is false beyond them and without schedstat.
class RunqueueReader {
 public:
  static constexpr int kMaxOpen = 64;
  RunqueueReader();
  ~RunqueueReader();
  RunqueueReader(const RunqueueReader&) = delete;
  RunqueueReader& operator=(const RunqueueReader&) = delete;
  bool ok() const { return fd_ >= 0; }
  // ns waited so far; UINT64_MAX when unreadable (no wait is then measured from it).
  uint64_t WaitNs() const;

 private:
  int fd_ = -1;
};

// How late `samples` short sleeps woke up: the wake-up latency an open loop
// must plan for when it gives its CPU back before an arrival. The tail (p99)
// decides how close to an arrival a worker may sleep (wait_policy.h).
struct WakeupLatency {
  uint64_t p50_ns = 0, p99_ns = 0, max_ns = 0;
  int samples = 0;
};
WakeupLatency MeasureWakeupLatency(const measure::Clock& clock, int samples = 200);

// CPUs this process may run on (its affinity mask), in order.
std::vector<int> AllowedCpus();
// "0-3,6" -> {0,1,2,3,6}; InvalidArgument naming `flag` for anything else or a
// CPU the process may not use.
StatusOr<std::vector<int>> ParseCpuList(std::string_view text, std::string_view flag = "--cpus");
// Pins the calling thread to `cpus` (all of them: it may run on any).
Status PinCurrentThread(const std::vector<int>& cpus);

// Raises each of `threads` to SCHED_FIFO at the lowest real-time priority, so
// that each runs at once instead of waiting its turn among every runnable
// thread: a stop request is then seen by thousands of busy workers on two
// CPUs within milliseconds, not after the scheduler's whole round (seconds).
// Only for threads about to end. Returns how many were raised; a thread that
// has already ended is skipped. PermissionDenied (nothing raised) without
// CAP_SYS_NICE or an RLIMIT_RTPRIO of at least 1.
StatusOr<int> RaiseToFinish(const std::vector<pthread_t>& threads);

// Puts the calling thread's scheduling policy and priority back, when
// destroyed, to what they were when it was made: a stop signal raises the
// thread that drives a run (base/stop_signal.h), and what runs after that run
// (an MPI exchange that polls, the next job) must not keep real-time priority.
class KeepThreadScheduling {
 public:
  KeepThreadScheduling();
  ~KeepThreadScheduling();
  KeepThreadScheduling(const KeepThreadScheduling&) = delete;
  KeepThreadScheduling& operator=(const KeepThreadScheduling&) = delete;

 private:
  int policy_ = -1;
  sched_param param_{};
};

}  // namespace storebench::driver
