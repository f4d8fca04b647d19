// HiccupMeter: the platform's own stalls, measured as jHiccup does — a thread
// that sleeps for a fixed short period and records how late it woke up. When
// the engine's latency tail coincides with hiccups, the platform (the
// scheduler, another process, the hypervisor) made it, not the engine.
// It also records its stops (platform_meter.h's StopReader: lateness beyond
// the wake-up base that was not its own run-queue wait), with their times:
// at its 1 ms period they place the start of a stop that the platform meter,
// at 40 ms, saw only from when its tick was due (platform_timeline.h).
// Thread-safety: Start()/Stop() from the owning thread; TakeInterval(),
// TakeStops(), seen_until_ns() and Total() from the reporter thread while the
// meter runs (a mutex taken once per period by the meter and once per
// interval by the reporter).
#pragma once

#include <atomic>
#include <mutex>
#include <thread>
#include <vector>

#include "storebench/measure/clock.h"
#include "storebench/measure/histogram.h"

namespace storebench::driver {

class HiccupMeter {
 public:
  explicit HiccupMeter(measure::HistogramOptions options, uint64_t period_ns = 1'000'000);
  ~HiccupMeter();
  struct StopSpan {
    uint64_t begin_ns = 0, end_ns = 0;  // Clock ns
  };
  // Starts the meter thread, pinned to `cpus` when not empty; `wakeup_base_ns`:
  // the median wake-up latency measured at start-up (threads.h); `keep_stops`:
  // record stops for TakeStops() (only when something takes them).
  void Start(std::vector<int> cpus, uint64_t wakeup_base_ns = 0, bool keep_stops = false);
  void Stop();
  // The lateness recorded since the last call (and adds it to the total).
  measure::Histogram TakeInterval();
  // Everything recorded (call after Stop()).
  const measure::Histogram& Total() const { return total_; }
  // Moves the stops recorded so far into `out` (appended). Every stop that
  // ended by seen_until_ns(), read before the call, is among them.
  void TakeStops(std::vector<StopSpan>* out);
  // When the meter last woke (Clock ns; 0 before its first wake-up).
  uint64_t seen_until_ns() const { return seen_until_.load(std::memory_order_acquire); }

 private:
  void Loop(std::vector<int> cpus, uint64_t wakeup_base_ns, bool keep_stops);

  const uint64_t period_ns_;
  std::atomic<bool> stop_{false};
  std::thread thread_;
  std::mutex mu_;
  measure::Histogram interval_;  // guarded by mu_
  std::vector<StopSpan> stops_;      // guarded by mu_
  std::atomic<uint64_t> seen_until_{0};
  measure::Histogram total_;     // reporter thread only
};

}  // namespace storebench::driver
