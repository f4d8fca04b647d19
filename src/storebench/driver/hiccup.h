// HiccupMeter: the platform's own stalls, measured as jHiccup does — a thread
// that sleeps for a fixed short period and records how late it woke up. When
// the engine's latency tail coincides with hiccups, the platform (the
// scheduler, another process, the hypervisor) made it, not the engine.
// Thread-safety: Start()/Stop() from the owning thread; TakeInterval() and
// Total() from the reporter thread while the meter runs (a mutex taken once
// per period by the meter and once per interval by the reporter).
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
  // Starts the meter thread, pinned to `cpus` when not empty.
  void Start(std::vector<int> cpus);
  void Stop();
  // The lateness recorded since the last call (and adds it to the total).
  measure::Histogram TakeInterval();
  // Everything recorded (call after Stop()).
  const measure::Histogram& Total() const { return total_; }

 private:
  void Loop(std::vector<int> cpus);

  const uint64_t period_ns_;
  std::atomic<bool> stop_{false};
  std::thread thread_;
  std::mutex mu_;
  measure::Histogram interval_;  // guarded by mu_
  measure::Histogram total_;     // reporter thread only
};

}  // namespace storebench::driver
