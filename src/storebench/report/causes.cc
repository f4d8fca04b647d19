#include "storebench/report/causes.h"

#include <algorithm>
#include <cstring>

namespace storebench::report {
namespace {

constexpr const char* kCauses[] = {"queueing", "engine", "client", "platform"};

double WorkersOf(const driver::RunResult& r) { return r.metrics.Value({"workers", "threads"}).value_or(1); }
double WorkerCpusOf(const driver::RunResult& r) {
  return r.metrics.Value({"workers", "cpus"}).value_or(WorkersOf(r));
}

}  // namespace

double TailCauses::share(const char* cause) const {
  if (!std::strcmp(cause, "queueing")) return queueing;
  if (!std::strcmp(cause, "engine")) return engine;
  if (!std::strcmp(cause, "client")) return client;
  return platform;
}

const char* TailCauses::largest() const {
  const char* best = kCauses[0];
  for (const char* c : kCauses)
    if (share(c) > share(best)) best = c;
  return best;
}

const char* CauseLabel(const char* cause) {
  if (!std::strcmp(cause, "queueing")) return "queueing behind the engine";
  if (!std::strcmp(cause, "engine")) return "the engine's threads holding the CPU";
  if (!std::strcmp(cause, "client")) return "the client's own threads";
  return "the platform";
}

CauseWeights WeightsOf(const driver::CpuHeld& cpu, double workers, double worker_cpus, double platform_lost_ns) {
  CauseWeights w;
  w.engine = static_cast<double>(cpu.engine_ns);
  // More workers than CPUs: each waits behind the others, which is the client's doing.
  const double beyond = workers > worker_cpus && workers > 0 ? (workers - worker_cpus) / workers : 0;
  w.client = static_cast<double>(cpu.client_ns) + beyond * static_cast<double>(cpu.workers_ns);
  w.platform = static_cast<double>(cpu.others_ns) + static_cast<double>(cpu.steal_ns) + platform_lost_ns;
  return w;
}

double CpuWaitShare(const driver::CpuHeld& cpu) {
  const uint64_t unmeasured = cpu.backlogged_runqueue_ns - std::min(cpu.preempted_in_ops_ns, cpu.backlogged_runqueue_ns);
  return cpu.backlogged_ns && unmeasured
             ? std::min(1.0, static_cast<double>(unmeasured) / static_cast<double>(cpu.backlogged_ns))
             : 0;
}

TailCauses Attribute(uint64_t observed_ns, uint64_t ideal_ns, const CauseWeights& w, double cpu_wait,
                     std::optional<uint64_t> steady_ns, std::optional<uint64_t> own_cpu_ns,
                     std::optional<uint64_t> with_stops_ns) {
  TailCauses t;
  t.known = true;
  t.observed_ns = observed_ns;
  t.ideal_ns = ideal_ns;
  t.own_cpu_ns = own_cpu_ns.value_or(ideal_ns);
  t.steady_ns = steady_ns.value_or(t.own_cpu_ns);
  t.with_stops_ns = std::max(with_stops_ns.value_or(ideal_ns), ideal_ns);
  t.cpu_wait = std::clamp(cpu_wait, 0.0, 1.0);
  if (observed_ns == 0) {
    t.queueing = 1;
    return t;
  }
  const double observed = static_cast<double>(observed_ns);
  const uint64_t stopped = std::min(t.with_stops_ns, observed_ns);
  const uint64_t ideal = std::min(ideal_ns, stopped), own = std::min(t.own_cpu_ns, ideal);
  const uint64_t steady = std::min(t.steady_ns, own);
  t.queueing = (1 - t.cpu_wait) * static_cast<double>(steady) / observed;
  t.platform_speed = (1 - t.cpu_wait) * static_cast<double>(own - steady) / observed;
  t.platform_stops = static_cast<double>(stopped - ideal) / observed;
  t.platform = t.platform_speed + t.platform_stops;
  const double added = std::max(0.0, 1 - t.queueing - t.platform);
  const double sum = w.engine + w.client + w.platform;
  if (sum <= 0) {
    t.platform += added;
  } else {
    t.engine = added * w.engine / sum;
    t.client = added * w.client / sum;
    t.platform += added * w.platform / sum;
  }
  return t;
}

driver::CpuHeld RunCpuHeld(const driver::RunResult& r) {
  driver::CpuHeld h;
  auto get = [&](const char* name) {
    return static_cast<uint64_t>(r.metrics.Value({"platform", "cpu_held", name}).value_or(0));
  };
  h.workers_ns = get("workers_ns");
  h.engine_ns = get("engine_ns");
  h.client_ns = get("client_ns");
  h.others_ns = get("others_ns");
  h.steal_ns = get("steal_ns");
  h.capacity_ns = get("capacity_ns");
  h.backlogged_ns = get("backlogged_ns");
  h.backlogged_runqueue_ns = get("backlogged_runqueue_ns");
  h.preempted_in_ops_ns = get("preempted_in_ops_ns");
  for (const measure::Metric& m : r.metrics.metrics())
    if (m.path.size() == 4 && m.path[0] == "platform" && m.path[1] == "cpu_held" && m.path[2] == "engine_threads")
      h.engine_threads[m.path[3]] = m.count;
  return h;
}

RunCauses CausesOf(const driver::RunResult& r) {
  RunCauses c;
  if (!r.ideal || !r.ideal_observed || !r.ideal->count()) return c;
  const driver::CpuHeld cpu = RunCpuHeld(r);
  const double lost = r.metrics.Value({"platform", "speed", "span_ns"}).value_or(0) -
                     r.metrics.Value({"platform", "speed", "work_ns"}).value_or(0);
  const CauseWeights w = WeightsOf(cpu, WorkersOf(r), WorkerCpusOf(r), std::max(0.0, lost));
  const bool steady = r.steady && r.steady->count(), own = r.own_cpu && r.own_cpu->count();
  const bool stops = r.with_stops && r.with_stops->count();
  // The workers' waits for a CPU measured per op are out of the own-CPU and
  // steady replays; f, the window's rate, covers the rest (CpuWaitShare).
  const double f = CpuWaitShare(cpu);
  c.p99 = Attribute(r.ideal_observed->ValueAtPercentile(99), r.ideal->ValueAtPercentile(99), w, f,
                    steady ? std::optional<uint64_t>(r.steady->ValueAtPercentile(99)) : std::nullopt,
                    own ? std::optional<uint64_t>(r.own_cpu->ValueAtPercentile(99)) : std::nullopt,
                    stops ? std::optional<uint64_t>(r.with_stops->ValueAtPercentile(99)) : std::nullopt);
  c.max = Attribute(r.ideal_observed->max(), r.ideal->max(), w, f,
                    steady ? std::optional<uint64_t>(r.steady->max()) : std::nullopt,
                    own ? std::optional<uint64_t>(r.own_cpu->max()) : std::nullopt,
                    stops ? std::optional<uint64_t>(r.with_stops->max()) : std::nullopt);
  // The max is one op: its causes are those of the interval it arrived in
  // (that interval's CPU held, run-queue share and platform speed), not the
  // whole run's, where a burst of contention is diluted by quiet seconds.
  for (const driver::IntervalStats& st : r.intervals)
    if (st.has_ideal && st.arrival_observed.max == r.ideal_observed->max()) {
      if (const TailCauses m = IntervalCauses(r, st).max; m.known) c.max = m;
      break;
    }
  return c;
}

RunCauses IntervalCauses(const driver::RunResult& r, const driver::IntervalStats& st) {
  RunCauses c;
  // No op that arrived in the interval finished: its tail is not known yet
  // (an open loop far behind; those ops count in later intervals' queues).
  if (!st.has_ideal || st.arrival_observed.max == 0) return c;
  const double lost = static_cast<double>(st.platform.span_ns) - static_cast<double>(st.platform.work_ns);
  const CauseWeights w = WeightsOf(st.cpu, WorkersOf(r), WorkerCpusOf(r), std::max(0.0, lost));
  const bool steady = st.steady.max > 0, own = st.own_cpu.max > 0, stops = st.with_stops.max > 0;
  const double f = CpuWaitShare(st.cpu);
  c.p99 = Attribute(st.arrival_observed.p99, st.ideal.p99, w, f,
                    steady ? std::optional<uint64_t>(st.steady.p99) : std::nullopt,
                    own ? std::optional<uint64_t>(st.own_cpu.p99) : std::nullopt,
                    stops ? std::optional<uint64_t>(st.with_stops.p99) : std::nullopt);
  c.max = Attribute(st.arrival_observed.max, st.ideal.max, w, f,
                    steady ? std::optional<uint64_t>(st.steady.max) : std::nullopt,
                    own ? std::optional<uint64_t>(st.own_cpu.max) : std::nullopt,
                    stops ? std::optional<uint64_t>(st.with_stops.max) : std::nullopt);
  return c;
}

}  // namespace storebench::report
