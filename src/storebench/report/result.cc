#include "storebench/report/result.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <ctime>
#include <fmt/format.h>

#include "storebench/base/units.h"

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

nlohmann::json BuildRunJson(const driver::RunResult& r, const nlohmann::json& config, const nlohmann::json& environment,
                            const nlohmann::json& backend_results, const std::vector<std::string>& command) {
  const measure::Sample& total = *r.total;
  nlohmann::json doc;
  doc["schema"] = kRunSchema;
  doc["tool"] = {{"name", "storebench"}, {"version", "0.1.0"}};
  doc["command"] = command;
  doc["finished_at"] = IsoNow();
  doc["config"] = config;
  doc["environment"] = environment;
  double ops_per_sec = r.elapsed_s > 0 ? static_cast<double>(total.ops()) / r.elapsed_s : 0;
  doc["throughput"] = {{"ops_per_sec", ops_per_sec},
                       {"bytes_per_sec", r.elapsed_s > 0 ? static_cast<double>(total.bytes()) / r.elapsed_s : 0}};
  std::vector<uint64_t> outcomes(r.layout.outcomes.size(), 0);
  for (const auto& k : total.kinds())
    for (size_t i = 0; i < outcomes.size(); ++i) outcomes[i] += k.outcomes[i];
  doc["totals"] = {{"ops", total.ops()},
                   {"errors", total.errors()},
                   {"bytes", total.bytes()},
                   {"elapsed_s", r.elapsed_s},
                   {"warmup_ops", r.warmup_ops},
                   {"unfinished", r.unfinished},
                   {"unstarted", r.unstarted},
                   {"interrupted", r.interrupted},
                   {"stopped_on_errors", r.stopped_on_errors},
                   {"outcomes", OutcomesJson(r.layout, outcomes)}};
  doc["latency"] = {{"response", LatencyJson(total.AllResponse())}, {"service", LatencyJson(total.AllService())}};
  doc["schedule"] = {{"open_loop", r.open_loop}, {"start_lag", LatencyJson(total.start_lag())}};
  doc["resources"] = {{"cpu_user_s", r.cpu_user_s},
                      {"cpu_sys_s", r.cpu_sys_s},
                      {"voluntary_context_switches", r.voluntary_switches},
                      {"involuntary_context_switches", r.involuntary_switches}};
  nlohmann::json kinds = nlohmann::json::object();
  for (size_t k = 0; k < total.kinds().size(); ++k) {
    const auto& ks = total.kinds()[k];
    uint64_t n = 0;
    for (uint64_t o : ks.outcomes) n += o;
    kinds[r.layout.kinds[k]] = {{"ops", n},
                                {"ops_per_sec", r.elapsed_s > 0 ? static_cast<double>(n) / r.elapsed_s : 0},
                                {"bytes", ks.bytes},
                                {"outcomes", OutcomesJson(r.layout, ks.outcomes)},
                                {"response", LatencyJson(ks.response)},
                                {"service", LatencyJson(ks.service)}};
  }
  doc["kinds"] = kinds;
  if (r.group_names.size() > 1) {
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
                                  {"ops_per_sec", r.elapsed_s > 0 ? static_cast<double>(n) / r.elapsed_s : 0},
                                  {"response", LatencyJson(resp)},
                                  {"service", LatencyJson(serv)}};
    }
    doc["groups"] = groups;
  }
  nlohmann::json intervals = nlohmann::json::array();
  for (const auto& st : r.intervals) {
    nlohmann::json i = {{"t_s", st.t_s},         {"length_s", st.length_s},       {"ops", st.ops},
                        {"errors", st.errors},   {"bytes", st.bytes},             {"ops_per_sec", st.ops_per_sec},
                        {"backlog", st.backlog}, {"lag_ns", st.lag_ns},           {"response", PercentilesJson(st.response)},
                        {"service", PercentilesJson(st.service)}};
    if (st.group_ops.size() > 1) i["group_ops"] = st.group_ops;
    if (!st.backend.is_null()) i["backend"] = st.backend;
    intervals.push_back(std::move(i));
  }
  doc["intervals"] = intervals;
  for (auto it = backend_results.begin(); it != backend_results.end(); ++it) doc[it.key()] = it.value();
  return doc;
}

