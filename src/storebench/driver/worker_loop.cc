#include "storebench/driver/worker_loop.h"

#include <sched.h>

#include <algorithm>
#include <optional>
#include <vector>

#include "storebench/driver/ideal_client.h"
#include "storebench/driver/threads.h"
#include "storebench/measure/clock.h"
#include "storebench/measure/wait.h"


namespace storebench::driver::internal {
namespace {

using measure::Clock;

// Never sleep longer than this at once, so a stop request is seen promptly.
constexpr uint64_t kMaxSleepNs = 50'000'000;

class Loop {
 public:
  explicit Loop(const WorkerLoopArgs& a)
      : a_(a), clock_(*a.policy.clock),
        policy_(a.policy, [](void* self) { static_cast<Loop*>(self)->StartMeasuring(); }, this),
        open_(a.source != nullptr), slots_(static_cast<size_t>(a.queue_depth)),
        completions_(static_cast<size_t>(a.queue_depth)), waiter_(a.timing->wait) {
    for (int i = a.queue_depth - 1; i >= 0; --i) free_.push_back(static_cast<uint32_t>(i));
    if (a_.log) {
      if (a_.measure_waits) runqueue_.emplace();  // on the worker's own thread: its schedstat
      if (runqueue_ && !runqueue_->ok()) runqueue_.reset();
      a_.progress->waits_measured.store(runqueue_.has_value(), std::memory_order_relaxed);
      if (runqueue_) waiter_ = Waiter(a.timing->wait, /*confirm_late_yields=*/true);
    }
  }

  void Run() {
    const Timing& tm = *a_.timing;
    // Every worker starts at the common start instant, so no op runs before the
    // measured window (or the warm-up) begins.
    while (clock_.NowNs() < tm.start_ns && !policy_.Stopping()) Wait(tm.start_ns);
    if (!a_.source && a_.queue_depth == 1) {
      RunClosedDepth1();
    } else {
      RunGeneral();
    }
    const uint64_t deadline = clock_.NowNs() + tm.drain_timeout_ns;
    while (inflight_ && clock_.NowNs() < deadline) Reap(1);
    a_.progress->unfinished.store(inflight_, std::memory_order_relaxed);
    if (a_.log) a_.log->SetPending(UINT64_MAX);
    const ThreadSched end = OwnThreadSched();
    a_.progress->cpu_at_end_ns.store(end.cpu_ns, std::memory_order_relaxed);
    if (policy_.measuring()) {
      a_.progress->runqueue_wait_ns.store(end.runqueue_wait_ns - sched_at_start_.runqueue_wait_ns,
                                          std::memory_order_relaxed);
      a_.progress->involuntary_switches.store(end.involuntary_switches - sched_at_start_.involuntary_switches,
                                              std::memory_order_relaxed);
      a_.progress->cpu_ns.store(end.cpu_ns - sched_at_start_.cpu_ns, std::memory_order_relaxed);
    }
    a_.progress->sleeps.store(waiter_.sleeps(), std::memory_order_relaxed);
    a_.progress->late_sleeps.store(waiter_.late_sleeps(), std::memory_order_relaxed);
    a_.progress->late_yields.store(waiter_.late_yields(), std::memory_order_relaxed);
    a_.progress->max_spin_window_ns.store(waiter_.max_window_ns(), std::memory_order_relaxed);
  }

