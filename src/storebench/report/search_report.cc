#include "storebench/report/search_report.h"

#include <algorithm>
#include <fmt/format.h>
#include <fmt/ranges.h>

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

std::string SloLabel(const SloCheck& c) {
  return (c.slo.scope.empty() ? "" : c.slo.scope + " ") + fmt::format("p{}", c.slo.percentile);
}

// "p99 0.61 ms, bound 0.83 ms" for each SLO of a set of runs judged together.
std::string Bounds(const StepVerdict& v) {
  std::string out;
  for (const SloCheck& c : v.slos)
    out += (out.empty() ? "" : ", ") +
           fmt::format("{} {}, {}", SloLabel(c), FormatDurationNs(c.ci.value),
                       c.ci.upper_bounded ? "bound " + FormatDurationNs(c.ci.upper) : std::string(kNotBounded));
  if (!v.keeps_pace) out += (out.empty() ? "" : ", ") + std::string("fell behind");
  return out;
}

// " (80% of the closed-loop capacity)".
std::string OfCapacity(double rate, double capacity) {
  return capacity > 0 ? fmt::format(" ({:.0f}% of the closed-loop capacity)", 100 * rate / capacity) : "";
}

// How the answer was confirmed, as the answer line's middle part.
std::string Confirmed(const SearchResult& r) {
  if (r.confirm_runs == 0) return ", unconfirmed (--confirm 0)";
  if (r.confirmations.empty() || !r.confirmations.back().pass()) return "";
  const ConfirmRound& c = r.confirmations.back();
  std::string out = fmt::format(", confirmed by {} runs ({}; 10% above, {}: {})", r.confirm_runs,
                                Bounds(c.confirm.verdict), Rate(c.above_rate), Bounds(c.above.verdict));
  if (r.confirmations.size() > 1)
    out += fmt::format(" after {} failed to hold when run again", Rate(r.confirmations.front().rate));
  return out;
}

// An interval too few ops bound is null with the reason, never numbers.
nlohmann::json IntervalJson(const PercentileInterval& ci) {
  nlohmann::json j = {{"ns", ci.value},
                      {"ci_ns", ci.ci_bounded ? nlohmann::json({ci.lo, ci.hi}) : nlohmann::json(nullptr)},
                      {"upper_ns", ci.upper_bounded ? nlohmann::json(ci.upper) : nlohmann::json(nullptr)}};
  if (!ci.ci_bounded || !ci.upper_bounded) j["unbounded_reason"] = ci.unbounded_reason;
  return j;
}

nlohmann::json SetAsideJson(const SearchStep& s) {
  nlohmann::json out = nlohmann::json::array();
  for (const SetAsideRun& a : s.set_aside)
    out.push_back({{"file", a.file},
                   {"reason", a.reason},
                   {"slow_share", a.slow_share},
                   {"speed_min", a.speed_min},
                   {"stall_ns", a.stall_ns}});
  return out;
}

// ", 1 run repeated: the platform dipped (below 0.8 of its speed for up to 12% of the time, slowest unit 0.41)",
// ", 1 run repeated: the platform stalled (up to 190.2 ms at once)", both joined by "; ", or "".
std::string SetAsideNote(const SearchStep& s) {
  if (s.set_aside.empty()) return "";
  double slow = 0, speed = 1, stall = 0;
  bool dipped = false, stalled = false;
  for (const SetAsideRun& a : s.set_aside) {
    if (a.reason == "stalled") {
      stalled = true, stall = std::max(stall, a.stall_ns);
    } else {
      dipped = true, slow = std::max(slow, a.slow_share), speed = std::min(speed, a.speed_min);
    }
  }
  std::vector<std::string> why;
  if (dipped)
    why.push_back(fmt::format("dipped (below 0.8 of its speed for up to {:.0f}% of the time, slowest unit {:.2f})",
                              100 * slow, speed));
  if (stalled) why.push_back(fmt::format("stalled (up to {} at once)", FormatDurationNs(stall)));
  std::string note = fmt::format(", {} run{} repeated: the platform {}", s.set_aside.size(),
                                 s.set_aside.size() == 1 ? "" : "s", fmt::join(why, "; "));
  if (s.unsteady_kept > 0)
    note += fmt::format("; {} judged although every repeat was spoilt too", s.unsteady_kept);
  return note;
}

}  // namespace

