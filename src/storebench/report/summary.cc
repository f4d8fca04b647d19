// The human summary of a run (HumanSummary, PlatformSentence: result.h):
// the lines docs/reading-results.md describes (report/summary_lines.cc).
#include "storebench/report/result.h"

#include <algorithm>
#include <cstdio>
#include <ctime>
#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <set>

#include "storebench/base/build_info.h"
#include "storebench/base/units.h"
#include "storebench/job/result_codec.h"
#include "storebench/report/causes.h"
#include "storebench/report/metrics_json.h"
#include "storebench/report/platform_text.h"

namespace storebench::report {

// The platform's sentence of an open loop's summary (defined below).
std::string PlatformSentence(const driver::RunResult& r, const measure::Histogram& lag, const measure::Histogram& service);

namespace {

std::string NotSustainedLine(const driver::RunResult& r, double ops_per_sec) {
  const double offered = r.offered_ops_per_sec();
  const uint64_t ops = r.total->ops();
  return fmt::format("  NOT SUSTAINED: achieved {:.0f} of the offered {:.0f} ops/s ({:.1f}%), {} due {} never started "
                     "({:.1f}% of ops); latency below is of an overloaded run\n",
                     ops_per_sec, offered, offered > 0 ? 100 * ops_per_sec / offered : 0, r.unstarted,
                     r.unstarted == 1 ? "op" : "ops",
                     100.0 * static_cast<double>(r.unstarted) / std::max<double>(1, static_cast<double>(ops)));
}

std::string TotalsLine(const driver::RunResult& r, double ops_per_sec) {
  const measure::Sample& total = *r.total;
  const double error_pct = total.ops() ? 100.0 * static_cast<double>(total.errors()) / static_cast<double>(total.ops()) : 0;
  return fmt::format("  {} ops in {:.2f} s: {:.0f} ops/s, {} errors{}{}{}\n", total.ops(), r.elapsed_s, ops_per_sec,
                     total.errors(),
                     total.errors() ? fmt::format(" ({:.2f}% of ops; {:.0f} ok ops/s)", error_pct,
                                                  r.elapsed_s > 0 ? static_cast<double>(total.ops() - total.errors()) / r.elapsed_s : 0)
                                    : "",
                     r.interrupted ? " (interrupted)" : (r.stopped_on_errors ? " (stopped: --max-errors reached)" : ""),
                     r.unfinished ? fmt::format(", {} unfinished", r.unfinished) : "");
}

std::string LatencyRow(const char* name, const measure::Histogram& h) {
  auto p = driver::PercentilesOf(h);
  return fmt::format("  {:<9} p50 {:>10}  p90 {:>10}  p99 {:>10}  p99.9 {:>10}  p99.99 {:>10}  max {:>10}\n", name,
                     FormatDurationNs(static_cast<double>(p.p50)), FormatDurationNs(static_cast<double>(p.p90)),
                     FormatDurationNs(static_cast<double>(p.p99)), FormatDurationNs(static_cast<double>(p.p999)),
                     FormatDurationNs(static_cast<double>(p.p9999)), FormatDurationNs(static_cast<double>(p.max)));
}

// Observed less ideal: what the client, the engine's threads and the
// platform added together (the causes line splits it).
std::string BeyondIdealLine(const driver::RunResult& r) {
  const ClientAdded a = ClientAddedOf(*r.ideal_observed, *r.ideal);
  auto sd = [](int64_t ns) { return (ns < 0 ? "-" : "+") + FormatDurationNs(static_cast<double>(ns < 0 ? -ns : ns)); };
  return fmt::format("  beyond    ideal p50 {} p99 {} p99.9 {} max {}: added to the ideal client's response (same "
                     "arrivals and service times through {} FIFO server{}) by the client, the engine's threads and "
                     "the platform{}\n",
                     sd(a.p50), sd(a.p99), sd(a.p999), sd(a.max), r.ideal_servers, r.ideal_servers == 1 ? "" : "s",
                     r.ideal_dropped ? fmt::format("; inexact: {} ops were not logged", r.ideal_dropped) : "");
}

// Response, ideal and service rows, then start lag against service, the schedule, and the platform.
std::string OpenLoopLines(const driver::RunResult& r, double ops_per_sec) {
  const measure::Sample& total = *r.total;
  const measure::Histogram response = total.AllResponse(), service = total.AllService();
  std::string s = LatencyRow("response", response);
  if (r.ideal) s += LatencyRow("ideal", *r.ideal);
  if (r.steady && r.steady->count()) s += LatencyRow("steady", *r.steady);
  s += LatencyRow("service", service);
  if (r.ideal && r.ideal_observed) s += BeyondIdealLine(r);
  double max_backlog = 0;
  uint64_t max_lag = 0;
  for (const auto& st : r.intervals) {
    max_backlog = std::max(max_backlog, st.max_backlog);
    max_lag = std::max(max_lag, st.max_lag_ns);
  }
  const measure::Histogram& lag = total.start_lag();
  auto d = [](uint64_t ns) { return FormatDurationNs(static_cast<double>(ns)); };
  s += fmt::format("  split     start lag p50 {} p99 {} max {} | service p50 {} p99 {} max {}\n",
                   d(lag.ValueAtPercentile(50)), d(lag.ValueAtPercentile(99)), d(lag.max()),
                   d(service.ValueAtPercentile(50)), d(service.ValueAtPercentile(99)), d(service.max()));
  const double offered = r.offered_ops_per_sec();
  s += fmt::format("  schedule  offered {:.0f} ops/s, achieved {:.1f}% ({}), max backlog {:.0f} ops, max lag {}{}\n",
                   offered, offered > 0 ? 100 * ops_per_sec / offered : 0,
                   r.sustained() ? "sustained" : "not sustained", max_backlog, d(max_lag),
                   r.unstarted ? fmt::format(", {} due {} never started", r.unstarted, r.unstarted == 1 ? "op" : "ops")
                               : "");
  if (r.no_arrivals_due())
    s += "  schedule  no arrivals were due in the measured window: the schedule's rate stayed zero or its next "
         "arrival lay beyond the run's end\n";
  s += EffectiveLoadLine(r);
  s += EngineBusyLine(r);
  s += PlatformSentence(r, lag, service);
  return s;
}

// One line per op kind that ran (several kinds only).
std::string KindLines(const driver::RunResult& r) {
  const measure::Sample& total = *r.total;
  std::string s;
  for (size_t k = 0; k < total.kinds().size(); ++k) {
    const auto& ks = total.kinds()[k];
    uint64_t n = 0;
    for (uint64_t o : ks.outcomes) n += o;
    if (n == 0) continue;
    auto p = driver::PercentilesOf(r.open_loop ? ks.response : ks.service);
    s += fmt::format("  {:<18} {:>10} ops  p50 {:>10}  p99 {:>10}  max {:>10}\n", r.layout.kinds[k], n,
                     FormatDurationNs(static_cast<double>(p.p50)), FormatDurationNs(static_cast<double>(p.p99)),
                     FormatDurationNs(static_cast<double>(p.max)));
  }
  return s;
}

// The process's CPU, the data set's residency and the I/O, then every other metric's line.
std::string ResourceLines(const measure::MetricSet& m) {
  auto f = [&](std::initializer_list<const char*> path) {
    return FormatMetric(m, measure::MetricPath(path.begin(), path.end()));
  };
  std::string s;
  if (m.Find({"cpu", "user_s"}))
    s += fmt::format("  cpu       user {}, sys {}, context switches {} voluntary / {} involuntary\n", f({"cpu", "user_s"}),
                     f({"cpu", "sys_s"}), f({"cpu", "voluntary_switches"}), f({"cpu", "involuntary_switches"}));
  if (m.Find({"cache", "dataset_bytes"})) {
    auto residency = [&](const char* when) {
      if (!m.Value({"cache", when, "fraction"})) return std::string("unknown");
      return fmt::format("{:.1f}% of {} resident ({})", 100 * *m.Value({"cache", when, "fraction"}),
                         f({"cache", when, "known_bytes"}), f({"cache", when, "source"}));
    };
    s += fmt::format("  cache     {}: before {}, after {}\n", f({"cache", "state"}), residency("before"),
                     residency("after"));
  }
  if (m.Find({"io", "requested_bytes"})) {
    s += fmt::format("  io        requested {}, syscalls moved {}, device read {} (read amplification {}), {} syscalls "
                     "({}/op)\n",
                     f({"io", "requested_bytes"}), f({"io", "transferred_bytes"}), f({"io", "device_read_bytes"}),
                     f({"io", "read_amplification"}), f({"io", "syscalls"}), f({"io", "syscalls_per_op"}));
  } else if (m.Value({"io", "device_read_bytes"}).value_or(0) > 0) {
    s += fmt::format("  io        device read {}, read syscalls returned {}\n", f({"io", "device_read_bytes"}),
                     f({"io", "rchar_bytes"}));
  }
  for (const std::string& line : MetricSummaryLines(m)) s += "  " + line + "\n";
  return s;
}

}  // namespace

std::string HumanSummary(const driver::RunResult& r, const std::string& title) {
  const measure::Sample& total = *r.total;
  std::string s = fmt::format("== {} ==\n", title);
  s += UnsteadyLine(r);
  double ops_per_sec = r.elapsed_s > 0 ? static_cast<double>(total.ops()) / r.elapsed_s : 0;
  if (r.open_loop && !r.sustained()) s += NotSustainedLine(r, ops_per_sec);
  s += TotalsLine(r, ops_per_sec);
  s += r.open_loop ? OpenLoopLines(r, ops_per_sec) : LatencyRow("latency", total.AllService()) + SpeedLine(r);
  if (total.kinds().size() > 1) s += KindLines(r);
  s += ResourceLines(r.metrics);
  return s;
}

namespace {

std::string Pct(double share) { return fmt::format("{:.0f}%", 100 * share); }

std::string SharesText(const TailCauses& t) {
  return fmt::format("queueing behind the engine {}, engine threads {}, client {}, platform {}", Pct(t.queueing),
                     Pct(t.engine), Pct(t.client), Pct(t.platform));
}

// "rocksdb:low 1.31 s, rocksdb:high 220 ms": the engine's busiest thread pools, at most three.
std::string EngineThreadsText(const driver::CpuHeld& cpu) {
  std::vector<std::pair<uint64_t, std::string>> by_time;
  for (const auto& [name, ns] : cpu.engine_threads) by_time.emplace_back(ns, name);
  std::sort(by_time.rbegin(), by_time.rend());
  std::string s;
  for (size_t i = 0; i < by_time.size() && i < 3; ++i)
    s += fmt::format("{}{} {}", i ? ", " : "", by_time[i].second, FormatDurationNs(static_cast<double>(by_time[i].first)));
  return s;
}

// When this engine on a steady platform would keep its p99 within 10x its
// service p99 but the run did not: how much of the rest is the platform's.
std::string SteadyNote(const RunCauses& c, uint64_t service99) {
  const TailCauses& t = c.p99;
  if (!service99 || t.steady_ns == t.ideal_ns) return "";
  const double limit = 10.0 * static_cast<double>(service99);
  if (static_cast<double>(t.steady_ns) > limit || static_cast<double>(t.observed_ns) <= limit) return "";
  return fmt::format("  note      on a steady platform this engine's p99 would be {} ({:.1f}x its service p99 {}); "
                     "the run's p99 is {}: of it the platform made {}, the client {}, the engine's threads {}.\n",
                     FormatDurationNs(static_cast<double>(t.steady_ns)),
                     static_cast<double>(t.steady_ns) / static_cast<double>(service99),
                     FormatDurationNs(static_cast<double>(service99)), FormatDurationNs(static_cast<double>(t.observed_ns)),
                     Pct(t.platform), Pct(t.client), Pct(t.engine));
}

// The note: the largest cause of the p99, with its number, and what it means.
std::string CauseNote(const driver::RunResult& r, const RunCauses& c, const driver::CpuHeld& cpu, double runqueue,
                      double hiccup_max, uint64_t service99) {
  const TailCauses& t = c.p99;
  const std::string largest = t.largest();
  const std::string p99 = FormatDurationNs(static_cast<double>(t.observed_ns));
  const std::string ideal = FormatDurationNs(static_cast<double>(t.ideal_ns));
  const double workers = r.metrics.Value({"workers", "threads"}).value_or(1);
  const double worker_cpus = r.metrics.Value({"workers", "cpus"}).value_or(workers);
  std::string s;
  // A largest share below half of the tail is said to be only the largest.
  const std::string_view lead = t.share(largest.c_str()) < 0.5 ? ", the largest of four shares" : "";
  if (largest == "queueing") {
    s = fmt::format("the response tail is queueing behind the engine{}: {} of p99 {} is what an ideal client, with no "
                    "client in between, also waits (its p99 {}, service p99 {})",
                    lead, Pct(t.queueing), p99, ideal, FormatDurationNs(static_cast<double>(service99)));
  } else if (largest == "engine") {
    s = fmt::format("the response tail is the engine's threads holding the CPU{}: {} of p99 {} was added while the "
                    "workers waited {} for a CPU and the engine's threads ran {} ({}); an ideal client has p99 {}",
                    lead, Pct(t.engine), p99, FormatDurationNs(runqueue), FormatDurationNs(static_cast<double>(cpu.engine_ns)),
                    EngineThreadsText(cpu), ideal);
  } else if (largest == "client") {
    s = fmt::format("the response tail is the client's own{}: {} of p99 {} was added while its threads held the CPU "
                    "({}{}); an ideal client has p99 {}",
                    lead, Pct(t.client), p99, FormatDurationNs(static_cast<double>(cpu.client_ns)),
                    workers > worker_cpus ? fmt::format(", and {:.0f} workers shared {:.0f} CPU{}", workers, worker_cpus,
                                                                worker_cpus == 1 ? "" : "s")
                                          : "",
                    ideal);
    // Only when the workers leave no CPU free: more of them than their CPUs,
    // or as many as the process may use.
    const double process_cpus = r.metrics.Value({"workers", "process_cpus"}).value_or(worker_cpus);
    if (workers > worker_cpus || workers >= process_cpus)
      s += ". Fewer workers than the CPUs they run on (--threads, --cpus) leaves CPU time to the rest";
  } else {
    const RunPlatform p = RunPlatformOf(r);
    s = fmt::format("the response tail is the platform's{}: {} of p99 {}", lead, Pct(t.platform), p99);
    if (t.platform_speed > 0)
      s += fmt::format(" ({} measured by the platform meter: CPUs that ran slow or stopped (slowest unit {:.2f}, "
                       "stopped {}) stretched the service times; on a steady platform the ideal client's p99 is {})",
                       Pct(t.platform_speed), p.speed_min, FormatDurationNs(static_cast<double>(p.stopped_ns)),
                       FormatDurationNs(static_cast<double>(t.steady_ns)));
    s += fmt::format("; other processes and the kernel held {} of CPU (steal {}), worst hiccup {}; an ideal client "
                     "has p99 {}",
                     FormatDurationNs(static_cast<double>(cpu.others_ns)),
                     FormatDurationNs(static_cast<double>(cpu.steal_ns)), FormatDurationNs(hiccup_max), ideal);
  }
  // When the workers waited for a CPU a good part of their runnable time, that
  // wait also stretched the service times the ideal client replays (said
  // only when the ideal client's queue is a part of the tail worth naming).
  if (t.cpu_wait >= 0.05 && t.observed_ns && static_cast<double>(t.ideal_ns) >= 0.05 * static_cast<double>(t.observed_ns))
    s += fmt::format("; while ops queued behind them the workers spent {:.0f}% of the time on the run queue, which "
                     "also stretched the service times the ideal client replays: that part of its queue is counted "
                     "with the CPU's holders",
                     100 * t.cpu_wait);
  return "  note      " + s + ".\n" + SteadyNote(c, service99);
}

}  // namespace

std::string PlatformSentence(const driver::RunResult& r, const measure::Histogram& lag, const measure::Histogram& service) {
  const measure::MetricSet& m = r.metrics;
  const double runqueue = m.Value({"workers", "runqueue_wait_ns"}).value_or(0);
  const double involuntary = m.Value({"workers", "involuntary_switches"}).value_or(0);
  const double hiccup_max = m.Value({"platform", "hiccup", "max_ns"}).value_or(0);
  const double hiccup_p99 = m.Value({"platform", "hiccup", "p99_ns"}).value_or(0);
  const driver::CpuHeld cpu = RunCpuHeld(r);
  std::string held;
  if (!cpu.empty()) {
    const std::string engine_threads = EngineThreadsText(cpu);
    held = fmt::format(" while the engine's threads ran {}{}, the client's {}, other processes {} (steal {})",
                       FormatDurationNs(static_cast<double>(cpu.engine_ns)),
                       engine_threads.empty() ? "" : " (" + engine_threads + ")",
                       FormatDurationNs(static_cast<double>(cpu.client_ns)),
                       FormatDurationNs(static_cast<double>(cpu.others_ns)),
                       FormatDurationNs(static_cast<double>(cpu.steal_ns)));
  }
  std::string s = fmt::format("  platform  workers waited {} on the run queue ({:.0f} involuntary switches){}; hiccups "
                              "p99 {}, max {}\n",
                              FormatDurationNs(runqueue), involuntary, held, FormatDurationNs(hiccup_p99),
                              FormatDurationNs(hiccup_max));
  s += SpeedLine(r);
  const uint64_t lag99 = lag.ValueAtPercentile(99), service99 = service.ValueAtPercentile(99);
  if (const RunCauses c = CausesOf(r); c.p99.known) {
    s += fmt::format("  causes    p99 {}: {}; max {}: {}\n", FormatDurationNs(static_cast<double>(c.p99.observed_ns)),
                     SharesText(c.p99), FormatDurationNs(static_cast<double>(c.max.observed_ns)), SharesText(c.max));
    s += CauseNote(r, c, cpu, runqueue, hiccup_max, service99);
  } else if (lag.count() && lag99 > service99 && runqueue > 0) {
    const std::string advice =
        r.wait_yields ? " Fewer workers than CPUs, or --cpus, keeps them off the CPUs the rest needs." : "";
    s += fmt::format("  note      the response tail may be the client's: start lag p99 {} exceeds service p99 {}, and "
                     "the workers waited {} for a CPU (no ideal-client figures to tell).{}\n",
                     FormatDurationNs(static_cast<double>(lag99)), FormatDurationNs(static_cast<double>(service99)),
                     FormatDurationNs(runqueue), advice);
  }
  return s;
}

}  // namespace storebench::report
