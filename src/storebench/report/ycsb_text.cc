#include "storebench/report/ycsb_text.h"

#include <fmt/format.h>

#include <charconv>
#include <cmath>

namespace storebench::report {

std::string JavaDouble(double v) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "Infinity" : "-Infinity";
  // Java switches to E notation outside [1e-3, 1e7); these lines' figures stay inside it
  // but for an extreme throughput, printed the same way.
  const double a = std::fabs(v);
  if (a != 0 && (a < 1e-3 || a >= 1e7)) {
    // The shortest scientific form (to_chars without a precision), e.g. "3e-04", rewritten as "3.0E-4".
    char buf[64];
    const auto r = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::scientific);
    const std::string sci(buf, r.ptr);
    const size_t e = sci.find('e');
    std::string mant = sci.substr(0, e);
    if (mant.find('.') == std::string::npos) mant += ".0";
    return mant + "E" + std::to_string(std::stoi(sci.substr(e + 1)));
  }
  std::string s = fmt::format("{}", v);
  if (s.find('.') == std::string::npos) s += ".0";
  return s;
}

std::string YcsbText(uint64_t runtime_ms, double ops_per_sec, const std::vector<YcsbOperation>& ops,
                     const std::vector<int>& percentiles) {
  std::string s = fmt::format("[OVERALL], RunTime(ms), {}\n", runtime_ms);
  s += fmt::format("[OVERALL], Throughput(ops/sec), {}\n", JavaDouble(ops_per_sec));
  for (const YcsbOperation& op : ops) {
    if (!op.latency || op.latency->count() == 0) continue;
    const measure::Histogram& h = *op.latency;
    const std::string tag = "[" + op.name + "]";
    s += fmt::format("{}, Operations, {}\n", tag, h.count());
    s += fmt::format("{}, AverageLatency(us), {}\n", tag, JavaDouble(h.mean() / 1000.0));
    s += fmt::format("{}, MinLatency(us), {}\n", tag, h.min() / 1000);
    s += fmt::format("{}, MaxLatency(us), {}\n", tag, h.max() / 1000);
    for (int p : percentiles)
      s += fmt::format("{}, {}thPercentileLatency(us), {}\n", tag, p, h.ValueAtPercentile(p) / 1000);
    for (const auto& [name, n] : op.returns)
      if (n) s += fmt::format("{}, Return={}, {}\n", tag, name, n);
  }
  return s;
}

}  // namespace storebench::report
