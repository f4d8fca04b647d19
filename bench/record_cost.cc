// Cost of the record path, in ns per op: the two clock reads and the
// histogram/counter update every measured op pays. Each variant runs
// alternately several times; medians are printed with ratios against
// clock_gettime, the baseline measured in the same run.
//
//   build/release/bench/record_cost [--reps 7] [--ops 20000000]
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "storebench/measure/clock.h"
#include "storebench/measure/recorder.h"

using storebench::measure::Clock;
using storebench::measure::MonotonicNs;

namespace {

volatile uint64_t g_sink;

double TimeLoop(uint64_t ops, const std::function<void(uint64_t)>& body) {
  uint64_t t0 = MonotonicNs();
  body(ops);
  return static_cast<double>(MonotonicNs() - t0) / static_cast<double>(ops);
}

}  // namespace

int main(int argc, char** argv) {
  int reps = 7;
  uint64_t ops = 20'000'000;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!std::strcmp(argv[i], "--reps")) reps = std::atoi(argv[i + 1]);
    if (!std::strcmp(argv[i], "--ops")) ops = std::strtoull(argv[i + 1], nullptr, 10);
  }
  const Clock& clock = Clock::Default();
  storebench::measure::RecorderLayout layout;
  storebench::measure::ThreadRecorder recorder(layout);
  storebench::measure::Histogram hist;

  struct Variant {
    const char* name;
    std::function<void(uint64_t)> body;
    std::vector<double> ns;
  };
  std::vector<Variant> variants = {
      {"clock_gettime(CLOCK_MONOTONIC)", [](uint64_t n) {
         uint64_t s = 0;
         for (uint64_t i = 0; i < n; ++i) s += MonotonicNs();
         g_sink = s;
       }, {}},
      {"storebench clock (rdtsc)", [&](uint64_t n) {
         uint64_t s = 0;
         for (uint64_t i = 0; i < n; ++i) s += clock.NowNs();
         g_sink = s;
       }, {}},
      {"histogram record", [&](uint64_t n) {
         for (uint64_t i = 0; i < n; ++i) hist.Record(100 + (i & 1023));
         g_sink = hist.count();
       }, {}},
      {"full record path (2 clock reads + record)", [&](uint64_t n) {
         for (uint64_t i = 0; i < n; ++i) {
           uint64_t start = clock.NowNs();
           uint64_t end = clock.NowNs();
           recorder.Record(0, 0, start, start, end, 0);
         }
       }, {}},
  };
  for (int r = 0; r < reps; ++r)
    for (auto& v : variants) v.ns.push_back(TimeLoop(ops, v.body));

  std::printf("clock source: %s, %d reps of %llu ops, medians\n", clock.source_name(), reps,
              static_cast<unsigned long long>(ops));
  double base = 0;
  for (auto& v : variants) {
    std::sort(v.ns.begin(), v.ns.end());
    double med = v.ns[v.ns.size() / 2];
    if (base == 0) base = med;
    std::printf("  %-44s %7.2f ns/op  (min %.2f, max %.2f)  ratio vs clock_gettime %.2fx\n", v.name, med, v.ns.front(),
                v.ns.back(), med / base);
  }
  return 0;
}
