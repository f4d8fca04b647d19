#include "storebench/driver/runner.h"

#include <sched.h>
#include <time.h>

#include <algorithm>
#include <functional>
#include <optional>
#include <system_error>
#include <fmt/format.h>
#include <thread>

#include "storebench/base/stop_signal.h"
#include "storebench/driver/accounting.h"
#include "storebench/driver/dispatch.h"
#include "storebench/driver/hiccup.h"
#include "storebench/driver/ideal_client.h"
#include "storebench/driver/threads.h"
#include "storebench/driver/wait_policy.h"
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

// Adds interval `b` (which follows `a`) into `a`: counts add, histograms merge,
// maxima are the larger, the end-of-interval sample is b's.
void FoldInto(IntervalStats* a, const IntervalStats& b) {
  const double length = a->length_s + b.length_s;
  if (length > 0)
    a->offered_ops_per_sec = (a->offered_ops_per_sec * a->length_s + b.offered_ops_per_sec * b.length_s) / length;
  a->length_s = length;
  a->t_s = b.t_s;
  a->ops += b.ops, a->errors += b.errors, a->bytes += b.bytes;
  a->ops_per_sec = a->length_s > 0 ? static_cast<double>(a->ops) / a->length_s : 0;
  for (auto [into, from] : {std::pair{&a->response_histogram, &b.response_histogram},
                            std::pair{&a->service_histogram, &b.service_histogram}}) {
    auto x = measure::Histogram::Decode(*into), y = measure::Histogram::Decode(*from);
    if (x.ok() && y.ok() && x->Merge(*y).ok()) *into = x->Encode();
  }
  for (auto [into, from] : {std::pair{&a->kind_response_histograms, &b.kind_response_histograms},
                            std::pair{&a->kind_service_histograms, &b.kind_service_histograms}}) {
    for (size_t k = 0; k < into->size() && k < from->size(); ++k) {
      auto x = measure::Histogram::Decode((*into)[k]), y = measure::Histogram::Decode((*from)[k]);
      if (x.ok() && y.ok() && x->Merge(*y).ok()) (*into)[k] = x->Encode();
    }
  }
  if (auto h = measure::Histogram::Decode(a->response_histogram); h.ok()) a->response = PercentilesOf(*h);
  if (auto h = measure::Histogram::Decode(a->service_histogram); h.ok()) a->service = PercentilesOf(*h);
  if (a->group_ops.size() < b.group_ops.size()) a->group_ops.resize(b.group_ops.size());
  for (size_t g = 0; g < b.group_ops.size(); ++g) a->group_ops[g] += b.group_ops[g];
  a->backlog = b.backlog;
  a->lag_ns = b.lag_ns;
  a->max_backlog = std::max(a->max_backlog, b.max_backlog);
  a->max_lag_ns = std::max(a->max_lag_ns, b.max_lag_ns);
  a->runqueue_wait_ns += b.runqueue_wait_ns;
  a->hiccup_max_ns = std::max(a->hiccup_max_ns, b.hiccup_max_ns);
  a->hiccup_p99_ns = std::max(a->hiccup_p99_ns, b.hiccup_p99_ns);
  a->cpu.Add(b.cpu);
}

// The ideal client's totals and per-interval figures into `r`: groups merged;
// arrival intervals past the last reported one (a folded sliver) go to it.
void AttachIdeal(const std::vector<std::unique_ptr<IdealClient>>& clients, RunResult* r) {
  measure::Histogram ideal(r->layout.histogram), observed(r->layout.histogram);
  const size_t n = r->intervals.size();
  std::vector<measure::Histogram> by_interval_ideal, by_interval_observed;
  for (size_t i = 0; i < n; ++i) {
    by_interval_ideal.emplace_back(r->layout.histogram);
    by_interval_observed.emplace_back(r->layout.histogram);
  }
  bool any = false;
  for (const auto& c : clients) {
    if (!c) continue;
    any = true;
    (void)ideal.Merge(c->ideal());
    (void)observed.Merge(c->observed());
    for (size_t k = 0; k < c->intervals().size() && n > 0; ++k) {
      const size_t at = std::min(k, n - 1);
      auto x = measure::Histogram::Decode(c->intervals()[k].ideal), y = measure::Histogram::Decode(c->intervals()[k].observed);
      if (x.ok()) (void)by_interval_ideal[at].Merge(*x);
      if (y.ok()) (void)by_interval_observed[at].Merge(*y);
    }
  }
  if (!any) return;
  for (size_t i = 0; i < n; ++i) {
    r->intervals[i].has_ideal = true;
    r->intervals[i].ideal = PercentilesOf(by_interval_ideal[i]);
    r->intervals[i].arrival_observed = PercentilesOf(by_interval_observed[i]);
  }
  r->ideal = std::move(ideal);
  r->ideal_observed = std::move(observed);
}

}  // namespace