std::optional<SetAsideRun> PlatformSpoilt(const nlohmann::json& run, const std::vector<Slo>& slos) {
  const nlohmann::json platform = run.value("platform", nlohmann::json::object());
  if (!platform.is_object()) return std::nullopt;
  const nlohmann::json speed = platform.value("speed", nlohmann::json::object());
  const nlohmann::json hiccup = platform.value("hiccup", nlohmann::json::object());
  SetAsideRun a;
  a.slow_share = speed.is_object() ? speed.value("slow_share", 0.0) : 0.0;
  a.speed_min = speed.is_object() ? speed.value("min", 0.0) : 0.0;
  a.stall_ns = hiccup.is_object() ? hiccup.value("max_ns", 0.0) : 0.0;
  if (platform.value("unsteady", false)) {
    a.reason = "dipped";
    return a;
  }
  const nlohmann::json totals = run.value("totals", nlohmann::json::object());
  const double run_ns = totals.is_object() ? 1e9 * totals.value("elapsed_s", 0.0) : 0.0;
  for (const Slo& slo : slos) {
    // The ops arriving during the stall's first (stall - goal) waited longer
    // than the goal whatever the engine did.
    if (run_ns > 0 && a.stall_ns - slo.goal_ns > (1 - slo.percentile / 100) * run_ns) {
      a.reason = "stalled";
      return a;
    }
  }
  return std::nullopt;
}

namespace {

nlohmann::json StepJson(const SearchStep& s, double capacity) {
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
          {"files", s.files},               {"stored", s.stored},
          {"set_aside", SetAsideJson(s)},   {"unsteady_kept", s.unsteady_kept},
          {"fraction_of_capacity", capacity > 0 && v.target > 0 ? nlohmann::json(v.target / capacity)
                                                                 : nlohmann::json(nullptr)}};
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

// The failed row at `rate` (a step first), to say why it failed.
const SearchStep* FailedAt(const SearchResult& r, double rate) {
  for (const SearchRow& row : Rows(r))
    if (!row.pass && row.rate == rate) return row.set;
  return nullptr;
}

}  // namespace

std::string SloList(const std::vector<Slo>& slos) {
  std::string out;
  for (const Slo& s : slos) out += (out.empty() ? "" : " and ") + s.Describe();
  return out;
}

std::vector<SearchRow> Rows(const SearchResult& r) {
  std::vector<SearchRow> rows;
  for (const SearchStep& s : r.steps) rows.push_back({SearchRow::Kind::kStep, s.verdict.target, s.verdict.pass, &s});
  for (const ConfirmRound& c : r.confirmations) {
    rows.push_back({SearchRow::Kind::kConfirm, c.rate, c.confirm.verdict.pass, &c.confirm});
    rows.push_back({SearchRow::Kind::kAbove, c.above_rate, c.above.verdict.pass, &c.above});
  }
  return rows;
}

SearchAnswers DeriveAnswers(const SearchResult& r) {
  const std::vector<SearchRow> rows = Rows(r);
  SearchAnswers a;
  double lowest_failed_step = 0;
  for (const SearchRow& row : rows) {
    if (row.pass) continue;
    if (a.lowest_fail == 0 || row.rate < a.lowest_fail) a.lowest_fail = row.rate;
    if (row.kind == SearchRow::Kind::kStep && (lowest_failed_step == 0 || row.rate < lowest_failed_step))
      lowest_failed_step = row.rate;
  }
  auto below = [](double rate, double fail) { return fail == 0 || rate < fail; };
  for (const SearchRow& row : rows) {
    if (!row.pass) continue;
    if (row.kind == SearchRow::Kind::kStep && below(row.rate, lowest_failed_step))
      a.search_pass = std::max(a.search_pass, row.rate);
    if (row.kind == SearchRow::Kind::kConfirm && below(row.rate, a.lowest_fail))
      a.highest_pass = std::max(a.highest_pass, row.rate);
  }
  if (r.confirm_runs == 0) a.highest_pass = a.search_pass;
  return a;
}

