// What one progress tick costs the reporter thread: making the run's line
// from an interval (RunProgressText::Line) and drawing it (ProgressDisplay in
// plain mode with no period, so every call writes, to /dev/null), in µs per
// tick, medians of --reps rounds. The baseline measured in the same run is
// one empty write(2) of the same length. At the default --interval 1s a run
// draws once a second, so µs per tick is also the reporter's µs per second.
//
//   build/release/bench/progress_draw_cost [--reps 7] [--ticks 20000]
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "storebench/measure/clock.h"
#include "storebench/report/progress.h"

using storebench::measure::MonotonicNs;
namespace report = storebench::report;

int main(int argc, char** argv) {
  int reps = 7;
  uint64_t ticks = 20'000;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!std::strcmp(argv[i], "--reps")) reps = std::atoi(argv[i + 1]);
    if (!std::strcmp(argv[i], "--ticks")) ticks = std::strtoull(argv[i + 1], nullptr, 10);
  }
  const int devnull = open("/dev/null", O_WRONLY | O_CLOEXEC);
  if (devnull < 0) return 1;
  storebench::driver::IntervalStats t;
  t.ops = 1'500'000, t.ops_per_sec = 15'000'000, t.length_s = 0.1;
  t.response = {16, 18, 20, 21, 140, 8'130'000};
  report::RunProgressText text;
  text.StartPhase({"closed loop,", 0, 60, 0, {}});
  t.t_s = 12.3;
  const std::string sample = text.Line(t) + "\n";
  std::vector<double> draw, baseline;
  for (int r = 0; r < reps; ++r) {
    uint64_t t0 = MonotonicNs();
    for (uint64_t i = 0; i < ticks; ++i) (void)!write(devnull, sample.data(), sample.size());
    baseline.push_back(static_cast<double>(MonotonicNs() - t0) / 1e3 / static_cast<double>(ticks));
    report::ProgressDisplay display(storebench::job::ProgressMode::kAlways, false, {devnull, 0, 0});
    t0 = MonotonicNs();
    for (uint64_t i = 0; i < ticks; ++i) {
      t.t_s = static_cast<double>(i % 600) * 0.1;
      display.Update(text.Line(t));
    }
    draw.push_back(static_cast<double>(MonotonicNs() - t0) / 1e3 / static_cast<double>(ticks));
  }
  auto median = [](std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
  };
  std::printf("line: %s", sample.c_str());
  std::printf("%-40s %10s %8s\n", "what", "us/tick", "ratio");
  std::printf("%-40s %10.2f %8.2f\n", "write(2) of the line (baseline)", median(baseline), 1.0);
  std::printf("%-40s %10.2f %8.2f\n", "make the run's line + draw it", median(draw), median(draw) / median(baseline));
  close(devnull);
  return 0;
}
