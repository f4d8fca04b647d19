// Random: the fast seeded generator every workload hot path draws from.
//
// xoshiro256** (Blackman & Vigna) seeded through splitmix64, so any 64-bit
// seed — including 0 and consecutive thread ids — gives a well-mixed state.
// It is several times cheaper than std::mt19937_64 and its state is 32 bytes,
// small enough to live in each worker. Everything here is inline and
// allocation-free. Random also satisfies UniformRandomBitGenerator, so it
// plugs into <random> and <algorithm> where that is convenient.
//
// Thread-safety: none. A Random is a per-thread object; give each worker its
// own, seeded from (run seed, worker id) with SeedFor().
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>

namespace storebench::workload {

// One step of splitmix64: advances *state and returns a mixed 64-bit value.
inline uint64_t SplitMix64(uint64_t* state) {
  uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

class Random {
 public:
  using result_type = uint64_t;

  // Seeds the four state words from splitmix64(seed); equal seeds give equal streams.
  explicit Random(uint64_t seed = 0) {
    uint64_t sm = seed;
    for (uint64_t& word : s_) word = SplitMix64(&sm);
  }

  // A seed for worker `stream` of a run seeded with `seed`; distinct streams get unrelated seeds.
  static uint64_t SeedFor(uint64_t seed, uint64_t stream) {
    uint64_t sm = seed ^ (stream * 0xd1b54a32d192ed03ULL);
    return SplitMix64(&sm);
  }

  static constexpr result_type min() { return 0; }
  static constexpr result_type max() { return std::numeric_limits<uint64_t>::max(); }
  result_type operator()() { return Next(); }

  // The next 64 uniformly distributed bits.
  uint64_t Next() {
    const uint64_t result = Rotl(s_[1] * 5, 7) * 9;
    const uint64_t t = s_[1] << 17;
    s_[2] ^= s_[0];
    s_[3] ^= s_[1];
    s_[1] ^= s_[2];
    s_[0] ^= s_[3];
    s_[2] ^= t;
    s_[3] = Rotl(s_[3], 45);
    return result;
  }

  // A uniform double in [0, 1) with 53 random bits (every value is a multiple of 2^-53).
  double NextDouble() { return static_cast<double>(Next() >> 11) * 0x1.0p-53; }

  // A uniform integer in [0, n) without modulo bias; returns 0 when n == 0.
  uint64_t Uniform(uint64_t n) {
    // Lemire's multiply-shift: the high word of x·n is uniform except for the
    // (2^64 mod n) lowest products, which are rejected. The rejection test
    // costs a division only on the rare path where it might apply.
    __extension__ using u128 = unsigned __int128;
    u128 m = static_cast<u128>(Next()) * n;
    uint64_t low = static_cast<uint64_t>(m);
    if (low < n) {
      const uint64_t threshold = (0 - n) % n;
      while (low < threshold) {
        m = static_cast<u128>(Next()) * n;
        low = static_cast<uint64_t>(m);
      }
    }
    return static_cast<uint64_t>(m >> 64);
  }

  // An exponential variate with the given mean (> 0): the gap between Poisson
  // arrivals at rate 1/mean. Never infinite: 1 − u lies in (0, 1].
  double Exponential(double mean) { return -std::log1p(-NextDouble()) * mean; }

  // True with probability p (p ≤ 0 never, p ≥ 1 always).
  bool Bernoulli(double p) { return NextDouble() < p; }

 private:
  static uint64_t Rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
  uint64_t s_[4];
};

}  // namespace storebench::workload