std::string SearchResult::ConfirmationOutcome() const {
  const SearchAnswers a = answers();
  if (a.search_pass == 0) return "";
  if (confirm_runs == 0) return "off";
  if (a.highest_pass == 0) return interrupted ? "interrupted" : "unconfirmed";
  return confirmations.size() == 1 ? "confirmed" : "stepped_down";
}

std::string AnswerLine(const SearchResult& r) {
  const std::string slos = SloList(r.slos);
  const SearchAnswers a = r.answers();
  const SearchStep* fail = FailedAt(r, a.lowest_fail);
  const std::string why = fail ? " (" + FailReason(fail->verdict) + ")" : "";
  const std::string outcome = r.ConfirmationOutcome();
  if (outcome == "interrupted" || (r.interrupted && a.highest_pass == 0))
    return fmt::format("no rate meeting {} was confirmed: the search was stopped before its end (so far: {} passed, "
                       "{} failed)",
                       slos, a.search_pass > 0 ? Rate(a.search_pass) : std::string("none"),
                       a.lowest_fail > 0 ? Rate(a.lowest_fail) + why : std::string("none"));
  if (outcome == "unconfirmed") {
    if (r.confirmations.empty())
      return fmt::format("no rate meeting {} was confirmed: the search did not finish", slos);
    const ConfirmRound& last = r.confirmations.back();
    return fmt::format("no rate meeting {} held when run again: {} (the steps' answer){} failed {} confirmation "
                       "runs together, down to {} ({})",
                       slos, Rate(a.search_pass),
                       r.confirmations.size() > 1 ? fmt::format(" and {} lower rates", r.confirmations.size() - 1)
                                                  : std::string(),
                       r.confirm_runs, Rate(last.rate), FailReason(last.confirm.verdict));
  }
  if (a.highest_pass == 0) {
    if (!fail) return fmt::format("no rate meeting {} was found: the search did not finish", slos);
    return fmt::format("no rate meets {}: even the lowest tried, {}, failed{}", slos, Rate(a.lowest_fail), why);
  }
  const std::string rate = Rate(a.highest_pass) + OfCapacity(a.highest_pass, r.capacity_rate()) + Confirmed(r);
  const std::string failed = a.lowest_fail > 0 ? fmt::format("; {} failed{}", Rate(a.lowest_fail), why) : "";
  const std::string partial = r.interrupted ? " (the search was stopped before its end)" : "";
  // Stepped down: a higher rate failed when run again, so "at least … none failed" would not be true.
  if (outcome == "stepped_down" || r.interrupted)
    return fmt::format("highest rate meeting {}: {}{}{}", slos, rate, failed, partial);
  if (a.lowest_fail == 0 && r.sweep)
    return fmt::format("highest rate meeting {}: at least {}, the highest rate swept; none failed", slos, rate);
  if (a.lowest_fail == 0)
    return fmt::format("highest rate meeting {}: at least {}, the top of the search ({}); none failed", slos, rate,
                       r.top_source);
  return fmt::format("highest rate meeting {}: {}{}", slos, rate, failed);
}

std::string SaturationWarning(const SearchResult& r) {
  const double cap = r.capacity_rate();
  const double answer = r.answers().highest_pass;
  if (answer == 0 || !(cap > 0) || answer <= kNearSaturation * cap) return "";
  return fmt::format(
      "warning: {} is {:.0f}% of the closed-loop capacity ({}): an open loop this close to saturation has no steady "
      "state — its queue wanders, and a longer run or a slower second may miss the goal",
      Rate(answer), 100 * answer / cap, Rate(cap));
}

std::string ConfirmLine(const ConfirmRound& c, int runs) {
  return fmt::format("{} x {} runs together: {} — {}; 10% above, {}: {} — {}", Rate(c.rate), runs,
                     Bounds(c.confirm.verdict), c.pass() ? "holds" : "FAILS", Rate(c.above_rate),
                     Bounds(c.above.verdict), c.above.verdict.pass ? "holds too" : "fails") +
         SetAsideNote(c.confirm) + SetAsideNote(c.above);
}

