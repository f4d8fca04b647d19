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

// One turn of a spin: tells the core the thread is waiting.
inline void Pause() {
#if defined(__x86_64__)
  _mm_pause();
#endif
}

// Spins until `deadline_ns`.
inline void SpinUntil(const Clock& clock, uint64_t deadline_ns) {
  while (clock.NowNs() < deadline_ns) Pause();
}

}  // namespace storebench::measure
