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
namespace {

nlohmann::json PercentilesJson(const driver::Percentiles& p) {
  return {{"p50_ns", p.p50}, {"p90_ns", p.p90}, {"p99_ns", p.p99}, {"p999_ns", p.p999}, {"p9999_ns", p.p9999},
          {"max_ns", p.max}};
}

nlohmann::json OutcomesJson(const measure::RecorderLayout& layout, const std::vector<uint64_t>& counts) {
  nlohmann::json o = nlohmann::json::object();
  for (size_t i = 0; i < counts.size(); ++i) o[layout.outcomes[i]] = counts[i];
  return o;
}

nlohmann::json TailCausesJson(const TailCauses& t) {
  return {{"observed_ns", t.observed_ns}, {"ideal_ns", t.ideal_ns}, {"steady_ns", t.steady_ns},
          {"own_cpu_ns", t.own_cpu_ns},   {"cpu_wait", t.cpu_wait},       {"queueing", t.queueing}, {"engine", t.engine},
          {"client", t.client},           {"platform", t.platform}, {"platform_speed", t.platform_speed},
          {"largest", t.largest()}};
}

std::string IsoNow() {
  std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

}  // namespace

nlohmann::json LatencyJson(const measure::Histogram& h) {
  nlohmann::json j = PercentilesJson(driver::PercentilesOf(h));
  j["min_ns"] = h.min();
  j["mean_ns"] = h.mean();
  j["stddev_ns"] = h.stddev();
  j["count"] = h.count();
  j["saturated"] = h.saturated();
  j["histogram"] = h.Encode();
  return j;
}

ClientAdded ClientAddedOf(const measure::Histogram& observed, const measure::Histogram& ideal) {
  auto d = [](uint64_t a, uint64_t b) { return static_cast<int64_t>(a) - static_cast<int64_t>(b); };
  const driver::Percentiles o = driver::PercentilesOf(observed), i = driver::PercentilesOf(ideal);
  return {d(o.p50, i.p50), d(o.p99, i.p99), d(o.p999, i.p999), d(o.max, i.max)};
}

nlohmann::json ToolJson() {
  const BuildInfo& b = GetBuildInfo();
  return {{"name", "storebench"},   {"version", b.version},       {"git_commit", b.git_commit},
          {"build_type", b.build_type}, {"compiler", b.compiler}, {"rocksdb", b.rocksdb},
          {"liburing", b.liburing},   {"mpi", b.mpi},             {"sanitizers", b.sanitizers}};
}

namespace {

double PerSecond(double count, double elapsed_s) { return elapsed_s > 0 ? count / elapsed_s : 0; }

nlohmann::json ThroughputJson(const driver::RunResult& r) {
  const measure::Sample& total = *r.total;
  const uint64_t ok_ops = total.ops() - std::min(total.ops(), total.errors());
  return {{"ops_per_sec", PerSecond(static_cast<double>(total.ops()), r.elapsed_s)},
          {"ok_ops_per_sec", PerSecond(static_cast<double>(ok_ops), r.elapsed_s)},
          {"bytes_per_sec", PerSecond(static_cast<double>(total.bytes()), r.elapsed_s)}};
}

nlohmann::json TotalsJson(const driver::RunResult& r) {
  const measure::Sample& total = *r.total;
  std::vector<uint64_t> outcomes(r.layout.outcomes.size(), 0);
  for (const auto& k : total.kinds())
    for (size_t i = 0; i < outcomes.size(); ++i) outcomes[i] += k.outcomes[i];
  nlohmann::json totals = {{"ops", total.ops()},
                           {"errors", total.errors()},
                           {"bytes", total.bytes()},
                           {"elapsed_s", r.elapsed_s},
                           {"warmup_ops", r.warmup_ops},
                           {"unfinished", r.unfinished},
                           {"unstarted", r.unstarted},
                           {"interrupted", r.interrupted},
                           {"stopped_on_errors", r.stopped_on_errors},
                           {"outcomes", OutcomesJson(r.layout, outcomes)}};
  if (r.interrupted) {
    totals["stop"] = {{"wait_s", static_cast<double>(r.stop_wait_ns) / 1e9},
                      {"workers_raised", r.stop_workers_raised},
                      {"raise_refused", r.stop_raise_refused}};
  }
  return totals;
}

// Response and service time, and in an open loop the ideal client's and what was added to it.
nlohmann::json PhaseLatencyJson(const driver::RunResult& r) {
  nlohmann::json latency = {{"response", LatencyJson(r.total->AllResponse())},
                            {"service", LatencyJson(r.total->AllService())}};
  if (r.ideal && r.ideal_observed) {
    latency["ideal"] = LatencyJson(*r.ideal);
    latency["ideal"]["servers"] = r.ideal_servers;
    latency["ideal"]["exact"] = r.ideal_dropped == 0;
    latency["ideal"]["dropped_ops"] = r.ideal_dropped;
    if (r.steady && r.steady->count()) latency["steady"] = LatencyJson(*r.steady);
    if (r.own_cpu && r.own_cpu->count()) latency["own_cpu"] = LatencyJson(*r.own_cpu);
    const ClientAdded added = ClientAddedOf(*r.ideal_observed, *r.ideal);
    latency["client_added"] = {{"p50_ns", added.p50}, {"p99_ns", added.p99}, {"p999_ns", added.p999},
                               {"max_ns", added.max}};
  }
  return latency;
}

nlohmann::json ScheduleJson(const driver::RunResult& r) {
  nlohmann::json schedule = {{"open_loop", r.open_loop}, {"start_lag", LatencyJson(r.total->start_lag())}};
  if (r.open_loop) {
    const double offered = r.offered_ops_per_sec(), achieved = r.achieved_ops_per_sec();
    schedule["sustained"] = r.sustained();
    schedule["offered_ops_per_sec"] = offered;
    schedule["achieved_ops_per_sec"] = achieved;
    schedule["achieved_fraction"] = offered > 0 ? achieved / offered : 0;
    schedule["end_backlog_ops"] = r.unstarted;
    schedule["no_arrivals_due"] = r.no_arrivals_due();
  }
  return schedule;
}

nlohmann::json CausesJson(const RunCauses& causes) {
  return {{"definition",
           "shares of the open loop's response tail: with I = min(ideal, observed), O = min(own_cpu, I) and "
           "S = min(steady, O), queueing = (1 - cpu_wait) * S / observed (the steady-platform ideal client's tail "
           "over the same ops: service times as the work the CPU could do at its calibrated speed, less the worker's "
           "own run-queue wait in each op; cpu_wait, the share of the time the workers had arrivals waiting that they "
           "spent on the run queue beyond the waits measured inside ops); platform_speed = (1 - cpu_wait) * "
           "(O - S) / observed (what the platform meter's slow or stopped CPUs added to the service times and their "
           "queue); the rest (I - O, the waits for a CPU inside ops, and observed - I) split among engine, client and "
           "platform by the CPU time each held on the workers' CPUs in the window (platform.cpu_held); platform "
           "includes platform_speed"},
          {"p99", TailCausesJson(causes.p99)},
          {"max", TailCausesJson(causes.max)}};
}

nlohmann::json ResourcesJson(const measure::MetricSet& m) {
  auto value = [&](const char* section, const char* name) { return MetricValueJson(m, *m.Find({section, name})); };
  return {{"cpu_user_s", value("cpu", "user_s")},
          {"cpu_sys_s", value("cpu", "sys_s")},
          {"voluntary_context_switches", value("cpu", "voluntary_switches")},
          {"involuntary_context_switches", value("cpu", "involuntary_switches")}};
}

nlohmann::json KindsJson(const driver::RunResult& r) {
  const measure::Sample& total = *r.total;
  nlohmann::json kinds = nlohmann::json::object();
  for (size_t k = 0; k < total.kinds().size(); ++k) {
    const auto& ks = total.kinds()[k];
    uint64_t n = 0;
    for (uint64_t o : ks.outcomes) n += o;
    kinds[r.layout.kinds[k]] = {{"ops", n},
                                {"ops_per_sec", PerSecond(static_cast<double>(n), r.elapsed_s)},
                                {"bytes", ks.bytes},
                                {"outcomes", OutcomesJson(r.layout, ks.outcomes)},
                                {"response", LatencyJson(ks.response)},
                                {"service", LatencyJson(ks.service)}};
  }
  return kinds;
}

// Each worker group's kinds merged (several groups only).
nlohmann::json GroupsJson(const driver::RunResult& r) {
  const measure::Sample& total = *r.total;
  nlohmann::json groups = nlohmann::json::object();
  for (size_t g = 0; g < r.group_names.size(); ++g) {
    size_t first = r.group_first_kind[g];
    size_t last = g + 1 < r.group_first_kind.size() ? r.group_first_kind[g + 1] : total.kinds().size();
    measure::Histogram resp(r.layout.histogram), serv(r.layout.histogram);
    uint64_t n = 0;
    for (size_t k = first; k < last; ++k) {
      (void)resp.Merge(total.kinds()[k].response);
      (void)serv.Merge(total.kinds()[k].service);
      for (uint64_t o : total.kinds()[k].outcomes) n += o;
    }
    groups[r.group_names[g]] = {{"ops", n},
                                {"ops_per_sec", PerSecond(static_cast<double>(n), r.elapsed_s)},
                                {"response", LatencyJson(resp)},
                                {"service", LatencyJson(serv)}};
  }
  return groups;
}

StatusOr<nlohmann::json> IntervalJson(const driver::RunResult& r, const driver::IntervalStats& st) {
  nlohmann::json i = {{"t_s", st.t_s},         {"length_s", st.length_s},       {"ops", st.ops},
                      {"errors", st.errors},   {"bytes", st.bytes},             {"ops_per_sec", st.ops_per_sec},
                      {"backlog", st.backlog}, {"lag_ns", st.lag_ns},           {"response", PercentilesJson(st.response)},
                      {"service", PercentilesJson(st.service)},
                      {"max_backlog", st.max_backlog},
                      {"max_lag_ns", st.max_lag_ns},
                      {"runqueue_wait_ns", st.runqueue_wait_ns},
                      {"hiccup_p99_ns", st.hiccup_p99_ns},
                      {"hiccup_max_ns", st.hiccup_max_ns}};
  if (st.group_ops.size() > 1) i["group_ops"] = st.group_ops;
  if (r.open_loop) i["offered_ops_per_sec"] = st.offered_ops_per_sec;
  if (!st.cpu.empty()) i["cpu"] = job::EncodeCpuHeld(st.cpu);
  i["platform"] = PlatformIntervalJson(st.platform);
  if (const double load = EffectiveLoad(r, st); load > 0) i["effective_load"] = load;
  if (st.has_ideal) {
    i["ideal"] = PercentilesJson(st.ideal);
    if (st.steady.max) i["steady"] = PercentilesJson(st.steady);
    if (st.own_cpu.max) i["own_cpu"] = PercentilesJson(st.own_cpu);
    i["client_added_p99_ns"] = static_cast<int64_t>(st.arrival_observed.p99) - static_cast<int64_t>(st.ideal.p99);
    if (const RunCauses c = IntervalCauses(r, st); c.p99.known)
      i["causes"] = {{"p99", TailCausesJson(c.p99)}, {"max", TailCausesJson(c.max)}};
  }
  if (!st.backend.empty()) {
    nlohmann::json b = nlohmann::json::object();
    STOREBENCH_RETURN_IF_ERROR(AddMetricsJson(st.backend, &b));
    i["backend"] = std::move(b);
  }
  return i;
}

}  // namespace

StatusOr<nlohmann::json> PhaseJson(const driver::RunResult& r) {
  nlohmann::json doc;
  doc["throughput"] = ThroughputJson(r);
  doc["totals"] = TotalsJson(r);
  doc["latency"] = PhaseLatencyJson(r);
  doc["schedule"] = ScheduleJson(r);
  if (const RunCauses causes = CausesOf(r); causes.p99.known) doc["causes"] = CausesJson(causes);
  if (r.metrics.Find({"cpu", "user_s"})) doc["resources"] = ResourcesJson(r.metrics);
  doc["kinds"] = KindsJson(r);
  if (r.group_names.size() > 1) doc["groups"] = GroupsJson(r);
  nlohmann::json intervals = nlohmann::json::array();
  for (const auto& st : r.intervals) {
    auto i = IntervalJson(r, st);
    if (!i.ok()) return i.status();
    intervals.push_back(std::move(*i));
  }
  doc["intervals"] = intervals;
  static const std::set<std::string> kCoreKeys = {"schema",  "tool",   "command",  "finished_at", "config",
                                                  "environment", "throughput", "totals", "latency", "schedule",
                                                  "resources", "kinds", "groups", "intervals", "two_phase", "causes"};
  STOREBENCH_RETURN_IF_ERROR(AddMetricsJson(r.metrics, &doc, kCoreKeys));
  doc["platform"]["unsteady"] = RunPlatformOf(r).unsteady();
  return doc;
}

StatusOr<nlohmann::json> BuildRunJson(const job::JobResult& r, const std::vector<std::string>& command) {
  auto phase = PhaseJson(r.run);
  if (!phase.ok()) return phase.status();
  nlohmann::json doc;
  doc["schema"] = kRunSchema;
  doc["tool"] = ToolJson();
  doc["command"] = command;
  doc["finished_at"] = IsoNow();
  doc["config"] = r.config;
  doc["environment"] = r.environment;
  doc.update(*phase);
  doc["schedule"]["effective"] = r.schedule;
  if (r.two_phase) {
    nlohmann::json tp = {{"capacity_ops_per_sec", r.two_phase->capacity_ops_per_sec},
                         {"capacity_method", "median of phase 1's intervals"},
                         {"phase1_mean_ops_per_sec", r.two_phase->mean_ops_per_sec},
                         {"fraction", r.two_phase->fraction},
                         {"target_ops_per_sec", r.two_phase->target_ops_per_sec}};
    if (const EngineBusy e = EngineBusyOf(r.run); e.servers > 0)
      tp["engine"] = {{"busy", e.busy},
                      {"offered_load", e.offered_load},
                      {"service_mean_ns", e.service_mean_ns},
                      {"phase1_service_mean_ns", e.phase1_service_mean_ns},
                      {"slowdown", e.slowdown()}};
    if (r.two_phase->phase1.total) {
      auto p1 = PhaseJson(r.two_phase->phase1);
      if (!p1.ok()) return p1.status();
      tp["phase1"] = std::move(*p1);
    }
    doc["two_phase"] = std::move(tp);
  }
  return doc;
}

std::string IntervalCsv(const driver::RunResult& r) {
  std::string out =
      "elapsed_s,length_s,ops,ops_per_sec,errors,p50_ns,p99_ns,p999_ns,max_ns,service_p50_ns,service_p99_ns,"
      "backlog,lag_ns,max_backlog,max_lag_ns,runqueue_wait_ns,hiccup_p99_ns,hiccup_max_ns,offered_ops_per_sec,"
      "ideal_p50_ns,ideal_p99_ns,ideal_max_ns,client_added_p99_ns,workers_cpu_ns,engine_cpu_ns,client_cpu_ns,"
      "others_cpu_ns,steal_ns,capacity_ns,cpu_wait,p99_queueing,p99_engine,p99_client,p99_platform,p99_largest,max_queueing,"
      "max_engine,max_client,max_platform,max_largest,steady_p99_ns," + PlatformCsvHeader() + "\n";
  for (const auto& st : r.intervals) {
    out += fmt::format("{:.3f},{:.3f},{},{:.1f},{},{},{},{},{},{},{},{:.1f},{},{:.1f},{},{},{},{},{:.1f},", st.t_s,
                       st.length_s, st.ops, st.ops_per_sec, st.errors, st.response.p50, st.response.p99,
                       st.response.p999, st.response.max, st.service.p50, st.service.p99, st.backlog, st.lag_ns,
                       st.max_backlog, st.max_lag_ns, st.runqueue_wait_ns, st.hiccup_p99_ns, st.hiccup_max_ns,
                       st.offered_ops_per_sec);
    // Closed loops and results without the ideal client leave these empty.
    out += st.has_ideal ? fmt::format("{},{},{},{},", st.ideal.p50, st.ideal.p99, st.ideal.max,
                                      static_cast<int64_t>(st.arrival_observed.p99) - static_cast<int64_t>(st.ideal.p99))
                        : ",,,,";
    out += st.cpu.empty() ? ",,,,,," : fmt::format("{},{},{},{},{},{},", st.cpu.workers_ns, st.cpu.engine_ns,
                                                    st.cpu.client_ns, st.cpu.others_ns, st.cpu.steal_ns,
                                                    st.cpu.capacity_ns);
    const RunCauses c = IntervalCauses(r, st);
    auto shares = [](const TailCauses& t) {
      return fmt::format("{:.4f},{:.4f},{:.4f},{:.4f},{}", t.queueing, t.engine, t.client, t.platform, t.largest());
    };
    out += c.p99.known ? fmt::format("{:.4f},", c.p99.cpu_wait) + shares(c.p99) + "," + shares(c.max) + ","
                       : ",,,,,,,,,,,";
    out += (st.has_ideal && st.steady.max ? fmt::format("{}", st.steady.p99) : "") + "," + PlatformCsvValues(st) + "\n";
  }
  return out;
}

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
  if (largest == "queueing") {
    s = fmt::format("the response tail is queueing behind the engine: {} of p99 {} is what an ideal client, with no "
                    "client in between, also waits (its p99 {}, service p99 {})",
                    Pct(t.queueing), p99, ideal, FormatDurationNs(static_cast<double>(service99)));
  } else if (largest == "engine") {
    s = fmt::format("the response tail is the engine's threads holding the CPU: {} of p99 {} was added while the "
                    "workers waited {} for a CPU and the engine's threads ran {} ({}); an ideal client has p99 {}",
                    Pct(t.engine), p99, FormatDurationNs(runqueue), FormatDurationNs(static_cast<double>(cpu.engine_ns)),
                    EngineThreadsText(cpu), ideal);
  } else if (largest == "client") {
    s = fmt::format("the response tail is the client's own: {} of p99 {} was added while its threads held the CPU "
                    "({}{}); an ideal client has p99 {}",
                    Pct(t.client), p99, FormatDurationNs(static_cast<double>(cpu.client_ns)),
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
    s = fmt::format("the response tail is the platform's: {} of p99 {}", Pct(t.platform), p99);
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
