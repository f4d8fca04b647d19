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
#include "storebench/driver/interval_collector.h"
#include "storebench/driver/interval_rule.h"
#include "storebench/driver/platform_watch.h"
#include "storebench/driver/threads.h"
#include "storebench/driver/wait_policy.h"
#include "storebench/driver/worker_loop.h"
#include "storebench/measure/clock.h"
#include "storebench/measure/recorder.h"
#include "storebench/measure/wait.h"
#include "storebench/workload/random.h"

namespace storebench::driver {
namespace {

using internal::SourceRef;
using measure::Clock;

Status Validate(const RunConfig& config, const backend::Backend& backend) {
  if (config.groups.empty()) return Status::InvalidArgument("run: no worker groups");
  for (const WorkerGroup& g : config.groups) {
    if (g.threads < 1) return Status::InvalidArgument(fmt::format("--threads: must be at least 1 (group {})", g.name));
    if (g.queue_depth < 1) return Status::InvalidArgument("--iodepth: must be at least 1");
    STOREBENCH_RETURN_IF_ERROR(backend.CheckGroup({g.name, g.role, g.threads, g.queue_depth, g.priority}));
  }
  // job::MakePlan refuses an unbounded job; a share of --ops under MPI can still leave a rank none.
  if (!config.bounded()) return Status::InvalidArgument("run: give --duration or --ops (e.g. --duration 10s)");
  if (config.interval_ns < 1'000'000) return Status::InvalidArgument("--interval: must be at least 1ms");
  return Status::Ok();
}

// The ideal client's totals and per-interval figures into `r`: groups merged;
// arrival intervals past the last reported one (a folded sliver) go to it.
// `waits_measured`: every worker measured its waits for a CPU inside its ops;
// else the own-CPU replay is left out and the causes use the window's rate.
void AttachIdeal(const std::vector<std::unique_ptr<IdealClient>>& clients, bool waits_measured, RunResult* r) {
  // Each replay (and the observed response of the same ops): the client's histogram,
  // its intervals' encoded histograms, and where the merge goes.
  struct Kind {
    const measure::Histogram& (IdealClient::*total)() const;
    std::string IdealInterval::*interval;
    Percentiles IntervalStats::*into;
    std::optional<measure::Histogram> RunResult::*run;
  };
  static constexpr Kind kKinds[] = {
      {&IdealClient::ideal, &IdealInterval::ideal, &IntervalStats::ideal, &RunResult::ideal},
      {&IdealClient::observed, &IdealInterval::observed, &IntervalStats::arrival_observed, &RunResult::ideal_observed},
      {&IdealClient::steady, &IdealInterval::steady, &IntervalStats::steady, &RunResult::steady},
      {&IdealClient::own_cpu, &IdealInterval::own_cpu, &IntervalStats::own_cpu, &RunResult::own_cpu}};
  const size_t n = r->intervals.size();
  bool any = false;
  for (const Kind& kind : kKinds) {
    if (kind.run == &RunResult::own_cpu && !waits_measured) continue;
    measure::Histogram total(r->layout.histogram);
    std::vector<measure::Histogram> by_interval(n, measure::Histogram(r->layout.histogram));
    for (const auto& c : clients) {
      if (!c) continue;
      any = true;
      (void)total.Merge(((*c).*kind.total)());
      for (size_t k = 0; k < c->intervals().size() && n > 0; ++k) {
        auto h = measure::Histogram::Decode(c->intervals()[k].*kind.interval);
        if (h.ok()) (void)by_interval[std::min(k, n - 1)].Merge(*h);
      }
    }
    if (!any) return;
    for (size_t i = 0; i < n; ++i) r->intervals[i].*kind.into = PercentilesOf(by_interval[i]);
    r->*kind.run = std::move(total);
  }
  for (IntervalStats& st : r->intervals) st.has_ideal = true;
  if (!waits_measured || n == 0) return;
  for (const auto& c : clients)
    if (c)
      for (size_t k = 0; k < c->intervals().size(); ++k)
        r->intervals[std::min(k, n - 1)].cpu.preempted_in_ops_ns += c->intervals()[k].preempted_ns;
}

// One run of RunLoad: its state, and its steps in the order RunLoad calls
// them. Per-worker state is made before any thread starts and outlives them
// all. The calling thread is the interval reporter for the whole run.
class LoadRun {
 public:
  LoadRun(backend::Backend& backend, const RunConfig& config, const std::atomic<bool>* stop, const ProgressFn& progress,
          const std::atomic<bool>* stonewall, const std::function<void()>& wake);
  // The start-up's one guard: until the workers are released to run, any
  // return aborts those started so far and joins them.
  ~LoadRun();
  LoadRun(const LoadRun&) = delete;
  LoadRun& operator=(const LoadRun&) = delete;

  void MakeWorkers();
  void PlaceThreads();
  Status StartWorkers();
  Status PrepareBackend();
  void ReleaseWorkers();
  void WarmUp();
  void BeginMeasurement();
  void Measure();
  Status Finish();
  RunResult TakeResult() { return std::move(result_); }

 private:
  enum Go : int { kWaitToGo = 0, kGoRun = 1, kGoAbort = 2 };