double RunResult::achieved_ops_per_sec() const {
  return elapsed_s > 0 && total ? static_cast<double>(total->ops()) / elapsed_s : 0;
}

bool RunResult::sustained() const {
  if (!open_loop || !total) return true;
  const double ops = static_cast<double>(total->ops());
  // One op per server may be in flight or just due when the window closes: in
  // a short run that alone is more than 1%, and it is no sign of overload.
  const double slack = std::max(1.0, static_cast<double>(ideal_servers));
  return (ops >= kSustainedAchievedFraction * offered_ops || offered_ops - ops <= slack) &&
         static_cast<double>(unstarted) <= std::max(kSustainedBacklogFraction * ops, slack);
}

Percentiles PercentilesOf(const measure::Histogram& h) {
  return {h.ValueAtPercentile(50),   h.ValueAtPercentile(90),    h.ValueAtPercentile(99),
          h.ValueAtPercentile(99.9), h.ValueAtPercentile(99.99), h.max()};
}

StatusOr<RunResult> RunLoad(backend::Backend& backend, const RunConfig& config, const std::atomic<bool>* stop,
                            const ProgressFn& progress, const std::atomic<bool>* stonewall) {
  STOREBENCH_RETURN_IF_ERROR(Validate(config, backend));
  const Clock& clock = Clock::Default();
  static const std::atomic<bool> kNeverStop{false};
  if (!stop) stop = &kNeverStop;
  // A stop signal may raise this thread to real-time priority to finish the
  // run promptly (base/stop_signal.h); what runs after the run does not keep it.
  const KeepThreadScheduling keep_scheduling;

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
  // Arrival sources: a worker's own (partitioned) or its group's (shared).
  std::vector<std::unique_ptr<ArrivalSource>> sources;
  struct SourceRef {
    ArrivalSource* source;
    internal::WorkerProgress* own = nullptr;  // partitioned: the worker that publishes its next arrival
    uint32_t group = 0;
  };
  std::vector<SourceRef> source_refs;
  std::vector<ArrivalSource*> worker_source(static_cast<size_t>(n), nullptr);
  std::vector<internal::WorkerLoopArgs> args(static_cast<size_t>(n));
  std::vector<backend::WorkerContext> contexts(static_cast<size_t>(n));
  std::vector<uint32_t> worker_group(static_cast<size_t>(n));
  internal::Timing timing;
  timing.drain_timeout_ns = config.drain_timeout_ns;
  // The ideal client's inputs (ideal_client.h): a log per open-loop worker,
  // sized for a quarter second of the rate it may take (a shared source's
  // worker may take the whole group's), within 64 MiB for all of them.
  std::vector<std::unique_ptr<OpLog>> logs(static_cast<size_t>(n));
  std::vector<ArrivalSource*> group_shared(config.groups.size(), nullptr);
  std::vector<std::vector<int>> group_workers(config.groups.size());
  int open_workers = 0;
  for (const WorkerGroup& g : config.groups)
    if (g.schedule.open_loop()) open_workers += g.threads;
  const size_t log_budget = open_workers ? (64u << 20) / sizeof(OpRecord) / static_cast<size_t>(open_workers) : 0;
  int w = 0;
  for (size_t gi = 0; gi < config.groups.size(); ++gi) {
    const WorkerGroup& g = config.groups[gi];
    const bool shared = g.schedule.open_loop() && config.dispatch == Dispatch::kShared;
    if (shared) {
      uint64_t group_seed = workload::Random::SeedFor(config.seed, 0x9e3779b97f4a7c15ULL + gi);
      sources.push_back(std::make_unique<SharedArrivals>(MakeArrivals(g.schedule, 0, 1, group_seed), g.ops));
      source_refs.push_back({sources.back().get(), nullptr, static_cast<uint32_t>(gi)});
    }
    ArrivalSource* group_source = shared ? sources.back().get() : nullptr;
    group_shared[gi] = group_source;
    for (int i = 0; i < g.threads; ++i, ++w) {
      uint64_t seed = workload::Random::SeedFor(config.seed, static_cast<uint64_t>(w));
      recorders.push_back(std::make_unique<measure::ThreadRecorder>(result.layout));
      recorder_ptrs.push_back(recorders.back().get());
      progress_state.push_back(std::make_unique<internal::WorkerProgress>());
      const uint64_t share =
          g.ops ? g.ops / g.threads + (static_cast<uint64_t>(i) < g.ops % g.threads ? 1 : 0) : 0;
      if (g.schedule.open_loop() && !shared) {
        sources.push_back(std::make_unique<OwnArrivals>(MakeArrivals(g.schedule, i, g.threads, seed ^ 0x5bd1e995), share));
        source_refs.push_back({sources.back().get(), progress_state.back().get(), static_cast<uint32_t>(gi)});
        worker_source[w] = sources.back().get();
      } else {
        worker_source[w] = group_source;
      }
      contexts[w] = {w, static_cast<int>(gi), i, g.threads, g.role, g.priority, g.queue_depth, seed};
      worker_group[w] = static_cast<uint32_t>(gi);
      auto& a = args[w];
      a.source = worker_source[w];
      a.shared_source = shared;
      a.progress = progress_state.back().get();
      a.timing = &timing;
      a.queue_depth = g.queue_depth;
      a.policy = {.clock = &clock,
                  .recorder = recorders.back().get(),
                  .window = &timing,
                  .stop = stop,
                  .halt = &halt,
                  .ops_limit = g.schedule.open_loop() ? 0 : share,
                  .kind_offset = result.group_first_kind[gi],
                  .warmup_ops = &a.progress->warmup_ops,
                  .failed = &failed,
                  .max_errors = config.max_errors,
                  .error_outcomes = &error_outcomes};
      group_workers[gi].push_back(w);
      if (g.schedule.open_loop()) {
        const double rate = g.schedule.PeakRate() / (shared ? 1 : g.threads);
        const size_t want = static_cast<size_t>(std::min(rate * 0.25, 1e9));
        logs[w] = std::make_unique<OpLog>(std::clamp<size_t>(want, 1024, std::max<size_t>(1024, std::min<size_t>(log_budget, 1u << 18))));
        a.log = logs[w].get();
      }
    }
  }

  // Where threads run: workers round robin over --cpus; the reporter (this
  // thread, for the run) and the hiccup meter on the other allowed CPUs, if any.
  const std::vector<int> allowed = AllowedCpus();
  std::vector<int> others;
  for (int c : allowed)
    if (std::find(config.cpus.begin(), config.cpus.end(), c) == config.cpus.end()) others.push_back(c);
  if (config.cpus.empty() || others.empty()) others.clear();
  const size_t cpus_for_workers = config.cpus.empty() ? allowed.size() : config.cpus.size();

  // How late a sleep wakes here decides how close to an arrival a worker may
  // sleep (wait_policy.h); awake, it yields when the workers leave no CPU free.
  const WakeupLatency wakeup = MeasureWakeupLatency(clock);
  result.wakeup_latency_ns = wakeup.p50_ns;
  result.wakeup_latency_p99_ns = wakeup.p99_ns;
  timing.wait =
      WaitPolicyFor(config.wait, wakeup.p99_ns, static_cast<size_t>(n) < cpus_for_workers, RunsRealtime());
  result.spin_ns = timing.wait.floor_ns;
  result.wait_yields = timing.wait.yield;

  // Workers make their backend workers on their own threads, then wait for the start.
  std::vector<Status> worker_status(static_cast<size_t>(n));
  std::atomic<int> ready{0};
  enum Go : int { kWaitToGo = 0, kGoRun = 1, kGoAbort = 2 };
  std::atomic<int> go{kWaitToGo};
  std::vector<std::thread> threads;
  threads.reserve(static_cast<size_t>(n));
  auto release = [&](Go how) {
    go.store(how, std::memory_order_release);
    go.notify_all();
  };
  auto join_all = [&] {
    for (auto& t : threads) t.join();
  };
  // Until the workers are released to run, any return aborts those made so far and joins them.
  struct AbortUnlessReleased {
    std::function<void()> abort;
    bool released = false;
    ~AbortUnlessReleased() {
      if (!released) abort();
    }
  } start_guard{[&] {
    release(kGoAbort);
    join_all();
  }};
  const Status stopped_in_startup =
      Status::Interrupted(fmt::format("interrupted while starting {} worker threads; nothing was measured", n));
  for (int i = 0; i < n; ++i) {
    if (stop->load(std::memory_order_relaxed)) return stopped_in_startup;
    try {
      threads.emplace_back([&, i] {
        if (!config.cpus.empty()) (void)PinCurrentThread({config.cpus[static_cast<size_t>(i) % config.cpus.size()]});
        progress_state[i]->tid.store(CurrentTid(), std::memory_order_relaxed);
        auto made = backend.NewWorker(contexts[i]);
        if (!made.ok()) worker_status[i] = made.status();
        if (ready.fetch_add(1, std::memory_order_acq_rel) + 1 == n) ready.notify_all();
        go.wait(kWaitToGo, std::memory_order_acquire);
        if (go.load() == kGoRun && made.ok()) {
          args[i].worker = made->get();
          internal::RunWorkerLoop(args[i]);
        }
        progress_state[i]->finished_ns.store(clock.NowNs(), std::memory_order_relaxed);
        progress_state[i]->done.store(true, std::memory_order_release);
      });
    } catch (const std::system_error& e) {
      // The platform refused another thread (ulimit -u, memory): the ones made stop.
      return Status::IOError(fmt::format("--threads {}: could not start worker thread {}: {}", n, i + 1, e.what()));
    }
  }
  // Polled rather than waited for, so that a stop request during a slow start-up (thousands of threads, a
  // backend whose workers open files) is honoured at once.
  while (ready.load(std::memory_order_acquire) < n) {
    if (stop->load(std::memory_order_relaxed)) return stopped_in_startup;
    measure::SleepUntil(clock, clock.NowNs() + 1'000'000);
  }
  for (const Status& st : worker_status)
    if (!st.ok()) return st;
  const std::vector<std::string> data_paths = backend.DataPaths();
  ProcessAccounting accounting;
  Status before = io::ApplyCacheState(config.cache, data_paths);
  if (before.ok()) before = backend.BeforeRun();
  if (before.ok()) accounting.Begin(data_paths);
  if (!before.ok()) return before;
  cpu_set_t reporter_mask;
  const bool pin_reporter = !others.empty() && sched_getaffinity(0, sizeof reporter_mask, &reporter_mask) == 0;
  if (pin_reporter) (void)PinCurrentThread(others);

  timing.start_ns = std::max(config.start_at_ns, clock.NowNs() + 1'000'000);
  timing.measure_start_ns = timing.start_ns + config.warmup_ns;
  if (config.duration_ns) timing.end_ns = timing.measure_start_ns + config.duration_ns;
  uint64_t schedule_end = 0;
  for (const WorkerGroup& g : config.groups) schedule_end = std::max(schedule_end, g.schedule.EndNs());
  if (schedule_end != UINT64_MAX && !config.duration_ns) timing.end_ns = timing.start_ns + schedule_end;
  std::vector<std::unique_ptr<IdealClient>> ideal_clients(config.groups.size());
  for (size_t gi = 0; gi < config.groups.size(); ++gi) {
    const WorkerGroup& g = config.groups[gi];
    if (!g.schedule.open_loop()) continue;
    ideal_clients[gi] = std::make_unique<IdealClient>(config.histogram, g.threads * g.queue_depth,
                                                      timing.measure_start_ns, config.interval_ns);
    result.ideal_servers += g.threads * g.queue_depth;
  }
  std::vector<OpRecord> ideal_batch;
  // Replays what the workers logged, up to the earliest op one of them may still log.
  auto feed_ideal = [&](bool last) {
    for (size_t gi = 0; gi < config.groups.size(); ++gi) {
      if (!ideal_clients[gi]) continue;
      uint64_t watermark = UINT64_MAX;
      // The shared source first, then the workers' floors, then the logs: a
      // worker announces an arrival before it claims it (ideal_client.h).
      if (group_shared[gi] && !last) {
        const uint64_t next = group_shared[gi]->Peek();
        if (next != UINT64_MAX) watermark = timing.start_ns + next;
      }
      for (int i : group_workers[gi]) watermark = std::min(watermark, logs[i]->Pending());
      for (int i : group_workers[gi]) logs[i]->Drain(&ideal_batch);
      ideal_clients[gi]->Add(&ideal_batch);
      ideal_clients[gi]->Advance(last ? UINT64_MAX : watermark);
    }
  };
  start_guard.released = true;
  release(kGoRun);

  auto all_done = [&] {
    for (auto& p : progress_state)
      if (!p->done.load(std::memory_order_acquire)) return false;
    return true;
  };

  // Warm-up (and the wait for a start common to several processes): progress
  // once per interval, the stop flag every 20 ms; nothing is recorded.
  // next_tick advances whether or not a line is drawn: a tick left in the past
  // would make every sleep return at once, and this thread would spin through
  // the warm-up on a CPU the workers and the engine need.
  // A tick at once, so the first line drawn names the warm-up, then a few a
  // second (a warm-up as long as one interval would otherwise draw none).
  const uint64_t warmup_tick_ns = std::min<uint64_t>(config.interval_ns, 250'000'000);
  auto warmup_tick = [&](uint64_t now) {
    IntervalStats tick;
    tick.warmup = true;
    tick.t_s = -static_cast<double>(timing.measure_start_ns - now) / 1e9;
    for (auto& p : progress_state) tick.ops += p->warmup_ops.load(std::memory_order_relaxed);
    progress(tick);
  };
  if (progress && clock.NowNs() < timing.measure_start_ns) warmup_tick(clock.NowNs());
  uint64_t next_tick = clock.NowNs() + warmup_tick_ns;
  while (!all_done() && !stop->load() && !halt.load() && clock.NowNs() < timing.measure_start_ns) {
    measure::SleepUntil(clock, std::min({timing.measure_start_ns, next_tick, clock.NowNs() + 20'000'000}));
    feed_ideal(false);
    const uint64_t now = clock.NowNs();
    if (now < next_tick) continue;
    while (next_tick <= now) next_tick += warmup_tick_ns;
    if (progress && now < timing.measure_start_ns) warmup_tick(now);
  }
  backend.MeasureStarted();
  accounting.MeasureStarted();
  {
    timespec wall{};
    clock_gettime(CLOCK_REALTIME, &wall);
    result.measure_start_epoch_s = static_cast<double>(wall.tv_sec) + static_cast<double>(wall.tv_nsec) / 1e9 -
                                   static_cast<double>(clock.NowNs() - timing.measure_start_ns) / 1e9;
  }
  // The meter's own CPU: one listed as "other", or one the workers leave free.
  const bool meter_has_cpu = !others.empty() || static_cast<size_t>(n) < allowed.size();
  const uint64_t hiccup_period = config.hiccup_period_ns != RunConfig::kHiccupAuto ? config.hiccup_period_ns
                                 : meter_has_cpu                                  ? 1'000'000
                                                                                  : 10'000'000;
  HiccupMeter hiccups(config.histogram, hiccup_period ? hiccup_period : 1'000'000);
  if (hiccup_period) hiccups.Start(others);
  // Run-queue wait per interval: each worker's schedstat, read by this thread.
  std::vector<uint64_t> runqueue_seen(static_cast<size_t>(n), 0);
  auto runqueue_delta = [&] {
    uint64_t sum = 0;
    for (int i = 0; i < n; ++i) {
      const int tid = progress_state[i]->tid.load(std::memory_order_relaxed);
      if (tid == 0) continue;
      std::optional<uint64_t> v = RunqueueWaitNs(tid);
      if (!v) continue;
      if (runqueue_seen[i] != 0 && *v >= runqueue_seen[i]) sum += *v - runqueue_seen[i];
      runqueue_seen[i] = *v;
    }
    return sum;
  };
  (void)runqueue_delta();
  // Who holds the CPU meanwhile: the workers, this thread and the "sb:" threads, the engine's, the machine's.
  std::vector<CpuAccount::Worker> worker_tids;
  std::vector<internal::WorkerProgress*> accounted;  // by CpuAccount's worker index
  for (auto& p : progress_state)
    if (const pid_t tid = p->tid.load(std::memory_order_relaxed)) {
      worker_tids.push_back({tid, &p->cpu_at_end_ns});
      accounted.push_back(p.get());
    }
  CpuAccount cpu_account(std::move(worker_tids), {CurrentTid()}, config.cpus);
  cpu_account.Begin(clock.NowNs());
  for (auto& p : progress_state) p->max_lag_ns.store(0), p->max_backlog.store(0);

  // Kinds of closed-loop groups record service time only (response = service).
  std::vector<uint32_t> closed_kinds;
  for (size_t gi = 0; gi < config.groups.size(); ++gi)
    if (!config.groups[gi].schedule.open_loop())
      for (size_t k = 0; k < base.kinds.size(); ++k)
        closed_kinds.push_back(result.group_first_kind[gi] + static_cast<uint32_t>(k));
  result.total = std::make_unique<measure::Sample>(result.layout);
  measure::Sample interval(result.layout);
  // Every kind merged, for the interval's percentiles: made once and reset per
  // interval (a reset clears only the recorded span; a new histogram would
  // allocate and zero every bucket each second).
  measure::Histogram response(result.layout.histogram), service(result.layout.histogram);
  uint64_t interval_start = timing.measure_start_ns;
  // At a stop, more busy workers than CPUs each wait a whole scheduler round
  // (seconds with thousands of them) before they see it, and so may a writer
  // this thread waits for in Collect(): raised to real-time priority, each runs
  // at once, sees the stop and ends. Once; not without a stop.
  bool raised_for_stop = false;
  auto raise_on_stop = [&] {
    if (raised_for_stop || !stop->load()) return;
    raised_for_stop = true;
    std::vector<pthread_t> running;
    for (int i = 0; i < n; ++i)
      if (!progress_state[i]->done.load(std::memory_order_acquire)) running.push_back(threads[i].native_handle());
    if (running.size() <= allowed.size()) return;
    StatusOr<int> raised = RaiseToFinish(running);
    result.stop_workers_raised = raised.ok() ? *raised : 0;
    result.stop_raise_refused = !raised.ok();
  };
  auto collect_interval = [&](uint64_t now) {
    interval.Reset();
    measure::Collect(recorder_ptrs, &interval, raise_on_stop);
    for (uint32_t k : closed_kinds) interval.CopyServiceToResponse(k);
    IntervalStats st;
    uint64_t from = std::max(interval_start, timing.measure_start_ns);
    st.length_s = now > from ? static_cast<double>(now - from) / 1e9 : 0;
    st.t_s = static_cast<double>(now - timing.measure_start_ns) / 1e9;
    st.ops = interval.ops();
    st.errors = interval.errors();
    st.bytes = interval.bytes();
    st.ops_per_sec = st.length_s > 0 ? static_cast<double>(st.ops) / st.length_s : 0;
    {
      const uint64_t to = std::min(now, timing.end_ns);
      double offered = 0;
      for (const SourceRef& ref : source_refs)
        if (to > from) offered += ref.source->ExpectedBefore(to - timing.start_ns) - ref.source->ExpectedBefore(from - timing.start_ns);
      st.offered_ops_per_sec = st.length_s > 0 ? offered / st.length_s : 0;
    }
    response.Reset();
    service.Reset();
    for (const measure::KindSample& k : interval.kinds()) {
      (void)response.Merge(k.response);
      (void)service.Merge(k.service);
    }
    st.response = PercentilesOf(response);
    st.service = PercentilesOf(service);
    st.response_histogram = response.Encode();
    st.service_histogram = service.Encode();
    for (const measure::KindSample& ks : interval.kinds()) {
      st.kind_response_histograms.push_back(ks.response.Encode());
      st.kind_service_histograms.push_back(ks.service.Encode());
    }
    st.group_ops.assign(config.groups.size(), 0);
    for (size_t k = 0; k < result.layout.kinds.size(); ++k) {
      size_t gi = static_cast<size_t>(std::upper_bound(result.group_first_kind.begin(), result.group_first_kind.end(),
                                                       static_cast<uint32_t>(k)) -
                                      result.group_first_kind.begin()) - 1;
      for (uint64_t o : interval.kinds()[k].outcomes) st.group_ops[gi] += o;
    }
    // Backlog and lag at this instant: arrivals due and not yet taken (at the
    // end of the run, those are what is counted as unstarted).
    const uint64_t until = std::min(now, timing.end_ns);
    {
      for (const SourceRef& ref : source_refs) {
        const uint64_t next = ref.own ? ref.own->next_intended_ns.load(std::memory_order_relaxed)
                                      : (ref.source->Peek() == UINT64_MAX ? UINT64_MAX : timing.start_ns + ref.source->Peek());
        if (next == UINT64_MAX || next >= until) continue;
        st.lag_ns = std::max(st.lag_ns, now - next);
        st.backlog += std::max(0.0, ref.source->ExpectedBefore(until - timing.start_ns) -
                                        ref.source->ExpectedBefore(next - timing.start_ns));
      }
    }
    // The maxima within the interval, from what the workers saw at each op's
    // start: per shared source the largest any of its workers saw, per own
    // source its worker's (their sum bounds the group's backlog from above).
    std::vector<uint64_t> group_shared_backlog(config.groups.size(), 0);
    uint64_t own_backlog = 0;
    for (int i = 0; i < n; ++i) {
      internal::WorkerProgress& p = *progress_state[i];
      st.max_lag_ns = std::max(st.max_lag_ns, p.max_lag_ns.exchange(0, std::memory_order_relaxed));
      const uint64_t b = p.max_backlog.exchange(0, std::memory_order_relaxed);
      if (args[i].shared_source)
        group_shared_backlog[worker_group[i]] = std::max(group_shared_backlog[worker_group[i]], b);
      else
        own_backlog += b;
    }
    double seen_backlog = static_cast<double>(own_backlog);
    for (uint64_t b : group_shared_backlog) seen_backlog += static_cast<double>(b);
    st.max_backlog = std::max(st.backlog, seen_backlog);
    st.max_lag_ns = std::max({st.max_lag_ns, st.lag_ns, interval.start_lag().count() ? interval.start_lag().max() : 0});
    st.runqueue_wait_ns = runqueue_delta();
    st.cpu = cpu_account.Take(now);
    if (hiccup_period) {
      const measure::Histogram h = hiccups.TakeInterval();
      st.hiccup_p99_ns = h.count() ? h.ValueAtPercentile(99) : 0;
      st.hiccup_max_ns = h.count() ? h.max() : 0;
    }
    backend.IntervalFigures(&st.backend);
    result.total->Merge(interval);
    interval_start = now;
    return st;
  };

  // The measured window. A run bounded by --duration alone lasts the duration,
  // even when its workers have nothing left to do before its end (an open
  // loop's last arrival falls short of it): `constant:10 --duration 1s` is 10
  // ops in 1 s, not 10 ops in 0.9 s. A run that ends on its op count ends when
  // its last op completed (never before that op's intended start), not when
  // this thread next looks.
  bool ops_bounded = false;
  for (const WorkerGroup& g : config.groups) ops_bounded = ops_bounded || g.ops > 0;
  const bool window_is_duration = config.duration_ns > 0 && !ops_bounded;
  auto ended = [&] {
    if (stop->load() || halt.load()) return true;
    return all_done() && (!window_is_duration || clock.NowNs() >= timing.end_ns);
  };
  for (uint64_t k = 1;; ++k) {
    uint64_t target = timing.measure_start_ns + k * config.interval_ns;
    while (!ended() && clock.NowNs() < target) {
      measure::SleepUntil(clock, std::min(target, clock.NowNs() + 20'000'000));
      feed_ideal(false);
      const uint64_t slot_end = clock.NowNs();
      cpu_account.Slot(slot_end, [&](size_t i) {
        internal::WorkerProgress& p = *accounted[i];
        const bool started_behind = p.behind.exchange(false, std::memory_order_relaxed);
        return started_behind || p.next_intended_ns.load(std::memory_order_relaxed) < slot_end;
      });
    }
    if (stonewall && stonewall->load() && !halt.load()) {
      result.stonewalled = true;
      halt.store(true);
    }
    if (ended()) break;
    IntervalStats st = collect_interval(clock.NowNs());
    result.intervals.push_back(st);
    if (progress) progress(st);
  }
  // From the signal when a signal asked for the stop (base/stop_signal.h), else from now.
  const uint64_t signalled = base::StopSignalArrivedNs();
  const uint64_t asked = signalled && stop->load() ? signalled : measure::MonotonicNs();
  raise_on_stop();
  join_all();
  if (stop->load()) {
    const uint64_t ended_ns = measure::MonotonicNs();
    result.stop_wait_ns = ended_ns - std::min(asked, ended_ns);
  }
  feed_ideal(true);
  uint64_t end = std::min(clock.NowNs(), timing.end_ns);
  if (!stop->load() && !halt.load() && !window_is_duration) {
    uint64_t last_finish = 0;
    for (auto& p : progress_state) last_finish = std::max(last_finish, p->finished_ns.load(std::memory_order_relaxed));
    if (last_finish > timing.measure_start_ns) end = std::min(end, last_finish);
  }
  IntervalStats last = collect_interval(std::max(end, interval_start));
  const bool sliver = last.length_s < 0.05 * static_cast<double>(config.interval_ns) / 1e9;
  if (sliver && !result.intervals.empty()) {
    // Ops that completed after the last full interval closed, in a sliver of
    // time: they belong to that interval, not to a 0-second one of their own.
    FoldInto(&result.intervals.back(), last);
  } else if (last.ops > 0 || !sliver) {
    result.intervals.push_back(last);
    if (progress) progress(last);
  }
  if (hiccup_period) {
    hiccups.Stop();
    result.hiccups = hiccups.Total();
  }
  if (result.open_loop) {
    AttachIdeal(ideal_clients, &result);
    for (const auto& log : logs)
      if (log) result.ideal_dropped += log->dropped();
    for (const SourceRef& ref : source_refs)
      if (end > timing.measure_start_ns)
        result.offered_ops += ref.source->ExpectedBefore(end - timing.start_ns) -
                              ref.source->ExpectedBefore(timing.measure_start_ns - timing.start_ns);
  }
  if (pin_reporter) (void)sched_setaffinity(0, sizeof reporter_mask, &reporter_mask);
  Status after = backend.AfterRun();
  accounting.End(data_paths);

  result.interrupted = stop->load();
  result.stopped_on_errors = halt.load() && !result.stonewalled;
  result.elapsed_s = end > timing.measure_start_ns ? static_cast<double>(end - timing.measure_start_ns) / 1e9 : 0;
  uint64_t runqueue = 0, involuntary = 0, worker_cpu = 0, sleeps = 0, late_sleeps = 0, max_window = 0;
  for (int i = 0; i < n; ++i) {
    result.warmup_ops += progress_state[i]->warmup_ops.load();
    result.unfinished += progress_state[i]->unfinished.load();
    result.unstarted += progress_state[i]->unstarted.load();
    runqueue += progress_state[i]->runqueue_wait_ns.load();
    involuntary += progress_state[i]->involuntary_switches.load();
    worker_cpu += progress_state[i]->cpu_ns.load();
    sleeps += progress_state[i]->sleeps.load();
    late_sleeps += progress_state[i]->late_sleeps.load();
    max_window = std::max(max_window, progress_state[i]->max_spin_window_ns.load());
  }
  // Shared sources: the due arrivals no worker took.
  for (const SourceRef& ref : source_refs) {
    if (ref.own || end <= timing.start_ns) continue;
    result.unstarted += ref.source->CountUntaken(timing.measure_start_ns - timing.start_ns, end - timing.start_ns);
  }
  if (!after.ok()) return after;
  accounting.Figures(config.cache, &result.metrics);
  result.metrics.Counter({"workers", "runqueue_wait_ns"}, runqueue, measure::Unit::kNanoseconds);
  result.metrics.Counter({"workers", "involuntary_switches"}, involuntary);
  // The workers' own CPU time (cpu.* is the whole process's: reporter, meter, set-up).
  result.metrics.Counter({"workers", "cpu_ns"}, worker_cpu, measure::Unit::kNanoseconds);
  result.metrics.Gauge({"workers", "threads"}, n, measure::Unit::kCount, measure::MergeRule::kSum);
  result.metrics.Gauge({"workers", "cpus"}, static_cast<double>(cpus_for_workers), measure::Unit::kCount,
                       measure::MergeRule::kSum);
  // The CPUs the process may use: with --cpus, the rest of them are free for the engine and the client.
  result.metrics.Gauge({"workers", "process_cpus"}, static_cast<double>(allowed.size()), measure::Unit::kCount,
                       measure::MergeRule::kSum);
  {
    CpuHeld held;
    for (const IntervalStats& st : result.intervals) held.Add(st.cpu);
    for (const auto& [name, ns] : {std::pair<const char*, uint64_t>{"workers_ns", held.workers_ns},
                                   {"engine_ns", held.engine_ns},
                                   {"client_ns", held.client_ns},
                                   {"others_ns", held.others_ns},
                                   {"steal_ns", held.steal_ns},
                                   {"capacity_ns", held.capacity_ns},
                                   {"backlogged_ns", held.backlogged_ns},
                                   {"backlogged_runqueue_ns", held.backlogged_runqueue_ns}})
      result.metrics.Counter({"platform", "cpu_held", name}, ns, measure::Unit::kNanoseconds);
    for (const auto& [name, ns] : held.engine_threads)
      result.metrics.Counter({"platform", "cpu_held", "engine_threads", name}, ns, measure::Unit::kNanoseconds);
  }
  if (result.open_loop) {
    // The wait policy at work: sleeps before an arrival, those that woke later
    // than the spin window then was, and the widest window a worker reached.
    result.metrics.Counter({"workers", "wait", "sleeps"}, sleeps);
    result.metrics.Counter({"workers", "wait", "late_sleeps"}, late_sleeps);
    result.metrics.Gauge({"workers", "wait", "max_spin_window_ns"}, static_cast<double>(max_window),
                         measure::Unit::kNanoseconds, measure::MergeRule::kMax);
  }
  if (result.hiccups) {
    const measure::Histogram& h = *result.hiccups;
    for (const auto& [name, p] : {std::pair<const char*, double>{"p50_ns", 50}, {"p99_ns", 99}, {"p999_ns", 99.9}})
      result.metrics.Gauge({"platform", "hiccup", name}, h.count() ? static_cast<double>(h.ValueAtPercentile(p)) : 0,
                           measure::Unit::kNanoseconds, measure::MergeRule::kMax);
    result.metrics.Gauge({"platform", "hiccup", "max_ns"}, h.count() ? static_cast<double>(h.max()) : 0,
                         measure::Unit::kNanoseconds, measure::MergeRule::kMax);
    result.metrics.Counter({"platform", "hiccup", "samples"}, h.count());
    result.metrics.Gauge({"platform", "hiccup", "period_ns"}, static_cast<double>(hiccup_period),
                         measure::Unit::kNanoseconds, measure::MergeRule::kSame);
  }
  backend.Figures(&result.metrics);
  STOREBENCH_RETURN_IF_ERROR(result.metrics.Validate());
  return result;
}

}  // namespace storebench::driver
