// compare's sentences: the verdicts of a ratio, a throughput test, paired
// runs and a percentile difference, and the note when they disagree (compare.h).
#include <cmath>
#include <fmt/format.h>

#include "storebench/report/compare.h"

namespace storebench::report {

std::string FormatLevel(double confidence) { return fmt::format("{:g}%", confidence * 100); }
std::string FormatSigned(double rel) { return fmt::format("{:+.1f}%", rel * 100); }

size_t MinSamplesFor(double confidence) {
  const double q = (1 + confidence) / 2;
  const double z = NormalQuantile(q);
  size_t n = 2;
  while (n < 1000 && StudentTQuantile(q, 2.0 * static_cast<double>(n) - 2) > 1.5 * z) ++n;
  return n;
}

std::string FormatRatio(double ratio) {
  return ratio >= 10 ? fmt::format("{:.1f}", ratio) : fmt::format("{:.3f}", ratio);
}

std::string RatioVerdict(const std::string& name, const RatioTest& r, double confidence) {
  if (!r.significant) return fmt::format("No difference proven at {} confidence", FormatLevel(confidence));
  return fmt::format("{} is {:.1f}% {} (ratio {}, {} to {} at {} confidence)", name, std::fabs(r.ratio - 1) * 100,
                     r.ratio > 1 ? "faster" : "slower", FormatRatio(r.ratio), FormatRatio(r.lo), FormatRatio(r.hi),
                     FormatLevel(confidence));
}

std::string DisagreementNote(const std::string& name, const nlohmann::json& throughput, const nlohmann::json& p50) {
  // +1 proven faster, -1 proven slower, 0 nothing proven; lower latency is faster.
  auto sign = [](const nlohmann::json& v, bool lower_is_faster) {
    if (!v.value("significant", false) || !v.contains("rel_diff")) return 0;
    const double rel = v["rel_diff"].get<double>();
    return (rel > 0) != lower_is_faster ? 1 : -1;
  };
  const int t = sign(throughput, false), l = sign(p50, true);
  if (t == l) return "";
  auto words = [](int s, const char* faster, const char* slower) {
    return s == 0 ? std::string("no difference proven") : std::string(s > 0 ? faster : slower);
  };
  return fmt::format("{}: the throughput and p50 verdicts disagree {}: throughput {}, p50 {}", name,
                     t != 0 && l != 0 ? "in direction" : "in proof", words(t, "faster", "slower"),
                     words(l, "lower", "higher"));
}

std::string ThroughputVerdict(const std::string& name, const WelchResult& r, double confidence) {
  if (!r.significant) return fmt::format("No difference proven at {} confidence", FormatLevel(confidence));
  return fmt::format("{} is {:.1f}% {} (±{:.1f}% at {} confidence)", name, std::fabs(r.rel_diff) * 100,
                     r.rel_diff > 0 ? "faster" : "slower", r.rel_half_width * 100, FormatLevel(confidence));
}

std::string PairedVerdict(const std::string& name, const PairedRatio& r, double confidence) {
  std::string ci = fmt::format("median paired ratio {:.3f}, {:.3f} to {:.3f} at {:.1f}%", r.median, r.lo, r.hi,
                               r.coverage * 100);
  if (!r.significant) return fmt::format("No difference proven at {} confidence ({})", FormatLevel(confidence), ci);
  return fmt::format("{} is {:.1f}% {} ({} confidence)", name, std::fabs(r.median - 1) * 100,
                     r.median > 1 ? "faster" : "slower", ci);
}

std::string PercentileVerdict(const std::string& name, const std::string& percentile, const PercentileDiff& d,
                              double confidence) {
  if (!d.significant) return fmt::format("No difference proven at {} confidence", FormatLevel(confidence));
  return fmt::format("{}'s {} is {:.1f}% {} ({} to {} at {} confidence)", name, percentile, std::fabs(d.rel_diff) * 100,
                     d.rel_diff < 0 ? "lower" : "higher", FormatSigned(d.rel_lo), FormatSigned(d.rel_hi), FormatLevel(confidence));
}

}  // namespace storebench::report
