#include "storebench/report/platform_text.h"

#include <fmt/format.h>

#include <algorithm>
#include <vector>

#include "storebench/base/units.h"
#include "storebench/measure/sample.h"

namespace storebench::report {
namespace {

nlohmann::json PressureJson(const std::optional<driver::Pressure>& p) {
  if (!p) return nullptr;
  return {{"some_ns", p->some_ns}, {"full_ns", p->full_ns}};
}

std::string Ns(double ns) { return FormatDurationNs(ns); }

}  // namespace

nlohmann::json PlatformIntervalJson(const driver::PlatformFigures& f) {
  nlohmann::json j = {{"speed", f.empty() ? nlohmann::json(nullptr) : nlohmann::json(f.speed())},
                      {"speed_min", f.empty() ? nlohmann::json(nullptr) : nlohmann::json(f.speed_min)},
                      {"memory_speed_min", f.empty() ? nlohmann::json(nullptr) : nlohmann::json(f.memory_speed_min)},
                      {"contention_speed", f.empty() ? nlohmann::json(nullptr) : nlohmann::json(f.contention_speed())},
                      {"contention_speed_min",
                       f.empty() ? nlohmann::json(nullptr) : nlohmann::json(f.contention_speed_min)},
                      {"stopped_ns", f.stopped_per_cpu_ns()},
                      {"slow_share", f.slow_share()}};
  if (f.kernel.cgroup)
    j["cgroup"] = {{"nr_throttled", f.kernel.cgroup->nr_throttled}, {"throttled_ns", f.kernel.cgroup->throttled_ns}};
  else
    j["cgroup"] = nullptr;
  j["psi"] = {{"cpu", PressureJson(f.kernel.cpu)}, {"memory", PressureJson(f.kernel.memory)},
              {"io", PressureJson(f.kernel.io)}};
  return j;
}

RunPlatform RunPlatformOf(const driver::RunResult& r) {
  const measure::MetricSet& m = r.metrics;
  RunPlatform p;
  const double span = m.Value({"platform", "speed", "span_ns"}).value_or(0);
  if (span <= 0) return p;
  p.metered = true;
  p.speed_mean = m.Value({"platform", "speed", "work_ns"}).value_or(span) / span;
  p.slow_share = m.Value({"platform", "speed", "slow_ns"}).value_or(0) / span;
  p.speed_min = m.Value({"platform", "speed", "min"}).value_or(0);
  p.contention_mean = m.Value({"platform", "contention", "mean"}).value_or(1);
  p.contention_min = m.Value({"platform", "contention", "min"}).value_or(0);
  const double cpus = std::max(1.0, m.Value({"platform", "meter", "cpus"}).value_or(1));
  p.stopped_ns = static_cast<uint64_t>(m.Value({"platform", "speed", "stopped_ns"}).value_or(0) / cpus);
  const double elapsed = r.elapsed_s > 0 ? r.elapsed_s : 1;
  p.meter_cost = m.Value({"platform", "meter", "cpu_ns"}).value_or(0) / (elapsed * 1e9);
  return p;
}

std::string PlatformCsvHeader() {
  return "platform_speed,platform_speed_min,platform_contention_speed,platform_stopped_ns,platform_slow_share,"
         "cgroup_throttled_ns,"
         "psi_cpu_some_ns,psi_memory_some_ns,psi_io_some_ns";
}

std::string PlatformCsvValues(const driver::IntervalStats& st) {
  const driver::PlatformFigures& f = st.platform;
  auto opt = [](const auto& v, auto get) { return v ? fmt::format("{}", get(*v)) : std::string(); };
  std::string s =
      f.empty() ? ",,," : fmt::format("{:.4f},{:.4f},{:.4f},", f.speed(), f.speed_min, f.contention_speed());
  s += fmt::format("{},{:.4f},", f.stopped_per_cpu_ns(), f.slow_share());
  s += opt(f.kernel.cgroup, [](const driver::CgroupCpu& c) { return c.throttled_ns; }) + ",";
  auto some = [](const driver::Pressure& p) { return p.some_ns; };
  s += opt(f.kernel.cpu, some) + "," + opt(f.kernel.memory, some) + "," + opt(f.kernel.io, some);
  return s;
}

std::string SpeedLine(const driver::RunResult& r) {
  const RunPlatform p = RunPlatformOf(r);
  const measure::MetricSet& m = r.metrics;
  std::string s;
  if (p.metered) {
    // The slowest interval, by its mean speed: where to look in the timeline.
    const driver::IntervalStats* slowest = nullptr;
    for (const auto& st : r.intervals)
      if (!st.platform.empty() && (!slowest || st.platform.speed() < slowest->platform.speed())) slowest = &st;
    s = fmt::format("platform speed mean {:.2f}, slowest unit {:.2f}", p.speed_mean, p.speed_min);
    if (slowest)
      s += fmt::format(", slowest interval {:.2f} at {:.0f} s", slowest->platform.speed(),
                       slowest->t_s);
    s += fmt::format(", below {:.1f} for {:.1f}% of the time, stopped {}", driver::kSlowSpeed, 100 * p.slow_share,
                     Ns(static_cast<double>(p.stopped_ns)));
    // Seen by the workers themselves, between ops (ideal_client.h, OpRecord::stopped_ns).
    if (const auto between = m.Value({"platform", "cpu_held", "stopped_between_ops_ns"}))
      s += fmt::format(" (and {} between ops, seen by the workers)", Ns(*between));
    // Reported beside the speed, not in it: docs/platform.md, "Which unit".
    s += fmt::format(", core contention: lookup-heavy work ran at {:.2f} of its calibrated speed (slowest {:.2f})",
                     p.contention_mean, p.contention_min);
  } else {
    s = "platform meter off";
  }
  if (const auto t = m.Value({"platform", "kernel", "cgroup_throttled_ns"}))
    s += fmt::format(", cgroup throttled {} ({:.0f} periods)", Ns(*t),
                     m.Value({"platform", "kernel", "cgroup_nr_throttled"}).value_or(0));
  else
    s += ", cgroup throttling unknown";
  const double steal = m.Value({"platform", "cpu_held", "steal_ns"}).value_or(0);
  const double capacity = m.Value({"platform", "cpu_held", "capacity_ns"}).value_or(0);
  if (capacity > 0) s += fmt::format(", steal {:.1f}%", 100 * steal / capacity);
  if (const auto psi = m.Value({"platform", "kernel", "psi_cpu_some_ns"}))
    s += fmt::format(", PSI cpu some {}", Ns(*psi));
  else
    s += ", PSI unknown";
  if (p.metered) s += fmt::format("; meter cost {:.2f}% of a CPU", 100 * p.meter_cost);
  return "  speed     " + s + "\n";
}

double EffectiveLoad(const driver::RunResult& r, const driver::IntervalStats& st) {
  if (r.capacity_ops_per_sec <= 0 || st.platform.empty() || st.platform.speed() <= 0) return 0;
  return st.offered_ops_per_sec / (r.capacity_ops_per_sec * st.platform.speed());
}

std::string EffectiveLoadLine(const driver::RunResult& r) {
  std::vector<std::pair<double, double>> loads;  // (load, t_s)
  for (const auto& st : r.intervals)
    if (const double l = EffectiveLoad(r, st); l > 0) loads.emplace_back(l, st.t_s);
  if (loads.empty()) return "";
  std::vector<double> sorted;
  for (const auto& [l, t] : loads) sorted.push_back(l);
  std::sort(sorted.begin(), sorted.end());
  const auto highest = *std::max_element(loads.begin(), loads.end());
  return fmt::format("  load      effective load median {:.2f}, highest {:.2f} at {:.0f} s (offered ÷ (phase 1's "
                     "capacity {:.0f} ops/s × the platform's speed in the interval))\n",
                     sorted[sorted.size() / 2], highest.first, highest.second, r.capacity_ops_per_sec);
}

EngineBusy EngineBusyOf(const driver::RunResult& r) {
  EngineBusy e;
  if (r.capacity_ops_per_sec <= 0 || !r.total || r.ideal_servers <= 0 || r.elapsed_s <= 0) return e;
  const measure::Histogram service = r.total->AllService();
  e.servers = r.ideal_servers;
  e.service_mean_ns = service.mean();
  e.phase1_service_mean_ns = r.capacity_service_mean_ns;
  e.busy = e.service_mean_ns * static_cast<double>(service.count()) / (1e9 * r.elapsed_s * e.servers);
  e.offered_load = r.offered_ops_per_sec() * e.service_mean_ns / (1e9 * e.servers);
  return e;
}

std::string EngineBusyLine(const driver::RunResult& r) {
  const EngineBusy e = EngineBusyOf(r);
  if (e.servers == 0) return "";
  std::string s = fmt::format("  engine    busy {:.2f} of phase 2's time on {} server{}; service mean {}", e.busy,
                              e.servers, e.servers == 1 ? "" : "s", Ns(e.service_mean_ns));
  if (e.phase1_service_mean_ns > 0) {
    s += fmt::format(", {:.2f}× phase 1's {}", e.slowdown(), Ns(e.phase1_service_mean_ns));
    if (e.slowdown() >= kEngineSlowdown)
      s += fmt::format(": the engine served {:.0f}% slower than when its capacity was measured, so the offered "
                       "rate was {:.2f} of what it could serve at that speed",
                       100 * (e.slowdown() - 1), e.offered_load);
  }
  return s + "\n";
}

std::string UnsteadyLine(const driver::RunResult& r) {
  const RunPlatform p = RunPlatformOf(r);
  if (!p.unsteady()) return "";
  return fmt::format("  UNSTEADY PLATFORM: the platform ran below {:.1f} of its calibrated speed for {:.1f}% of the "
                     "measured time (mean speed {:.2f}, slowest unit {:.2f}, stopped {}); figures below include its "
                     "slowdowns\n",
                     driver::kSlowSpeed, 100 * p.slow_share, p.speed_mean, p.speed_min,
                     Ns(static_cast<double>(p.stopped_ns)));
}

}  // namespace storebench::report
