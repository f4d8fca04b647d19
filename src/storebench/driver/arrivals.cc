// The arrival streams of the open-loop schedules (schedule.h: Arrivals,
// MakeArrivals), one class per way of spacing arrivals: evenly (constant),
// by exponential gaps (poisson), by a varying rate's integral (sine, steps),
// or as listed (trace).
#include <algorithm>
#include <cmath>
#include <numbers>

#include "storebench/driver/schedule.h"
#include "storebench/driver/schedule_math.h"
#include "storebench/workload/random.h"

namespace storebench::driver {
namespace {


class ConstantArrivals : public Arrivals {
 public:
  ConstantArrivals(double rate, int index, int count, double phase_ns, uint64_t horizon_ns)
      : period_ns_(kNsPerS * count / rate), horizon_ns_(static_cast<double>(horizon_ns)) {
    // Stagger the workers so the group's arrivals are evenly spaced.
    next_ = phase_ns + period_ns_ * index / count;
    offset_ = next_;
  }
  uint64_t Next() override {
    if (!(next_ < horizon_ns_)) return UINT64_MAX;
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
  double horizon_ns_;
  double next_ = 0;
  double offset_ = 0;
};

class PoissonArrivals : public Arrivals {
 public:
  PoissonArrivals(double rate, int count, uint64_t seed, uint64_t horizon_ns)
      : rate_per_ns_(rate / count / kNsPerS), horizon_ns_(static_cast<double>(horizon_ns)), rng_(seed) {}
  uint64_t Next() override {
    if (!(next_ < horizon_ns_)) return UINT64_MAX;
    next_ += rng_.Exponential(1.0 / rate_per_ns_);
    return next_ < horizon_ns_ ? static_cast<uint64_t>(next_) : UINT64_MAX;
  }
  double ExpectedBefore(uint64_t t_ns) const override { return rate_per_ns_ * static_cast<double>(t_ns); }

 private:
  double rate_per_ns_;
  double horizon_ns_;
  workload::Random rng_;
  double next_ = 0;
};

// A time-varying rate: the next arrival is where the stream's expected
// arrivals since the last one reach 1. A gap of at most 1 ms is 1/rate(t) at
// the arrival (exact enough where the rate changes slowly against the gap);
// a longer one is integrated: steps exactly, step by step; a sine in slices
// (at most 1/1024 of its period, ~0.1 arrival each), skipping whole periods
// once one has passed. Where the rate is zero the stream jumps to where it
// turns positive (NextPositiveNs). So a call costs a bounded number of steps
// however small the rate, and nothing is stepped through past `horizon_ns`.
class VaryingArrivals : public Arrivals {
 public:
  VaryingArrivals(const ScheduleSpec& spec, int index, int count, uint64_t horizon_ns)
      : spec_(spec), count_(count), horizon_ns_(static_cast<double>(std::min(spec.EndNs(), horizon_ns))) {
    double r = spec_.RateAt(0) / count_;
    next_ = r > 0 ? kNsPerS / r * index / count_ : 0;
    if (spec_.kind == ScheduleSpec::Kind::kSine && spec_.b != 0) {
      period_ns_ = 2 * std::numbers::pi / std::fabs(spec_.b) * kNsPerS;
      per_period_ = SineArrivals(spec_, period_ns_ / kNsPerS) / count_;
    }
  }
  uint64_t Next() override {
    while (next_ < horizon_ns_) {
      const uint64_t at = static_cast<uint64_t>(next_);
      if (spec_.RateAt(at) > 0) {
        next_ = After(next_);
        return at;
      }
      const uint64_t positive = spec_.NextPositiveNs(at);
      if (positive == UINT64_MAX) break;
      next_ = static_cast<double>(positive);
    }
    next_ = horizon_ns_;
    return UINT64_MAX;
  }
  double ExpectedBefore(uint64_t t_ns) const override { return spec_.ExpectedArrivals(t_ns) / count_; }

