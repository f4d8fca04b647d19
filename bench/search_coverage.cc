// The coverage of the search's percentile bounds, measured on runs of a known
// load (bench/search_coverage.sh makes them).
//
//   search_coverage DIR [--block M] [K...]
//
// Reads DIR/run-*.json (open-loop runs at one rate), takes as the truth the
// p99 of the response time of every run pooled, and draws 2,000 random
// subsets of k runs (k = 1, 3, 5 by default). With --block M, every M
// consecutive runs are pooled into one, as a run M times as long. For each method it prints how
// often its one-sided upper bound at 95% was at least the truth (coverage,
// nominal 95%) and the median of bound / truth (how much it costs):
//   ops bootstrap      single ops resampled from the runs pooled (a step, --repeat 1)
//   run bootstrap      whole runs resampled (a step, --repeat >= 2)
//   log-t              exp(mean + t·sd/sqrt(k)) of the runs' log p99
//   prediction         exp(mean + t·sd·sqrt(1 + 1/k)) of the runs' log p99: a bound for the next run
//   confirmation       the larger of prediction and ops bootstrap: RunsPercentileBound
// The figures go to docs/search.md.
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include "storebench/report/compare.h"
#include "storebench/base/json_file.h"
#include "storebench/report/stats.h"

namespace sb = storebench::report;
namespace fs = std::filesystem;

namespace {

constexpr double kP = 99, kConfidence = 0.95;
constexpr int kSubsets = 2000, kReplicates = 2000;

sb::LatencyRuns Pick(const std::vector<sb::Buckets>& runs, const std::vector<size_t>& idx) {
  sb::LatencyRuns out;
  for (size_t i : idx) out.runs.push_back(runs[i]);
  return out;
}

// The runs as one: their buckets merged, so a bootstrap resamples single ops of all of them.
sb::LatencyRuns Pooled(const sb::LatencyRuns& side) {
  std::vector<std::pair<uint64_t, uint64_t>> all;
  for (const auto& r : side.runs) all.insert(all.end(), r.begin(), r.end());
  std::sort(all.begin(), all.end());
  sb::Buckets merged;
  for (const auto& [v, c] : all) {
    if (!merged.empty() && merged.back().first == v) merged.back().second += c;
    else merged.emplace_back(v, c);
  }
  return sb::LatencyRuns{{merged}};
}

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: search_coverage DIR [K...]\n");
    return 2;
  }
  size_t block = 1;
  std::vector<int> ks;
  for (int i = 2; i < argc; ++i) {
    if (std::string(argv[i]) == "--block" && i + 1 < argc) block = static_cast<size_t>(std::atoi(argv[++i]));
    else ks.push_back(std::atoi(argv[i]));
  }
  if (ks.empty()) ks = {1, 3, 5};
  if (block < 1) block = 1;
  std::vector<sb::Buckets> runs;
  std::vector<double> run_p99;
  for (int i = 1;; ++i) {
    const fs::path path = fs::path(argv[1]) / ("run-" + std::to_string(i) + ".json");
    if (!fs::exists(path)) break;
    auto doc = storebench::ReadJsonFile(path.string());
    if (!doc.ok()) {
      std::fprintf(stderr, "%s\n", doc.status().message().c_str());
      return 1;
    }
    auto b = sb::HistogramBuckets((*doc)["latency"], "response", path.string());
    if (!b.ok()) {
      std::fprintf(stderr, "%s\n", b.status().message().c_str());
      return 1;
    }
    runs.push_back(std::move(*b));
  }
  if (block > 1) {
    std::vector<sb::Buckets> blocks;
    for (size_t i = 0; i + block <= runs.size(); i += block) {
      sb::LatencyRuns group;
      group.runs.assign(runs.begin() + static_cast<long>(i), runs.begin() + static_cast<long>(i + block));
      blocks.push_back(Pooled(group).runs[0]);
    }
    runs = std::move(blocks);
  }
  for (const auto& r : runs)
    run_p99.push_back(sb::BootstrapPercentile(sb::LatencyRuns{{r}}, kP, kConfidence, 1, 100)->value);
  if (runs.size() < 10) {
    std::fprintf(stderr, "search_coverage: %s holds %zu runs; 10 or more are needed\n", argv[1], runs.size());
    return 1;
  }
  std::vector<size_t> every(runs.size());
  for (size_t i = 0; i < every.size(); ++i) every[i] = i;
  const double truth = sb::BootstrapPercentile(Pooled(Pick(runs, every)), kP, kConfidence, 1, 100)->value;
  const auto spread = sb::Summarize(run_p99);
  std::printf("%s: %zu runs (of %zu pooled); true p99 (every run pooled) %.2f us; run p99 median %.2f us, min %.2f, max %.2f\n",
              argv[1], runs.size(), block, truth / 1e3, spread.median / 1e3, spread.min / 1e3, spread.max / 1e3);
  std::printf("%3s  %-16s %9s %14s\n", "k", "method", "coverage", "bound/truth");
  std::mt19937_64 rng(42);
  for (int k : ks) {
    enum { kOps, kRuns, kLogT, kJack, kConfirm, kMethods };
    const char* names[kMethods] = {"ops bootstrap", "run bootstrap", "log-t", "prediction", "confirmation"};
    int covered[kMethods] = {};
    std::vector<double> ratio[kMethods];
    for (int s = 0; s < kSubsets; ++s) {
      std::vector<size_t> idx = every;
      std::shuffle(idx.begin(), idx.end(), rng);
      idx.resize(static_cast<size_t>(k));
      const sb::LatencyRuns side = Pick(runs, idx);
      double bound[kMethods] = {};
      bound[kOps] = sb::BootstrapPercentile(Pooled(side), kP, kConfidence, s + 1, kReplicates)->upper;
      if (k >= 2) {
        bound[kRuns] = sb::BootstrapPercentile(side, kP, kConfidence, s + 1, kReplicates)->upper;
        std::vector<double> logs;
        for (size_t i : idx) logs.push_back(std::log(run_p99[i]));
        const auto l = sb::Summarize(logs);
        bound[kLogT] = std::exp(l.mean + sb::StudentTQuantile(kConfidence, k - 1) * l.stddev / std::sqrt(k));
        auto c = sb::RunsPercentileBound(side, kP, kConfidence, s + 1, kReplicates);
        bound[kJack] = c->upper_across_runs;
        bound[kConfirm] = c->upper;
      }
      for (int m = 0; m < kMethods; ++m) {
        if (bound[m] == 0) continue;
        covered[m] += bound[m] >= truth;
        ratio[m].push_back(bound[m] / truth);
      }
    }
    for (int m = 0; m < kMethods; ++m) {
      if (ratio[m].empty()) continue;
      std::printf("%3d  %-16s %8.1f%% %14.2f\n", k, names[m], 100.0 * covered[m] / kSubsets, Median(ratio[m]));
    }
  }
  return 0;
}
