#include "storebench/report/search_report.h"

#include <algorithm>
#include <fmt/format.h>

#include "storebench/base/units.h"
#include "storebench/report/result.h"

namespace storebench::report {
namespace {

std::string Rate(double r) { return FormatCount(r) + " ops/s"; }

// Why a step failed: the SLOs it missed and whether it fell behind.
std::string FailReason(const StepVerdict& v) {
  std::string out;
  for (const SloCheck& c : v.slos) {
    if (c.pass) continue;
    std::string label = (c.slo.scope.empty() ? "" : c.slo.scope + " ") + fmt::format("p{}", c.slo.percentile);
    out += (out.empty() ? "" : "; ") + FormatWithin(label, c.ci);
  }
  if (!v.keeps_pace)
    out += (out.empty() ? "" : "; ") + fmt::format("fell behind: achieved {}, backlog {} at the end",
                                                   FormatCount(v.achieved), FormatCount(v.end_backlog));
  return out;
}

std::string Verdict(const StepVerdict& v) { return v.pass ? "pass" : "FAIL (" + FailReason(v) + ")"; }

nlohmann::json IntervalJson(const PercentileInterval& ci) {
  return {{"ns", ci.value}, {"ci_ns", {ci.lo, ci.hi}}, {"upper_ns", ci.upper}};
}

nlohmann::json StepJson(const SearchStep& s) {
  const StepVerdict& v = s.verdict;
  nlohmann::json slos = nlohmann::json::array();
  for (const SloCheck& c : v.slos) {
    nlohmann::json j = IntervalJson(c.ci);
    j["slo"] = c.slo.text;
    j["pass"] = c.pass;
    slos.push_back(std::move(j));
  }
  return {{"target_ops_per_sec", v.target}, {"achieved_ops_per_sec", v.achieved}, {"ops", v.ops},
          {"repeats", v.repeats},           {"p50", IntervalJson(v.p50)},         {"p99", IntervalJson(v.p99)},
          {"p999", IntervalJson(v.p999)},   {"max_backlog", v.max_backlog},       {"end_backlog", v.end_backlog},
          {"keeps_pace", v.keeps_pace},     {"slo", slos},                        {"pass", v.pass},
          {"files", s.files},               {"stored", s.stored}};
}

const char* OutcomeName(job::RateSearch::Outcome o) {
  switch (o) {
    case job::RateSearch::Outcome::kBracketed: return "bracketed";
    case job::RateSearch::Outcome::kTopPasses: return "top_passes";
    case job::RateSearch::Outcome::kBottomFails: return "bottom_fails";
    case job::RateSearch::Outcome::kSwept: return "swept";
    case job::RateSearch::Outcome::kRunning: break;
  }
  return "interrupted";
}

const SearchStep* StepAt(const SearchResult& r, double rate) {
  for (const SearchStep& s : r.steps)
    if (s.verdict.target == rate) return &s;
  return nullptr;
}

}  // namespace

std::string SloList(const std::vector<Slo>& slos) {
  std::string out;
  for (const Slo& s : slos) out += (out.empty() ? "" : " and ") + s.Describe();
  return out;
}

std::string AnswerLine(const SearchResult& r) {
  const std::string slos = SloList(r.slos);
  const SearchStep* fail = StepAt(r, r.lowest_fail);
  const std::string why = fail ? " (" + FailReason(fail->verdict) + ")" : "";
  if (r.highest_pass == 0) {
    if (!fail) return fmt::format("no rate meeting {} was found: the search did not finish", slos);
    return fmt::format("no rate meets {}: even the lowest tried, {}, failed{}", slos, Rate(r.lowest_fail), why);
  }
  if (r.lowest_fail == 0 && r.sweep)
    return fmt::format("highest rate meeting {}: at least {}, the highest rate swept; none failed", slos,
                       Rate(r.highest_pass));
  if (r.lowest_fail == 0)
    return fmt::format("highest rate meeting {}: at least {}, the top of the search ({}); none failed", slos,
                       Rate(r.highest_pass), r.top_source);
  return fmt::format("highest rate meeting {}: {}; {} failed{}", slos, Rate(r.highest_pass), Rate(r.lowest_fail), why);
}

std::string StepLine(const SearchStep& s) {
  const StepVerdict& v = s.verdict;
  std::string head = v.target > 0 ? fmt::format("{} target: achieved {}", Rate(v.target), FormatCount(v.achieved))
                                  : fmt::format("closed loop: {}", Rate(v.achieved));
  std::string slos;
  for (const SloCheck& c : v.slos) {
    std::string label = (c.slo.scope.empty() ? "" : c.slo.scope + " ") + fmt::format("p{}", c.slo.percentile);
    slos += ", " + FormatWithin(label, c.ci);
  }
  return fmt::format("{}{}, backlog {} at the end{} — {}", head, slos, FormatCount(v.end_backlog),
                     s.stored ? " (stored)" : "", v.pass ? "pass" : "fail");
}

std::string StepTable(const SearchResult& r) {
  std::vector<const SearchStep*> rows;
  for (const SearchStep& s : r.steps) rows.push_back(&s);
  std::sort(rows.begin(), rows.end(), [](auto* a, auto* b) { return a->verdict.target < b->verdict.target; });
  std::string out = fmt::format("{:>14} {:>14} {:>24} {:>24} {:>24} {:>14}  {}\n", "target ops/s", "achieved",
                                "p50", "p99", "p99.9", "backlog max/end", "verdict");
  auto row = [&](const std::string& target, const StepVerdict& v, const std::string& verdict) {
    return fmt::format("{:>14} {:>14} {:>24} {:>24} {:>24} {:>14}  {}\n", target, FormatCount(v.achieved),
                       FormatWithin("", v.p50).substr(1), FormatWithin("", v.p99).substr(1),
                       FormatWithin("", v.p999).substr(1),
                       FormatCount(v.max_backlog) + "/" + FormatCount(v.end_backlog), verdict);
  };
  if (r.capacity) out += row("closed loop", r.capacity->verdict, "(capacity)");
  for (const SearchStep* s : rows) out += row(FormatCount(s->verdict.target), s->verdict, Verdict(s->verdict));
  return out;
}

nlohmann::json SearchJson(const SearchResult& r, const std::vector<std::string>& command,
                          const std::vector<std::string>& run_args) {
  nlohmann::json slos = nlohmann::json::array();
  for (const Slo& s : r.slos)
    slos.push_back({{"text", s.text}, {"scope", s.scope}, {"percentile", s.percentile}, {"goal_ns", s.goal_ns}});
  nlohmann::json steps = nlohmann::json::array();
  for (const SearchStep& s : r.steps) steps.push_back(StepJson(s));
  auto rate_or_null = [](double v) { return v > 0 ? nlohmann::json(v) : nlohmann::json(nullptr); };
  return {{"schema", kSearchSchema},
          {"tool", ToolJson()},
          {"command", command},
          {"run_args", run_args},
          {"mode", r.sweep ? "sweep" : "bisect"},
          {"slo", slos},
          {"confidence", r.confidence},
          {"precision", r.precision},
          {"repeat", r.repeat},
          {"step_duration_s", r.step_duration_s},
          {"top_ops_per_sec", r.top},
          {"top_source", r.top_source},
          {"capacity", r.capacity ? StepJson(*r.capacity) : nlohmann::json(nullptr)},
          {"outcome", OutcomeName(r.outcome)},
          {"answer", AnswerLine(r)},
          {"highest_passing_rate", rate_or_null(r.highest_pass)},
          {"lowest_failing_rate", rate_or_null(r.lowest_fail)},
          {"steps", steps}};
}

}  // namespace storebench::report
