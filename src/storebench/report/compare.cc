#include "storebench/report/compare.h"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <map>
#include <set>

#include "storebench/base/units.h"

namespace storebench::report {
namespace {

struct PercentileSpec {
  const char* name;
  double p;
};
constexpr PercentileSpec kPercentiles[] = {{"p50", 50}, {"p99", 99}, {"p99.9", 99.9}};


// Below this many run-to-run standard deviations (Cohen's d, on the log
// scale) an unproven effect is called small rather than the runs too few.
constexpr double kSmallEffect = 0.5;

// Throughput samples for one comparison: repeated runs when both sides have
// at least two, else every full interval of every run (see the warning).
struct ThroughputSamples {
  std::vector<double> a, b;
  bool from_runs = false;
};

std::vector<double> RunThroughputs(const RunGroup& g) {
  std::vector<double> v;
  for (const auto& r : g.runs) v.push_back(r.ops_per_sec);
  return v;
}

std::vector<double> IntervalThroughputs(const RunGroup& g) {
  std::vector<double> v;
  for (const auto& r : g.runs) v.insert(v.end(), r.interval_ops_per_sec.begin(), r.interval_ops_per_sec.end());
  return v;
}

ThroughputSamples PickSamples(const RunGroup& a, const RunGroup& b) {
  ThroughputSamples s;
  s.from_runs = a.runs.size() >= 2 && b.runs.size() >= 2;
  s.a = s.from_runs ? RunThroughputs(a) : IntervalThroughputs(a);
  s.b = s.from_runs ? RunThroughputs(b) : IntervalThroughputs(b);
  return s;
}

LatencyRuns ToLatencyRuns(const RunGroup& g, bool service) {
  LatencyRuns out;
  for (const auto& r : g.runs) out.runs.push_back(service ? r.service : r.response);
  return out;
}




StatusOr<size_t> FindBaseline(const CompareInput& input, const std::string& wanted) {
  if (wanted.empty()) return size_t{0};
  std::vector<std::string> names;
  for (size_t i = 0; i < input.groups.size(); ++i) {
    const RunGroup& g = input.groups[i];
    names.push_back(g.name);
    if (g.name == wanted) return i;
    for (const auto& r : g.runs)
      if (r.path == wanted) return i;
  }
  return Status::InvalidArgument(
      fmt::format("--baseline: '{}' is neither a group name nor a run path; the groups are: {}", wanted, JoinComma(names)));
}

size_t NameWidth(const std::vector<RunGroup>& groups) {
  size_t w = 7;
  for (const auto& g : groups) w = std::max(w, g.name.size());
  return w;
}

// Accumulates the per-metric tables, the JSON and the warnings of one Compare().
struct Comparer {
  const CompareOptions& opt;
  CompareReport report;
  std::string throughput_text, latency_text[std::size(kPercentiles)];

  // Runs paired by position: the median ratio B/A and its order-statistic CI.
  void ComparePaired(const RunGroup& a, const RunGroup& b, size_t width, nlohmann::json* out) {
    auto r = PairedMedianRatio(RunThroughputs(a), RunThroughputs(b), opt.confidence);
    nlohmann::json j = {{"samples", "pairs"}, {"n_baseline", a.runs.size()}, {"n", b.runs.size()}};
    if (!r.ok()) {
      report.warnings.push_back(fmt::format("{} vs {}: throughput not tested: {}", a.name, b.name, r.status().message()));
      j["significant"] = false;
      throughput_text += fmt::format("  {:<{}} {:>5}  (not tested)\n", b.name, width, b.runs.size());
      (*out)["throughput"] = j;
      return;
    }
    std::string verdict = PairedVerdict(b.name, *r, opt.confidence);
    j.update({{"ratios", r->ratios},
              {"median_ratio", r->median},
              {"rel_diff", r->median - 1},
              {"ci", {r->lo, r->hi}},
              {"coverage", r->coverage},
              {"significant", r->significant},
              {"verdict", verdict}});
    std::string ratios;
    for (double x : r->ratios) ratios += fmt::format(" {:.3f}", x);
    throughput_text += fmt::format("  {:<{}} {:>5} {:>8.3f}  [{:.3f}, {:.3f}] at {:.1f}%  ratios:{}\n", b.name, width,
                                   r->ratios.size(), r->median, r->lo, r->hi, r->coverage * 100, ratios);
    throughput_text += fmt::format("  {}\n", r->significant ? verdict : b.name + ": " + verdict);
    (*out)["throughput"] = j;
  }

