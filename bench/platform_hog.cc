// A platform fault for bench/platform_faults.sh: burns CPU (`cpu`) or memory
// bandwidth (`memory`: streams over a buffer far larger than the caches) on
// the CPU it is pinned to, in bursts: BURST of every PERIOD, for TOTAL.
//
//   platform_hog cpu|memory CPU BURST_MS PERIOD_MS TOTAL_MS
//
// Written by hand: the few lines stress-ng would need are not worth a package
// the suite does not otherwise use, and the bursts must be timed exactly.
#include <sched.h>
#include <time.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

uint64_t NowMs() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1000 + static_cast<uint64_t>(ts.tv_nsec) / 1'000'000;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 6) {
    std::fprintf(stderr, "usage: platform_hog cpu|memory CPU BURST_MS PERIOD_MS TOTAL_MS\n");
    return 2;
  }
  const std::string mode = argv[1];
  const int cpu = std::atoi(argv[2]);
  const uint64_t burst = std::strtoull(argv[3], nullptr, 10), period = std::strtoull(argv[4], nullptr, 10);
  const uint64_t total = std::strtoull(argv[5], nullptr, 10);
  if ((mode != "cpu" && mode != "memory") || period == 0 || burst > period) {
    std::fprintf(stderr, "platform_hog: bad arguments\n");
    return 2;
  }
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  sched_setaffinity(0, sizeof set, &set);
  std::vector<uint64_t> buffer(mode == "memory" ? (512u << 20) / 8 : 1, 1);
  volatile uint64_t sink = 0;
  const uint64_t start = NowMs();
  for (uint64_t now = start; now - start < total; now = NowMs()) {
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
      uint64_t sum = 0;
      for (size_t i = 0; i < buffer.size(); i += 8) sum += buffer[i]++;  // one line in eight words: bandwidth
      sink = sink + sum;
    }
  }
  return static_cast<int>(sink & 0);
}
