// ThreadRecorder and Collect(): per-thread recording with exact interval reads.
//
// Each worker thread owns one ThreadRecorder, on its own cache lines, holding
// two Samples: the active one it records into and an inactive one. The
// interval reporter calls Collect(), which flips every recorder's active
// index and then waits only for a writer that is inside Record() at that very
// moment (a WriterReaderPhaser, as in HdrHistogram, with one epoch counter per
// recorder). Nothing on the record path is shared between workers: no lock and
// no atomic read-modify-write. The writer's side costs two plain stores; the
// ordering it needs against the reader's flip is supplied by the reader with
// membarrier(2) (an asymmetric fence), or, where that syscall is missing, by a
// full fence on the writer's side. Every Record() lands in exactly one
// collected interval, so interval counts add up to the run's totals.
// Thread-safety: Record() from the owning thread only; Collect() from one
// reader thread at a time.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>

#include "storebench/measure/sample.h"

namespace storebench::measure {

namespace internal {
// True once membarrier(PRIVATE_EXPEDITED) is registered for this process.
bool AsymmetricFenceAvailable();
// The writer's half of the asymmetric fence: a compiler barrier when the
// reader uses membarrier, else a full fence.
inline void LightFence(bool heavy_available) {
#if defined(STOREBENCH_TSAN)
  (void)heavy_available;  // unused: under TSan the epoch store itself is seq_cst
#else
  if (heavy_available) [[likely]]
    std::atomic_signal_fence(std::memory_order_seq_cst);
  else
    std::atomic_thread_fence(std::memory_order_seq_cst);
#endif
}
void HeavyFence(bool heavy_available);
}  // namespace internal

class alignas(64) ThreadRecorder {
 public:
  explicit ThreadRecorder(const RecorderLayout& layout);
  ThreadRecorder(const ThreadRecorder&) = delete;
  ThreadRecorder& operator=(const ThreadRecorder&) = delete;

  // Records one completed op. Times are Clock ns; intended_ns <= start_ns <= end_ns.
  void Record(uint32_t kind, uint32_t outcome, uint64_t intended_ns, uint64_t start_ns, uint64_t end_ns,
              uint64_t bytes) {
    Enter();
    samples_[active_.load(std::memory_order_seq_cst)]->Record(kind, outcome, intended_ns, start_ns, end_ns, bytes);
    Exit();
  }
  // Records one closed-loop op (intended start = actual start): service time only.
  void RecordClosed(uint32_t kind, uint32_t outcome, uint64_t start_ns, uint64_t end_ns, uint64_t bytes) {
    Enter();
    samples_[active_.load(std::memory_order_seq_cst)]->RecordClosed(kind, outcome, start_ns, end_ns, bytes);
    Exit();
  }
  // Records `n` closed-loop ops of one kind and outcome at once (Sample::RecordClosedBatch).
  void RecordClosedBatch(uint32_t kind, uint32_t outcome, const uint64_t* service_ns, size_t n, uint64_t bytes) {
    Enter();
    samples_[active_.load(std::memory_order_seq_cst)]->RecordClosedBatch(kind, outcome, service_ns, n, bytes);
    Exit();
  }

 private:
  friend void Collect(std::span<ThreadRecorder* const> recorders, Sample* into,
                      const std::function<void()>& while_waiting);

  void Enter() {
    ++epoch_local_;  // odd: inside
#if defined(STOREBENCH_TSAN)
    epoch_.store(epoch_local_, std::memory_order_seq_cst);
#else
    epoch_.store(epoch_local_, std::memory_order_relaxed);
    internal::LightFence(fast_fence_);
#endif
  }
  void Exit() {
    ++epoch_local_;  // even: outside
    epoch_.store(epoch_local_, std::memory_order_release);
  }

  // Writer-owned line.
  uint64_t epoch_local_ = 0;
  bool fast_fence_;
  std::atomic<uint64_t> epoch_{0};
  // Reader-written, writer-read once per op (a plain load on x86 even when
  // seq_cst); changes once per interval.
  alignas(64) std::atomic<uint32_t> active_{0};
  std::unique_ptr<Sample> samples_[2];
};

// Moves everything recorded since the previous Collect() from each recorder
// into `into` (added, not replaced). Never blocks a writer; waits at most for
// one Record() call per writer to finish. While it waits for a writer that
// was preempted inside Record() (on a host with more runnable threads than
// CPUs that can be a whole scheduler round), it calls `while_waiting`, if
// given, about once a millisecond: the driver raises the workers there when a
// stop was asked for (driver/threads.h RaiseToFinish).
void Collect(std::span<ThreadRecorder* const> recorders, Sample* into,
             const std::function<void()>& while_waiting = nullptr);

}  // namespace storebench::measure