  // Welch's t-test on log(ops/s): the ratio of geometric means with its CI,
  // the smallest ratio this comparison could prove, and, when none is
  // proven, whether the runs are too few or the effect small.
  void CompareRatio(const RunGroup& a, const RunGroup& b, const ThroughputSamples& s, const RatioTest& r,
                    size_t width, nlohmann::json* j) {
    const char* unit = s.from_runs ? "runs" : "intervals";
    std::string verdict = RatioVerdict(b.name, r, opt.confidence);
    j->update({{"scale", "log"},
               {"geomean_baseline", std::exp(r.log.a.mean)},
               {"geomean", std::exp(r.log.b.mean)},
               {"sd_log_baseline", r.log.a.stddev},
               {"sd_log", r.log.b.stddev},
               {"ratio", r.ratio},
               {"ratio_ci", {r.lo, r.hi}},
               {"rel_diff", r.ratio - 1},
               {"ci", {r.lo - 1, r.hi - 1}},
               {"t", r.log.t},
               {"df", r.log.df},
               {"p_value", r.log.p_value},
               {"provable_ratio", r.provable},
               {"significant", r.significant},
               {"verdict", verdict}});
    if (throughput_text.empty())
      throughput_text += fmt::format("  {:<{}} {:>5} {:>14.1f} {:>8.3f}  baseline\n", a.name, width, r.log.a.n,
                                     std::exp(r.log.a.mean), r.log.a.stddev);
    throughput_text += fmt::format("  {:<{}} {:>5} {:>14.1f} {:>8.3f}  {:>8}  [{}, {}]\n", b.name, width, r.log.b.n,
                                   std::exp(r.log.b.mean), r.log.b.stddev, FormatRatio(r.ratio), FormatRatio(r.lo),
                                   FormatRatio(r.hi));
    throughput_text += fmt::format("  {}\n", r.significant ? verdict : b.name + ": " + verdict);
    std::string power = fmt::format("with {} and {} {} and this spread, only ratios above x{} or below x{} can be "
                                    "proven at {} confidence",
                                    r.log.a.n, r.log.b.n, unit, FormatRatio(r.provable), FormatRatio(1 / r.provable),
                                    FormatLevel(opt.confidence));
    (*j)["power"] = power;
    throughput_text += fmt::format("  {}: {}\n", b.name, power);
    if (r.significant || !s.from_runs) return;  // per-interval samples: the warning asks for repeated runs instead
    // Cohen's d on the log scale: the ratio in units of the run-to-run spread.
    const double spread = std::sqrt((r.log.a.stddev * r.log.a.stddev + r.log.b.stddev * r.log.b.stddev) / 2);
    const double d = spread > 0 ? std::fabs(r.log.diff) / spread : 0;
    const size_t n = SamplesToProve(r.log.diff, r.log.a.stddev, r.log.b.stddev, opt.confidence);
    std::string how_many = n ? fmt::format("about {} runs each", n) : std::string("no practical number of runs");
    std::string why;
    if (d >= kSmallEffect) {
      why = fmt::format("too few runs: {} would settle it (a ratio of {} is {:.1f} times the run-to-run spread)",
                        how_many, FormatRatio(r.ratio), d);
      (*j)["not_proven_because"] = "too few runs";
    } else {
      why = fmt::format("the effect is small: a ratio of {} is under half the run-to-run spread (d = {:.2f}); {} "
                        "would prove it",
                        FormatRatio(r.ratio), d, how_many);
      (*j)["not_proven_because"] = "small effect";
    }
    (*j)["runs_to_settle"] = n;
    (*j)["why"] = why;
    throughput_text += fmt::format("  {}: {}\n", b.name, why);
  }

  // Raw-scale Welch's t-test on ops/s: only when a sample is 0, which has no logarithm.
  void CompareRaw(const RunGroup& a, const RunGroup& b, const WelchResult& r, size_t width, nlohmann::json* j) {
    std::string verdict = ThroughputVerdict(b.name, r, opt.confidence);
    j->update({{"scale", "raw"},
               {"mean_baseline", r.a.mean},
               {"mean", r.b.mean},
               {"stddev_baseline", r.a.stddev},
               {"stddev", r.b.stddev},
               {"rel_diff", r.rel_diff},
               {"ci", {r.rel_diff - r.rel_half_width, r.rel_diff + r.rel_half_width}},
               {"t", r.t},
               {"df", r.df},
               {"p_value", r.p_value},
               {"significant", r.significant},
               {"verdict", verdict}});
    if (throughput_text.empty())
      throughput_text += fmt::format("  {:<{}} {:>5} {:>14.1f} {:>8}  baseline\n", a.name, width, r.a.n, r.a.mean, "");
    throughput_text += fmt::format("  {:<{}} {:>5} {:>14.1f} {:>8}  {:>8}  ±{:.1f}% (raw scale: mean ops/s)\n",
                                   b.name, width, r.b.n, r.b.mean, "", FormatSigned(r.rel_diff), r.rel_half_width * 100);
    throughput_text += fmt::format("  {}\n", r.significant ? verdict : b.name + ": " + verdict);
  }

