#include "storebench/driver/load_run.h"

namespace storebench::driver::internal {

using measure::Clock;

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

void LoadRun::TakeReplayedIdeal(IntervalStats* st) {
  ideal_taken_.resize(ideal_clients_.size(), 0);
  for (size_t gi = 0; gi < ideal_clients_.size(); ++gi) {
    if (!ideal_clients_[gi]) continue;
    const std::vector<IdealInterval>& done = ideal_clients_[gi]->intervals();
    for (; ideal_taken_[gi] < done.size(); ++ideal_taken_[gi]) st->ideal_replayed.push_back(done[ideal_taken_[gi]].ideal);
  }
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
    if (progress_) {
      TakeReplayedIdeal(&st);
      progress_(st);
    }
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

}  // namespace storebench::driver::internal
