// Clock: the hot-path monotonic clock, in nanoseconds.
//
// On x86-64 with an invariant TSC it reads `rdtsc` (about a third of the cost
// of clock_gettime here) and converts ticks to nanoseconds with a multiplier
// calibrated against CLOCK_MONOTONIC when the Clock is made. The calibration
// is checked by a second, independent measurement; if the TSC is not invariant
// or the two disagree, NowNs() falls back to clock_gettime(CLOCK_MONOTONIC).
// The epoch is CLOCK_MONOTONIC's, so values from both paths are comparable.
// Thread-safety: immutable after construction; NowNs() may be called from any
// thread. Default() is made once, on first use, before any worker starts.
#pragma once

#include <cstdint>
#include <ctime>

#if defined(__x86_64__)
#include <x86intrin.h>
#endif

namespace storebench::measure {

inline uint64_t MonotonicNs() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1'000'000'000ull + static_cast<uint64_t>(ts.tv_nsec);
}

class Clock {
 public:
  enum class Source { kTsc, kMonotonic };

  // Calibrates (about 50 ms) unless `force_monotonic`.
  explicit Clock(bool force_monotonic = false);
  // The process-wide clock.
  static const Clock& Default();

  uint64_t NowNs() const {
#if defined(__x86_64__)
    if (source_ == Source::kTsc) [[likely]] return TicksToNs(__rdtsc());
#endif
    return MonotonicNs();
  }

  Source source() const { return source_; }
  const char* source_name() const { return source_ == Source::kTsc ? "tsc" : "clock_gettime"; }
  // Nanoseconds per TSC tick (0 when the TSC is not used).
  double ns_per_tick() const { return ns_per_tick_; }
  // Relative disagreement between the calibration and its check.
  double calibration_error() const { return calibration_error_; }

 private:
  uint64_t TicksToNs(uint64_t ticks) const {
    // 128-bit product: exact for any run length.
    __extension__ typedef __int128 i128;
    i128 d = static_cast<i128>(static_cast<int64_t>(ticks - base_ticks_)) * mult_;
    return base_ns_ + static_cast<uint64_t>(static_cast<int64_t>(d >> 32));
  }

  Source source_ = Source::kMonotonic;
  uint64_t base_ticks_ = 0;
  uint64_t base_ns_ = 0;
  int64_t mult_ = 0;  // ns per tick in 32.32 fixed point
  double ns_per_tick_ = 0;
  double calibration_error_ = 0;
};

}  // namespace storebench::measure
