#include "storebench/report/hgrm.h"

#include <charconv>
#include <cmath>
#include <fmt/format.h>
#include <limits>
#include <string_view>

#include "storebench/report/hdr_codec.h"

namespace storebench::report {
namespace {

// PercentileIterator.incrementIterationLevel(): halve the step each time the
// remaining distance to 100% halves.
double NextLevel(double level, int ticks_per_half_distance) {
  double halvings = std::log(100.0 / (100.0 - level)) / std::log(2.0);
  if (!(halvings < 62)) return 100.0;
  auto ticks = static_cast<int64_t>(ticks_per_half_distance) *
               static_cast<int64_t>(std::pow(2.0, static_cast<double>(static_cast<int64_t>(halvings) + 1)));
  return level + 100.0 / static_cast<double>(ticks);
}

// Java's Formatter "%W.Nf": the shortest decimal that round-trips the double
// (Double.toString's digits), rounded half-up to N decimals and right-aligned
// in W. C's printf rounds the exact binary value instead, which differs on
// ties such as 0.9997802734375 -> "0.999780273438" (Java) vs "…437" (C).
std::string JavaFixed(double v, int decimals, int width) {
  if (!std::isfinite(v)) return fmt::format("{:>{}}", v, width);
  char buf[64];
  auto res = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::scientific);
  std::string_view sci(buf, static_cast<size_t>(res.ptr - buf));
  bool negative = !sci.empty() && sci[0] == '-';
  if (negative) sci.remove_prefix(1);
  size_t e_pos = sci.find('e');
  std::string digits;
  for (char c : sci.substr(0, e_pos))
    if (c != '.') digits += c;
  int point = std::stoi(std::string(sci.substr(e_pos + 1))) + 1;  // digits before the decimal point
  if (point < 0) {
    digits.insert(0, static_cast<size_t>(-point), '0');
    point = 0;
  }
  if (digits.size() < static_cast<size_t>(point)) digits.append(static_cast<size_t>(point) - digits.size(), '0');
  size_t keep = static_cast<size_t>(point + decimals);
  bool round_up = digits.size() > keep && digits[keep] >= '5';
  digits.resize(keep, '0');
  if (round_up) {
    size_t i = keep;
    while (i > 0 && digits[i - 1] == '9') digits[--i] = '0';
    if (i == 0) {
      digits.insert(0, 1, '1');
      ++point;
    } else {
      ++digits[i - 1];
    }
  }
  std::string out = point > 0 ? digits.substr(0, static_cast<size_t>(point)) : "0";
  if (decimals > 0) out += "." + digits.substr(static_cast<size_t>(point));
  if (negative && out.find_first_not_of("0.") != std::string::npos) out.insert(0, 1, '-');
  if (out.size() < static_cast<size_t>(width)) out.insert(0, static_cast<size_t>(width) - out.size(), ' ');
  return out;
}

}  // namespace

std::vector<PercentileRow> PercentileRows(const measure::Histogram& h, int ticks_per_half_distance) {
  std::vector<PercentileRow> rows;
  const uint64_t total = h.count();
  if (total == 0) return rows;
  HdrLayout layout = HdrLayout::Of(h);
  double level = 0;
  uint64_t seen = 0;
  h.ForEachBucket([&](uint64_t lo, uint64_t, uint64_t n) {
    if (seen == total) return;
    seen += n;
    uint64_t value = layout.HighestEquivalent(lo);
    while ((100.0 * static_cast<double>(seen)) / static_cast<double>(total) >= level) {
      rows.push_back({value, level, seen});
      level = NextLevel(level, ticks_per_half_distance);
      if (seen == total) break;
    }
    // The iterator's extra last step to 100%, at the last recorded value.
    if (seen == total) rows.push_back({value, 100.0, seen});
  });
  return rows;
}

std::string PercentileDistribution(const measure::Histogram& h, double unit_ratio, int ticks_per_half_distance) {
  const int d = h.options().significant_digits;
  std::string out = fmt::format("{:>12} {:>14} {:>10} {:>14}\n\n", "Value", "Percentile", "TotalCount", "1/(1-Percentile)");
  for (const PercentileRow& r : PercentileRows(h, ticks_per_half_distance)) {
    double v = static_cast<double>(r.value) / unit_ratio;
    if (r.percentile != 100.0)
      out += fmt::format("{} {} {:10d} {}\n", JavaFixed(v, d, 12), JavaFixed(r.percentile / 100.0, 12, 2),
                         r.total_count, JavaFixed(1 / (1.0 - r.percentile / 100.0), 2, 14));
    else
      out += fmt::format("{} {} {:10d}\n", JavaFixed(v, d, 12), JavaFixed(r.percentile / 100.0, 12, 2), r.total_count);
  }
  HdrLayout layout = HdrLayout::Of(h);
  double mean = 0, stddev = 0;
  if (h.count()) {
    double sum = 0;
    h.ForEachBucket([&](uint64_t lo, uint64_t, uint64_t n) {
      sum += static_cast<double>(layout.MedianEquivalent(lo)) * static_cast<double>(n);
    });
    mean = sum / static_cast<double>(h.count());
    double dev = 0;
    h.ForEachBucket([&](uint64_t lo, uint64_t, uint64_t n) {
      double x = static_cast<double>(layout.MedianEquivalent(lo)) - mean;
      dev += x * x * static_cast<double>(n);
    });
    stddev = std::sqrt(dev / static_cast<double>(h.count()));
  }
  uint64_t max = h.count() ? layout.HighestEquivalent(h.max()) : 0;
  out += fmt::format("#[Mean    = {}, StdDeviation   = {}]\n", JavaFixed(mean / unit_ratio, d, 12),
                     JavaFixed(stddev / unit_ratio, d, 12));
  out += fmt::format("#[Max     = {}, Total count    = {:12d}]\n", JavaFixed(static_cast<double>(max) / unit_ratio, d, 12),
                     h.count());
  out += fmt::format("#[Buckets = {:12d}, SubBuckets     = {:12d}]\n", layout.bucket_count, layout.sub_bucket_count);
  return out;
}

}  // namespace storebench::report