  void CompareThroughput(const RunGroup& a, const RunGroup& b, size_t width, nlohmann::json* out) {
    if (opt.paired) return ComparePaired(a, b, width, out);
    ThroughputSamples s = PickSamples(a, b);
    const char* kind = s.from_runs ? "runs" : "intervals";
    const size_t need = MinSamplesFor(opt.confidence);
    if (!s.from_runs)
      report.warnings.push_back(fmt::format(
          "{} vs {}: throughput samples are per-interval values of single runs ({} and {}); they are autocorrelated "
          "and miss run-to-run variation, so the test is optimistic: repeat runs (storebench matrix --repeat {})",
          a.name, b.name, s.a.size(), s.b.size(), need));
    else if (s.a.size() < need || s.b.size() < need)
      report.warnings.push_back(fmt::format(
          "{} vs {}: {} and {} runs are too few for {} confidence (use at least {} per side); only large "
          "differences can be proven",
          a.name, b.name, s.a.size(), s.b.size(), FormatLevel(opt.confidence), need));
    nlohmann::json j = {{"samples", kind}, {"n_baseline", s.a.size()}, {"n", s.b.size()}};
    const bool positive = std::all_of(s.a.begin(), s.a.end(), [](double x) { return x > 0; }) &&
                          std::all_of(s.b.begin(), s.b.end(), [](double x) { return x > 0; });
    Status failed = Status::Ok();
    if (positive) {
      auto r = LogRatioTest(s.a, s.b, opt.confidence);
      if (r.ok()) CompareRatio(a, b, s, *r, width, &j);
      failed = r.status();
    } else {
      report.warnings.push_back(fmt::format(
          "{} vs {}: a throughput sample is 0 ops/s, which has no logarithm: throughput is compared on the raw "
          "scale (Welch's t-test on ops/s)",
          a.name, b.name));
      auto r = WelchTest(s.a, s.b, opt.confidence);
      if (r.ok()) CompareRaw(a, b, *r, width, &j);
      failed = r.status();
    }
    if (!failed.ok()) {
      report.warnings.push_back(fmt::format("{} vs {}: throughput not tested: {}", a.name, b.name, failed.message()));
      j["significant"] = false;
      j["verdict"] = fmt::format("No difference proven at {} confidence", FormatLevel(opt.confidence));
      throughput_text += fmt::format("  {:<{}} {:>5}  (not tested)\n", b.name, width, s.b.size());
      throughput_text += fmt::format("  {}: {}\n", b.name, j["verdict"].get<std::string>());
    }
    (*out)["throughput"] = j;
  }