 private:
  // Arrivals (open loop) or back to back (closed loop), up to queue_depth in flight.
  void RunGeneral() {
    const Timing& tm = *a_.timing;
    ArrivalSource* src = a_.source;
    uint64_t next_rel = src ? src->Peek() : 0;
    bool& held = held_;  // an arrival claimed but not started (the backend was busy)
    uint64_t& held_rel = held_rel_;
    if (src) Publish(next_rel);
    UpdatePending();
    while (!policy_.Stopping()) {
      uint64_t now = clock_.NowNs();
      if (now - anchor_ns_ >= kPreemptAnchorNs && runqueue_) [[unlikely]] {
        Anchor();  // before the op's start is taken (ops in flight at depth > 1 wait through it)
        now = clock_.NowNs();
      }
      if (policy_.Ended(now)) break;
      if (!src && policy_.LimitReached(inflight_)) {
        if (inflight_ == 0) break;
        Reap(1);
        continue;
      }
      uint64_t intended = now;
      if (src) {
        if (!held) {
          next_rel = src->Peek();
          if (next_rel == UINT64_MAX) {
            if (inflight_ == 0) break;
            Reap(1);
            continue;
          }
        }
        const uint64_t rel = held ? held_rel : next_rel;
        intended = tm.start_ns + rel;
        if (policy_.Ended(intended)) break;
        if (intended > now) {
          if (inflight_ && Reap(0)) continue;
          Wait(inflight_ ? std::min(intended, now + waiter_.window_ns()) : intended);
          AfterWait(intended);
          continue;
        }
        if (free_.empty()) {
          Reap(1);
          continue;
        }
        if (!held) {
          uint64_t index = 0;
          // Announced before the claim, so the ideal client never replays past it (ideal_client.h).
          if (a_.log) a_.log->SetPending(std::min(PendingFloor(), intended));
          if (!src->Claim(rel, intended >= tm.measure_start_ns, &index)) continue;  // another worker took it
          NoteLag(now, intended, rel, index);
          held = true;
          held_rel = rel;
        }
      } else if (free_.empty()) {
        Reap(1);
        continue;
      }
      if (!StartOp(intended, now)) continue;  // not started: the same arrival is tried again
      held = false;
      if (src) Publish(src->Peek());
      UpdatePending();
      // No reap here: the next op starts at once while a slot is free (a
      // backend may batch what was started back to back, as io_uring does);
      // completions are taken when the slots run out or before any wait.
    }
    if (src && !a_.shared_source) CountUnstarted(*src);
  }

  // Starts one op in a free slot at `now` for `intended`; false when the
  // backend was busy and the op did not start.
  [[gnu::always_inline]] bool StartOp(uint64_t intended, uint64_t now) {
    policy_.BeginMeasuringAt(intended);
    uint32_t tag = free_.back();
    free_.pop_back();
    slots_[tag] = {intended, now, true, stopped_ns_};
    backend::Completion c;
    switch (a_.worker->Submit(tag, &c)) {
      case backend::SubmitResult::kCompleted:
        slots_[tag].busy = false;
        free_.push_back(tag);
        Record(c, slots_[tag], clock_.NowNs());
        break;
      case backend::SubmitResult::kQueued:
        ++inflight_;
        break;
      case backend::SubmitResult::kBusy:
        slots_[tag].busy = false;
        free_.push_back(tag);
        Reap(1);
        return false;  // the stop before it stays with the arrival, tried again
    }
    stopped_ns_ = 0;  // started: the slot carries it
    return true;
  }

  // Arrivals of this worker's own source that fell due before the run stopped
  // but never started: the overload that a closed loop would hide. A shared
  // source is counted by the runner.
  void CountUnstarted(ArrivalSource& src) {
    const Timing& tm = *a_.timing;
    const uint64_t stop_at = std::min(clock_.NowNs(), tm.end_ns);
    uint64_t unstarted = held_ && tm.start_ns + held_rel_ >= tm.measure_start_ns ? 1 : 0;
    if (stop_at > tm.start_ns)
      unstarted += src.CountUntaken(tm.measure_start_ns > tm.start_ns ? tm.measure_start_ns - tm.start_ns : 0,
                                    stop_at - tm.start_ns);
    a_.progress->unstarted.store(unstarted, std::memory_order_relaxed);
  }

  // The closed loop at depth 1, a read-method benchmark's usual shape: run by
  // the worker itself when it can (Worker::RunClosed), else here, op by op
  // through Submit. The same policy either way.
  void RunClosedDepth1() {
    backend::Worker& worker = *a_.worker;
    if (worker.RunClosed(policy_)) {
      policy_.Flush();
      return;
    }
    for (uint64_t start; (start = policy_.Start()) != 0;) {
      backend::Completion c;
      const backend::SubmitResult r = worker.Submit(0, &c);
      if (r == backend::SubmitResult::kCompleted) [[likely]] {
        policy_.Done(c.kind, c.outcome, c.bytes, start, clock_.NowNs());
        continue;
      }
      // Queued: at depth 1 nothing else can start, so it is waited for here
      // (until a stop: then the drain in Run() takes it). Busy: nothing
      // started; whatever the backend still had is reaped, and it is tried again.
      if (r == backend::SubmitResult::kQueued) {
        slots_[0] = {start, start, true, 0};
        free_.pop_back();  // Reap gives tag 0 back
        ++inflight_;
      }
      do {
        if (worker.Reap(1, std::span<backend::Completion>(&c, 1)) == 1) {
          if (inflight_) {
            --inflight_;
            free_.push_back(0);
          }
          policy_.Done(c.kind, c.outcome, c.bytes, start, clock_.NowNs());
          break;
        }
      } while (inflight_ && !policy_.Stopping() && !policy_.Ended(clock_.NowNs()));
    }
    policy_.Flush();
  }

