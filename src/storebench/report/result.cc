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
          {"own_cpu_ns", t.own_cpu_ns},   {"with_stops_ns", t.with_stops_ns}, {"cpu_wait", t.cpu_wait},
          {"queueing", t.queueing},       {"engine", t.engine},               {"client", t.client},
          {"platform", t.platform},       {"platform_speed", t.platform_speed}, {"platform_stops", t.platform_stops},
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
    if (r.with_stops && r.with_stops->count()) latency["with_stops"] = LatencyJson(*r.with_stops);
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
           "shares of the open loop's response tail: with P = min(with_stops, observed), I = min(ideal, P), "
           "O = min(own_cpu, I) and S = min(steady, O), queueing = (1 - cpu_wait) * S / observed (the steady-platform ideal client's tail "
           "over the same ops: service times as the work the CPU could do at its calibrated speed, less the worker's "
           "own run-queue wait in each op; cpu_wait, the share of the time the workers had arrivals waiting that they "
           "spent on the run queue beyond the waits measured inside ops); platform_speed = (1 - cpu_wait) * "
           "(O - S) / observed (what the platform meter's slow or stopped CPUs added to the service times and their "
           "queue); platform_stops = (P - I) / observed (the starts delayed by the platform's stops that the workers "
           "measured while they waited, awake, for an arrival); the rest (I - O, the waits for a CPU inside ops, and "
           "observed - P) split among engine, client and platform by the CPU time each held on the workers' CPUs in "
           "the window (platform.cpu_held); platform includes platform_speed and platform_stops"},
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
    if (st.with_stops.max) i["with_stops"] = PercentilesJson(st.with_stops);
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

}  // namespace storebench::report
