#include "storebench/report/slo.h"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <set>

#include "storebench/base/units.h"
#include "storebench/report/compare.h"

namespace storebench::report {
namespace {

constexpr const char* kSloForm =
    "--slo: expected [KIND or CLASS:]pNN<=DURATION, a response-time percentile and its goal, e.g. p99<=1ms, "
    "p99.9<=5ms or read:p99<=200us";

std::string PercentileName(double p) { return fmt::format("p{}", p); }

// The response-time buckets of `scope` in one run document: every op, a
// class (groups.<name>), a kind (kinds.<name>), or a kind of every class
// (kinds.<class>/<name>, merged).
StatusOr<Buckets> ScopeBuckets(const nlohmann::json& doc, const Slo& slo, const std::string& where) {
  if (slo.scope.empty()) return HistogramBuckets(doc.at("latency"), "response", where + ": latency");
  const nlohmann::json groups = doc.value("groups", nlohmann::json::object());
  if (groups.contains(slo.scope))
    return HistogramBuckets(groups[slo.scope], "response", fmt::format("{}: groups.{}", where, slo.scope));
  const nlohmann::json kinds = doc.value("kinds", nlohmann::json::object());
  Buckets merged;
  bool found = false;
  std::string names;
  for (auto it = kinds.begin(); it != kinds.end(); ++it) {
    const std::string& kind = it.key();
    names += (names.empty() ? "" : ", ") + kind;
    const bool match = kind == slo.scope || (kind.size() > slo.scope.size() + 1 &&
                                             kind.compare(kind.size() - slo.scope.size() - 1, std::string::npos,
                                                          "/" + slo.scope) == 0);
    if (!match) continue;
    auto b = HistogramBuckets(it.value(), "response", fmt::format("{}: kinds.{}", where, kind));
    if (!b.ok()) return b.status();
    merged.insert(merged.end(), b->begin(), b->end());
    found = true;
  }
  if (found) return merged;
  for (auto it = groups.begin(); it != groups.end(); ++it) names += ", class " + it.key();
  return Status::InvalidArgument(fmt::format("--slo {}: '{}' is neither an op kind nor a class of this run ({})",
                                             slo.text, slo.scope, names.empty() ? "none" : names));
}

// Ops of the loaded groups in one run.
uint64_t LoadOps(const nlohmann::json& doc, const std::vector<std::string>& load_groups) {
  const nlohmann::json groups = doc.value("groups", nlohmann::json::object());
  bool all = !groups.empty();
  for (const auto& g : load_groups) all = all && groups.contains(g);
  if (!all) return doc.at("totals").at("ops").get<uint64_t>();
  uint64_t ops = 0;
  for (const auto& g : load_groups) ops += groups[g].at("ops").get<uint64_t>();
  return ops;
}

}  // namespace

std::string Slo::Describe() const {
  return fmt::format("{}{} <= {}", scope.empty() ? "" : scope + ": ", PercentileName(percentile),
                     FormatDurationNs(goal_ns));
}

StatusOr<Slo> ParseSlo(const std::string& text) {
  std::string t;
  for (char c : text)
    if (c != ' ') t += c;
  Slo slo;
  slo.text = text;
  auto bad = [&] { return Status::InvalidArgument(fmt::format("{}; got '{}'", kSloForm, text)); };
  auto colon = t.find(':');
  if (colon != std::string::npos) {
    slo.scope = t.substr(0, colon);
    t = t.substr(colon + 1);
    if (slo.scope.empty()) return bad();
  }
  auto le = t.find("<=");
  if (le == std::string::npos || t.size() < 2 || t[0] != 'p') return bad();
  // The percentile as a plain decimal, "99" or "99.9": not "99.", ".9" or "9e1".
  const std::string digits = t.substr(1, le - 1);
  const size_t dot = digits.find('.');
  const bool plain = !digits.empty() && digits.find_first_not_of("0123456789.") == std::string::npos &&
                     (dot == std::string::npos ||
                      (dot > 0 && dot + 1 < digits.size() && digits.find('.', dot + 1) == std::string::npos));
  if (!plain) return bad();
  auto p = ParseDouble(digits, "--slo");
  if (!p.ok() || !(*p > 0 && *p <= 100)) return bad();
  auto goal = ParseDurationNs(t.substr(le + 2), "--slo");
  if (!goal.ok() || *goal == 0) return bad();
  slo.percentile = *p;
  slo.goal_ns = static_cast<double>(*goal);
  return slo;
}

StatusOr<StepVerdict> JudgeStep(const StepInput& step, const std::vector<Slo>& slos, double confidence,
                                uint64_t seed) {
  StepVerdict v;
  v.target = step.target;
  v.repeats = static_cast<int>(step.runs.size());
  LatencyRuns all;
  std::vector<LatencyRuns> scoped(slos.size());
  double load_ops = 0, elapsed = 0, longest_ns = 0;
  try {
    for (size_t r = 0; r < step.runs.size(); ++r) {
      const nlohmann::json& doc = step.runs[r];
      const std::string where = fmt::format("step at {:.0f} ops/s, run {}", step.target, r + 1);
      const auto& totals = doc.at("totals");
      const double run_elapsed = totals.at("elapsed_s").get<double>();
      const double run_ops = static_cast<double>(LoadOps(doc, step.load_groups));
      load_ops += run_ops;
      elapsed += run_elapsed;
      longest_ns = std::max(longest_ns, run_elapsed * 1e9);
      v.ops += totals.at("ops").get<uint64_t>();
      double end_backlog = static_cast<double>(totals.value("unstarted", uint64_t{0}));
      const auto& intervals = doc.at("intervals");
      for (const auto& i : intervals) v.max_backlog = std::max(v.max_backlog, i.value("backlog", 0.0));
      if (!intervals.empty()) end_backlog = std::max(end_backlog, intervals.back().value("backlog", 0.0));
      v.end_backlog = std::max(v.end_backlog, end_backlog);
      if (step.target > 0) {
        const double arrivals = step.target * run_elapsed;
        const double allowance = std::max(0.01 * arrivals, static_cast<double>(step.slots));
        if (arrivals - run_ops > allowance || end_backlog > allowance) v.keeps_pace = false;
      }
      // The run's own verdict (achieved >= 99% of offered, <= 1% left due), where it has one.
      if (const auto sch = doc.find("schedule"); sch != doc.end() && sch->is_object() && !sch->value("sustained", true))
        v.keeps_pace = false;
      auto b = HistogramBuckets(doc.at("latency"), "response", where + ": latency");
      if (!b.ok()) return b.status();
      all.runs.push_back(std::move(*b));
      for (size_t s = 0; s < slos.size(); ++s) {
        auto sb = ScopeBuckets(doc, slos[s], where);
        if (!sb.ok()) return sb.status();
        scoped[s].runs.push_back(std::move(*sb));
      }
    }
  } catch (const nlohmann::json::exception& e) {
    return Status::Corruption(fmt::format("step at {:.0f} ops/s: malformed run result: {}", step.target, e.what()));
  }
  v.achieved = elapsed > 0 ? load_ops / elapsed : 0;
  // No op of a run waits longer than the run lasts: bounds beyond that are clamped.
  all.ceiling = longest_ns;
  for (LatencyRuns& s : scoped) s.ceiling = longest_ns;
  auto interval = [&](const LatencyRuns& runs, double p) -> PercentileInterval {
    auto ci = step.across_runs ? RunsPercentileBound(runs, p, confidence, seed)
                               : BootstrapPercentile(runs, p, confidence, seed);
    if (ci.ok()) return *ci;
    // A step without ops has no percentile and no bound; its SLOs fail.
    PercentileInterval none;
    none.ci_bounded = none.upper_bounded = false;
    none.unbounded_reason = "n too small: no observations";
    return none;
  };
  v.p50 = interval(all, 50);
  v.p99 = interval(all, 99);
  v.p999 = interval(all, 99.9);
  v.pass = v.keeps_pace;
  for (size_t s = 0; s < slos.size(); ++s) {
    SloCheck c;
    c.slo = slos[s];
    c.ci = interval(scoped[s], slos[s].percentile);
    c.pass = c.ci.upper_bounded && c.ci.upper <= slos[s].goal_ns;
    v.pass = v.pass && c.pass;
    v.slos.push_back(std::move(c));
  }
  return v;
}

std::string FormatWithin(const std::string& label, const PercentileInterval& ci) {
  const double half = (ci.hi - ci.lo) / 2;
  const double v = ci.value;
  const auto [scale, unit] = v < 1e3 ? std::pair{1.0, "ns"}
                             : v < 1e6 ? std::pair{1e3, "us"}
                             : v < 1e9 ? std::pair{1e6, "ms"}
                                       : std::pair{1e9, "s"};
  const int digits = v < 1e3 ? 0 : 2;
  if (!ci.ci_bounded) return fmt::format("{} {:.{}f} {}, {}", label, v / scale, digits, unit, kNotBounded);
  // A lopsided interval (few runs, a heavy tail) is shown as its ends: "± half" would hide that.
  if (std::fabs((ci.hi - v) - (v - ci.lo)) > 0.5 * half)
    return fmt::format("{} {:.{}f} {} [{:.{}f}, {:.{}f}]", label, v / scale, digits, unit, ci.lo / scale, digits,
                       ci.hi / scale, digits);
  return fmt::format("{} {:.{}f} {} ± {:.{}f}", label, v / scale, digits, unit, half / scale, digits);
}

}  // namespace storebench::report
