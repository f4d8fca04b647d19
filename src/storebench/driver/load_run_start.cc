#include "storebench/driver/load_run.h"

namespace storebench::driver::internal {

using measure::Clock;

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
  // A CPU is left for the reporter, the hiccup meter and the engine's threads
  // when the workers do not fill --cpus, or when --cpus leaves some out (those
  // run there; only the platform meter, a few µs per tick, shares the workers').
  const bool cpus_left = HostWorkers() < cpus_for_workers_ || !others_.empty();
  timing_.wait = WaitPolicyFor(config_.wait, wakeup.p99_ns, cpus_left, RunsRealtime());
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

}  // namespace storebench::driver::internal
