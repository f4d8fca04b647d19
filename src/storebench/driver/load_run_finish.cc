#include "storebench/driver/load_run.h"

namespace storebench::driver::internal {

using measure::Clock;

// The ideal client's totals and per-interval figures into `r`: groups merged;
// arrival intervals past the last reported one (a remainder folded into it) go to it.
// `waits_measured`: every worker measured its waits for a CPU inside its ops;
// else the own-CPU and the stops replays are left out and the causes use the window's rate.
void AttachIdeal(const std::vector<std::unique_ptr<IdealClient>>& clients, bool waits_measured, RunResult* r) {
  // Each replay (and the observed response of the same ops): the client's histogram,
  // its intervals' encoded histograms, and where the merge goes.
  struct Kind {
    const measure::Histogram& (IdealClient::*total)() const;
    std::string IdealInterval::*interval;
    Percentiles IntervalStats::*into;
    std::optional<measure::Histogram> RunResult::*run;
    bool needs_waits;  // made of the workers' run-queue reads: absent unless every worker measured them
  };
  static constexpr Kind kKinds[] = {
      {&IdealClient::ideal, &IdealInterval::ideal, &IntervalStats::ideal, &RunResult::ideal, false},
      {&IdealClient::observed, &IdealInterval::observed, &IntervalStats::arrival_observed, &RunResult::ideal_observed,
       false},
      {&IdealClient::steady, &IdealInterval::steady, &IntervalStats::steady, &RunResult::steady, false},
      {&IdealClient::own_cpu, &IdealInterval::own_cpu, &IntervalStats::own_cpu, &RunResult::own_cpu, true},
      {&IdealClient::with_stops, &IdealInterval::with_stops, &IntervalStats::with_stops, &RunResult::with_stops,
       true}};
  const size_t n = r->intervals.size();
  bool any = false;
  for (const Kind& kind : kKinds) {
    if (kind.needs_waits && !waits_measured) continue;
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
      for (size_t k = 0; k < c->intervals().size(); ++k) {
        CpuHeld& cpu = r->intervals[std::min(k, n - 1)].cpu;
        cpu.preempted_in_ops_ns += c->intervals()[k].preempted_ns;
        cpu.stopped_between_ops_ns += c->intervals()[k].stopped_ns;
      }
}

void LoadRun::CollectLastInterval() {
  IntervalStats last = CollectInterval(std::max(end_, collector_->start_ns()));
  // A last interval that does not count (interval_rule.h) holds the ops that
  // completed after the last full one closed: they belong to it.
  const double nominal_s = static_cast<double>(config_.interval_ns) / 1e9;
  if (!LastIntervalCounts(last.length_s, nominal_s, result_.intervals.size())) {
    internal::FoldInto(&result_.intervals.back(), last);
    last.folded = true;
  } else if (last.ops > 0 || last.length_s > 0) {  // the only interval is the whole run, unless it has no length
    result_.intervals.push_back(last);
  } else {
    return;
  }
  if (progress_) {
    TakeReplayedIdeal(&last);
    progress_(last);
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
                                 {"preempted_in_ops_ns", held.preempted_in_ops_ns},
                                 {"stopped_between_ops_ns", held.stopped_between_ops_ns}})
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

}  // namespace storebench::driver::internal