  struct Slot {
    uint64_t intended_ns;
    uint64_t start_ns;
    bool busy;  // started and not yet completed
    uint32_t stopped_ns;  // OpRecord::stopped_ns
  };

  // The lowest intended start this worker may still log: an arrival it holds,
  // an op in flight, its own source's next arrival (a shared source's is read
  // by the reporter itself).
  uint64_t PendingFloor() const {
    uint64_t m = UINT64_MAX;
    if (held_) m = a_.timing->start_ns + held_rel_;
    if (inflight_)
      for (const Slot& s : slots_)
        if (s.busy) m = std::min(m, s.intended_ns);
    if (a_.source && !a_.shared_source) {
      const uint64_t next = a_.source->Peek();
      if (next != UINT64_MAX) m = std::min(m, a_.timing->start_ns + next);
    }
    return m;
  }
  void UpdatePending() {
    if (a_.log) a_.log->SetPending(PendingFloor());
  }

  // The policy's measure_started: the first measured op is about to start.
  void StartMeasuring() {
    a_.worker->MeasureStarted();
    sched_at_start_ = OwnThreadSched();
  }

  // Waits towards `deadline` as the run's wait policy says.
  void Wait(uint64_t deadline) { waiter_.WaitTowards(clock_, deadline, kMaxSleepNs); }

  // The start lag of the op about to start and the backlog behind it, kept as
  // this interval's maxima for the reporter (which resets them).
  void NoteLag(uint64_t now, uint64_t intended, uint64_t rel, uint64_t index) {
    const uint64_t lag = now - intended;
    WorkerProgress& p = *a_.progress;
    if (lag > p.max_lag_ns.load(std::memory_order_relaxed)) p.max_lag_ns.store(lag, std::memory_order_relaxed);
    if (lag == 0) return;
    // Arrivals of this source due by now, less those taken before this one.
    const double due = a_.source->ExpectedBefore(now - a_.timing->start_ns + 1);
    (void)rel;
    const uint64_t backlog = due > static_cast<double>(index + 1) ? static_cast<uint64_t>(due) - index - 1 : 0;
    if (backlog > p.max_backlog.load(std::memory_order_relaxed)) p.max_backlog.store(backlog, std::memory_order_relaxed);
    if (backlog && !p.behind.load(std::memory_order_relaxed)) p.behind.store(true, std::memory_order_relaxed);
  }

  void Publish(uint64_t next_rel) {
    a_.progress->next_intended_ns.store(next_rel == UINT64_MAX ? UINT64_MAX : a_.timing->start_ns + next_rel,
                                        std::memory_order_relaxed);
  }

  // The run-queue wait so far, read before an op starts (never inside one's
  // measured time): where a long op's wait is measured from.
  // The clock before the read: a wait during the read then counts as before
  // the next op's start, which keeps the op's figure a lower bound.
  void Anchor() {
    anchor_ns_ = clock_.NowNs();
    anchor_wait_ns_ = runqueue_->WaitNs();
  }
  // The worker's wait on the run queue within [start, end] of an op that
  // took kPreemptedFromNs or longer: the wait between the previous read and the
  // one after its end, less all the time outside [start, end] between them
  // (a lower bound), at most end − start.
  uint32_t PreemptedIn(uint64_t start, uint64_t end) {
    if (end - start < kPreemptedFromNs || !runqueue_) [[likely]] return 0;
    return MeasurePreempted(start, end);
  }
  [[gnu::noinline]] uint32_t MeasurePreempted(uint64_t start, uint64_t end) {
    if (end != read_end_ns_) {  // one read for all the ops reaped at `end`; it is the next anchor
      from_wait_ns_ = anchor_wait_ns_, from_ns_ = anchor_ns_;
      anchor_wait_ns_ = runqueue_->WaitNs();
      const uint64_t read_at = clock_.NowNs();
      after_end_ns_ = read_at - end;  // bookkeeping between the op's end and the read
      anchor_ns_ = read_end_ns_ = end;
    }
    const bool read = anchor_wait_ns_ != UINT64_MAX && from_wait_ns_ != UINT64_MAX;  // both reads worked
    const uint64_t waited = read && anchor_wait_ns_ > from_wait_ns_ ? anchor_wait_ns_ - from_wait_ns_ : 0;
    const uint64_t outside = (start > from_ns_ ? start - from_ns_ : 0) + after_end_ns_;
    return static_cast<uint32_t>(std::min({waited > outside ? waited - outside : 0, end - start, uint64_t{UINT32_MAX}}));
  }

