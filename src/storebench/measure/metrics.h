// MetricSet: the typed figures a run reports beside its latency histograms —
// what a backend, a read method or the process-wide accounting counted — as
// plain data with a name, a unit, a kind and a merge rule, never as JSON or
// prose. report/ renders them (JSON, summary, CSV); two sets from two runs or
// two processes merge exactly: counters add, gauges merge by their rule,
// ratios are definitions (numerator / denominator paths) computed only when
// rendering, so a merged ratio is the ratio of the merged counters.
//
// A metric's path is a list of names (["io", "requested_bytes"]); the first
// name is its owner (a backend's name, or a core section such as "io",
// "cache", "cpu"). Two metrics with one path are a programming error that
// Validate() reports, so no figure silently overwrites another.
// Thread-safety: a value type; not synchronised.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "storebench/base/status.h"

namespace storebench::measure {

enum class Unit { kCount, kOps, kBytes, kNanoseconds, kSeconds, kCalls, kRatio, kBool, kPerSecond };
enum class MetricKind { kCounter, kGauge, kText, kRatio };
// How two gauges (or texts) of one path merge.
enum class MergeRule { kSum, kMax, kMin, kSame };

using MetricPath = std::vector<std::string>;

struct Metric {
  MetricPath path;
  MetricKind kind = MetricKind::kCounter;
  Unit unit = Unit::kCount;
  MergeRule merge = MergeRule::kSum;
  uint64_t count = 0;      // kCounter
  double value = 0;        // kGauge
  std::string text;        // kText; for an unknown value, why it is unknown
  bool known = true;       // false: rendered as "unknown"
  // kRatio: scale * num / den, or 1 - that when `complement` (clamped at 0).
  MetricPath num, den;
  double scale = 1;
  bool complement = false;
  // Non-empty: shown in the human summary under this label.
  std::string summary;

  std::string Name() const;  // "io.requested_bytes"
};

class MetricSet {
 public:
  Metric& Counter(MetricPath path, uint64_t count, Unit unit = Unit::kCount);
  Metric& Gauge(MetricPath path, double value, Unit unit, MergeRule merge = MergeRule::kMax);
  Metric& Flag(MetricPath path, bool value) { return Gauge(std::move(path), value ? 1 : 0, Unit::kBool); }
  Metric& Text(MetricPath path, std::string text);
  Metric& Ratio(MetricPath path, MetricPath num, MetricPath den, double scale = 1, Unit unit = Unit::kRatio);
  // A figure that could not be measured (e.g. /proc/self/io unreadable): rendered as "unknown".
  Metric& Unknown(MetricPath path, std::string why, Unit unit);

  const std::vector<Metric>& metrics() const { return metrics_; }
  bool empty() const { return metrics_.empty(); }
  const Metric* Find(const MetricPath& path) const;
  // A counter's or gauge's value, or a ratio evaluated; nullopt when unknown,
  // missing or (ratio) its denominator is 0.
  std::optional<double> Value(const MetricPath& path) const;

  // Appends every metric of `other` (paths must not collide).
  void Append(const MetricSet& other);
  // Merges `other` into this set: counters add, gauges by their rule, texts
  // must agree (else "mixed"), ratio definitions must agree. Metrics only one
  // side has are kept. InvalidArgument when kinds or units of a path differ.
  Status Merge(const MetricSet& other);
  // This set followed in time by `later` (two consecutive intervals as one):
  // counters add; every other figure is `later`'s, its end-of-interval sample.
  // Figures only this set has are kept.
  void FollowedBy(const MetricSet& later);
  // InvalidArgument naming the first path used twice, or used both as a
  // figure and as a section (["io"] and ["io", "x"]).
  Status Validate() const;

 private:
  Metric& Add(Metric m);
  std::vector<Metric> metrics_;
};

}  // namespace storebench::measure
