// A platform fault for bench/platform_faults.sh: burns CPU (`cpu`) or memory
// bandwidth (`memory`: copies between two buffers far larger than the caches)
// on the CPU it is pinned to, in bursts: BURST of every PERIOD, for TOTAL.
// `latency` is the probe that says whether the memory fault reaches the
// workers' CPU at all: the mean time of a dependent load from a 64 MiB random
// cycle (far larger than the caches: each load is one from memory), for MS.
//
//   platform_hog cpu|memory CPU BURST_MS PERIOD_MS TOTAL_MS
//   platform_hog latency CPU MS          prints "NS" (ns per load)
//
// Written by hand: the few lines stress-ng would need are not worth a package
// the suite does not otherwise use, and the bursts must be timed exactly.
#include <sched.h>
#include <time.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <numeric>
#include <random>
#include <string>
#include <utility>
#include <vector>

namespace {

uint64_t NowNs() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1'000'000'000u + static_cast<uint64_t>(ts.tv_nsec);
}

void Pin(int cpu) {
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  sched_setaffinity(0, sizeof set, &set);
}

// Mean ns per dependent load over a random cycle through 64 MiB of lines, for `ms`.
double LoadLatencyNs(uint64_t ms) {
  constexpr size_t kLines = (64u << 20) / 64, kWords = 8;
  std::vector<uint32_t> order(kLines);
  std::iota(order.begin(), order.end(), 0u);
  std::mt19937_64 rng(1);
  for (size_t i = kLines - 1; i > 0; --i) std::swap(order[i], order[rng() % i]);  // Sattolo: one cycle
  std::vector<uint64_t> next(kLines * kWords);
  for (size_t i = 0; i < kLines; ++i) next[order[i] * kWords] = order[(i + 1) % kLines] * kWords;
  uint64_t at = 0, loads = 0;
  for (size_t i = 0; i < kLines; ++i) at = next[at];  // touches every page first
  const uint64_t t0 = NowNs(), until = t0 + ms * 1'000'000u;
  uint64_t now = t0;
  while (now < until) {
    for (int i = 0; i < 4096; ++i) at = next[at];
    loads += 4096;
    now = NowNs();
  }
  asm volatile("" : : "r"(at));
  return static_cast<double>(now - t0) / static_cast<double>(loads);
}

}  // namespace

int main(int argc, char** argv) {
  const std::string mode = argc > 1 ? argv[1] : "";
  if (mode == "latency" && argc == 4) {
    Pin(std::atoi(argv[2]));
    std::printf("%.1f\n", LoadLatencyNs(std::strtoull(argv[3], nullptr, 10)));
    return 0;
  }
  if (argc != 6) {
    std::fprintf(stderr, "usage: platform_hog cpu|memory CPU BURST_MS PERIOD_MS TOTAL_MS | latency CPU MS\n");
    return 2;
  }
  const int cpu = std::atoi(argv[2]);
  const uint64_t burst = std::strtoull(argv[3], nullptr, 10), period = std::strtoull(argv[4], nullptr, 10);
  const uint64_t total = std::strtoull(argv[5], nullptr, 10);
  if ((mode != "cpu" && mode != "memory") || period == 0 || burst > period) {
    std::fprintf(stderr, "platform_hog: bad arguments\n");
    return 2;
  }
  Pin(cpu);
  // Two 256 MiB buffers copied back and forth: glibc's memcpy streams large
  // copies with non-temporal stores, ~22-25 GB/s from one vCPU here, about
  // twice the read-modify-write loop this mode used before.
  const size_t bytes = mode == "memory" ? (256u << 20) : 64;
  std::vector<char> a(bytes, 1), b(bytes, 2);
  volatile uint64_t sink = 0;
  const uint64_t start = NowNs() / 1'000'000u;
  for (uint64_t now = start; now - start < total; now = NowNs() / 1'000'000u) {
    const uint64_t phase = (now - start) % period;
    if (phase >= burst) {
      const uint64_t wait_ms = period - phase;
      timespec ts{static_cast<time_t>(wait_ms / 1000), static_cast<long>((wait_ms % 1000) * 1'000'000)};
      nanosleep(&ts, nullptr);
      continue;
    }
    if (mode == "cpu") {
      for (int i = 0; i < 100000; ++i) sink = sink * 6364136223846793005ull + 1;
    } else {
      // 32 MiB at a time, so a burst ends within ~2 ms of its time.
      for (size_t off = 0; off < bytes; off += 32u << 20) std::memcpy(b.data() + off, a.data() + off, 32u << 20);
      std::swap(a, b);
      sink = sink + static_cast<unsigned char>(a[now % bytes]);
    }
  }
  return static_cast<int>(sink & 0);
}
