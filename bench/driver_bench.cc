// Driver throughput and schedule accuracy on the null backend.
//
// 1. Closed-loop scaling at 1, 2, 8, 32 threads with storebench's per-thread
//    recorders, against the same loop where every op also goes through a
//    shared-state recorder (one atomic counter and one mutex-protected
//    histogram shared by all threads: the design that makes db_bench,
//    go-ycsb and clickhouse-benchmark the bottleneck). Variants alternate;
//    medians of --reps runs.
// 2. Open-loop accuracy at 100k/s and 1M/s: achieved rate / target and the
//    scheduling error (actual − intended start) p99.
//
//   build/release/bench/driver_bench [--reps 3] [--seconds 2] [--threads 1,2,8,32]
#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>
#include <vector>

#include "storebench/backend/null/null_backend.h"
#include "storebench/driver/runner.h"
#include "storebench/measure/clock.h"

namespace {

using namespace storebench;

// The shared-state baseline: the op itself is null, but every op pays for a
// globally shared counter and histogram, as a shared reporter would make it.
class SharedStateBackend : public backend::Backend {
 public:
  uint32_t capabilities() const override { return 0; }
  StatusOr<std::unique_ptr<backend::Worker>> NewWorker(const backend::WorkerContext&) override {
    return std::unique_ptr<backend::Worker>(new W(this));
  }

 private:
  class W : public backend::Worker {
   public:
    explicit W(SharedStateBackend* b) : b_(b), clock_(measure::Clock::Default()) {}
    backend::SubmitResult Submit(uint64_t tag, backend::Completion* out) override {
      uint64_t t0 = clock_.NowNs();
      uint64_t t1 = clock_.NowNs();
      b_->ops_.fetch_add(1, std::memory_order_relaxed);
      {
        std::lock_guard<std::mutex> lock(b_->mu_);
        b_->hist_.Record(t1 - t0);
      }
      *out = backend::Completion{tag, 0, 0, 0};
      return backend::SubmitResult::kCompleted;
    }

   private:
    SharedStateBackend* b_;
    const measure::Clock& clock_;
  };
  std::atomic<uint64_t> ops_{0};
  std::mutex mu_;
  measure::Histogram hist_;
};

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// What `run` would use for the options this benchmark does not set.
driver::RunConfig BenchConfig() {
  driver::RunConfig c;
  c.interval_ns = 1'000'000'000;
  c.seed = 1;
  c.hiccup_period_ns = driver::RunConfig::kHiccupAuto;
  return c;
}

StatusOr<driver::RunResult> Closed(backend::Backend& b, int threads, double seconds) {
  driver::RunConfig c = BenchConfig();
  c.groups[0].threads = threads;
  c.duration_ns = static_cast<uint64_t>(seconds * 1e9);
  c.warmup_ns = 200'000'000;
  return driver::RunLoad(b, c, nullptr);
}

}  // namespace

int main(int argc, char** argv) {
  int reps = 3;
  double seconds = 2;
  std::vector<int> thread_counts = {1, 2, 8, 32};
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!std::strcmp(argv[i], "--reps")) reps = std::atoi(argv[i + 1]);
    if (!std::strcmp(argv[i], "--seconds")) seconds = std::atof(argv[i + 1]);
    if (!std::strcmp(argv[i], "--threads")) {
      thread_counts.clear();
      for (char* p = argv[i + 1]; *p;) {
        thread_counts.push_back(static_cast<int>(std::strtol(p, &p, 10)));
        if (*p == ',') ++p;
      }
    }
  }
  auto null_made = backend::NullBackendInfo().create({}, {});
  backend::Backend& null_backend = **null_made;
  SharedStateBackend shared;

  std::printf("closed loop, null backend, latency recording on; medians of %d runs of %.1f s\n", reps, seconds);
  std::printf("  %7s  %16s  %12s  %16s  %14s\n", "threads", "storebench op/s", "per thread", "shared-state op/s",
              "storebench/shared");
  double one_thread = 0;
  for (int t : thread_counts) {
    std::vector<double> ours, theirs;
    for (int r = 0; r < reps; ++r) {
      auto a = Closed(null_backend, t, seconds);
      auto b = Closed(shared, t, seconds);
      if (!a.ok() || !b.ok()) return 1;
      ours.push_back(static_cast<double>(a->total->ops()) / a->elapsed_s);
      theirs.push_back(static_cast<double>(b->total->ops()) / b->elapsed_s);
    }
    double m = Median(ours), s = Median(theirs);
    if (t == thread_counts.front()) one_thread = m;
    std::printf("  %7d  %16.0f  %12.0f  %16.0f  %13.2fx   (scaling vs %d thread: %.2fx)\n", t, m, m / t, s, m / s,
                thread_counts.front(), m / one_thread);
  }

  std::printf("\nopen loop, null backend, 2 threads, %.1f s: schedule accuracy (medians of %d runs)\n", seconds, reps);
  for (double rate : {100e3, 1e6}) {
    std::vector<double> achieved, lag99, lag50;
    for (int r = 0; r < reps; ++r) {
      driver::RunConfig c = BenchConfig();
      c.groups[0].threads = 2;
      c.groups[0].schedule = *driver::ParseSchedule(rate == 1e6 ? "constant:1M" : "constant:100k");
      c.duration_ns = static_cast<uint64_t>(seconds * 1e9);
      c.warmup_ns = 200'000'000;
      auto res = driver::RunLoad(null_backend, c, nullptr);
      if (!res.ok()) return 1;
      achieved.push_back(static_cast<double>(res->total->ops()) / res->elapsed_s);
      lag99.push_back(static_cast<double>(res->total->start_lag().ValueAtPercentile(99)));
      lag50.push_back(static_cast<double>(res->total->start_lag().ValueAtPercentile(50)));
    }
    double a = Median(achieved);
    std::printf("  target %9.0f/s  achieved %11.1f/s  ratio %.4f  start lag p50 %.0f ns, p99 %.0f ns\n", rate, a,
                a / rate, Median(lag50), Median(lag99));
  }
  return 0;
}
