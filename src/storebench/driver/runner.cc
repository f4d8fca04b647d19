#include "storebench/driver/runner.h"

#include <algorithm>
#include <fmt/format.h>
#include <thread>

#include "storebench/driver/accounting.h"
#include "storebench/driver/worker_loop.h"
#include "storebench/measure/clock.h"
#include "storebench/measure/recorder.h"
#include "storebench/measure/wait.h"
#include "storebench/workload/random.h"

namespace storebench::driver {
namespace {

using measure::Clock;

Status Validate(const RunConfig& config, const backend::Backend& backend) {
  if (config.groups.empty()) return Status::InvalidArgument("run: no worker groups");
  bool bounded = config.duration_ns > 0;
  for (const WorkerGroup& g : config.groups) {
    if (g.threads < 1) return Status::InvalidArgument(fmt::format("--threads: must be at least 1 (group {})", g.name));
    if (g.queue_depth < 1) return Status::InvalidArgument("--iodepth: must be at least 1");
    STOREBENCH_RETURN_IF_ERROR(backend.CheckGroup({g.name, g.role, g.threads, g.queue_depth, g.priority}));
    if (g.ops > 0 || g.schedule.EndNs() != UINT64_MAX) bounded = true;
  }
  if (!bounded) return Status::InvalidArgument("run: give --duration or --ops (e.g. --duration 10s)");
  if (config.interval_ns < 1'000'000) return Status::InvalidArgument("--interval: must be at least 1ms");
  return Status::Ok();
}

}  // namespace

Percentiles PercentilesOf(const measure::Histogram& h) {
  return {h.ValueAtPercentile(50),   h.ValueAtPercentile(90),    h.ValueAtPercentile(99),
          h.ValueAtPercentile(99.9), h.ValueAtPercentile(99.99), h.max()};
}

StatusOr<RunResult> RunLoad(backend::Backend& backend, const RunConfig& config, const std::atomic<bool>* stop,
                            const ProgressFn& progress) {
  STOREBENCH_RETURN_IF_ERROR(Validate(config, backend));
  const Clock& clock = Clock::Default();
  static const std::atomic<bool> kNeverStop{false};
  if (!stop) stop = &kNeverStop;

  RunResult result;
  std::atomic<bool> halt{false};       // --max-errors reached
  std::atomic<uint64_t> failed{0};
  measure::RecorderLayout base = backend.Layout();
  std::vector<char> error_outcomes;
  for (size_t o = 0; o < base.outcomes.size(); ++o) error_outcomes.push_back(base.IsError(o) ? 1 : 0);
  result.layout = base;
  result.layout.histogram = config.histogram;
  result.layout.kinds.clear();
  for (const WorkerGroup& g : config.groups) {
    result.group_names.push_back(g.name);
    result.group_first_kind.push_back(static_cast<uint32_t>(result.layout.kinds.size()));
    for (const std::string& k : base.kinds)
      result.layout.kinds.push_back(config.groups.size() == 1 ? k : g.name + "/" + k);
    result.open_loop = result.open_loop || g.schedule.open_loop();
  }

  // Per-worker state, made before any thread starts and destroyed after all join.
  const int n = config.total_threads();
  std::vector<std::unique_ptr<measure::ThreadRecorder>> recorders;
  std::vector<measure::ThreadRecorder*> recorder_ptrs;
  std::vector<std::unique_ptr<internal::WorkerProgress>> progress_state;
  std::vector<std::unique_ptr<Arrivals>> arrivals;
  std::vector<internal::WorkerLoopArgs> args(static_cast<size_t>(n));
  std::vector<backend::WorkerContext> contexts(static_cast<size_t>(n));
  std::vector<uint32_t> worker_group(static_cast<size_t>(n));
  internal::Timing timing;
  timing.drain_timeout_ns = config.drain_timeout_ns;
  int w = 0;
  for (size_t gi = 0; gi < config.groups.size(); ++gi) {
    const WorkerGroup& g = config.groups[gi];
    for (int i = 0; i < g.threads; ++i, ++w) {
      uint64_t seed = workload::Random::SeedFor(config.seed, static_cast<uint64_t>(w));
      recorders.push_back(std::make_unique<measure::ThreadRecorder>(result.layout));
      recorder_ptrs.push_back(recorders.back().get());
      progress_state.push_back(std::make_unique<internal::WorkerProgress>());
      arrivals.push_back(MakeArrivals(g.schedule, i, g.threads, seed ^ 0x5bd1e995));
      contexts[w] = {w, static_cast<int>(gi), i, g.threads, g.role, g.priority, g.queue_depth, seed};
      worker_group[w] = static_cast<uint32_t>(gi);
      auto& a = args[w];
      a.arrivals = arrivals.back().get();
      a.recorder = recorders.back().get();
      a.progress = progress_state.back().get();
      a.timing = &timing;
      a.stop = stop;
      a.halt = &halt;
      a.failed = &failed;
      a.max_errors = config.max_errors;
      a.error_outcomes = &error_outcomes;
      a.ops_limit = g.ops ? g.ops / g.threads + (static_cast<uint64_t>(i) < g.ops % g.threads ? 1 : 0) : 0;
      a.queue_depth = g.queue_depth;
      a.kind_offset = result.group_first_kind[gi];
    }
  }

  // Workers make their backend workers on their own threads, then wait for the start.
  std::vector<Status> worker_status(static_cast<size_t>(n));
  std::atomic<int> ready{0};
  std::atomic<int> go{0};  // 1 = run, 2 = abort
  std::vector<std::thread> threads;
  threads.reserve(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) {
    threads.emplace_back([&, i] {
      auto made = backend.NewWorker(contexts[i]);
      if (!made.ok()) worker_status[i] = made.status();
      ready.fetch_add(1, std::memory_order_acq_rel);
      // Blocks (futex) instead of yielding: the main thread may be reading the data set into the cache.
      go.wait(0, std::memory_order_acquire);
      if (go.load() == 1 && made.ok()) {
        args[i].worker = made->get();
        internal::RunWorkerLoop(args[i]);
      }
      progress_state[i]->done.store(true, std::memory_order_release);
    });
  }
  while (ready.load(std::memory_order_acquire) < n) std::this_thread::yield();
  for (const Status& s : worker_status) {
    if (!s.ok()) {
      go.store(2, std::memory_order_release);
      go.notify_all();
      for (auto& t : threads) t.join();
      return s;
    }
  }
  const std::vector<std::string> data_paths = backend.DataPaths();
  ProcessAccounting accounting;
  Status before = io::ApplyCacheState(config.cache, data_paths);
  if (before.ok()) before = backend.BeforeRun();
  if (before.ok()) accounting.Begin(data_paths);
  if (!before.ok()) {
    go.store(2, std::memory_order_release);
    go.notify_all();
    for (auto& t : threads) t.join();
    return before;
  }

  timing.start_ns = clock.NowNs() + 1'000'000;
  timing.measure_start_ns = timing.start_ns + config.warmup_ns;
  if (config.duration_ns) timing.end_ns = timing.measure_start_ns + config.duration_ns;
  uint64_t schedule_end = 0;
  for (const WorkerGroup& g : config.groups) schedule_end = std::max(schedule_end, g.schedule.EndNs());
  if (schedule_end != UINT64_MAX && !config.duration_ns) timing.end_ns = timing.start_ns + schedule_end;
  go.store(1, std::memory_order_release);
  go.notify_all();

  auto all_done = [&] {
    for (auto& p : progress_state)
      if (!p->done.load(std::memory_order_acquire)) return false;
    return true;
  };

  // Warm-up: progress only; nothing is recorded.
  while (!all_done() && !stop->load() && !halt.load() && clock.NowNs() < timing.measure_start_ns) {
    measure::SleepUntil(clock, std::min(timing.measure_start_ns, clock.NowNs() + config.interval_ns));
    if (progress && clock.NowNs() < timing.measure_start_ns) {
      IntervalStats tick;
      tick.warmup = true;
      tick.t_s = -static_cast<double>(timing.measure_start_ns - clock.NowNs()) / 1e9;
      for (auto& p : progress_state) tick.ops += p->warmup_ops.load(std::memory_order_relaxed);
      progress(tick);
    }
  }
  backend.MeasureStarted();
  accounting.MeasureStarted();

  // Kinds of closed-loop groups record service time only (response = service).
  std::vector<uint32_t> closed_kinds;
  for (size_t gi = 0; gi < config.groups.size(); ++gi)
    if (!config.groups[gi].schedule.open_loop())
      for (size_t k = 0; k < base.kinds.size(); ++k)
        closed_kinds.push_back(result.group_first_kind[gi] + static_cast<uint32_t>(k));
  result.total = std::make_unique<measure::Sample>(result.layout);
  measure::Sample interval(result.layout);
  uint64_t interval_start = timing.measure_start_ns;
  uint64_t last_collect = interval_start;
  auto collect_interval = [&](uint64_t now) {
    interval.Reset();
    measure::Collect(recorder_ptrs, &interval);
    for (uint32_t k : closed_kinds) interval.CopyServiceToResponse(k);
    IntervalStats st;
    uint64_t from = std::max(interval_start, timing.measure_start_ns);
    st.length_s = now > from ? static_cast<double>(now - from) / 1e9 : 0;
    st.t_s = static_cast<double>(now - timing.measure_start_ns) / 1e9;
    st.ops = interval.ops();
    st.errors = interval.errors();
    st.bytes = interval.bytes();
    st.ops_per_sec = st.length_s > 0 ? static_cast<double>(st.ops) / st.length_s : 0;
    const measure::Histogram response = interval.AllResponse(), service = interval.AllService();
    st.response = PercentilesOf(response);
    st.service = PercentilesOf(service);
    st.response_histogram = response.Encode();
    st.service_histogram = service.Encode();
    st.group_ops.assign(config.groups.size(), 0);
    for (size_t k = 0; k < result.layout.kinds.size(); ++k) {
      size_t gi = static_cast<size_t>(std::upper_bound(result.group_first_kind.begin(), result.group_first_kind.end(),
                                                       static_cast<uint32_t>(k)) -
                                      result.group_first_kind.begin()) - 1;
      for (uint64_t o : interval.kinds()[k].outcomes) st.group_ops[gi] += o;
    }
    for (int i = 0; i < n; ++i) {
      if (!arrivals[i]) continue;
      uint64_t next = progress_state[i]->next_intended_ns.load(std::memory_order_relaxed);
      if (next == UINT64_MAX || next >= now) continue;
      uint64_t until = std::min(now, timing.end_ns);
      if (next >= until) continue;
      st.lag_ns = std::max(st.lag_ns, now - next);
      st.backlog += std::max(0.0, arrivals[i]->ExpectedBefore(until - timing.start_ns) -
                                      arrivals[i]->ExpectedBefore(next - timing.start_ns));
    }
    backend.IntervalFigures(&st.backend);
    result.total->Merge(interval);
    interval_start = now;
    last_collect = now;
    return st;
  };

  for (uint64_t k = 1;; ++k) {
    uint64_t target = timing.measure_start_ns + k * config.interval_ns;
    while (!all_done() && !stop->load() && !halt.load() && clock.NowNs() < target) {
      measure::SleepUntil(clock, std::min(target, clock.NowNs() + 20'000'000));
    }
    bool finished = all_done() || stop->load() || halt.load();
    if (finished) break;
    IntervalStats st = collect_interval(clock.NowNs());
    result.intervals.push_back(st);
    if (progress) progress(st);
  }
  for (auto& t : threads) t.join();
  uint64_t end = std::min(clock.NowNs(), timing.end_ns);
  IntervalStats last = collect_interval(std::max(end, last_collect));
  if (last.ops > 0 || last.length_s > 0.05 * static_cast<double>(config.interval_ns) / 1e9) {
    result.intervals.push_back(last);
    if (progress) progress(last);
  }
  Status after = backend.AfterRun();
  accounting.End(data_paths);

  result.interrupted = stop->load();
  result.stopped_on_errors = halt.load();
  result.elapsed_s = end > timing.measure_start_ns ? static_cast<double>(end - timing.measure_start_ns) / 1e9 : 0;
  for (int i = 0; i < n; ++i) {
    result.warmup_ops += progress_state[i]->warmup_ops.load();
    result.unfinished += progress_state[i]->unfinished.load();
    result.unstarted += progress_state[i]->unstarted.load();
  }
  if (!after.ok()) return after;
  accounting.Figures(config.cache, &result.metrics);
  backend.Figures(&result.metrics);
  STOREBENCH_RETURN_IF_ERROR(result.metrics.Validate());
  return result;
}

}  // namespace storebench::driver