  // After a wait, with the run-queue reads: a gap in the wait that delayed
  // the arrival at `intended` is split between the run-queue wait since the
  // last read (another thread held the CPU, all of it taken out: a lower
  // bound) and the rest, a stop of the platform's (OpRecord::stopped_ns). A
  // late yielding stretch turns the next waits into sleeps only when the run
  // queue explains its lateness (wait_policy.h). The read is the next anchor.
  void AfterWait(uint64_t intended) {
    const Waiter::Gap g = waiter_.last_gap();
    const bool late = waiter_.late_yield_pending();
    if (!late && (g.after_ns - g.before_ns < kStopFromNs || g.after_ns <= intended)) [[likely]] return;
    MeasureGap(g, intended, late);
  }
  [[gnu::noinline]] void MeasureGap(const Waiter::Gap& g, uint64_t intended, bool late_yield) {
    const uint64_t from_wait = anchor_wait_ns_;
    Anchor();
    const bool read = from_wait != UINT64_MAX && anchor_wait_ns_ != UINT64_MAX;
    const uint64_t waited = read && anchor_wait_ns_ > from_wait ? anchor_wait_ns_ - from_wait : 0;
    if (late_yield && (!read || waited >= waiter_.window_ns())) waiter_.YieldWasLate();
    const uint64_t late = g.after_ns > intended ? g.after_ns - std::max(g.before_ns, intended) : 0;
    if (read && late >= kStopFromNs && late > waited)
      stopped_ns_ = static_cast<uint32_t>(std::min<uint64_t>(stopped_ns_ + (late - waited), UINT32_MAX));
  }

  [[gnu::always_inline]] void Record(const backend::Completion& c, const Slot& s, uint64_t end) {
    if (a_.log) a_.log->Push({s.intended_ns, s.start_ns, end, sched_getcpu(), PreemptedIn(s.start_ns, end), s.stopped_ns});
    if (open_)
      policy_.RecordOpen(c.kind, c.outcome, c.bytes, s.intended_ns, s.start_ns, end);
    else
      policy_.RecordClosed(c.kind, c.outcome, c.bytes, s.start_ns, end);
  }

  size_t Reap(size_t min) {
    size_t n = a_.worker->Reap(min, completions_);
    if (n == 0) return 0;
    uint64_t end = clock_.NowNs();
    for (size_t i = 0; i < n; ++i) {
      const backend::Completion& c = completions_[i];
      Record(c, slots_[c.tag], end);
      slots_[c.tag].busy = false;
      free_.push_back(static_cast<uint32_t>(c.tag));
    }
    inflight_ -= n;
    UpdatePending();
    return n;
  }

  const WorkerLoopArgs& a_;
  const Clock& clock_;
  measure::OpPolicy policy_;
  const bool open_;
  std::vector<Slot> slots_;
  std::vector<backend::Completion> completions_;
  std::vector<uint32_t> free_;
  uint64_t inflight_ = 0;
  ThreadSched sched_at_start_;
  Waiter waiter_;
  // Open loop: the worker's run-queue wait, for OpRecord::preempted_ns.
  std::optional<RunqueueReader> runqueue_;
  uint64_t anchor_wait_ns_ = 0, anchor_ns_ = 0;    // the last read, and when
  uint64_t from_wait_ns_ = 0, from_ns_ = 0;        // the read before it (the ops that ended at the last)
  uint64_t read_end_ns_ = 0;                       // the op end the last read was taken at
  uint64_t after_end_ns_ = 0;                      // and how long after that end it was taken
  bool held_ = false;
  uint64_t held_rel_ = 0;
  uint32_t stopped_ns_ = 0;  // OpRecord::stopped_ns of the next op to start
};

}  // namespace

void RunWorkerLoop(const WorkerLoopArgs& args) { Loop(args).Run(); }

}  // namespace storebench::driver::internal
