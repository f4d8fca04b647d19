// Comparison of run results: loads runs (single files, groups of repeated
// runs, a matrix directory), chooses the samples, tests throughput with
// Welch's t-test on log(ops/s) (the ratio of geometric means B/A), latency
// percentiles with bootstrap CIs, and renders the tables, plain-word
// verdicts, what the comparison could prove, warnings and a JSON document.
//
// Verdict sentences (the contract scripts and docs quote):
//   "B is 7.2% faster (ratio 1.072, 1.050 to 1.095 at 99.5% confidence)"   throughput
//   "B's p99 is 12.0% lower (-15.1% to -8.8% at 99.5% confidence)"   latency
//   "No difference proven at 99.5% confidence"
// Thread-safety: free functions over values; no shared state.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "storebench/base/status.h"
#include "storebench/report/stats.h"

namespace storebench::report {

inline constexpr const char* kMatrixSchema = "storebench.matrix/1";
inline constexpr const char* kMatrixManifest = "manifest.json";
inline constexpr const char* kCompareSchema = "storebench.compare/1";
// The manifest.json of a `search --out` directory (its steps are run results).
inline constexpr const char* kSearchDirSchema = "storebench.search-dir/1";

// What compare needs of one run result document.
struct RunRecord {
  std::string path;
  double ops_per_sec = 0;
  std::vector<double> interval_ops_per_sec;  // the intervals that count (driver/interval_rule.h)
  Buckets response, service;                 // latency histograms as (value ns, count)
  double response_p99_ns = 0;
  nlohmann::json settings;     // config flattened to run-flag names: {"threads": "2", "service-time": "spin:1us"}
  nlohmann::json environment;  // as recorded
  bool interrupted = false;
  uint64_t errors = 0;
  double platform_speed = 0;  // the platform meter's mean speed (platform.speed.mean); 0 = not measured
  // "" for a storebench result; "db_bench" for db_bench's printed report, which
  // has throughput and percentiles but no histogram, settings or environment.
  std::string producer;
};

// Runs of one variant: repeated runs of the same setting.
struct RunGroup {
  std::string name;
  std::vector<RunRecord> runs;
  size_t planned_runs = 0;  // matrix variants: runs the manifest lists (0 = unknown)
};

// Everything to compare, with the settings the user meant to vary (known for
// a matrix directory; empty when they must be inferred).
struct CompareInput {
  std::vector<RunGroup> groups;
  std::vector<std::string> varied_keys;
};

// The buckets (value ns, count) of the lossless histogram at `node`[`which`].histogram
// of a run document; Corruption names `where`.`which`.histogram.
StatusOr<Buckets> HistogramBuckets(const nlohmann::json& node, const std::string& which, const std::string& where);

// Reads one run document, an HdrHistogram interval log (FILE.hlog: latency
// from the merged histograms, throughput from the intervals), or db_bench's
// printed report of one benchmark (producer "db_bench": ops/s and
// percentiles); NotFound / Corruption name the file.
StatusOr<RunRecord> LoadRun(const std::string& path);

// Turns command-line operands into groups: FILE.json (one run), F1.json,F2.json,…
// (a group of repeats), DIR with a matrix manifest (one group per variant) or
// DIR without one (one group of all its *.json). Group names are unique.
StatusOr<CompareInput> LoadCompareInput(const std::vector<std::string>& operands);

struct CompareOptions {
  double confidence = 0.995;     // one of 0.95, 0.99, 0.995, 0.999 on the CLI
  std::string baseline;          // group name or run path; empty = first group
  std::string latency = "response";  // or "service"
  uint64_t seed = 1;             // bootstrap seed
  int replicates = 10000;        // bootstrap replicates
  // Throughput as the median of per-pair ratios (the i-th run of each group
  // is one pair) with a distribution-free CI, instead of Welch's test.
  bool paired = false;
};

// The outcome: human text (tables, verdicts, warnings) and the JSON document.
struct CompareReport {
  std::string text;
  nlohmann::json json;
  std::vector<std::string> warnings;
};

// Compares every group against the baseline. InvalidArgument for an unknown
// baseline or fewer than two groups.
StatusOr<CompareReport> Compare(const CompareInput& input, const CompareOptions& options);

// One row per group: runs, throughput median and min–max, p99 median and
// min–max (the matrix summary).
std::string VariantTable(const std::vector<RunGroup>& groups);

// "B is 7.2% faster (ratio 1.072, 1.050 to 1.095 at 99.5% confidence)" or "No difference proven at 99.5% confidence".
std::string RatioVerdict(const std::string& name, const RatioTest& r, double confidence);
// A ratio as printed: 3 decimals below 10, else 1 ("1.072", "12.3").
std::string FormatRatio(double ratio);
// Raw scale (a sample is 0 ops/s): "B is 7.2% faster (±2.1% at 99.5% confidence)" or "No difference proven at …".
std::string ThroughputVerdict(const std::string& name, const WelchResult& r, double confidence);
// Paired: "B is 2.1% faster (median paired ratio 1.021, 1.004 to 1.040 at 97.9% confidence)" or
// "No difference proven at 95% confidence (median paired ratio 0.998, 0.971 to 1.030 at 97.9%)".
std::string PairedVerdict(const std::string& name, const PairedRatio& r, double confidence);
// "B's p99 is 12.0% lower (-15.1% to -8.8% at 99.5% confidence)" or "No difference proven at …".
std::string PercentileVerdict(const std::string& name, const std::string& percentile, const PercentileDiff& d,
                              double confidence);

// One line when the throughput and p50 verdicts of one comparison (their
// JSON: "significant", "rel_diff") disagree in direction or in proof, e.g.
// "B: the throughput and p50 verdicts disagree in proof: throughput faster, p50 no difference proven"; "" when they agree.
std::string DisagreementNote(const std::string& name, const nlohmann::json& throughput, const nlohmann::json& p50);

// Smallest samples per side for which the two-sided t quantile at `confidence`
// is within 1.5x of the normal one; below it only large differences can be proven.
size_t MinSamplesFor(double confidence);
// "99.5%": a confidence level (0.995) as compare prints it.
std::string FormatLevel(double confidence);
// "+12.3%": a relative difference (0.123) with its sign.
std::string FormatSigned(double rel);

// What compare warns about its inputs: planned runs not stored, runs that were
// interrupted or had errors, repeats whose settings differ, environments that
// differ, variants that differ in more than the varied keys (or, with none
// varied, in more than one setting). Appended to `warnings`.
void WarnAboutInputs(const CompareInput& input, size_t baseline, std::vector<std::string>* warnings);
// A warning when the two sides ran at mean platform speeds further apart than
// the throughput difference `throughput` reports (its "rel_diff").
void WarnOnPlatformSpeeds(const RunGroup& a, const RunGroup& b, const nlohmann::json& throughput,
                          std::vector<std::string>* warnings);

}  // namespace storebench::report
