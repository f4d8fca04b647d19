#include "storebench/driver/platform_watch.h"

#include <fmt/format.h>

namespace storebench::driver {

void PlatformWatch::Start(std::vector<int> cpus, uint64_t period_ns, uint64_t wakeup_base_ns, uint64_t now_ns) {
  kernel_seen_ = kernel_.Read();
  if (period_ns == 0) return;
  std::vector<int> meter_cpus = cpus.empty() ? std::vector<int>{-1} : cpus;
  meter_.emplace(std::move(cpus), period_ns, wakeup_base_ns);
  meter_->Start();
  timeline_.emplace(std::move(meter_cpus), meter_->calibration(), now_ns);
}

void PlatformWatch::Drain(bool final) {
  if (!meter_) return;
  // The hiccup meter's stops first, read after the instant they are complete to.
  uint64_t seen = UINT64_MAX;
  if (hiccups_) {
    seen = final ? UINT64_MAX : hiccups_->seen_until_ns();
    stops_.clear();
    hiccups_->TakeStops(&stops_);
    for (const HiccupMeter::StopSpan& s : stops_) timeline_->AddStop(s.begin_ns, s.end_ns);
  }
  pending_.resize(meter_->cpus());
  for (size_t i = 0; i < meter_->cpus(); ++i) {
    std::vector<MeterTick>& ticks = pending_[i];
    meter_->TakeTicks(i, &ticks);
    size_t n = 0;
    for (; n < ticks.size() && (ticks[n].stopped_ns == 0 || ticks[n].woke_ns <= seen); ++n) timeline_->Add(i, ticks[n]);
    ticks.erase(ticks.begin(), ticks.begin() + static_cast<long>(n));
  }
}

PlatformFigures PlatformWatch::TakeWindow() {
  Drain();
  PlatformFigures f = timeline_ ? timeline_->TakeWindow() : PlatformFigures{};
  const KernelReading now = kernel_.Read();
  f.kernel = Delta(kernel_seen_, now);
  kernel_seen_ = now;
  return f;
}

void PlatformWatch::Stop(uint64_t cover_until_ns) {
  if (!meter_) return;
  meter_->Stop(cover_until_ns);
  Drain(true);
}

void PlatformWatch::Figures(const PlatformFigures& run, double elapsed_s, measure::MetricSet* m) const {
  using measure::MergeRule;
  using measure::Unit;
  if (meter_) {
    const MeterCalibration& cal = meter_->calibration();
    m->Counter({"platform", "meter", "cpu_ns"}, meter_->CpuNs(), Unit::kNanoseconds);
    m->Gauge({"platform", "meter", "cpus"}, static_cast<double>(meter_->cpus()), Unit::kCount, MergeRule::kSum);
    m->Gauge({"platform", "meter", "period_ns"}, static_cast<double>(meter_->period_ns()), Unit::kNanoseconds,
             MergeRule::kSame);
    m->Gauge({"platform", "meter", "cpu_unit_ns"}, static_cast<double>(cal.cpu_unit_ns), Unit::kNanoseconds,
             MergeRule::kMax);
    m->Gauge({"platform", "meter", "memory_unit_ns"}, static_cast<double>(cal.mem_unit_ns), Unit::kNanoseconds,
             MergeRule::kMax);
    m->Gauge({"platform", "meter", "contention_unit_ns"}, static_cast<double>(cal.contention_unit_ns),
             Unit::kNanoseconds, MergeRule::kMax);
    m->Gauge({"platform", "meter", "cpu_unit_noise"}, cal.cpu_noise, Unit::kRatio, MergeRule::kMax);
    m->Gauge({"platform", "meter", "wakeup_base_ns"}, static_cast<double>(cal.wakeup_base_ns), Unit::kNanoseconds,
             MergeRule::kMax);
    m->Counter({"platform", "meter", "ticks"}, run.ticks);
    m->Counter({"platform", "meter", "dropped"}, meter_->dropped());
    // The meter's cost, as a share of one CPU over the measured window.
    m->Gauge({"platform", "meter", "cost_share_of_cpu"},
             elapsed_s > 0 ? static_cast<double>(meter_->CpuNs()) / (elapsed_s * 1e9) : 0, Unit::kRatio,
             MergeRule::kMax);
    m->Counter({"platform", "speed", "span_ns"}, run.span_ns, Unit::kNanoseconds);
    m->Counter({"platform", "speed", "work_ns"}, run.work_ns, Unit::kNanoseconds);
    m->Counter({"platform", "speed", "stopped_ns"}, run.stopped_ns, Unit::kNanoseconds);
    m->Counter({"platform", "speed", "slow_ns"}, run.slow_ns, Unit::kNanoseconds);
    m->Ratio({"platform", "speed", "mean"}, {"platform", "speed", "work_ns"}, {"platform", "speed", "span_ns"});
    m->Ratio({"platform", "speed", "slow_share"}, {"platform", "speed", "slow_ns"}, {"platform", "speed", "span_ns"});
    m->Gauge({"platform", "speed", "min"}, run.speed_min, Unit::kRatio, MergeRule::kMin);
    m->Gauge({"platform", "speed", "memory_min"}, run.memory_speed_min, Unit::kRatio, MergeRule::kMin);
    m->Counter({"platform", "contention", "run_ns"}, run.span_ns - std::min(run.stopped_ns, run.span_ns),
               Unit::kNanoseconds);
    m->Counter({"platform", "contention", "work_ns"}, run.contention_work_ns, Unit::kNanoseconds);
    m->Ratio({"platform", "contention", "mean"}, {"platform", "contention", "work_ns"},
             {"platform", "contention", "run_ns"});
    m->Gauge({"platform", "contention", "min"}, run.contention_speed_min, Unit::kRatio, MergeRule::kMin);
  }
  if (run.kernel.cgroup) {
    m->Counter({"platform", "kernel", "cgroup_nr_throttled"}, run.kernel.cgroup->nr_throttled);
    m->Counter({"platform", "kernel", "cgroup_throttled_ns"}, run.kernel.cgroup->throttled_ns, Unit::kNanoseconds);
  }
  for (auto [name, p] : {std::pair{"cpu", &run.kernel.cpu}, std::pair{"memory", &run.kernel.memory},
                         std::pair{"io", &run.kernel.io}}) {
    if (!*p) continue;
    m->Counter({"platform", "kernel", fmt::format("psi_{}_some_ns", name)}, (*p)->some_ns, Unit::kNanoseconds);
    m->Counter({"platform", "kernel", fmt::format("psi_{}_full_ns", name)}, (*p)->full_ns, Unit::kNanoseconds);
  }
  std::string missing;
  for (const std::string& s : kernel_.MissingSources()) missing += (missing.empty() ? "" : "; ") + s;
  if (!meter_) missing += std::string(missing.empty() ? "" : "; ") + "platform meter (off)";
  if (!missing.empty()) m->Text({"platform", "kernel", "missing"}, missing);
}

}  // namespace storebench::driver
