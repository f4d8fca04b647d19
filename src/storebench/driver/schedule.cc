#include "storebench/driver/schedule.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <fmt/format.h>

#include "storebench/base/units.h"
#include "storebench/workload/random.h"

namespace storebench::driver {
namespace {

constexpr double kNsPerS = 1e9;
constexpr const char* kForm =
    "closed | constant:RATE | poisson:RATE | sine:A,B,C,D | steps:DURATION@RATE,... | trace:FILE "
    "(e.g. constant:50k/s, sine:350,0.0105,0,50000, steps:10s@1000,2s@20000,10s@1000)";

Status Bad(std::string_view flag, std::string_view text, std::string_view why) {
  return Status::InvalidArgument(fmt::format("{}: {} in '{}'; expected {}", flag, why, text, kForm));
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

// Cumulative expected arrivals of a rate function, integrated numerically in
// 1 ms slices; used for sine and steps where a closed form would differ per kind.
double Integrate(const ScheduleSpec& spec, uint64_t t_ns) {
  if (spec.kind == ScheduleSpec::Kind::kSine) {
    // Closed form of ∫ max(0, a sin(bt+c)+d) is messy when the rate dips below
    // zero; a 1 ms Riemann sum is exact enough for a backlog estimate.
    double t = static_cast<double>(t_ns) / kNsPerS;
    const double dt = 1e-3;
    double sum = 0;
    for (double x = 0; x < t; x += dt) sum += std::max(0.0, spec.a * std::sin(spec.b * (x + dt / 2) + spec.c) + spec.d) * std::min(dt, t - x);
    return sum;
  }
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

class ConstantArrivals : public Arrivals {
 public:
  ConstantArrivals(double rate, int index, int count, double phase_ns) : period_ns_(kNsPerS * count / rate) {
    // Stagger the workers so the group's arrivals are evenly spaced.
    next_ = phase_ns + period_ns_ * index / count;
    offset_ = next_;
  }
  uint64_t Next() override {
    uint64_t t = static_cast<uint64_t>(next_);
    next_ += period_ns_;
    return t;
  }
  double ExpectedBefore(uint64_t t_ns) const override {
    double t = static_cast<double>(t_ns);
    return t <= offset_ ? 0 : std::ceil((t - offset_) / period_ns_);
  }

 private:
  double period_ns_;
  double next_ = 0;
  double offset_ = 0;
};

class PoissonArrivals : public Arrivals {
 public:
  PoissonArrivals(double rate, int count, uint64_t seed) : rate_per_ns_(rate / count / kNsPerS), rng_(seed) {}
  uint64_t Next() override {
    next_ += rng_.Exponential(1.0 / rate_per_ns_);
    return static_cast<uint64_t>(next_);
  }
  double ExpectedBefore(uint64_t t_ns) const override { return rate_per_ns_ * static_cast<double>(t_ns); }

 private:
  double rate_per_ns_;
  workload::Random rng_;
  double next_ = 0;
};

// A time-varying rate: each gap is 1/rate(t) at the current instant, which
// tracks the rate function closely whenever it changes slowly relative to the
// gap (true for the sine and step loads of interest). Where the rate is zero
// the stream jumps ahead in 1 ms steps until it is positive again.
class VaryingArrivals : public Arrivals {
 public:
  VaryingArrivals(const ScheduleSpec& spec, int index, int count)
      : spec_(spec), count_(count), end_(spec.EndNs()) {
    double r = spec_.RateAt(0) / count_;
    next_ = r > 0 ? kNsPerS / r * index / count_ : 0;
  }
  uint64_t Next() override {
    while (true) {
      if (next_ >= static_cast<double>(end_)) return UINT64_MAX;
      double r = spec_.RateAt(static_cast<uint64_t>(next_)) / count_;
      if (r > 0) {
        uint64_t t = static_cast<uint64_t>(next_);
        next_ += kNsPerS / r;
        return t;
      }
      next_ += 1e6;
    }
  }
  double ExpectedBefore(uint64_t t_ns) const override { return Integrate(spec_, t_ns) / count_; }

 private:
  ScheduleSpec spec_;
  int count_;
  uint64_t end_;
  double next_ = 0;
};

class TraceArrivals : public Arrivals {
 public:
  TraceArrivals(std::shared_ptr<const std::vector<uint64_t>> trace, int index, int count)
      : trace_(std::move(trace)), pos_(static_cast<size_t>(index)), index_(index), count_(count) {}
  uint64_t Next() override {
    if (pos_ >= trace_->size()) return UINT64_MAX;
    uint64_t t = (*trace_)[pos_];
    pos_ += static_cast<size_t>(count_);
    return t;
  }
  double ExpectedBefore(uint64_t t_ns) const override {
    size_t before = static_cast<size_t>(std::lower_bound(trace_->begin(), trace_->end(), t_ns) - trace_->begin());
    // Entries index, index+count, ... below `before`.
    if (before <= static_cast<size_t>(index_)) return 0;
    return static_cast<double>((before - static_cast<size_t>(index_) + count_ - 1) / count_);
  }

 private:
  std::shared_ptr<const std::vector<uint64_t>> trace_;
  size_t pos_;
  int index_;
  int count_;
};

StatusOr<std::vector<double>> Numbers(std::string_view list, size_t n, std::string_view flag, std::string_view text) {
  auto parts = Split(list, ',');
  if (parts.size() != n) return Bad(flag, text, fmt::format("expected {} comma-separated numbers", n));
  std::vector<double> out;
  for (auto p : parts) {
    auto v = ParseDouble(p, flag);
    if (!v.ok()) return Bad(flag, text, fmt::format("'{}' is not a number", p));
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

uint64_t ScheduleSpec::EndNs() const {
  if (kind == Kind::kSteps) {
    uint64_t total = 0;
    for (const auto& s : steps) total += s.duration_ns;
    return total;
  }
  if (kind == Kind::kTrace) return trace->empty() ? 0 : trace->back() + 1;
  return UINT64_MAX;
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
    if (!r.ok()) return Bad(flag, text, "the rate must be positive (e.g. 1000 or 50k/s)");
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
      if (!dur.ok() || *dur == 0) return Bad(flag, text, fmt::format("step '{}' has no positive duration", item));
      double rate = 0;
      if (item.substr(at + 1) != "0") {
        auto r = ParseRate(item.substr(at + 1), flag);
        if (!r.ok()) return Bad(flag, text, fmt::format("step '{}' has a bad rate", item));
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

std::unique_ptr<Arrivals> MakeArrivals(const ScheduleSpec& spec, int index, int count, uint64_t seed) {
  switch (spec.kind) {
    case ScheduleSpec::Kind::kClosed:
      return nullptr;
    case ScheduleSpec::Kind::kConstant:
      return std::make_unique<ConstantArrivals>(spec.rate, index, count, spec.phase_ns);
    case ScheduleSpec::Kind::kPoisson:
      return std::make_unique<PoissonArrivals>(spec.rate, count, seed);
    case ScheduleSpec::Kind::kSine:
    case ScheduleSpec::Kind::kSteps:
      return std::make_unique<VaryingArrivals>(spec, index, count);
    case ScheduleSpec::Kind::kTrace:
      return std::make_unique<TraceArrivals>(spec.trace, index, count);
  }
  return nullptr;
}

}  // namespace storebench::driver
