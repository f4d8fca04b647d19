#include "storebench/job/result_codec.h"

#include <nlohmann/json.hpp>
#include <map>
#include <fmt/format.h>

namespace storebench::job {
namespace {

using measure::Histogram;
using measure::Metric;
using measure::MetricSet;

StatusOr<Histogram> DecodeHistogram(const nlohmann::json& j, const char* what) {
  if (!j.is_string()) return Status::Corruption(fmt::format("result: {} is not an encoded histogram", what));
  return Histogram::Decode(j.get<std::string>());
}

Status MergeEncoded(std::string* into, const std::string& other) {
  auto a = Histogram::Decode(*into);
  auto b = Histogram::Decode(other);
  if (!a.ok()) return a.status();
  if (!b.ok()) return b.status();
  STOREBENCH_RETURN_IF_ERROR(a->Merge(*b));
  *into = a->Encode();
  return Status::Ok();
}

// Per op kind, index by index; a kind one side lacks takes the other's.
Status MergeEncodedList(std::vector<std::string>* into, const std::vector<std::string>& other) {
  if (into->size() < other.size()) into->resize(other.size());
  for (size_t k = 0; k < other.size(); ++k) {
    if (other[k].empty()) continue;
    if ((*into)[k].empty()) {
      (*into)[k] = other[k];
      continue;
    }
    STOREBENCH_RETURN_IF_ERROR(MergeEncoded(&(*into)[k], other[k]));
  }
  return Status::Ok();
}

// Every encoded histogram of `list` decodes: a corrupt one is refused when read, not when merged.
StatusOr<std::vector<std::string>> DecodeHistogramList(const nlohmann::json& i, const char* key) {
  std::vector<std::string> out = i.value(key, std::vector<std::string>{});
  for (const std::string& text : out)
    if (auto h = Histogram::Decode(text); !h.ok())
      return Status::Corruption(fmt::format("result: interval {}: {}", key, h.status().message()));
  return out;
}

}  // namespace

nlohmann::json EncodeMetrics(const MetricSet& set) {
  nlohmann::json out = nlohmann::json::array();
  for (const Metric& m : set.metrics()) {
    out.push_back({{"path", m.path},       {"kind", static_cast<int>(m.kind)}, {"unit", static_cast<int>(m.unit)},
                   {"merge", static_cast<int>(m.merge)}, {"count", m.count},  {"value", m.value},
                   {"text", m.text},       {"known", m.known},                 {"num", m.num},
                   {"den", m.den},         {"scale", m.scale},                 {"complement", m.complement},
                   {"summary", m.summary}});
  }
  return out;
}

StatusOr<MetricSet> DecodeMetrics(const nlohmann::json& j) {
  if (!j.is_array()) return Status::Corruption("result: metrics are not an array");
  MetricSet set;
  MetricSet parts;
  try {
    for (const auto& e : j) {
      Metric& m = parts.Counter(e.at("path").get<measure::MetricPath>(), e.at("count").get<uint64_t>());
      m.kind = static_cast<measure::MetricKind>(e.at("kind").get<int>());
      m.unit = static_cast<measure::Unit>(e.at("unit").get<int>());
      m.merge = static_cast<measure::MergeRule>(e.at("merge").get<int>());
      m.value = e.at("value").get<double>();
      m.text = e.at("text").get<std::string>();
      m.known = e.at("known").get<bool>();
      m.num = e.at("num").get<measure::MetricPath>();
      m.den = e.at("den").get<measure::MetricPath>();
      m.scale = e.at("scale").get<double>();
      m.complement = e.at("complement").get<bool>();
      m.summary = e.at("summary").get<std::string>();
    }
  } catch (const nlohmann::json::exception& e) {
    return Status::Corruption(fmt::format("result: bad metric: {}", e.what()));
  }
  set.Append(parts);
  return set;
}

nlohmann::json EncodeCpuHeld(const driver::CpuHeld& c) {
  return {{"workers_ns", c.workers_ns}, {"engine_ns", c.engine_ns}, {"client_ns", c.client_ns},
          {"others_ns", c.others_ns},   {"steal_ns", c.steal_ns},   {"capacity_ns", c.capacity_ns},
          {"backlogged_ns", c.backlogged_ns}, {"backlogged_runqueue_ns", c.backlogged_runqueue_ns},
          {"preempted_in_ops_ns", c.preempted_in_ops_ns}, {"stopped_between_ops_ns", c.stopped_between_ops_ns},
          {"engine_threads", c.engine_threads}};
}

driver::CpuHeld DecodeCpuHeld(const nlohmann::json& j) {
  driver::CpuHeld c;
  if (!j.is_object()) return c;
  c.workers_ns = j.value("workers_ns", uint64_t{0});
  c.engine_ns = j.value("engine_ns", uint64_t{0});
  c.client_ns = j.value("client_ns", uint64_t{0});
  c.others_ns = j.value("others_ns", uint64_t{0});
  c.steal_ns = j.value("steal_ns", uint64_t{0});
  c.capacity_ns = j.value("capacity_ns", uint64_t{0});
  c.backlogged_ns = j.value("backlogged_ns", uint64_t{0});
  c.backlogged_runqueue_ns = j.value("backlogged_runqueue_ns", uint64_t{0});
  c.preempted_in_ops_ns = j.value("preempted_in_ops_ns", uint64_t{0});
  c.stopped_between_ops_ns = j.value("stopped_between_ops_ns", uint64_t{0});
  if (j.contains("engine_threads")) c.engine_threads = j.at("engine_threads").get<std::map<std::string, uint64_t>>();
  return c;
}

namespace {

nlohmann::json EncodePressure(const std::optional<driver::Pressure>& p) {
  return p ? nlohmann::json{p->some_ns, p->full_ns} : nlohmann::json(nullptr);
}

std::optional<driver::Pressure> DecodePressure(const nlohmann::json& j) {
  if (!j.is_array() || j.size() != 2) return std::nullopt;
  return driver::Pressure{j[0].get<uint64_t>(), j[1].get<uint64_t>()};
}

}  // namespace

nlohmann::json EncodePlatform(const driver::PlatformFigures& f) {
  nlohmann::json j = {{"cpus", f.cpus},         {"span_ns", f.span_ns},     {"work_ns", f.work_ns},
                      {"stopped_ns", f.stopped_ns}, {"slow_ns", f.slow_ns}, {"speed_min", f.speed_min},
                      {"memory_speed_min", f.memory_speed_min}, {"ticks", f.ticks},
                      {"contention_work_ns", f.contention_work_ns}, {"contention_speed_min", f.contention_speed_min},
                      {"psi", {EncodePressure(f.kernel.cpu), EncodePressure(f.kernel.memory), EncodePressure(f.kernel.io)}}};
  if (f.kernel.cgroup)
    j["cgroup"] = {f.kernel.cgroup->nr_periods, f.kernel.cgroup->nr_throttled, f.kernel.cgroup->throttled_ns};
  return j;
}

driver::PlatformFigures DecodePlatform(const nlohmann::json& j) {
  driver::PlatformFigures f;
  f.cpus = j.value("cpus", 0u);
  f.span_ns = j.value("span_ns", uint64_t{0});
  f.work_ns = j.value("work_ns", uint64_t{0});
  f.stopped_ns = j.value("stopped_ns", uint64_t{0});
  f.slow_ns = j.value("slow_ns", uint64_t{0});
  f.speed_min = j.value("speed_min", 0.0);
  f.memory_speed_min = j.value("memory_speed_min", 0.0);
  f.contention_work_ns = j.value("contention_work_ns", uint64_t{0});
  f.contention_speed_min = j.value("contention_speed_min", 0.0);
  f.ticks = j.value("ticks", uint64_t{0});
  if (j.contains("psi") && j.at("psi").is_array() && j.at("psi").size() == 3) {
    f.kernel.cpu = DecodePressure(j.at("psi")[0]);
    f.kernel.memory = DecodePressure(j.at("psi")[1]);
    f.kernel.io = DecodePressure(j.at("psi")[2]);
  }
  if (j.contains("cgroup") && j.at("cgroup").is_array() && j.at("cgroup").size() == 3)
    f.kernel.cgroup = driver::CgroupCpu{j.at("cgroup")[0].get<uint64_t>(), j.at("cgroup")[1].get<uint64_t>(),
                                        j.at("cgroup")[2].get<uint64_t>()};
  return f;
}

nlohmann::json EncodeRunResult(const driver::RunResult& r) {
  nlohmann::json kinds = nlohmann::json::array();
  for (const measure::KindSample& k : r.total->kinds())
    kinds.push_back({{"response", k.response.Encode()}, {"service", k.service.Encode()}, {"outcomes", k.outcomes},
                     {"bytes", k.bytes}});
  nlohmann::json intervals = nlohmann::json::array();
  for (const driver::IntervalStats& st : r.intervals)
    intervals.push_back({{"t_s", st.t_s},
                         {"length_s", st.length_s},
                         {"ops", st.ops},
                         {"errors", st.errors},
                         {"bytes", st.bytes},
                         {"backlog", st.backlog},
                         {"lag_ns", st.lag_ns},
                         {"group_ops", st.group_ops},
                         {"offered_ops_per_sec", st.offered_ops_per_sec},
                         {"response", st.response_histogram},
                         {"service", st.service_histogram},
                         // Per kind, so a merged result's .hlog holds every process's ops (issue 51 S2).
                         {"kind_response", st.kind_response_histograms},
                         {"kind_service", st.kind_service_histograms},
                         {"max_backlog", st.max_backlog},
                         {"max_lag_ns", st.max_lag_ns},
                         {"runqueue_wait_ns", st.runqueue_wait_ns},
                         {"hiccup_p99_ns", st.hiccup_p99_ns},
                         {"hiccup_max_ns", st.hiccup_max_ns},
                         {"cpu", EncodeCpuHeld(st.cpu)},
                         {"platform", EncodePlatform(st.platform)},
                         {"backend", EncodeMetrics(st.backend)}});
  return {{"kinds", r.layout.kinds},
          {"outcomes", r.layout.outcomes},
          {"digits", r.layout.histogram.significant_digits},
          {"group_names", r.group_names},
          {"group_first_kind", r.group_first_kind},
          {"samples", kinds},
          {"start_lag", r.total->start_lag().Encode()},
          {"intervals", intervals},
          {"elapsed_s", r.elapsed_s},
          {"warmup_ops", r.warmup_ops},
          {"unfinished", r.unfinished},
          {"unstarted", r.unstarted},
          {"interrupted", r.interrupted},
          {"stopped_on_errors", r.stopped_on_errors},
          {"open_loop", r.open_loop},
          {"offered_ops", r.offered_ops},
          // The ideal client per process: the union over processes is each one's replay (its own servers).
          {"ideal", r.ideal ? r.ideal->Encode() : std::string()},
          {"ideal_observed", r.ideal_observed ? r.ideal_observed->Encode() : std::string()},
          {"steady", r.steady ? r.steady->Encode() : std::string()},
          {"own_cpu", r.own_cpu ? r.own_cpu->Encode() : std::string()},
          {"with_stops", r.with_stops ? r.with_stops->Encode() : std::string()},
          {"ideal_servers", r.ideal_servers},
          {"ideal_dropped", r.ideal_dropped},
          {"metrics", EncodeMetrics(r.metrics)}};
}

namespace {

// The whole run's per-kind samples and start lag (the layout is set). Throws
// nlohmann::json::exception on a missing key, as DecodeRunResult catches.
Status DecodeSamples(const nlohmann::json& j, driver::RunResult* r) {
  r->total = std::make_unique<measure::Sample>(r->layout);
  const auto& samples = j.at("samples");
  if (samples.size() != r->layout.kinds.size()) return Status::Corruption("result: samples do not match the kinds");
  for (size_t k = 0; k < samples.size(); ++k) {
    measure::KindSample& ks = r->total->mutable_kinds()[k];
    auto resp = DecodeHistogram(samples[k].at("response"), "response");
    auto serv = DecodeHistogram(samples[k].at("service"), "service");
    if (!resp.ok()) return resp.status();
    if (!serv.ok()) return serv.status();
    ks.response = std::move(*resp);
    ks.service = std::move(*serv);
    ks.outcomes = samples[k].at("outcomes").get<std::vector<uint64_t>>();
    ks.bytes = samples[k].at("bytes").get<uint64_t>();
  }
  auto lag = DecodeHistogram(j.at("start_lag"), "start_lag");
  if (!lag.ok()) return lag.status();
  r->total->mutable_start_lag() = std::move(*lag);
  return Status::Ok();
}

// One element of "intervals" (throws as DecodeSamples does).
StatusOr<driver::IntervalStats> DecodeInterval(const nlohmann::json& i) {
  driver::IntervalStats st;
  st.t_s = i.at("t_s").get<double>();
  st.length_s = i.at("length_s").get<double>();
  st.ops = i.at("ops").get<uint64_t>();
  st.errors = i.at("errors").get<uint64_t>();
  st.bytes = i.at("bytes").get<uint64_t>();
  st.backlog = i.at("backlog").get<double>();
  st.lag_ns = i.at("lag_ns").get<uint64_t>();
  st.group_ops = i.at("group_ops").get<std::vector<uint64_t>>();
  st.offered_ops_per_sec = i.value("offered_ops_per_sec", 0.0);
  if (i.contains("cpu")) st.cpu = DecodeCpuHeld(i.at("cpu"));
  if (i.contains("platform")) st.platform = DecodePlatform(i.at("platform"));
  st.response_histogram = i.at("response").get<std::string>();
  st.service_histogram = i.at("service").get<std::string>();
  auto resp = Histogram::Decode(st.response_histogram);
  auto serv = Histogram::Decode(st.service_histogram);
  if (!resp.ok()) return resp.status();
  if (!serv.ok()) return serv.status();
  st.response = driver::PercentilesOf(*resp);
  st.service = driver::PercentilesOf(*serv);
  auto kind_response = DecodeHistogramList(i, "kind_response");
  auto kind_service = DecodeHistogramList(i, "kind_service");
  if (!kind_response.ok()) return kind_response.status();
  if (!kind_service.ok()) return kind_service.status();
  st.kind_response_histograms = std::move(*kind_response);
  st.kind_service_histograms = std::move(*kind_service);
  st.max_backlog = i.value("max_backlog", 0.0);
  st.max_lag_ns = i.value("max_lag_ns", uint64_t{0});
  st.runqueue_wait_ns = i.value("runqueue_wait_ns", uint64_t{0});
  st.hiccup_p99_ns = i.value("hiccup_p99_ns", uint64_t{0});
  st.hiccup_max_ns = i.value("hiccup_max_ns", uint64_t{0});
  st.ops_per_sec = st.length_s > 0 ? static_cast<double>(st.ops) / st.length_s : 0;
  auto backend = DecodeMetrics(i.at("backend"));
  if (!backend.ok()) return backend.status();
  st.backend = std::move(*backend);
  return st;
}

}  // namespace

StatusOr<driver::RunResult> DecodeRunResult(const nlohmann::json& j) {
  driver::RunResult r;
  try {
    r.layout.kinds = j.at("kinds").get<std::vector<std::string>>();
    r.layout.outcomes = j.at("outcomes").get<std::vector<std::string>>();
    r.layout.histogram.significant_digits = j.at("digits").get<int>();
    r.group_names = j.at("group_names").get<std::vector<std::string>>();
    r.group_first_kind = j.at("group_first_kind").get<std::vector<uint32_t>>();
    STOREBENCH_RETURN_IF_ERROR(DecodeSamples(j, &r));
    for (const auto& i : j.at("intervals")) {
      auto st = DecodeInterval(i);
      if (!st.ok()) return st.status();
      r.intervals.push_back(std::move(*st));
    }
    r.elapsed_s = j.at("elapsed_s").get<double>();
    r.warmup_ops = j.at("warmup_ops").get<uint64_t>();
    r.unfinished = j.at("unfinished").get<uint64_t>();
    r.unstarted = j.at("unstarted").get<uint64_t>();
    r.interrupted = j.at("interrupted").get<bool>();
    r.stopped_on_errors = j.at("stopped_on_errors").get<bool>();
    r.open_loop = j.at("open_loop").get<bool>();
    r.offered_ops = j.value("offered_ops", 0.0);
    for (auto [key, into] : {std::pair{"ideal", &r.ideal}, std::pair{"ideal_observed", &r.ideal_observed},
                             std::pair{"steady", &r.steady}, std::pair{"own_cpu", &r.own_cpu},
                             std::pair{"with_stops", &r.with_stops}}) {
      const std::string text = j.value(key, std::string());
      if (text.empty()) continue;
      auto h = DecodeHistogram(text, key);
      if (!h.ok()) return h.status();
      *into = std::move(*h);
    }
    r.ideal_servers = j.value("ideal_servers", 0);
    r.ideal_dropped = j.value("ideal_dropped", uint64_t{0});
    auto metrics = DecodeMetrics(j.at("metrics"));
    if (!metrics.ok()) return metrics.status();
    r.metrics = std::move(*metrics);
  } catch (const nlohmann::json::exception& e) {
    return Status::Corruption(fmt::format("result: {}", e.what()));
  }
  return r;
}

Status MergeRunResults(driver::RunResult* into, const driver::RunResult& other) {
  if (into->layout.kinds != other.layout.kinds || into->layout.outcomes != other.layout.outcomes ||
      into->layout.histogram.significant_digits != other.layout.histogram.significant_digits)
    return Status::InvalidArgument("merge: the results have different op kinds, outcomes or histogram precision");
  into->total->Merge(*other.total);
  for (size_t i = 0; i < other.intervals.size(); ++i) {
    if (i >= into->intervals.size()) {
      into->intervals.push_back(driver::IntervalStats{});
      into->intervals.back() = other.intervals[i];
      continue;
    }
    driver::IntervalStats& a = into->intervals[i];
    const driver::IntervalStats& b = other.intervals[i];
    a.length_s = std::max(a.length_s, b.length_s);
    a.t_s = std::max(a.t_s, b.t_s);
    a.ops += b.ops, a.errors += b.errors, a.bytes += b.bytes;
    a.backlog += b.backlog;
    a.offered_ops_per_sec += b.offered_ops_per_sec;
    a.lag_ns = std::max(a.lag_ns, b.lag_ns);
    // Each process's largest backlog may fall at another moment: their sum
    // bounds the whole's from above. Lag and hiccups are the worst process's.
    a.max_backlog += b.max_backlog;
    a.max_lag_ns = std::max(a.max_lag_ns, b.max_lag_ns);
    a.runqueue_wait_ns += b.runqueue_wait_ns;
    a.hiccup_p99_ns = std::max(a.hiccup_p99_ns, b.hiccup_p99_ns);
    a.hiccup_max_ns = std::max(a.hiccup_max_ns, b.hiccup_max_ns);
    a.cpu.Add(b.cpu);
    a.platform.AddProcess(b.platform);
    if (a.group_ops.size() < b.group_ops.size()) a.group_ops.resize(b.group_ops.size());
    for (size_t g = 0; g < b.group_ops.size(); ++g) a.group_ops[g] += b.group_ops[g];
    STOREBENCH_RETURN_IF_ERROR(MergeEncoded(&a.response_histogram, b.response_histogram));
    STOREBENCH_RETURN_IF_ERROR(MergeEncoded(&a.service_histogram, b.service_histogram));
    STOREBENCH_RETURN_IF_ERROR(MergeEncodedList(&a.kind_response_histograms, b.kind_response_histograms));
    STOREBENCH_RETURN_IF_ERROR(MergeEncodedList(&a.kind_service_histograms, b.kind_service_histograms));
    a.response = driver::PercentilesOf(*Histogram::Decode(a.response_histogram));
    a.service = driver::PercentilesOf(*Histogram::Decode(a.service_histogram));
    a.ops_per_sec = a.length_s > 0 ? static_cast<double>(a.ops) / a.length_s : 0;
    STOREBENCH_RETURN_IF_ERROR(a.backend.Merge(b.backend));
  }
  into->elapsed_s = std::max(into->elapsed_s, other.elapsed_s);
  into->warmup_ops += other.warmup_ops;
  into->unfinished += other.unfinished;
  into->unstarted += other.unstarted;
  into->interrupted = into->interrupted || other.interrupted;
  into->stopped_on_errors = into->stopped_on_errors || other.stopped_on_errors;
  into->open_loop = into->open_loop || other.open_loop;
  into->offered_ops += other.offered_ops;
  const bool had_ideal = into->ideal.has_value();  // false: `into` is still empty
  for (auto [a, b] : {std::pair{&into->ideal, &other.ideal}, std::pair{&into->ideal_observed, &other.ideal_observed},
                      std::pair{&into->steady, &other.steady}, std::pair{&into->own_cpu, &other.own_cpu},
                      std::pair{&into->with_stops, &other.with_stops}}) {
    // A figure only some processes have would be of part of the ops: kept only when every one has it.
    if ((a == &into->own_cpu || a == &into->with_stops) && had_ideal && a->has_value() != b->has_value()) {
      a->reset();
      continue;
    }
    if (!b->has_value()) continue;
    if (!a->has_value())
      *a = **b;
    else
      STOREBENCH_RETURN_IF_ERROR((*a)->Merge(**b));
  }
  into->ideal_servers += other.ideal_servers;
  into->ideal_dropped += other.ideal_dropped;
  for (auto& st : into->intervals) st.has_ideal = false;  // per-interval ideal figures are per process
  return into->metrics.Merge(other.metrics);
}

}  // namespace storebench::job