  void CompareLatency(const RunGroup& a, const RunGroup& b, size_t index, size_t width, nlohmann::json* out) {
    for (const RunGroup* g : {&a, &b})
      for (const RunRecord& r : g->runs)
        if (!r.producer.empty()) {
          report.warnings.push_back(fmt::format("{} vs {}: latency not compared: {} is {}'s report, which has no "
                                                "histogram to resample",
                                                a.name, b.name, r.path, r.producer));
          return;
        }
    const bool service = opt.latency == "service";
    LatencyRuns la = ToLatencyRuns(a, service), lb = ToLatencyRuns(b, service);
    nlohmann::json lat = nlohmann::json::object();
    bool warned = false;
    for (size_t k = 0; k < std::size(kPercentiles); ++k) {
      const PercentileSpec& ps = kPercentiles[k];
      // Distinct streams per comparison and percentile, all from one seed.
      uint64_t seed = opt.seed * 1'000'003 + index * 101 + k;
      auto d = BootstrapPercentileDiff(la, lb, ps.p, opt.confidence, seed, opt.replicates);
      std::string& text = latency_text[k];
      if (!d.ok()) {
        report.warnings.push_back(fmt::format("{} vs {}: {} not tested: {}", a.name, b.name, ps.name, d.status().message()));
        continue;
      }
      if (!d->resampled_runs && !warned) {
        warned = true;
        report.warnings.push_back(fmt::format(
            "{} vs {}: latency CIs resample operations of single runs, so they miss run-to-run variation; "
            "repeat runs for CIs that include it",
            a.name, b.name));
      }
      std::string verdict = PercentileVerdict(b.name, ps.name, *d, opt.confidence);
      lat[ps.name] = {{"baseline_ns", d->a},   {"ns", d->b},
                      {"rel_diff", d->rel_diff}, {"ci", {d->rel_lo, d->rel_hi}},
                      {"significant", d->significant}, {"resampled", d->resampled_runs ? "runs" : "operations"},
                      {"verdict", verdict}};
      if (text.empty()) text += fmt::format("  {:<{}} {:>12}  baseline\n", a.name, width, FormatDurationNs(d->a));
      text += fmt::format("  {:<{}} {:>12}  {:>8}  [{}, {}]\n", b.name, width, FormatDurationNs(d->b),
                          FormatSigned(d->rel_diff), FormatSigned(d->rel_lo), FormatSigned(d->rel_hi));
      text += fmt::format("  {}\n", d->significant ? verdict : b.name + ": " + verdict);
    }
    (*out)["latency"] = lat;
  }
};

}  // namespace

std::string VariantTable(const std::vector<RunGroup>& groups) {
  const size_t width = NameWidth(groups);
  std::string out = fmt::format("  {:<{}} {:>5} {:>34} {:>34}\n", "variant", width, "runs",
                                "throughput ops/s: median [min, max]", "p99: median [min, max]");
  for (const auto& g : groups) {
    std::vector<double> tput, p99;
    for (const auto& r : g.runs) {
      tput.push_back(r.ops_per_sec);
      p99.push_back(r.response_p99_ns);
    }
    SampleSummary t = Summarize(tput), p = Summarize(p99);
    std::string runs = g.planned_runs ? fmt::format("{}/{}", g.runs.size(), g.planned_runs) : fmt::format("{}", g.runs.size());
    if (g.runs.empty()) {
      out += fmt::format("  {:<{}} {:>5}\n", g.name, width, runs);
      continue;
    }
    out += fmt::format("  {:<{}} {:>5} {:>34} {:>34}\n", g.name, width, runs,
                       fmt::format("{:.0f} [{:.0f}, {:.0f}]", t.median, t.min, t.max),
                       fmt::format("{} [{}, {}]", FormatDurationNs(p.median), FormatDurationNs(p.min),
                                   FormatDurationNs(p.max)));
  }
  return out;
}

namespace {



}  // namespace

namespace {

// Every group against the baseline `a` (index `base`): the comparisons' JSON,
// with their notes; the text rows go into `c`.
nlohmann::json CompareEach(const CompareInput& input, size_t base, Comparer* c, std::vector<std::string>* notes) {
  const RunGroup& a = input.groups[base];
  const size_t width = NameWidth(input.groups);
  nlohmann::json comparisons = nlohmann::json::array();
  for (size_t i = 0; i < input.groups.size(); ++i) {
    const RunGroup& b = input.groups[i];
    if (i == base) continue;
    if (b.runs.empty()) {
      c->report.warnings.push_back(fmt::format("{}: no runs stored yet; left out", b.name));
      continue;
    }
    nlohmann::json j = {{"name", b.name}, {"baseline", a.name}};
    c->CompareThroughput(a, b, width, &j);
    WarnOnPlatformSpeeds(a, b, j["throughput"], &c->report.warnings);
    c->CompareLatency(a, b, i, width, &j);
    if (j.contains("latency") && j["latency"].contains("p50")) {
      std::string note = DisagreementNote(b.name, j["throughput"], j["latency"]["p50"]);
      if (!note.empty()) {
        j["note"] = note;
        notes->push_back(note);
      }
    }
    comparisons.push_back(j);
  }
  return comparisons;
}

// What the bootstrap resampled is the latency test's own fact: under --paired the throughput samples are
// "pairs" while the latency CIs still resample whole runs.
const char* Resampled(const nlohmann::json& comparisons) {
  bool any_runs = false, any_ops = false;
  for (const auto& j : comparisons)
    if (j.contains("latency"))
      for (const auto& [name, entry] : j["latency"].items())
        (entry.value("resampled", "") == "runs" ? any_runs : any_ops) = true;
  return any_runs && any_ops ? "runs where both sides were repeated, else operations"
         : any_runs          ? "runs"
                             : "operations";
}

// The human report: the variants, the throughput and latency tables, notes and warnings.
std::string ReportText(const CompareInput& input, const RunGroup& a, const CompareOptions& opt, const Comparer& c,
                       const nlohmann::json& comparisons, const std::vector<std::string>& notes) {
  const size_t width = NameWidth(input.groups);
  std::string t = fmt::format("Compared at {} confidence; baseline: {}\n", FormatLevel(opt.confidence), a.name);
  t += VariantTable(input.groups);
  bool by_runs = !comparisons.empty() && comparisons.front()["throughput"]["samples"] == "runs";
  if (opt.paired) {
    t += "\nThroughput, paired runs (the i-th run of each group is a pair): median of the ratios to the baseline, "
         "order-statistic CI:\n";
    t += fmt::format("  {:<{}} {:>5} {:>8}  {}\n", "variant", width, "pairs", "median", "CI");
  } else {
    t += fmt::format("\nThroughput, Welch's t-test on log(ops/s) over {}; ratio = geometric mean of B / geometric mean "
                     "of the baseline, with its CI:\n",
                     by_runs ? "repeated runs" : "per-interval throughput");
    t += fmt::format("  {:<{}} {:>5} {:>14} {:>8}  {:>8}  {}\n", "variant", width, "n", "geomean ops/s", "sd(log)",
                     "ratio", "CI");
  }
  t += c.throughput_text;
  const char* resampled = Resampled(comparisons);
  for (size_t k = 0; k < std::size(kPercentiles); ++k) {
    t += fmt::format("\n{} {} time, bootstrap CI ({} resamples of {}, seed {}):\n", kPercentiles[k].name, opt.latency,
                     opt.replicates, resampled, opt.seed);
    t += fmt::format("  {:<{}} {:>12}  {:>8}  {}\n", "variant", width, kPercentiles[k].name, "diff", "CI");
    t += c.latency_text[k];
  }
  if (!notes.empty()) t += "\n";
  for (const auto& n : notes) t += "Note: " + n + "\n";
  if (!c.report.warnings.empty()) {
    t += "\nWarnings:\n";
    for (const auto& w : c.report.warnings) t += "  - " + w + "\n";
  }
  return t;
}

nlohmann::json GroupsJson(const CompareInput& input) {
  nlohmann::json groups = nlohmann::json::array();
  for (const RunGroup& g : input.groups) {
    nlohmann::json paths = nlohmann::json::array();
    for (const auto& r : g.runs) paths.push_back(r.path);
    SampleSummary s = Summarize(RunThroughputs(g));
    groups.push_back({{"name", g.name},
                      {"runs", paths},
                      {"planned_runs", g.planned_runs},
                      {"ops_per_sec", {{"median", s.median}, {"mean", s.mean}, {"min", s.min}, {"max", s.max}}}});
  }
  return groups;
}

}  // namespace

StatusOr<CompareReport> Compare(const CompareInput& input, const CompareOptions& opt) {
  if (input.groups.size() < 2)
    return Status::InvalidArgument("compare: give at least two runs, groups of runs, or a matrix directory with two variants");
  if (opt.latency != "response" && opt.latency != "service")
    return Status::InvalidArgument("--latency: expected response or service");
  auto base = FindBaseline(input, opt.baseline);
  if (!base.ok()) return base.status();
  const RunGroup& a = input.groups[*base];
  if (a.runs.empty()) return Status::InvalidArgument(fmt::format("compare: the baseline '{}' has no runs yet", a.name));

  Comparer c{opt, {}, {}, {}};
  WarnAboutInputs(input, *base, &c.report.warnings);
  std::vector<std::string> notes;
  const nlohmann::json comparisons = CompareEach(input, *base, &c, &notes);
  c.report.text = ReportText(input, a, opt, c, comparisons, notes);
  c.report.json = {{"schema", kCompareSchema},   {"confidence", opt.confidence}, {"baseline", a.name},
                   {"paired", opt.paired},
                   {"latency", opt.latency},       {"bootstrap", {{"seed", opt.seed}, {"replicates", opt.replicates}}},
                   {"varied", input.varied_keys}, {"groups", GroupsJson(input)}, {"comparisons", comparisons},
                   {"warnings", c.report.warnings}};
  return std::move(c.report);
}

}  // namespace storebench::report
