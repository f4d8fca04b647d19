// What `run --metrics-listen` costs, per piece, in µs, medians of --reps
// rounds:
//   - the reporter's work per interval (LiveMetrics::OnInterval: decoding the
//     interval's per-kind histograms, adding them into the phase's buckets and
//     rendering the page), for one op kind with ~100,000 ops spread over
//     2 us–50 ms, the shape of a busy RocksDB interval;
//   - a scrape as the server thread serves it, through a kept-alive localhost
//     connection (cpp-httplib on both ends), page included.
// The baseline measured in the same run is the reporter's existing work per
// interval: making the progress line (RunProgressText::Line). At --interval
// 1s the reporter renders once a second; a scraper every 100 ms costs ten
// scrapes a second on the server's thread (never a worker's).
//
//   build/release/bench/live_page_cost [--reps 7] [--ticks 2000]
#include <httplib.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "storebench/live/exposition.h"
#include "storebench/live/metrics_server.h"
#include "storebench/measure/clock.h"
#include "storebench/report/progress.h"

using storebench::measure::MonotonicNs;
namespace live = storebench::live;

int main(int argc, char** argv) {
  int reps = 7;
  uint64_t ticks = 2000;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!std::strcmp(argv[i], "--reps")) reps = std::atoi(argv[i + 1]);
    if (!std::strcmp(argv[i], "--ticks")) ticks = std::strtoull(argv[i + 1], nullptr, 10);
  }
  std::mt19937_64 rng(1);
  std::uniform_real_distribution<double> exponent(std::log(2e3), std::log(5e7));
  storebench::measure::Histogram h;
  for (int i = 0; i < 100'000; ++i) h.Record(static_cast<uint64_t>(std::exp(exponent(rng))));
  storebench::driver::IntervalStats t;
  t.ops = h.count(), t.ops_per_sec = 100'000, t.length_s = 1, t.t_s = 1;
  t.response = storebench::driver::PercentilesOf(h);
  t.kinds = std::make_shared<const std::vector<std::string>>(std::vector<std::string>{"get"});
  t.kind_response_histograms = {h.Encode()};
  t.kind_service_histograms = {h.Encode()};
  storebench::report::RunProgressText text;
  text.StartPhase({"closed loop,", 0, 60, 0, {}});

  live::LiveMetrics metrics("rocksdb", "bench", storebench::measure::HistogramOptions{});
  auto server = live::MetricsServer::Start(live::ListenAddress{}, &metrics);
  if (!server.ok()) {
    std::fprintf(stderr, "%s\n", server.status().message().c_str());
    return 1;
  }
  httplib::Client client("127.0.0.1", (*server)->port());
  client.set_keep_alive(true);
  std::vector<double> line, interval, scrape;
  size_t page_bytes = 0;
  for (int r = 0; r < reps; ++r) {
    uint64_t t0 = MonotonicNs();
    size_t sink = 0;
    for (uint64_t i = 0; i < ticks; ++i) sink += text.Line(t).size();
    line.push_back(static_cast<double>(MonotonicNs() - t0) / 1e3 / static_cast<double>(ticks));
    t0 = MonotonicNs();
    for (uint64_t i = 0; i < ticks; ++i) metrics.OnInterval(t);
    interval.push_back(static_cast<double>(MonotonicNs() - t0) / 1e3 / static_cast<double>(ticks));
    t0 = MonotonicNs();
    for (uint64_t i = 0; i < ticks; ++i) {
      auto res = client.Get("/metrics");
      if (!res || res->status != 200) return 1;
      page_bytes = res->body.size();
    }
    scrape.push_back(static_cast<double>(MonotonicNs() - t0) / 1e3 / static_cast<double>(ticks));
    if (sink == 0) return 1;
  }
  auto median = [](std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
  };
  std::printf("page: %zu bytes (one op kind, response and service)\n", page_bytes);
  std::printf("%-62s %10s %8s\n", "what", "us", "ratio");
  std::printf("%-62s %10.2f %8.2f\n", "progress line per interval (baseline: the reporter's own work)", median(line),
              1.0);
  std::printf("%-62s %10.2f %8.2f\n", "OnInterval per interval (decode, add, render)", median(interval),
              median(interval) / median(line));
  std::printf("%-62s %10.2f %8.2f\n", "one scrape, server and client (kept-alive localhost)", median(scrape),
              median(scrape) / median(line));
  return 0;
}
