// Waiting until a Clock instant: by sleeping (coarse, frees the CPU) or by
// spinning (precise, burns it). Thread-safe; no state.
#pragma once

#include <time.h>

#include "storebench/measure/clock.h"

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace storebench::measure {

// Sleeps until `deadline_ns` (Clock ns) or a little later; returns at once if it has passed.
inline void SleepUntil(const Clock& clock, uint64_t deadline_ns) {
  uint64_t now = clock.NowNs();
  if (now >= deadline_ns) return;
  uint64_t d = deadline_ns - now;
  timespec ts{static_cast<time_t>(d / 1'000'000'000), static_cast<long>(d % 1'000'000'000)};
  while (nanosleep(&ts, &ts) != 0) {
  }
}

// Spins until `deadline_ns`.
inline void SpinUntil(const Clock& clock, uint64_t deadline_ns) {
  while (clock.NowNs() < deadline_ns) {
#if defined(__x86_64__)
    _mm_pause();
#endif
  }
}

// Waits towards `deadline_ns` the way an open loop must: sleeps while the
// deadline is more than `spin_ns` away (sleeping is accurate to tens of
// microseconds), at most `max_sleep_ns` at once so the caller re-checks its
// stop flag, and spins only the last stretch. Returns after one sleep or at
// the deadline.
inline void SleepThenSpin(const Clock& clock, uint64_t deadline_ns, uint64_t spin_ns, uint64_t max_sleep_ns) {
  uint64_t now = clock.NowNs();
  if (deadline_ns > now + spin_ns) {
    uint64_t d = deadline_ns - now - spin_ns;
    SleepUntil(clock, now + (d < max_sleep_ns ? d : max_sleep_ns));
    return;
  }
  SpinUntil(clock, deadline_ns);
}

}  // namespace storebench::measure
