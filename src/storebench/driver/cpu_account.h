// Who held the CPU during a run: the workers, the engine's own threads (every
// thread of this process that is neither a worker nor the client's), the
// client's auxiliary threads (the reporter, the hiccup meter, the signal
// waiter: threads named "sb:…"), and everything else on the machine (other
// processes and kernel threads from /proc/stat, less this process; the
// hypervisor's steal apart). The reporter samples it once per interval; the
// deltas are what an interval's and the run's attribution weigh (causes.h).
//
// Sources: a thread's time on a CPU is its schedstat's first field (ns, exact);
// the process's is getrusage(RUSAGE_SELF), which also counts threads that have
// exited; the machine's is /proc/stat's ticks (USER_HZ, 10 ms on this kernel).
// Other processes are counted on the CPUs the workers may run on (--cpus, or
// all online CPUs): a competitor on a CPU no worker uses delays none of them.
// Per-CPU time of this process is not known, so all of it is taken off those
// CPUs' busy time (others_ns is a lower bound when workers are pinned), except
// the time of threads whose affinity keeps them off those CPUs (the reporter
// and the hiccup meter under --cpus): they held none of the workers' CPUs and
// count in no share.
// The engine's share is the process's less the workers' and the client's, so
// an engine thread that ends mid-interval is still counted; its breakdown by
// thread name comes from the live threads.
// Thread-safety: one thread (the reporter) calls everything.
#pragma once

#include <sys/types.h>

#include <atomic>
#include <cstdint>
#include <algorithm>
#include <map>
#include <string>
#include <vector>

namespace storebench::driver {

// CPU time held during a window, in ns.
struct CpuHeld {
  uint64_t workers_ns = 0;
  uint64_t engine_ns = 0;  // the process's threads that are neither workers nor the client's
  uint64_t client_ns = 0;  // the client's auxiliary threads
  uint64_t others_ns = 0;  // other processes and the kernel on the workers' CPUs: their busy time less this process
  uint64_t steal_ns = 0;   // time the hypervisor ran someone else while a vCPU wanted to run
  uint64_t capacity_ns = 0;  // online CPUs × the window's length
  // Sampled at the reporter's wake-ups (Slot()): the workers' time with arrivals
  // due and not yet started (summed over workers), and their run-queue wait in it.
  uint64_t backlogged_ns = 0;
  uint64_t backlogged_runqueue_ns = 0;
  // The workers' waits for a CPU measured inside ops (ideal_client.h,
  // OpRecord::preempted_ns) of the ops that arrived in the window: filled at
  // the end of the run.
  uint64_t preempted_in_ops_ns = 0;
  // The platform's stops the workers measured while they waited, awake, for
  // those ops (OpRecord::stopped_ns): filled at the end of the run.
  uint64_t stopped_between_ops_ns = 0;
  // The engine's live threads by name (trailing digits dropped: "rocksdb:low0"
  // and "rocksdb:low1" are one pool); the names' sum may fall short of
  // engine_ns by the threads that ended.
  std::map<std::string, uint64_t> engine_threads;

  void Add(const CpuHeld& other);
  bool empty() const { return capacity_ns == 0; }
};

// Marks the calling thread as one of the client's own (a "sb:" name, which
// top -H and /proc show too). `name` is at most 12 characters after "sb:".
void NameClientThread(const char* name);
// The name a thread's comm is grouped under: trailing digits and separators dropped.
std::string ThreadPoolName(std::string comm);

class CpuAccount {
 public:
  // A worker: its thread id, and where it leaves its time on a CPU when it
  // ends (0 until then), for a reading after the thread is gone.
  struct Worker {
    pid_t tid = 0;
    const std::atomic<uint64_t>* cpu_at_end_ns = nullptr;
  };
  // `client`: client threads not named "sb:…" (the reporter, which is the
  // process's main thread). `worker_cpus`: the CPUs the workers are pinned
  // to; empty = all online CPUs.
  CpuAccount(std::vector<Worker> workers, std::vector<pid_t> client, std::vector<int> worker_cpus = {});
  // Starts a window at `now_ns` (monotonic).
  void Begin(uint64_t now_ns);
  // At most this many workers are followed slot by slot; with more, the
  // backlogged figures stay 0 (each reading is a /proc read, ~2 us).
  static constexpr size_t kMaxSlotWorkers = 256;
  // A slot ends at `now_ns`: for each worker `behind(i)` says whether it had
  // arrivals due and not started during the slot; its run-queue wait since the
  // last slot is then counted as backlogged (the reporter calls this at each
  // wake-up, every 20 ms or less).
  template <typename Behind>
  void Slot(uint64_t now_ns, Behind&& behind) {
    if (workers_.size() > kMaxSlotWorkers) return;
    const bool fresh = slot_ns_ == 0;
    const uint64_t length = fresh || now_ns < slot_ns_ ? 0 : now_ns - slot_ns_;
    slot_ns_ = now_ns;
    for (size_t i = 0; i < workers_.size(); ++i) {
      uint64_t wait = 0;
      if (!RunqueueNs(workers_[i].tid, &wait)) continue;
      const uint64_t before = slot_wait_[i];
      slot_wait_[i] = wait;
      if (fresh || !behind(i) || wait < before) continue;
      held_.backlogged_ns += length;
      held_.backlogged_runqueue_ns += std::min(length, wait - before);
    }
  }
  // What was held since the last Begin() or Take(), and starts the next window.
  CpuHeld Take(uint64_t now_ns);

 private:
  struct Reading {
    uint64_t process_ns = 0, machine_busy_ns = 0, machine_steal_ns = 0;
    bool machine = false;
  };
  Reading ReadTotals() const;
  uint64_t ThreadDelta(pid_t tid, uint64_t on_cpu);
  // Whether the thread's affinity lets it run on a worker's CPU (always, when
  // the workers are not pinned).
  bool MayRunOnWorkerCpus(pid_t tid) const;
  static bool RunqueueNs(pid_t tid, uint64_t* ns);

  std::vector<Worker> workers_;
  std::vector<pid_t> worker_tids_;  // sorted
  std::vector<pid_t> client_;   // sorted
  std::vector<bool> on_worker_cpu_;  // by CPU number; empty = every CPU
  std::map<pid_t, uint64_t> seen_;  // each thread's time on a CPU at the last reading
  Reading last_;
  uint64_t last_ns_ = 0;
  long cpus_ = 1;
  std::vector<uint64_t> slot_wait_;  // by worker: run-queue wait at the last slot
  uint64_t slot_ns_ = 0;
  CpuHeld held_;  // the slots' figures since the last Take()
};

}  // namespace storebench::driver
