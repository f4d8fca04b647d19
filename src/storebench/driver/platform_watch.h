// PlatformWatch: the run's view of the platform, for the reporter thread —
// the platform meter's threads (platform_meter.h), the speed timeline built
// from their ticks (platform_timeline.h), and the kernel's own figures
// (kernel_platform.h), taken per interval and summed for the run.
// Thread-safety: one thread (the reporter) calls everything.
#pragma once

#include <optional>
#include <vector>

#include "storebench/driver/hiccup.h"
#include "storebench/driver/kernel_platform.h"
#include "storebench/driver/platform_meter.h"
#include "storebench/driver/platform_timeline.h"
#include "storebench/measure/metrics.h"

namespace storebench::driver {

class PlatformWatch {
 public:
  // Starts the meter on `cpus` (the CPUs the workers may use); `period_ns` 0 = off.
  void Start(std::vector<int> cpus, uint64_t period_ns, uint64_t wakeup_base_ns, uint64_t now_ns);
  bool on() const { return meter_.has_value(); }
  // The hiccup meter whose stops place the meter's (platform_timeline.h); it
  // must outlive the watch's use or be unset. nullptr: none.
  void PlaceStopsWith(HiccupMeter* hiccups) { hiccups_ = hiccups; }
  // Moves the meter's ticks into the timeline. A tick with a stop waits until
  // the hiccup meter has woken after it (its stops are in), unless `final`.
  void Drain(bool final = false);
  // nullptr when the meter is off.
  const PlatformTimeline* timeline() const { return timeline_ ? &*timeline_ : nullptr; }
  PlatformTimeline* mutable_timeline() { return timeline_ ? &*timeline_ : nullptr; }
  // The figures since the last call (the kernel's included); starts the next window.
  PlatformFigures TakeWindow();
  // Stops the meter once it covers `cover_until_ns`, and drains it.
  void Stop(uint64_t cover_until_ns);
  // platform.meter.*, platform.speed.* and platform.kernel.* for the run,
  // from its intervals' figures; `elapsed_s` for the meter's cost share.
  void Figures(const PlatformFigures& run, double elapsed_s, measure::MetricSet* m) const;

 private:
  std::optional<PlatformMeter> meter_;
  std::optional<PlatformTimeline> timeline_;
  KernelPlatform kernel_;
  KernelReading kernel_seen_;
  std::vector<std::vector<MeterTick>> pending_;  // per meter thread, in order
  HiccupMeter* hiccups_ = nullptr;
  std::vector<HiccupMeter::StopSpan> stops_;
};

}  // namespace storebench::driver
