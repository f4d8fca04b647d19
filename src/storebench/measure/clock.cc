#include "storebench/measure/clock.h"

#include <cmath>
#include <thread>

#if defined(__x86_64__)
#include <cpuid.h>
#endif

namespace storebench::measure {
namespace {

#if defined(__x86_64__)
bool HasInvariantTsc() {
  unsigned a, b, c, d;
  if (!__get_cpuid(0x80000000, &a, &b, &c, &d) || a < 0x80000007) return false;
  __get_cpuid(0x80000007, &a, &b, &c, &d);
  return (d >> 8) & 1;
}

// One (ticks, ns) pair with the monotonic read bracketed by two TSC reads, so
// the pair's uncertainty is the bracket width; the narrowest of a few tries wins.
void Pair(uint64_t* ticks, uint64_t* ns) {
  uint64_t best = UINT64_MAX;
  for (int i = 0; i < 16; ++i) {
    uint64_t t0 = __rdtsc();
    uint64_t n = MonotonicNs();
    uint64_t t1 = __rdtsc();
    if (t1 - t0 < best) {
      best = t1 - t0;
      *ticks = t0 + (t1 - t0) / 2;
      *ns = n;
    }
  }
}

double Measure(uint64_t t0, uint64_t n0, std::chrono::milliseconds span) {
  std::this_thread::sleep_for(span);
  uint64_t t1 = 0, n1 = 0;
  Pair(&t1, &n1);
  return static_cast<double>(n1 - n0) / static_cast<double>(t1 - t0);
}
#endif

}  // namespace

Clock::Clock(bool force_monotonic) {
#if defined(__x86_64__)
  if (force_monotonic || !HasInvariantTsc()) return;
  uint64_t t0 = 0, n0 = 0;
  Pair(&t0, &n0);
  double first = Measure(t0, n0, std::chrono::milliseconds(25));
  uint64_t t1 = 0, n1 = 0;
  Pair(&t1, &n1);
  double second = Measure(t1, n1, std::chrono::milliseconds(25));
  if (!(first > 0) || !(second > 0)) return;
  calibration_error_ = std::fabs(first - second) / first;
  // 0.1% is far above what an invariant TSC shows; beyond it the TSC is not trustworthy here.
  if (calibration_error_ > 1e-3) return;
  ns_per_tick_ = (first + second) / 2;
  mult_ = static_cast<int64_t>(std::llround(ns_per_tick_ * 4294967296.0));
  Pair(&base_ticks_, &base_ns_);
  source_ = Source::kTsc;
#else
  (void)force_monotonic;
#endif
}

const Clock& Clock::Default() {
  static const Clock clock;
  return clock;
}

}  // namespace storebench::measure
