#include "storebench/driver/schedule.h"
#include "storebench/driver/schedule_math.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <numbers>
#include <fmt/format.h>

#include "storebench/base/units.h"
#include "storebench/workload/random.h"

namespace storebench::driver {
namespace {

constexpr const char* kForm =
    "closed | constant:RATE | poisson:RATE | sine:A,B,C,D | steps:DURATION@RATE,... | trace:FILE "
    "(e.g. constant:50k/s, sine:350,0.0105,0,50000, steps:10s@1000,2s@20000,10s@1000)";

Status Bad(std::string_view flag, std::string_view text, std::string_view why) {
  return Status::InvalidArgument(fmt::format("{}: {} in '{}'; expected {}", flag, why, text, kForm));
}

// What is wrong with `number`: too large (1e309, beyond a double), else `why`.
std::string TooLargeOr(std::string_view number, std::string why) {
  return NumberTooLarge(number) ? fmt::format("'{}' is too large", number) : why;
}

// Arrivals are whole nanoseconds apart, so a faster rate cannot be scheduled:
// the gaps would round to zero and the workers would chase an arrival time
// that never advances.
Status CheckRate(std::string_view flag, std::string_view text, double rate) {
  if (rate <= kMaxRatePerSec) return Status::Ok();
  return Status::InvalidArgument(fmt::format(
      "{}: the rate {:g}/s in '{}' is above the most the nanosecond clock can schedule ({:g}/s, one arrival per ns)",
      flag, rate, text, kMaxRatePerSec));
}

// Expected arrivals of a sine in [0, t_s): a Riemann sum (the closed form of
// ∫ max(0, a sin(bt+c)+d) is messy where the rate dips below zero) in slices
// of 1 ms, or of span/2^20 when that is longer, over one period times the
// whole periods in t plus the rest — so its cost is bounded for any t.
}  // namespace

double SineArrivals(const ScheduleSpec& spec, double t_s) {
  auto sum = [&spec](double from, double span) {
    const double n = std::clamp(std::ceil(span / 1e-3), 64.0, double{1 << 20});
    const double dt = span / n;
    double total = 0;
    for (double i = 0; i < n; ++i) total += std::max(0.0, spec.a * std::sin(spec.b * (from + (i + 0.5) * dt) + spec.c) + spec.d);
    return total * dt;
  };
  if (t_s <= 0) return 0;
  if (spec.b == 0) return spec.RateAt(0) * t_s;
  const double period = 2 * std::numbers::pi / std::fabs(spec.b);
  if (t_s <= period) return sum(0, t_s);
  const double whole = std::floor(t_s / period);
  return whole * sum(0, period) + sum(whole * period, t_s - whole * period);
}

namespace {

// Cumulative expected arrivals of a rate function (sine, steps).
double Integrate(const ScheduleSpec& spec, uint64_t t_ns) {
  if (spec.kind == ScheduleSpec::Kind::kSine) return SineArrivals(spec, static_cast<double>(t_ns) / kNsPerS);
  double sum = 0;
  uint64_t at = 0;
  for (const auto& s : spec.steps) {
    if (t_ns <= at) break;
    uint64_t span = std::min<uint64_t>(s.duration_ns, t_ns - at);
    sum += s.rate * static_cast<double>(span) / kNsPerS;
    at += s.duration_ns;
  }
  return sum;
}

// Where a sine's rate next turns positive after t_s (seconds), or +inf. With
// b > 0 (a negative b is the mirror image) the rate a·sin θ + d, θ = bt + c,
// is positive on arcs that repeat every 2π; the next arc's start is solved for.
double SineNextPositive(double a, double b, double c, double d, double t_s) {
  const double inf = std::numeric_limits<double>::infinity();
  if (b < 0) a = -a, b = -b, c = -c;
  if (b == 0) return a * std::sin(c) + d > 0 ? t_s : inf;
  if (a == 0) return d > 0 ? t_s : inf;
  const double s = -d / a;
  double entry = 0;  // the positive arc's start within [0, 2π)
  if (a > 0) {       // sin θ > s
    if (s >= 1) return inf;
    if (s < -1) return t_s;
    entry = std::asin(s);
  } else {  // sin θ < s
    if (s <= -1) return inf;
    if (s > 1) return t_s;
    entry = std::numbers::pi - std::asin(s);
  }
  const double theta = b * t_s + c;
  // A θ a rounding error past the arc's start stays on that arc (k = 0), not on the next one.
  const double k = std::ceil((theta - entry) / (2 * std::numbers::pi) - 1e-9);
  return (entry + 2 * std::numbers::pi * k - c) / b;
}

StatusOr<std::vector<double>> Numbers(std::string_view list, size_t n, std::string_view flag, std::string_view text) {
  auto parts = Split(list, ',');
  if (parts.size() != n) return Bad(flag, text, fmt::format("expected {} comma-separated numbers", n));
  std::vector<double> out;
  for (auto p : parts) {
    auto v = ParseDouble(p, flag);
    if (!v.ok()) return Bad(flag, text, TooLargeOr(p, fmt::format("'{}' is not a number", p)));
    out.push_back(*v);
  }
  return out;
}

}  // namespace

double ScheduleSpec::RateAt(uint64_t t_ns) const {
  switch (kind) {
    case Kind::kClosed:
    case Kind::kTrace:
      return 0;
    case Kind::kConstant:
    case Kind::kPoisson:
      return rate;
    case Kind::kSine:
      return std::max(0.0, a * std::sin(b * static_cast<double>(t_ns) / kNsPerS + c) + d);
    case Kind::kSteps: {
      uint64_t at = 0;
      for (const auto& s : steps) {
        if (t_ns < at + s.duration_ns) return s.rate;
        at += s.duration_ns;
      }
      return 0;
    }
  }
  return 0;
}

double ScheduleSpec::PeakRate() const {
  switch (kind) {
    case Kind::kClosed:
      return 0;
    case Kind::kConstant:
    case Kind::kPoisson:
      return rate;
    case Kind::kSine:
      return std::max(0.0, std::abs(a) + d);
    case Kind::kSteps: {
      double m = 0;
      for (const auto& s : steps) m = std::max(m, s.rate);
      return m;
    }
    case Kind::kTrace: {
      if (!trace || trace->empty()) return 0;
      size_t most = 0;
      for (size_t i = 0, j = 0; j < trace->size(); ++j) {
        while ((*trace)[j] - (*trace)[i] >= 1'000'000'000) ++i;
        most = std::max(most, j - i + 1);
      }
      return static_cast<double>(most);
    }
  }
  return 0;
}

double ScheduleSpec::ExpectedArrivals(uint64_t t_ns) const {
  switch (kind) {
    case Kind::kClosed:
      return 0;
    case Kind::kConstant:
    case Kind::kPoisson:
      return rate * static_cast<double>(t_ns) / kNsPerS;
    case Kind::kSine:
    case Kind::kSteps:
      return Integrate(*this, t_ns);
    case Kind::kTrace:
      return static_cast<double>(std::lower_bound(trace->begin(), trace->end(), t_ns) - trace->begin());
  }
  return 0;
}

uint64_t ScheduleSpec::NextPositiveNs(uint64_t t_ns) const {
  if (kind == Kind::kSteps) {
    uint64_t at = 0;
    for (const auto& s : steps) {
      if (s.rate > 0 && at + s.duration_ns > t_ns) return std::max(at, t_ns + 1);
      at += s.duration_ns;
    }
    return UINT64_MAX;
  }
  if (kind != Kind::kSine) return rate > 0 ? t_ns + 1 : UINT64_MAX;
  const double at_s = SineNextPositive(a, b, c, d, static_cast<double>(t_ns) / kNsPerS);
  // Rounding may land a hair before the arc: a nanosecond later each time
  // (the caller tries again), and never at or before t_ns.
  if (!(at_s * kNsPerS < static_cast<double>(kArrivalHorizonNs))) return UINT64_MAX;
  return std::max(t_ns + 1, static_cast<uint64_t>(std::ceil(at_s * kNsPerS)) + 1);
}

uint64_t ScheduleSpec::EndNs() const {
  if (kind == Kind::kSteps) {
    uint64_t total = 0;
    for (const auto& s : steps) total += s.duration_ns;
    return total;
  }
  if (kind == Kind::kTrace) return trace->empty() ? 0 : trace->back() + 1;
  return UINT64_MAX;
}

ScheduleSpec ScheduleSpec::ShareOf(int rank, int ranks) const {
  ScheduleSpec s = *this;
  if (ranks <= 1) return s;
  const double share = 1.0 / ranks;
  switch (kind) {
    case Kind::kClosed:
      break;
    case Kind::kConstant:
      s.rate *= share;
      // The ranks' arrivals interleave evenly instead of coinciding.
      s.phase_ns = 1e9 / (s.rate * ranks) * rank;
      break;
    case Kind::kPoisson:
      s.rate *= share;  // a split Poisson process is again Poisson
      break;
    case Kind::kSine:
      s.a *= share;
      s.d *= share;
      break;
    case Kind::kSteps:
      for (auto& step : s.steps) step.rate *= share;
      break;
    case Kind::kTrace: {
      auto mine = std::make_shared<std::vector<uint64_t>>();
      for (size_t i = static_cast<size_t>(rank); i < trace->size(); i += static_cast<size_t>(ranks))
        mine->push_back((*trace)[i]);
      s.trace = std::move(mine);
      break;
    }
  }
  return s;
}

StatusOr<ScheduleSpec> ParseSchedule(std::string_view text, std::string_view flag) {
  ScheduleSpec spec;
  spec.text = std::string(text);
  if (text == "closed") return spec;
  auto colon = text.find(':');
  if (colon == std::string_view::npos) return Bad(flag, text, "unknown schedule");
  std::string_view kind = text.substr(0, colon), arg = text.substr(colon + 1);
  if (kind == "constant" || kind == "poisson") {
    auto r = ParseRate(arg, flag);
    if (!r.ok()) return Bad(flag, text, TooLargeOr(arg, "the rate must be positive (e.g. 1000 or 50k/s)"));
    STOREBENCH_RETURN_IF_ERROR(CheckRate(flag, text, *r));
    spec.kind = kind == "constant" ? ScheduleSpec::Kind::kConstant : ScheduleSpec::Kind::kPoisson;
    spec.rate = *r;
    return spec;
  }
  if (kind == "sine") {
    auto v = Numbers(arg, 4, flag, text);
    if (!v.ok()) return v.status();
    spec.kind = ScheduleSpec::Kind::kSine;
    spec.a = (*v)[0], spec.b = (*v)[1], spec.c = (*v)[2], spec.d = (*v)[3];
    if (spec.d + std::fabs(spec.a) <= 0) return Bad(flag, text, "the rate A*sin(B*t+C)+D is never positive");
    for (double x : *v)
      if (!std::isfinite(x)) return Bad(flag, text, "A, B, C and D must be finite");
    STOREBENCH_RETURN_IF_ERROR(CheckRate(flag, text, spec.d + std::fabs(spec.a)));
    return spec;
  }
  if (kind == "steps") {
    spec.kind = ScheduleSpec::Kind::kSteps;
    for (auto item : Split(arg, ',')) {
      auto at = item.find('@');
      if (at == std::string_view::npos) return Bad(flag, text, fmt::format("step '{}' is not DURATION@RATE", item));
      auto dur = ParseDurationNs(item.substr(0, at), flag);
      if (!dur.ok() || *dur == 0)
        return Bad(flag, text, TooLargeOr(item.substr(0, at), fmt::format("step '{}' has no positive duration", item)));
      double rate = 0;
      if (item.substr(at + 1) != "0") {
        auto r = ParseRate(item.substr(at + 1), flag);
        if (!r.ok()) return Bad(flag, text, TooLargeOr(item.substr(at + 1), fmt::format("step '{}' has a bad rate", item)));
        rate = *r;
        STOREBENCH_RETURN_IF_ERROR(CheckRate(flag, text, rate));
      }
      spec.steps.push_back({*dur, rate});
    }
    return spec;
  }
  if (kind == "trace") {
    std::string path(arg);
    std::error_code ec;
    if (std::filesystem::is_directory(path, ec))
      return Status::InvalidArgument(
          fmt::format("{}: trace file '{}' is a directory; give a file of arrival times (seconds, one a line)", flag, path));
    std::ifstream in(path);
    if (!in) return Status::InvalidArgument(fmt::format("{}: cannot read trace file '{}'", flag, path));
    auto times = std::make_shared<std::vector<uint64_t>>();
    std::string line;
    size_t lineno = 0;
    while (std::getline(in, line)) {
      ++lineno;
      auto hash = line.find('#');
      if (hash != std::string::npos) line.resize(hash);
      auto first = line.find_first_not_of(" \t\r");
      if (first == std::string::npos) continue;
      auto last = line.find_last_not_of(" \t\r");
      auto v = ParseDouble(std::string_view(line).substr(first, last - first + 1), flag);
      if (!v.ok() || *v < 0)
        return Status::InvalidArgument(fmt::format(
            "{}: trace file '{}' line {}: expected a time in seconds from the start, e.g. 0.0015", flag, path, lineno));
      uint64_t ns = static_cast<uint64_t>(std::llround(*v * kNsPerS));
      if (!times->empty() && ns < times->back())
        return Status::InvalidArgument(
            fmt::format("{}: trace file '{}' line {}: times must not decrease", flag, path, lineno));
      times->push_back(ns);
    }
    if (times->empty()) return Status::InvalidArgument(fmt::format("{}: trace file '{}' has no arrivals", flag, path));
    spec.kind = ScheduleSpec::Kind::kTrace;
    spec.trace = std::move(times);
    return spec;
  }
  return Bad(flag, text, "unknown schedule");
}

namespace {

// The long-run mean rate (ops/s) of a schedule without an end.
double MeanRate(const ScheduleSpec& spec) {
  if (spec.kind != ScheduleSpec::Kind::kSine) return spec.rate;
  if (spec.b == 0) return spec.RateAt(0);
  const double period = 2 * std::numbers::pi / std::fabs(spec.b);
  return SineArrivals(spec, period) / period;
}

}  // namespace

Status CheckScheduleFitsRun(const ScheduleSpec& spec, uint64_t run_ns, uint64_t ops, std::string_view flag) {
  if (!spec.open_loop() || spec.kind == ScheduleSpec::Kind::kTrace) return Status::Ok();
  const double horizon_s = static_cast<double>(kArrivalHorizonNs) / kNsPerS;
  if (run_ns == 0 && ops == 0 && spec.EndNs() == UINT64_MAX) return Status::Ok();  // another group's --ops ends the run
  if (run_ns == 0 && spec.EndNs() == UINT64_MAX) {
    // Bounded by --ops alone: the ops must fall due within the arrivals' horizon.
    const double mean = MeanRate(spec);
    if (mean > 0 && static_cast<double>(ops) / mean <= horizon_s) return Status::Ok();
    return Status::InvalidArgument(fmt::format(
        "{}: at '{}' the {} ops of --ops would not all fall due within {:.0f} years; give a higher rate or --duration",
        flag, spec.text, ops, horizon_s / (365.25 * 86400)));
  }
  const uint64_t length = run_ns ? std::min(run_ns, spec.EndNs()) : spec.EndNs();
  const double expected = spec.ExpectedArrivals(length);
  // Zero is a schedule that asks for nothing in this run (steps at 0, a sine
  // below zero): it runs and says so. Between 0 and 1 is a rate too small to express.
  if (expected == 0 || expected >= 1) return Status::Ok();
  return Status::InvalidArgument(fmt::format(
      "{}: '{}' expects {:.3g} arrivals in the run's {} (warm-up and --duration), fewer than one; give a higher rate "
      "or a longer --duration",
      flag, spec.text, expected, FormatDurationNs(static_cast<double>(length))));
}

}  // namespace storebench::driver
