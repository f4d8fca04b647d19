#include "storebench/driver/hiccup.h"

#include "storebench/driver/cpu_account.h"
#include "storebench/driver/platform_meter.h"
#include "storebench/driver/threads.h"
#include "storebench/measure/wait.h"

namespace storebench::driver {

HiccupMeter::HiccupMeter(measure::HistogramOptions options, uint64_t period_ns)
    : period_ns_(period_ns), interval_(options), total_(options) {}

HiccupMeter::~HiccupMeter() { Stop(); }

void HiccupMeter::Start(std::vector<int> cpus, uint64_t wakeup_base_ns, bool keep_stops) {
  stop_.store(false);
  thread_ = std::thread(
      [this, cpus = std::move(cpus), wakeup_base_ns, keep_stops] { Loop(cpus, wakeup_base_ns, keep_stops); });
}

void HiccupMeter::Stop() {
  stop_.store(true);
  if (thread_.joinable()) thread_.join();
  TakeInterval();
}

void HiccupMeter::Loop(std::vector<int> cpus, uint64_t wakeup_base_ns, bool keep_stops) {
  NameClientThread("hiccup");
  (void)PinCurrentThread(cpus);
  StopReader stops(wakeup_base_ns);
  const measure::Clock& clock = measure::Clock::Default();
  uint64_t intended = clock.NowNs() + period_ns_;
  while (!stop_.load(std::memory_order_relaxed)) {
    measure::SleepUntil(clock, intended);
    const uint64_t now = clock.NowNs();
    const uint64_t stop = keep_stops ? stops.StopOf(now > intended ? now - intended : 0) : 0;
    {
      std::lock_guard<std::mutex> lock(mu_);
      interval_.Record(now - intended);
      if (stop) stops_.push_back({now - stop, now});
    }
    seen_until_.store(now, std::memory_order_release);
    // The next sleep is timed from now: one long stall is one sample, as jHiccup counts it.
    intended = now + period_ns_;
  }
}

void HiccupMeter::TakeStops(std::vector<StopSpan>* out) {
  std::lock_guard<std::mutex> lock(mu_);
  out->insert(out->end(), stops_.begin(), stops_.end());
  stops_.clear();
}

measure::Histogram HiccupMeter::TakeInterval() {
  std::lock_guard<std::mutex> lock(mu_);
  measure::Histogram out = interval_;
  (void)total_.Merge(interval_);
  interval_.Reset();
  return out;
}

}  // namespace storebench::driver