 private:
  double Rate(double t_ns) const { return spec_.RateAt(static_cast<uint64_t>(t_ns)) / count_; }

  // The instant after `t` (ns) at which one more arrival is due; horizon_ns_ if none before it.
  double After(double t) const {
    const double r = Rate(t);
    if (r * 1e-3 >= 1 || (spec_.kind == ScheduleSpec::Kind::kSine && spec_.b == 0)) return t + kNsPerS / r;
    return spec_.kind == ScheduleSpec::Kind::kSteps ? StepsAfter(t) : SineAfter(t);
  }

  double StepsAfter(double x) const {
    double need = 1, at = 0;
    for (const auto& s : spec_.steps) {
      const double end = at + static_cast<double>(s.duration_ns);
      at = end;
      if (end <= x || s.rate <= 0) continue;
      const double r = s.rate / count_;
      if (x + need / r * kNsPerS < end) return x + need / r * kNsPerS;
      need -= r * (end - x) / kNsPerS;
      x = end;
    }
    return horizon_ns_;
  }

  double SineAfter(double x) const {
    double need = 1, walk_from = x;
    while (x < horizon_ns_) {
      if (Rate(x) <= 0) {
        const uint64_t positive = spec_.NextPositiveNs(static_cast<uint64_t>(x));
        if (positive == UINT64_MAX) break;
        x = static_cast<double>(positive);
        continue;
      }
      if (x - walk_from > period_ns_ && per_period_ > 0) {
        // The integral over a whole period is the same for every period.
        const double skip = std::floor(need / per_period_);
        x += skip * period_ns_;
        need -= skip * per_period_;
        walk_from = x;
      }
      const double dt = std::max(1.0, std::min(period_ns_ / 1024, 0.1 * kNsPerS / Rate(x)));
      const double r = Rate(x + dt / 2);
      if (r * dt / kNsPerS >= need && r > 0) return x + need / r * kNsPerS;
      need -= r * dt / kNsPerS;
      x += dt;
    }
    return horizon_ns_;
  }

  ScheduleSpec spec_;
  int count_;
  double horizon_ns_;
  double period_ns_ = 0;   // sine: 2π/|b| in ns
  double per_period_ = 0;  // sine: this stream's expected arrivals in one period
  double next_ = 0;
};

class TraceArrivals : public Arrivals {
 public:
  TraceArrivals(std::shared_ptr<const std::vector<uint64_t>> trace, int index, int count, uint64_t horizon_ns)
      : trace_(std::move(trace)), pos_(static_cast<size_t>(index)), index_(index), count_(count),
        horizon_ns_(horizon_ns) {}
  uint64_t Next() override {
    if (pos_ >= trace_->size() || (*trace_)[pos_] >= horizon_ns_) return UINT64_MAX;
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
  uint64_t horizon_ns_;
};

}  // namespace

std::unique_ptr<Arrivals> MakeArrivals(const ScheduleSpec& spec, int index, int count, uint64_t seed,
                                       uint64_t horizon_ns) {
  horizon_ns = std::min(horizon_ns, kArrivalHorizonNs);
  switch (spec.kind) {
    case ScheduleSpec::Kind::kClosed:
      return nullptr;
    case ScheduleSpec::Kind::kConstant:
      return std::make_unique<ConstantArrivals>(spec.rate, index, count, spec.phase_ns, horizon_ns);
    case ScheduleSpec::Kind::kPoisson:
      return std::make_unique<PoissonArrivals>(spec.rate, count, seed, horizon_ns);
    case ScheduleSpec::Kind::kSine:
    case ScheduleSpec::Kind::kSteps:
      return std::make_unique<VaryingArrivals>(spec, index, count, horizon_ns);
    case ScheduleSpec::Kind::kTrace:
      return std::make_unique<TraceArrivals>(spec.trace, index, count, horizon_ns);
  }
  return nullptr;
}

}  // namespace storebench::driver
