// What compare warns about (compare.h: WarnAboutInputs, WarnOnPlatformSpeeds):
// inputs that are not what a comparison assumes, and platforms that moved
// more than the difference reported.
#include <cmath>
#include <fmt/format.h>
#include <set>

#include "storebench/base/units.h"
#include "storebench/report/compare.h"

namespace storebench::report {
namespace {

// "threads (1 vs 2)" for every key whose values differ between two settings objects.
std::vector<std::string> SettingDiffs(const nlohmann::json& x, const nlohmann::json& y,
                                      const std::set<std::string>& ignore) {
  std::set<std::string> keys;
  for (auto it = x.begin(); it != x.end(); ++it) keys.insert(it.key());
  for (auto it = y.begin(); it != y.end(); ++it) keys.insert(it.key());
  std::vector<std::string> out;
  for (const auto& k : keys) {
    if (ignore.count(k)) continue;
    auto text = [&k](const nlohmann::json& j) {
      if (!j.contains(k)) return std::string("unset");
      return j[k].is_string() ? j[k].get<std::string>() : j[k].dump();
    };
    std::string vx = text(x), vy = text(y);
    if (vx != vy) out.push_back(fmt::format("{} ({} vs {})", k, vx, vy));
  }
  return out;
}


// The platform meter's mean speed over a group's runs (0 when none measured it).
double MeanPlatformSpeed(const RunGroup& g) {
  double sum = 0;
  int n = 0;
  for (const RunRecord& r : g.runs)
    if (r.platform_speed > 0) sum += r.platform_speed, ++n;
  return n ? sum / n : 0;
}

}  // namespace

void WarnAboutInputs(const CompareInput& input, size_t baseline, std::vector<std::string>* w) {
  const RunRecord& ref = input.groups[baseline].runs.front();
  std::set<std::string> varied(input.varied_keys.begin(), input.varied_keys.end());
  std::set<std::string> env_warned;
  for (const RunGroup& g : input.groups) {
    if (g.planned_runs > g.runs.size())
      w->push_back(fmt::format("{}: {} of {} planned runs are stored", g.name, g.runs.size(), g.planned_runs));
    for (const RunRecord& r : g.runs) {
      if (!r.producer.empty() || !ref.producer.empty()) continue;  // its settings and environment are not recorded
      if (r.interrupted) w->push_back(fmt::format("{}: the run was interrupted; it covers part of the plan", r.path));
      if (r.errors) w->push_back(fmt::format("{}: {} operations failed", r.path, r.errors));
      auto within = SettingDiffs(g.runs.front().settings, r.settings, {});
      if (!within.empty())
        w->push_back(fmt::format("{}: its runs differ in {}; they are not repeats of one setting", g.name,
                                 JoinComma(within)));
      // Measured per run (not what the machine is): left out.
      for (const auto& d :
           SettingDiffs(ref.environment, r.environment, {"data_path", "wakeup_latency_ns", "wakeup_latency_p99_ns", "open_loop_spin_ns"})) {
        std::string key = d.substr(0, d.find(' '));
        if (env_warned.insert(key).second)
          w->push_back(fmt::format("the runs come from different environments: {} ({} and {})", d, ref.path, r.path));
      }
    }
    if (&g == &input.groups[baseline] || g.runs.empty()) continue;
    if (!g.runs.front().producer.empty() || !ref.producer.empty()) {
      w->push_back(fmt::format("{} and {} come from different tools; their settings are not compared",
                               input.groups[baseline].name, g.name));
      continue;
    }
    auto diffs = SettingDiffs(ref.settings, g.runs.front().settings, varied);
    if (!varied.empty() && !diffs.empty())
      w->push_back(fmt::format("{} and {} also differ in {}, which was not varied", input.groups[baseline].name,
                               g.name, JoinComma(diffs)));
    else if (varied.empty() && diffs.size() > 1)
      w->push_back(fmt::format("{} and {} differ in more than one setting: {}; a difference cannot be pinned on one",
                               input.groups[baseline].name, g.name, JoinComma(diffs)));
  }
}

// When the two sides ran on platforms whose speeds differ by more than the
// throughput difference the comparison reports, that difference may be the
// platform's: say so.
void WarnOnPlatformSpeeds(const RunGroup& a, const RunGroup& b, const nlohmann::json& throughput,
                          std::vector<std::string>* warnings) {
  const double sa = MeanPlatformSpeed(a), sb = MeanPlatformSpeed(b);
  if (sa <= 0 || sb <= 0) return;
  const double platform = sb / sa - 1;
  const double reported = throughput.value("rel_diff", 0.0);
  if (std::abs(platform) <= std::abs(reported) || std::abs(platform) < 0.005) return;
  warnings->push_back(fmt::format(
      "{} vs {}: the platform ran at mean speed {:.3f} under {} and {:.3f} under {} ({:+.1f}%), more than the "
      "{:+.1f}% throughput difference reported: the difference may be the platform's (platform.speed.mean)",
      a.name, b.name, sa, a.name, sb, b.name, 100 * platform, 100 * reported));
}

}  // namespace storebench::report