  // What the workers' totals add up to, for the metrics.
  struct WorkerTotals {
    uint64_t runqueue = 0, involuntary = 0, cpu = 0, sleeps = 0, late_sleeps = 0, late_yields = 0, max_window = 0;
  };

  void MakeLayout();
  void AddWorker(size_t gi, int i, int w, ArrivalSource* group_source, size_t log_budget);
  uint64_t ArrivalHorizon() const;
  void WorkerMain(int i);
  void Release(Go how);
  void JoinAll();
  bool AllDone() const;
  void FeedIdeal(bool last);
  void WarmupTick(uint64_t now);
  void StartMeters();
  uint64_t RunqueueDelta();
  void RaiseOnStop();
  bool Ended() const;
  IntervalStats CollectInterval(uint64_t now);
  void AddPlatformFigures(uint64_t now, IntervalStats* st);
  void StopWorkers();
  // The workers on this host's CPUs: this process's and its peers' (RunConfig::host_processes).
  size_t HostWorkers() const { return static_cast<size_t>(n_) * static_cast<size_t>(std::max(1, config_.host_processes)); }
  uint64_t MeasuredEnd() const;
  void CollectLastInterval();
  void AddIdealAndOffered();
  WorkerTotals AddWorkerTotals();
  void AddMetrics(const WorkerTotals& totals);

  backend::Backend& backend_;
  const RunConfig& config_;
  const std::atomic<bool>* const stop_;
  const ProgressFn& progress_;
  const std::atomic<bool>* const stonewall_;
  const std::function<void()>& wake_;
  const Clock& clock_ = Clock::Default();
  const int n_;
  // A run bounded by --duration alone lasts the duration, even when its
  // workers have nothing left to do before its end (an open loop's last
  // arrival falls short of it): `constant:10 --duration 1s` is 10 ops in 1 s,
  // not 10 ops in 0.9 s. A run that ends on its op count ends when its last op
  // completed (never before that op's intended start), not when this thread
  // next looks.
  const bool window_is_duration_;

  RunResult result_;
  std::atomic<bool> halt_{false};  // --max-errors reached
  std::atomic<uint64_t> failed_{0};
  const measure::RecorderLayout base_;  // the backend's: one group's kinds
  std::vector<char> error_outcomes_;

  std::vector<std::unique_ptr<measure::ThreadRecorder>> recorders_;
  std::vector<std::unique_ptr<internal::WorkerProgress>> progress_state_;
  // Arrival sources: a worker's own (partitioned) or its group's (shared).
  std::vector<std::unique_ptr<ArrivalSource>> sources_;
  std::vector<SourceRef> source_refs_;
  std::vector<internal::WorkerLoopArgs> args_;
  std::vector<backend::WorkerContext> contexts_;
  std::vector<uint32_t> worker_group_;
  internal::Timing timing_;
  // The ideal client's inputs (ideal_client.h): a log per open-loop worker.
  std::vector<std::unique_ptr<OpLog>> logs_;
  std::vector<ArrivalSource*> group_shared_;
  bool measure_waits_ = false;  // open-loop workers measure their waits for a CPU (worker_loop.h)
  std::vector<std::vector<int>> group_workers_;

  std::vector<int> allowed_;  // the CPUs the process may use
  std::vector<int> others_;   // with --cpus, the allowed ones the workers leave: the reporter's and the meter's
  size_t cpus_for_workers_ = 0;

  // Workers make their backend workers on their own threads, then wait for the start.
  std::vector<Status> worker_status_;
  std::atomic<int> ready_{0};
  std::atomic<int> go_{kWaitToGo};
  std::vector<std::thread> threads_;
  bool released_ = false;

  std::vector<std::string> data_paths_;
  ProcessAccounting accounting_;
  cpu_set_t reporter_mask_;
  bool pin_reporter_ = false;

  std::vector<std::unique_ptr<IdealClient>> ideal_clients_;
  std::vector<OpRecord> ideal_batch_;