std::string StepLine(const SearchStep& s, double capacity) {
  const StepVerdict& v = s.verdict;
  const std::string of = capacity > 0 ? fmt::format(" ({:.0f}% of capacity)", 100 * v.target / capacity) : "";
  std::string head = v.target > 0 ? fmt::format("{} target{}: achieved {}", Rate(v.target), of, FormatCount(v.achieved))
                                  : fmt::format("closed loop: {}", Rate(v.achieved));
  std::string slos;
  for (const SloCheck& c : v.slos) {
    slos += ", " + FormatWithin(SloLabel(c), c.ci);
  }
  return fmt::format("{}{}, backlog {} at the end{}{} — {}", head, slos, FormatCount(v.end_backlog),
                     SetAsideNote(s), s.stored ? " (stored)" : "", v.pass ? "pass" : "fail");
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
  // A run repeated because its platform dipped is marked; the step line says by how much.
  auto repeated = [](const SearchStep& s) {
    return s.set_aside.empty() ? std::string() : fmt::format(" [{} repeated: platform spoilt it]", s.set_aside.size());
  };
  for (const SearchStep* s : rows)
    out += row(FormatCount(s->verdict.target), s->verdict, Verdict(s->verdict) + repeated(*s));
  // Confirmation rounds, in the order run: each set of runs judged together.
  for (const ConfirmRound& c : r.confirmations) {
    const std::string runs = fmt::format(" x{}", r.confirm_runs);
    out += row(FormatCount(c.rate) + runs, c.confirm.verdict,
               "confirm: " + (c.pass() ? std::string("holds") : "FAILS (" + FailReason(c.confirm.verdict) + ")") +
                   repeated(c.confirm));
    out += row(FormatCount(c.above_rate) + runs, c.above.verdict,
               "10% above: " + (c.above.verdict.pass ? std::string("holds too") : "fails") + repeated(c.above));
  }
  return out;
}

nlohmann::json SearchJson(const SearchResult& r, const std::vector<std::string>& command,
                          const std::vector<std::string>& run_args) {
  nlohmann::json slos = nlohmann::json::array();
  for (const Slo& s : r.slos)
    slos.push_back({{"text", s.text}, {"scope", s.scope}, {"percentile", s.percentile}, {"goal_ns", s.goal_ns}});
  nlohmann::json steps = nlohmann::json::array();
  const double cap = r.capacity_rate();
  for (const SearchStep& s : r.steps) steps.push_back(StepJson(s, cap));
  nlohmann::json rounds = nlohmann::json::array();
  for (const ConfirmRound& c : r.confirmations)
    rounds.push_back({{"rate", c.rate},
                      {"above_rate", c.above_rate},
                      {"confirm", StepJson(c.confirm, cap)},
                      {"above", StepJson(c.above, cap)},
                      {"pass", c.pass()}});
  const std::string warning = SaturationWarning(r);
  const SearchAnswers a = r.answers();
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
          {"capacity", r.capacity ? StepJson(*r.capacity, 0) : nlohmann::json(nullptr)},
          {"capacity_ops_per_sec", rate_or_null(cap)},
          {"outcome", OutcomeName(r.outcome)},
          {"answer", AnswerLine(r)},
          {"highest_passing_rate", rate_or_null(a.highest_pass)},
          {"lowest_failing_rate", rate_or_null(a.lowest_fail)},
          {"search_highest_passing_rate", rate_or_null(a.search_pass)},
          {"interrupted", r.interrupted},
          {"confirm_runs", r.confirm_runs},
          {"confirmation", r.ConfirmationOutcome()},
          {"confirmations", rounds},
          {"answer_fraction_of_capacity",
           a.highest_pass > 0 && cap > 0 ? nlohmann::json(a.highest_pass / cap) : nlohmann::json(nullptr)},
          {"near_saturation", !warning.empty()},
          {"warning", warning.empty() ? nlohmann::json(nullptr) : nlohmann::json(warning)},
          {"steps", steps}};
}

}  // namespace storebench::report