std::string IntervalCsv(const driver::RunResult& r) {
  std::string out =
      "elapsed_s,length_s,ops,ops_per_sec,errors,p50_ns,p99_ns,p999_ns,max_ns,service_p50_ns,service_p99_ns,"
      "backlog,lag_ns\n";
  for (const auto& st : r.intervals) {
    out += fmt::format("{:.3f},{:.3f},{},{:.1f},{},{},{},{},{},{},{},{:.1f},{}\n", st.t_s, st.length_s, st.ops,
                       st.ops_per_sec, st.errors, st.response.p50, st.response.p99, st.response.p999, st.response.max,
                       st.service.p50, st.service.p99, st.backlog, st.lag_ns);
  }
  return out;
}

std::string HumanSummary(const driver::RunResult& r, const std::string& title,
                         const std::vector<std::string>& backend_lines) {
  const measure::Sample& total = *r.total;
  std::string s = fmt::format("== {} ==\n", title);
  double ops_per_sec = r.elapsed_s > 0 ? static_cast<double>(total.ops()) / r.elapsed_s : 0;
  s += fmt::format("  {} ops in {:.2f} s: {:.0f} ops/s, {} errors{}{}\n", total.ops(), r.elapsed_s, ops_per_sec,
                   total.errors(),
                   r.interrupted ? " (interrupted)" : (r.stopped_on_errors ? " (stopped: --max-errors reached)" : ""),
                   r.unfinished ? fmt::format(", {} unfinished", r.unfinished) : "");
  auto row = [](const char* name, const measure::Histogram& h) {
    auto p = driver::PercentilesOf(h);
    return fmt::format("  {:<9} p50 {:>10}  p90 {:>10}  p99 {:>10}  p99.9 {:>10}  p99.99 {:>10}  max {:>10}\n", name,
                       FormatDurationNs(static_cast<double>(p.p50)), FormatDurationNs(static_cast<double>(p.p90)),
                       FormatDurationNs(static_cast<double>(p.p99)), FormatDurationNs(static_cast<double>(p.p999)),
                       FormatDurationNs(static_cast<double>(p.p9999)), FormatDurationNs(static_cast<double>(p.max)));
  };
  if (r.open_loop) {
    s += row("response", total.AllResponse());
    s += row("service", total.AllService());
    double max_backlog = 0;
    uint64_t max_lag = 0;
    for (const auto& st : r.intervals) {
      max_backlog = std::max(max_backlog, st.backlog);
      max_lag = std::max(max_lag, st.lag_ns);
    }
    s += fmt::format("  schedule  start lag p99 {}, max backlog {:.0f} ops, max lag {}{}\n",
                     FormatDurationNs(static_cast<double>(total.start_lag().ValueAtPercentile(99))), max_backlog,
                     FormatDurationNs(static_cast<double>(max_lag)),
                     r.unstarted ? fmt::format(", {} due ops never started", r.unstarted) : "");
  } else {
    s += row("latency", total.AllService());
  }
  if (total.kinds().size() > 1) {
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
  }
  s += fmt::format("  cpu       user {:.2f} s, sys {:.2f} s, context switches {} voluntary / {} involuntary\n",
                   r.cpu_user_s, r.cpu_sys_s, r.voluntary_switches, r.involuntary_switches);
  for (const auto& line : backend_lines) s += "  " + line + "\n";
  return s;
}

std::string ProgressLine(const driver::IntervalStats& t) {
  if (t.warmup) return fmt::format("[warm-up {:5.1f}s] {} ops", -t.t_s, t.ops);
  std::string line = fmt::format("[{:7.1f}s] {:>12.0f} ops/s  p50 {:>10}  p99 {:>10}  max {:>10}", t.t_s,
                                 t.ops_per_sec, FormatDurationNs(static_cast<double>(t.response.p50)),
                                 FormatDurationNs(static_cast<double>(t.response.p99)),
                                 FormatDurationNs(static_cast<double>(t.response.max)));
  if (t.backlog >= 1 || t.lag_ns) line += fmt::format("  backlog {:.0f}", t.backlog);
  if (t.errors) line += fmt::format("  errors {}", t.errors);
  return line;
}

Status WriteFileAtomically(const std::string& path, const std::string& text) {
  std::string tmp = path + ".tmp." + std::to_string(getpid());
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return ErrnoStatus("open", tmp, errno);
  size_t done = 0;
  while (done < text.size()) {
    ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      int err = errno;
      ::close(fd);
      ::unlink(tmp.c_str());
      return ErrnoStatus("write", tmp, err);
    }
    done += static_cast<size_t>(n);
  }
  if (::close(fd) != 0) {
    int err = errno;
    ::unlink(tmp.c_str());
    return ErrnoStatus("close", tmp, err);
  }
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    int err = errno;
    ::unlink(tmp.c_str());
    return ErrnoStatus("rename", path, err);
  }
  return Status::Ok();
}

}  // namespace storebench::report