  uint64_t hiccup_period_ = 0;
  std::optional<HiccupMeter> hiccups_;
  PlatformWatch platform_;
  std::vector<uint64_t> runqueue_seen_;  // each worker's schedstat run-queue wait at the last reading
  std::vector<internal::WorkerProgress*> accounted_;  // by CpuAccount's worker index
  std::optional<CpuAccount> cpu_account_;
  std::optional<internal::IntervalCollector> collector_;
  bool raised_for_stop_ = false;
  uint64_t end_ = 0;  // the measured window's end (Clock ns)
};

bool OpsBounded(const RunConfig& config) {
  bool ops_bounded = false;
  for (const WorkerGroup& g : config.groups) ops_bounded = ops_bounded || g.ops > 0;
  return ops_bounded;
}

LoadRun::LoadRun(backend::Backend& backend, const RunConfig& config, const std::atomic<bool>* stop,
                 const ProgressFn& progress, const std::atomic<bool>* stonewall, const std::function<void()>& wake)
    : backend_(backend),
      config_(config),
      stop_(stop),
      progress_(progress),
      stonewall_(stonewall),
      wake_(wake),
      n_(config.total_threads()),
      window_is_duration_(config.duration_ns > 0 && !OpsBounded(config)),
      base_(backend.Layout()) {
  MakeLayout();
}

LoadRun::~LoadRun() {
  if (!released_) {
    Release(kGoAbort);
    JoinAll();
  }
}

void LoadRun::MakeLayout() {
  for (size_t o = 0; o < base_.outcomes.size(); ++o) error_outcomes_.push_back(base_.IsError(o) ? 1 : 0);
  result_.layout = base_;
  result_.layout.histogram = config_.histogram;
  result_.layout.kinds.clear();
  for (const WorkerGroup& g : config_.groups) {
    result_.group_names.push_back(g.name);
    result_.group_first_kind.push_back(static_cast<uint32_t>(result_.layout.kinds.size()));
    for (const std::string& k : base_.kinds)
      result_.layout.kinds.push_back(config_.groups.size() == 1 ? k : g.name + "/" + k);
    result_.open_loop = result_.open_loop || g.schedule.open_loop();
  }
}

void LoadRun::MakeWorkers() {
  const size_t n = static_cast<size_t>(n_);
  args_.resize(n);
  contexts_.resize(n);
  worker_group_.resize(n);
  timing_.drain_timeout_ns = config_.drain_timeout_ns;
  // Each open-loop worker's log is sized for a quarter second of the rate it
  // may take (a shared source's worker may take the whole group's), within
  // 64 MiB for all of them.
  logs_.resize(n);
  group_shared_.assign(config_.groups.size(), nullptr);
  group_workers_.resize(config_.groups.size());
  int open_workers = 0;
  for (const WorkerGroup& g : config_.groups)
    if (g.schedule.open_loop()) open_workers += g.threads;
  const size_t log_budget = open_workers ? (64u << 20) / sizeof(OpRecord) / static_cast<size_t>(open_workers) : 0;
  // Every open-loop worker measures its waits for a CPU, or none does
  // (RunqueueReader's descriptors are few): replays stay comparable.
  measure_waits_ = open_workers <= RunqueueReader::kMaxOpen;
  int w = 0;
  for (size_t gi = 0; gi < config_.groups.size(); ++gi) {
    const WorkerGroup& g = config_.groups[gi];
    const bool shared = g.schedule.open_loop() && config_.dispatch == Dispatch::kShared;
    if (shared) {
      uint64_t group_seed = workload::Random::SeedFor(config_.seed, 0x9e3779b97f4a7c15ULL + gi);
      sources_.push_back(
          std::make_unique<SharedArrivals>(MakeArrivals(g.schedule, 0, 1, group_seed, ArrivalHorizon()), g.ops));
      source_refs_.push_back({sources_.back().get(), nullptr, static_cast<uint32_t>(gi)});
    }
    ArrivalSource* group_source = shared ? sources_.back().get() : nullptr;
    group_shared_[gi] = group_source;
    for (int i = 0; i < g.threads; ++i, ++w) AddWorker(gi, i, w, group_source, log_budget);
  }
}

// The run's end in arrival time when a duration bounds it: no stream yields an
// arrival past it, so one whose next arrival lies beyond the run (a tiny
// rate, a rate that stays zero) is exhausted at once instead of being
// waited for or stepped through.
uint64_t LoadRun::ArrivalHorizon() const {
  return config_.duration_ns ? config_.warmup_ns + config_.duration_ns : kArrivalHorizonNs;
}

// Worker `w`, the i-th of group `gi`; `group_source` is the group's shared
// source (null: its own, or a closed loop).
void LoadRun::AddWorker(size_t gi, int i, int w, ArrivalSource* group_source, size_t log_budget) {
  const WorkerGroup& g = config_.groups[gi];
  const bool shared = group_source != nullptr;
  uint64_t seed = workload::Random::SeedFor(config_.seed, static_cast<uint64_t>(w));
  recorders_.push_back(std::make_unique<measure::ThreadRecorder>(result_.layout));
  progress_state_.push_back(std::make_unique<internal::WorkerProgress>());
  const uint64_t share = g.ops ? g.ops / g.threads + (static_cast<uint64_t>(i) < g.ops % g.threads ? 1 : 0) : 0;
  ArrivalSource* worker_source = group_source;
  if (g.schedule.open_loop() && !shared) {
    sources_.push_back(std::make_unique<OwnArrivals>(
        MakeArrivals(g.schedule, i, g.threads, seed ^ 0x5bd1e995, ArrivalHorizon()), share));
    source_refs_.push_back({sources_.back().get(), progress_state_.back().get(), static_cast<uint32_t>(gi)});
    worker_source = sources_.back().get();
  }
  contexts_[w] = {w, static_cast<int>(gi), i, g.threads, g.role, g.priority, g.queue_depth, seed};
  worker_group_[w] = static_cast<uint32_t>(gi);
  auto& a = args_[w];
  a.source = worker_source;
  a.shared_source = shared;
  a.progress = progress_state_.back().get();
  a.timing = &timing_;
  a.queue_depth = g.queue_depth;
  a.policy = {.clock = &clock_,
              .recorder = recorders_.back().get(),
              .window = &timing_,
              .stop = stop_,
              .halt = &halt_,
              .ops_limit = g.schedule.open_loop() ? 0 : share,
              .kind_offset = result_.group_first_kind[gi],
              .warmup_ops = &a.progress->warmup_ops,
              .failed = &failed_,
              .max_errors = config_.max_errors,
              .error_outcomes = &error_outcomes_};
  group_workers_[gi].push_back(w);
  if (g.schedule.open_loop()) {
    const double rate = g.schedule.PeakRate() / (shared ? 1 : g.threads);
    const size_t want = static_cast<size_t>(std::min(rate * 0.25, 1e9));
    logs_[w] = std::make_unique<OpLog>(
        std::clamp<size_t>(want, 1024, std::max<size_t>(1024, std::min<size_t>(log_budget, 1u << 18))));
    a.log = logs_[w].get();
    a.measure_waits = measure_waits_;
  }
}

// Where threads run: workers round robin over --cpus; the reporter (this
// thread, for the run) and the hiccup meter on the other allowed CPUs, if any.
// How late a sleep wakes here decides how close to an arrival a worker may
// sleep (wait_policy.h); awake, it yields when the workers leave no CPU free.
void LoadRun::PlaceThreads() {
  allowed_ = AllowedCpus();
  for (int c : allowed_)
    if (std::find(config_.cpus.begin(), config_.cpus.end(), c) == config_.cpus.end()) others_.push_back(c);
  if (config_.cpus.empty() || others_.empty()) others_.clear();
  cpus_for_workers_ = config_.cpus.empty() ? allowed_.size() : config_.cpus.size();

  const WakeupLatency wakeup = MeasureWakeupLatency(clock_);
  result_.wakeup_latency_ns = wakeup.p50_ns;
  result_.wakeup_latency_p99_ns = wakeup.p99_ns;
  timing_.wait = WaitPolicyFor(config_.wait, wakeup.p99_ns, HostWorkers() < cpus_for_workers_, RunsRealtime());
  result_.spin_ns = timing_.wait.floor_ns;
  result_.wait_yields = timing_.wait.yield;
}

void LoadRun::Release(Go how) {
  go_.store(how, std::memory_order_release);
  go_.notify_all();
}

void LoadRun::JoinAll() {
  for (auto& t : threads_) t.join();
}

bool LoadRun::AllDone() const {
  for (auto& p : progress_state_)
    if (!p->done.load(std::memory_order_acquire)) return false;
  return true;
}

void LoadRun::WorkerMain(int i) {
  if (!config_.cpus.empty()) (void)PinCurrentThread({config_.cpus[static_cast<size_t>(i) % config_.cpus.size()]});
  progress_state_[i]->tid.store(CurrentTid(), std::memory_order_relaxed);
  auto made = backend_.NewWorker(contexts_[i]);
  if (!made.ok()) worker_status_[i] = made.status();
  if (ready_.fetch_add(1, std::memory_order_acq_rel) + 1 == n_) ready_.notify_all();
  go_.wait(kWaitToGo, std::memory_order_acquire);
  if (go_.load() == kGoRun && made.ok()) {
    args_[i].worker = made->get();
    internal::RunWorkerLoop(args_[i]);
  }
  progress_state_[i]->finished_ns.store(clock_.NowNs(), std::memory_order_relaxed);
  progress_state_[i]->done.store(true, std::memory_order_release);
}

Status LoadRun::StartWorkers() {
  worker_status_.resize(static_cast<size_t>(n_));
  threads_.reserve(static_cast<size_t>(n_));
  const Status stopped_in_startup =
      Status::Interrupted(fmt::format("interrupted while starting {} worker threads; nothing was measured", n_));
  for (int i = 0; i < n_; ++i) {
    if (stop_->load(std::memory_order_relaxed)) return stopped_in_startup;
    try {
      threads_.emplace_back([this, i] { WorkerMain(i); });
    } catch (const std::system_error& e) {
      // The platform refused another thread (ulimit -u, memory): the ones made stop.
      return Status::IOError(fmt::format("--threads {}: could not start worker thread {}: {}", n_, i + 1, e.what()));
    }
  }
  // Polled rather than waited for, so that a stop request during a slow start-up (thousands of threads, a
  // backend whose workers open files) is honoured at once.
  while (ready_.load(std::memory_order_acquire) < n_) {
    if (stop_->load(std::memory_order_relaxed)) return stopped_in_startup;
    measure::SleepUntil(clock_, clock_.NowNs() + 1'000'000);
  }
  for (const Status& st : worker_status_)
    if (!st.ok()) return st;
  return Status::Ok();
}

// The data set into its cache state, the backend's BeforeRun(), the process
// snapshots, and this thread onto the CPUs the workers leave.
Status LoadRun::PrepareBackend() {
  data_paths_ = backend_.DataPaths();
  Status before = io::ApplyCacheState(config_.cache, data_paths_);
  if (before.ok()) before = backend_.BeforeRun();
  if (before.ok()) accounting_.Begin(data_paths_);
  if (!before.ok()) return before;
  pin_reporter_ = !others_.empty() && sched_getaffinity(0, sizeof reporter_mask_, &reporter_mask_) == 0;
  if (pin_reporter_) (void)PinCurrentThread(others_);
  return Status::Ok();
}

// Fixes the run's instants and makes the ideal clients, then lets the workers go.
void LoadRun::ReleaseWorkers() {
  timing_.start_ns = std::max(config_.start_at_ns, clock_.NowNs() + 1'000'000);
  timing_.measure_start_ns = timing_.start_ns + config_.warmup_ns;
  if (config_.duration_ns) timing_.end_ns = timing_.measure_start_ns + config_.duration_ns;
  uint64_t schedule_end = 0;
  for (const WorkerGroup& g : config_.groups) schedule_end = std::max(schedule_end, g.schedule.EndNs());
  if (schedule_end != UINT64_MAX && !config_.duration_ns) timing_.end_ns = timing_.start_ns + schedule_end;
  // The platform meter on the CPUs the workers may use, from the start so
  // that the steady-platform ideal client has the speed of every op.
  platform_.Start(config_.cpus.empty() ? allowed_ : config_.cpus, config_.meter_period_ns, result_.wakeup_latency_ns,
                  clock_.NowNs());
  ideal_clients_.resize(config_.groups.size());
  for (size_t gi = 0; gi < config_.groups.size(); ++gi) {
    const WorkerGroup& g = config_.groups[gi];
    if (!g.schedule.open_loop()) continue;
    ideal_clients_[gi] = std::make_unique<IdealClient>(config_.histogram, g.threads * g.queue_depth,
                                                       timing_.measure_start_ns, config_.interval_ns,
                                                       platform_.timeline());
    result_.ideal_servers += g.threads * g.queue_depth;
  }
  released_ = true;
  Release(kGoRun);
}

// Replays what the workers logged, up to the earliest op one of them may still log.
void LoadRun::FeedIdeal(bool last) {
  platform_.Drain();
  uint64_t oldest = UINT64_MAX;  // no later replay looks up the platform's speed before this
  for (size_t gi = 0; gi < config_.groups.size(); ++gi) {
    if (!ideal_clients_[gi]) continue;
    uint64_t watermark = UINT64_MAX;
    // The shared source first, then the workers' floors, then the logs: a
    // worker announces an arrival before it claims it (ideal_client.h).
    if (group_shared_[gi] && !last) {
      const uint64_t next = group_shared_[gi]->Peek();
      if (next != UINT64_MAX) watermark = timing_.start_ns + next;
    }
    for (int i : group_workers_[gi]) watermark = std::min(watermark, logs_[i]->Pending());
    for (int i : group_workers_[gi]) logs_[i]->Drain(&ideal_batch_);
    ideal_clients_[gi]->Add(&ideal_batch_);
    ideal_clients_[gi]->Advance(last ? UINT64_MAX : watermark);
    oldest = std::min({oldest, watermark, ideal_clients_[gi]->next_intended_ns()});
  }
  if (PlatformTimeline* t = platform_.mutable_timeline(); t && oldest != UINT64_MAX) t->PruneBefore(oldest);
}

void LoadRun::WarmupTick(uint64_t now) {
  IntervalStats tick;
  tick.warmup = true;
  tick.t_s = -static_cast<double>(timing_.measure_start_ns - now) / 1e9;
  for (auto& p : progress_state_) tick.ops += p->warmup_ops.load(std::memory_order_relaxed);
  progress_(tick);
}

// Warm-up (and the wait for a start common to several processes): progress
// once per interval, the stop flag every 20 ms; nothing is recorded.
// next_tick advances whether or not a line is drawn: a tick left in the past
// would make every sleep return at once, and this thread would spin through
// the warm-up on a CPU the workers and the engine need.
// A tick at once, so the first line drawn names the warm-up, then a few a
// second (a warm-up as long as one interval would otherwise draw none).
void LoadRun::WarmUp() {
  const uint64_t warmup_tick_ns = std::min<uint64_t>(config_.interval_ns, 250'000'000);
  if (progress_ && clock_.NowNs() < timing_.measure_start_ns) WarmupTick(clock_.NowNs());
  uint64_t next_tick = clock_.NowNs() + warmup_tick_ns;
  while (!AllDone() && !stop_->load() && !halt_.load() && clock_.NowNs() < timing_.measure_start_ns) {
    measure::SleepUntil(clock_, std::min({timing_.measure_start_ns, next_tick, clock_.NowNs() + 20'000'000}));
    FeedIdeal(false);
    const uint64_t now = clock_.NowNs();
    if (now < next_tick) continue;
    while (next_tick <= now) next_tick += warmup_tick_ns;
    if (progress_ && now < timing_.measure_start_ns) WarmupTick(now);
  }
}

void LoadRun::BeginMeasurement() {
  backend_.MeasureStarted();
  accounting_.MeasureStarted();
  {
    timespec wall{};
    clock_gettime(CLOCK_REALTIME, &wall);
    result_.measure_start_epoch_s = static_cast<double>(wall.tv_sec) + static_cast<double>(wall.tv_nsec) / 1e9 -
                                    static_cast<double>(clock_.NowNs() - timing_.measure_start_ns) / 1e9;
  }
  StartMeters();
  // Kinds of closed-loop groups record service time only (response = service).
  internal::CollectorSetup setup;
  for (size_t gi = 0; gi < config_.groups.size(); ++gi)
    if (!config_.groups[gi].schedule.open_loop())
      for (size_t k = 0; k < base_.kinds.size(); ++k)
        setup.closed_kinds.push_back(result_.group_first_kind[gi] + static_cast<uint32_t>(k));
  setup.layout = result_.layout;
  setup.group_first_kind = result_.group_first_kind;
  for (int i = 0; i < n_; ++i)
    setup.workers.push_back({recorders_[i].get(), progress_state_[i].get(), worker_group_[i], args_[i].shared_source});
  setup.sources = source_refs_;
  setup.timing = &timing_;
  result_.total = std::make_unique<measure::Sample>(result_.layout);
  collector_.emplace(std::move(setup), result_.total.get());
}

// The hiccup meter, the workers' run-queue wait and who holds the CPU meanwhile:
// the workers, this thread and the "sb:" threads, the engine's, the machine's.
void LoadRun::StartMeters() {
  // The meter's own CPU: one listed as "other", or one the workers leave free.
  const bool meter_has_cpu = !others_.empty() || HostWorkers() < allowed_.size();
  hiccup_period_ = config_.hiccup_period_ns != RunConfig::kHiccupAuto ? config_.hiccup_period_ns
                   : meter_has_cpu                                    ? 1'000'000
                                                                      : 10'000'000;
  hiccups_.emplace(config_.histogram, hiccup_period_ ? hiccup_period_ : 1'000'000);
  if (hiccup_period_) {
    hiccups_->Start(others_, result_.wakeup_latency_ns, /*keep_stops=*/platform_.on());
    if (platform_.on()) platform_.PlaceStopsWith(&*hiccups_);
  }
  runqueue_seen_.assign(static_cast<size_t>(n_), 0);
  (void)RunqueueDelta();
  std::vector<CpuAccount::Worker> worker_tids;
  for (auto& p : progress_state_)
    if (const pid_t tid = p->tid.load(std::memory_order_relaxed)) {
      worker_tids.push_back({tid, &p->cpu_at_end_ns});
      accounted_.push_back(p.get());
    }
  cpu_account_.emplace(std::move(worker_tids), std::vector<pid_t>{CurrentTid()}, config_.cpus);
  cpu_account_->Begin(clock_.NowNs());
  (void)platform_.TakeWindow();  // the warm-up's figures are not the first interval's
  for (auto& p : progress_state_) p->max_lag_ns.store(0), p->max_backlog.store(0);
}

// Run-queue wait since the last call: each worker's schedstat, read by this thread.
uint64_t LoadRun::RunqueueDelta() {
  uint64_t sum = 0;
  for (int i = 0; i < n_; ++i) {
    const int tid = progress_state_[i]->tid.load(std::memory_order_relaxed);
    if (tid == 0) continue;
    std::optional<uint64_t> v = RunqueueWaitNs(tid);
    if (!v) continue;
    if (runqueue_seen_[i] != 0 && *v >= runqueue_seen_[i]) sum += *v - runqueue_seen_[i];
    runqueue_seen_[i] = *v;
  }
  return sum;
}

// At a stop, more busy workers than CPUs each wait a whole scheduler round
// (seconds with thousands of them) before they see it, and so may a writer
// this thread waits for in Collect(): raised to real-time priority, each runs
// at once, sees the stop and ends. Once; not without a stop.
void LoadRun::RaiseOnStop() {
  if (raised_for_stop_ || !stop_->load()) return;
  raised_for_stop_ = true;
  std::vector<pthread_t> running;
  for (int i = 0; i < n_; ++i)
    if (!progress_state_[i]->done.load(std::memory_order_acquire)) running.push_back(threads_[i].native_handle());
  if (running.size() <= allowed_.size()) return;
  StatusOr<int> raised = RaiseToFinish(running);
  result_.stop_workers_raised = raised.ok() ? *raised : 0;
  result_.stop_raise_refused = !raised.ok();
}

bool LoadRun::Ended() const {
  if (stop_->load() || halt_.load()) return true;
  return AllDone() && (!window_is_duration_ || clock_.NowNs() >= timing_.end_ns);
}

IntervalStats LoadRun::CollectInterval(uint64_t now) {
  return collector_->Collect(
      now, [this] { RaiseOnStop(); }, [this](uint64_t at, IntervalStats* st) { AddPlatformFigures(at, st); });
}

void LoadRun::AddPlatformFigures(uint64_t now, IntervalStats* st) {
  st->runqueue_wait_ns = RunqueueDelta();
  st->cpu = cpu_account_->Take(now);
  st->platform = platform_.TakeWindow();
  if (hiccup_period_) {
    const measure::Histogram h = hiccups_->TakeInterval();
    st->hiccup_p99_ns = h.count() ? h.ValueAtPercentile(99) : 0;
    st->hiccup_max_ns = h.count() ? h.max() : 0;
  }
  backend_.IntervalFigures(&st->backend);
}

// The measured window, an interval at a time, until it ends (Ended(): its
// length, its op count, a stop, --max-errors, or the stonewall).
void LoadRun::Measure() {
  for (uint64_t k = 1;; ++k) {
    uint64_t target = timing_.measure_start_ns + k * config_.interval_ns;
    while (!Ended() && clock_.NowNs() < target) {
      measure::SleepUntil(clock_, std::min(target, clock_.NowNs() + 20'000'000));
      if (wake_) wake_();
      FeedIdeal(false);
      const uint64_t slot_end = clock_.NowNs();
      cpu_account_->Slot(slot_end, [&](size_t i) {
        internal::WorkerProgress& p = *accounted_[i];
        const bool started_behind = p.behind.exchange(false, std::memory_order_relaxed);
        return started_behind || p.next_intended_ns.load(std::memory_order_relaxed) < slot_end;
      });
    }
    if (stonewall_ && stonewall_->load() && !halt_.load()) {
      result_.stonewalled = true;
      halt_.store(true);
    }
    if (Ended()) break;
    IntervalStats st = CollectInterval(clock_.NowNs());
    result_.intervals.push_back(st);
    if (progress_) progress_(st);
  }
}

void LoadRun::StopWorkers() {
  // From the signal when a signal asked for the stop (base/stop_signal.h), else from now.
  const uint64_t signalled = base::StopSignalArrivedNs();
  const uint64_t asked = signalled && stop_->load() ? signalled : measure::MonotonicNs();
  RaiseOnStop();
  JoinAll();
  if (stop_->load()) {
    const uint64_t ended_ns = measure::MonotonicNs();
    result_.stop_wait_ns = ended_ns - std::min(asked, ended_ns);
  }
  // The last ops' platform speed is known once the meter has ticked after them.
  platform_.Stop(stop_->load() ? 0 : clock_.NowNs());
  FeedIdeal(true);
}

uint64_t LoadRun::MeasuredEnd() const {
  uint64_t end = std::min(clock_.NowNs(), timing_.end_ns);
  if (!stop_->load() && !halt_.load() && !window_is_duration_) {
    uint64_t last_finish = 0;
    for (auto& p : progress_state_) last_finish = std::max(last_finish, p->finished_ns.load(std::memory_order_relaxed));
    if (last_finish > timing_.measure_start_ns) end = std::min(end, last_finish);
  }
  return end;
}

void LoadRun::CollectLastInterval() {
  IntervalStats last = CollectInterval(std::max(end_, collector_->start_ns()));
  // A last interval that does not count (interval_rule.h) holds the ops that
  // completed after the last full one closed: they belong to it.
  const double nominal_s = static_cast<double>(config_.interval_ns) / 1e9;
  if (!LastIntervalCounts(last.length_s, nominal_s, result_.intervals.size())) {
    internal::FoldInto(&result_.intervals.back(), last);
  } else if (last.ops > 0 || last.length_s >= kCompleteShare * nominal_s) {  // not an empty sliver of a run
    result_.intervals.push_back(last);
    if (progress_) progress_(last);
  }
}

void LoadRun::AddIdealAndOffered() {
  bool waits_measured = true;
  for (const auto& p : progress_state_) waits_measured = waits_measured && p->waits_measured.load();
  AttachIdeal(ideal_clients_, waits_measured, &result_);
  for (const auto& log : logs_)
    if (log) result_.ideal_dropped += log->dropped();
  for (const SourceRef& ref : source_refs_)
    if (end_ > timing_.measure_start_ns)
      result_.offered_ops += ref.source->ExpectedBefore(end_ - timing_.start_ns) -
                             ref.source->ExpectedBefore(timing_.measure_start_ns - timing_.start_ns);
}

Status LoadRun::Finish() {
  StopWorkers();
  end_ = MeasuredEnd();
  CollectLastInterval();
  if (hiccup_period_) {
    hiccups_->Stop();
    result_.hiccups = hiccups_->Total();
  }
  if (result_.open_loop) AddIdealAndOffered();
  if (pin_reporter_) (void)sched_setaffinity(0, sizeof reporter_mask_, &reporter_mask_);
  Status after = backend_.AfterRun();
  accounting_.End(backend_.DataPaths());  // listed again: an engine makes and removes files as it runs

  result_.interrupted = stop_->load();
  result_.stopped_on_errors = halt_.load() && !result_.stonewalled;
  result_.elapsed_s = end_ > timing_.measure_start_ns ? static_cast<double>(end_ - timing_.measure_start_ns) / 1e9 : 0;
  const WorkerTotals totals = AddWorkerTotals();
  if (!after.ok()) return after;
  AddMetrics(totals);
  backend_.Figures(&result_.metrics);
  return result_.metrics.Validate();
}

LoadRun::WorkerTotals LoadRun::AddWorkerTotals() {
  WorkerTotals t;
  for (int i = 0; i < n_; ++i) {
    result_.warmup_ops += progress_state_[i]->warmup_ops.load();
    result_.unfinished += progress_state_[i]->unfinished.load();
    result_.unstarted += progress_state_[i]->unstarted.load();
    t.runqueue += progress_state_[i]->runqueue_wait_ns.load();
    t.involuntary += progress_state_[i]->involuntary_switches.load();
    t.cpu += progress_state_[i]->cpu_ns.load();
    t.sleeps += progress_state_[i]->sleeps.load();
    t.late_sleeps += progress_state_[i]->late_sleeps.load();
    t.late_yields += progress_state_[i]->late_yields.load();
    t.max_window = std::max(t.max_window, progress_state_[i]->max_spin_window_ns.load());
  }
  // Shared sources: the due arrivals no worker took.
  for (const SourceRef& ref : source_refs_) {
    if (ref.own || end_ <= timing_.start_ns) continue;
    result_.unstarted += ref.source->CountUntaken(timing_.measure_start_ns - timing_.start_ns, end_ - timing_.start_ns);
  }
  return t;
}

void LoadRun::AddMetrics(const WorkerTotals& totals) {
  measure::MetricSet& m = result_.metrics;
  accounting_.Figures(config_.cache, &m);
  m.Counter({"workers", "runqueue_wait_ns"}, totals.runqueue, measure::Unit::kNanoseconds);
  m.Counter({"workers", "involuntary_switches"}, totals.involuntary);
  // The workers' own CPU time (cpu.* is the whole process's: reporter, meter, set-up).
  m.Counter({"workers", "cpu_ns"}, totals.cpu, measure::Unit::kNanoseconds);
  m.Gauge({"workers", "threads"}, n_, measure::Unit::kCount, measure::MergeRule::kSum);
  m.Gauge({"workers", "cpus"}, static_cast<double>(cpus_for_workers_), measure::Unit::kCount, measure::MergeRule::kSum);
  // The CPUs the process may use: with --cpus, the rest of them are free for the engine and the client.
  m.Gauge({"workers", "process_cpus"}, static_cast<double>(allowed_.size()), measure::Unit::kCount,
          measure::MergeRule::kSum);
  CpuHeld held;
  for (const IntervalStats& st : result_.intervals) held.Add(st.cpu);
  for (const auto& [name, ns] : {std::pair<const char*, uint64_t>{"workers_ns", held.workers_ns},
                                 {"engine_ns", held.engine_ns},
                                 {"client_ns", held.client_ns},
                                 {"others_ns", held.others_ns},
                                 {"steal_ns", held.steal_ns},
                                 {"capacity_ns", held.capacity_ns},
                                 {"backlogged_ns", held.backlogged_ns},
                                 {"backlogged_runqueue_ns", held.backlogged_runqueue_ns},
                                 {"preempted_in_ops_ns", held.preempted_in_ops_ns}})
    m.Counter({"platform", "cpu_held", name}, ns, measure::Unit::kNanoseconds);
  for (const auto& [name, ns] : held.engine_threads)
    m.Counter({"platform", "cpu_held", "engine_threads", name}, ns, measure::Unit::kNanoseconds);
  if (result_.open_loop) {
    // The wait policy at work: sleeps before an arrival, those that woke later
    // than the spin window then was, and the widest window a worker reached.
    m.Counter({"workers", "wait", "sleeps"}, totals.sleeps);
    m.Counter({"workers", "wait", "late_sleeps"}, totals.late_sleeps);
    m.Counter({"workers", "wait", "late_yields"}, totals.late_yields);
    m.Gauge({"workers", "wait", "max_spin_window_ns"}, static_cast<double>(totals.max_window),
            measure::Unit::kNanoseconds, measure::MergeRule::kMax);
  }
  platform_.Figures(result_.platform(), result_.elapsed_s, &m);
  if (result_.hiccups) {
    const measure::Histogram& h = *result_.hiccups;
    for (const auto& [name, p] : {std::pair<const char*, double>{"p50_ns", 50}, {"p99_ns", 99}, {"p999_ns", 99.9}})
      m.Gauge({"platform", "hiccup", name}, h.count() ? static_cast<double>(h.ValueAtPercentile(p)) : 0,
              measure::Unit::kNanoseconds, measure::MergeRule::kMax);
    m.Gauge({"platform", "hiccup", "max_ns"}, h.count() ? static_cast<double>(h.max()) : 0,
            measure::Unit::kNanoseconds, measure::MergeRule::kMax);
    m.Counter({"platform", "hiccup", "samples"}, h.count());
    m.Gauge({"platform", "hiccup", "period_ns"}, static_cast<double>(hiccup_period_), measure::Unit::kNanoseconds,
            measure::MergeRule::kSame);
  }
}

}  // namespace

double RunResult::achieved_ops_per_sec() const {
  return elapsed_s > 0 && total ? static_cast<double>(total->ops()) / elapsed_s : 0;
}

PlatformFigures RunResult::platform() const {
  PlatformFigures sum;
  for (const IntervalStats& st : intervals) sum.Add(st.platform);
  return sum;
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

bool RunResult::no_arrivals_due() const {
  return open_loop && total && total->ops() == 0 && unstarted == 0 && unfinished == 0;
}

Percentiles PercentilesOf(const measure::Histogram& h) {
  return {h.ValueAtPercentile(50),   h.ValueAtPercentile(90),    h.ValueAtPercentile(99),
          h.ValueAtPercentile(99.9), h.ValueAtPercentile(99.99), h.max()};
}

StatusOr<RunResult> RunLoad(backend::Backend& backend, const RunConfig& config, const std::atomic<bool>* stop,
                            const ProgressFn& progress, const std::atomic<bool>* stonewall,
                            const std::function<void()>& wake) {
  STOREBENCH_RETURN_IF_ERROR(Validate(config, backend));
  static const std::atomic<bool> kNeverStop{false};
  // A stop signal may raise this thread to real-time priority to finish the
  // run promptly (base/stop_signal.h); what runs after the run does not keep it.
  const KeepThreadScheduling keep_scheduling;
  LoadRun run(backend, config, stop ? stop : &kNeverStop, progress, stonewall, wake);
  run.MakeWorkers();
  run.PlaceThreads();
  STOREBENCH_RETURN_IF_ERROR(run.StartWorkers());
  STOREBENCH_RETURN_IF_ERROR(run.PrepareBackend());
  run.ReleaseWorkers();
  run.WarmUp();
  run.BeginMeasurement();
  run.Measure();
  STOREBENCH_RETURN_IF_ERROR(run.Finish());
  return run.TakeResult();
}

}  // namespace storebench::driver
