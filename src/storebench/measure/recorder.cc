#include "storebench/measure/recorder.h"

#include <linux/membarrier.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <thread>
#include <vector>

#include "storebench/measure/clock.h"

namespace storebench::measure {
namespace internal {

bool AsymmetricFenceAvailable() {
#if defined(STOREBENCH_TSAN)
  return false;  // TSan does not model membarrier; the seq_cst path is checked instead.
#else
  static const bool available = [] {
    long cmds = syscall(SYS_membarrier, MEMBARRIER_CMD_QUERY, 0, 0);
    if (cmds < 0 || !(cmds & MEMBARRIER_CMD_PRIVATE_EXPEDITED)) return false;
    return syscall(SYS_membarrier, MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED, 0, 0) == 0;
  }();
  return available;
#endif
}

void HeavyFence(bool heavy_available) {
#if defined(STOREBENCH_TSAN)
  // The flip is a seq_cst store and the writer's epoch store and index load are
  // seq_cst: their single total order already gives the Dekker guarantee.
  (void)heavy_available;
#else
  if (heavy_available && syscall(SYS_membarrier, MEMBARRIER_CMD_PRIVATE_EXPEDITED, 0, 0) == 0) return;
  std::atomic_thread_fence(std::memory_order_seq_cst);
#endif
}

}  // namespace internal

ThreadRecorder::ThreadRecorder(const RecorderLayout& layout) : fast_fence_(internal::AsymmetricFenceAvailable()) {
  samples_[0] = std::make_unique<Sample>(layout);
  samples_[1] = std::make_unique<Sample>(layout);
}

void Collect(std::span<ThreadRecorder* const> recorders, Sample* into, const std::function<void()>& while_waiting) {
  const bool fast = internal::AsymmetricFenceAvailable();
  std::vector<uint32_t> old(recorders.size());
  for (size_t i = 0; i < recorders.size(); ++i) {
    ThreadRecorder* r = recorders[i];
    old[i] = r->active_.load(std::memory_order_relaxed);
    r->active_.store(old[i] ^ 1u, std::memory_order_seq_cst);
  }
  // After this fence a writer either sees the new index or its "inside" epoch is visible to us.
  internal::HeavyFence(fast);
  for (size_t i = 0; i < recorders.size(); ++i) {
    ThreadRecorder* r = recorders[i];
    uint64_t e = r->epoch_.load(std::memory_order_seq_cst);
    if (e & 1) {
      uint64_t next_call = while_waiting ? MonotonicNs() + 1'000'000 : UINT64_MAX;
      while (r->epoch_.load(std::memory_order_acquire) == e) {
        std::this_thread::yield();
        if (next_call != UINT64_MAX && MonotonicNs() >= next_call) {
          while_waiting();
          next_call = MonotonicNs() + 1'000'000;
        }
      }
    }
    Sample* s = r->samples_[old[i]].get();
    into->Merge(*s);
    s->Reset();
  }
}

}  // namespace storebench::measure
