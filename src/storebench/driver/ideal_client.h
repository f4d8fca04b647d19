// The ideal client: the response times a client with no overhead of its own
// would have measured on the same run.
//
// Each open-loop op is logged by its worker as (intended start, actual start,
// end). The ideal client takes the same intended arrivals and the same
// measured service times (end − start) and feeds them, in order of intended
// start, through the group's workers as c FIFO servers (c = threads × queue
// depth): an op starts when it is due and a server is free, and ends one
// service time later. Its response time (end − intended) is what a perfect
// client would have reported; what the run observed minus that is the share
// of the client and the platform (late wake-ups, lost CPUs, dispatch), and
// what remains is queueing behind the engine's own service times.
//
// A second replay, the steady-platform ideal client, feeds the same arrivals
// through the same servers with each service time replaced by the work the
// op's CPU could do while it ran (platform_timeline.h): the service time the
// op would have had on a platform that ran at its calibrated speed the whole
// time. The first replay is "this engine on this platform at this moment",
// the second "this engine on a steady platform"; their difference is the
// platform's share of the tail.
//
// Both replays before it also leave out of each service time the worker's
// own wait on the run queue inside the op (OpRecord::preempted_ns: another
// thread held its CPU; that is neither the engine's work nor the platform's
// speed, and goes to whoever held the CPU). A third replay, the own-CPU ideal
// client, leaves out only that wait: the steady replay removes the platform's
// slowdown from it, and the difference between the two is the platform
// meter's share (report/causes.h).
//
// A fourth replay, the ideal client with the platform's stops, is the first
// one with each op also held back by the stop its worker measured while it
// waited, awake, for the op's arrival (OpRecord::stopped_ns): the op cannot
// start before its intended start plus that stop. What it waits beyond the
// ideal client is the platform's, outside the service times, where the meter
// cannot see it (a vCPU the host stopped for a millisecond between two ops).
//
// The replay is exact and streamed: an op is replayed once no op due before it
// can still be logged (each worker publishes the lowest intended start it may
// still log; a shared arrival source adds its next unclaimed arrival). Memory
// is the per-worker logs (fixed rings, sized from the schedule's peak rate)
// plus the ops logged but not yet replayable, which is bounded by the arrival
// rate times the longest op in flight. A ring that is full when its worker
// logs drops the record and counts it: the replay is then marked inexact.
//
// Thread-safety: OpLog::Push() and the pending watermark from the owning
// worker only; OpLog::Drain() and IdealClient from the reporter only.
#pragma once

#include <atomic>
#include <cstdint>
#include <queue>
#include <string>
#include <vector>

#include "storebench/measure/histogram.h"
#include "storebench/measure/zeroed_allocator.h"

namespace storebench::driver {

struct OpRecord {
  uint64_t intended_ns, start_ns, end_ns;  // Clock ns
  int32_t cpu = -1;                        // the CPU the op ended on (-1: unknown)
  // Of end − start, the worker's own wait on the run queue (another thread
  // held its CPU), measured for ops of kPreemptedFromNs or longer (a lower
  // bound within kPreemptAnchorNs; worker_loop.cc), else 0.
  uint32_t preempted_ns = 0;
  // Of start − intended, the time the worker, awake and waiting for this op,
  // did not run although no other thread held its CPU: the platform stopped
  // it (a lower bound; worker_loop.cc), else 0. Measured where
  // preempted_ns is.
  uint32_t stopped_ns = 0;
};
// The shortest op whose preemption is measured, and how often a worker
// re-reads its run-queue wait before an op starts (the anchor the wait inside
// a long op is measured from): one read per millisecond, ~0.2% of a CPU here.
inline constexpr uint64_t kPreemptedFromNs = 500'000;
inline constexpr uint64_t kPreemptAnchorNs = 1'000'000;
// The shortest gap in a worker's awake wait that is looked at as a stop: one
// turn of the wait takes ~50 ns spinning and ~1 µs yielding.
inline constexpr uint64_t kStopFromNs = 5'000;

// A single-producer single-consumer ring of op records.
class alignas(64) OpLog {
 public:
  explicit OpLog(size_t capacity);  // rounded up to a power of two
  OpLog(const OpLog&) = delete;
  OpLog& operator=(const OpLog&) = delete;

  // Appends a record; drops it (and counts it) when the ring is full. Never blocks.
  void Push(const OpRecord& r) {
    if (head_local_ - tail_cached_ == mask_ + 1) [[unlikely]] {
      tail_cached_ = tail_.load(std::memory_order_acquire);
      if (head_local_ - tail_cached_ == mask_ + 1) {
        dropped_.store(dropped_.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
        return;
      }
    }
    ring_[head_local_ & mask_] = r;
    head_.store(++head_local_, std::memory_order_release);
  }
  // The lowest intended start (Clock ns) this worker may still log; UINT64_MAX
  // = none unless it claims a new arrival. Stored with release after the Push
  // of every record it covers, and before the claim of an arrival below it.
  void SetPending(uint64_t intended_ns) { pending_.store(intended_ns, std::memory_order_seq_cst); }
  uint64_t Pending() const { return pending_.load(std::memory_order_seq_cst); }

  // Reader: moves every published record into `out` (appended).
  void Drain(std::vector<OpRecord>* out);
  uint64_t dropped() const { return dropped_.load(std::memory_order_relaxed); }

 private:
  // Writer's line.
  uint64_t head_local_ = 0;
  uint64_t tail_cached_ = 0;
  std::atomic<uint64_t> head_{0};
  std::atomic<uint64_t> dropped_{0};
  std::atomic<uint64_t> pending_{0};
  // Reader's line.
  alignas(64) std::atomic<uint64_t> tail_{0};
  size_t mask_;
  std::vector<OpRecord, measure::ZeroedAllocator<OpRecord>> ring_;
};

// Response percentiles by arrival interval: ops whose intended start falls in
// interval k (of `interval_ns` from the measured window's start), for the
// ideal client and for what the run observed of the same ops.
struct IdealInterval {
  std::string ideal, observed, steady, own_cpu, with_stops;  // Histogram::Encode()
  uint64_t preempted_ns = 0;                     // the sum of its ops' OpRecord::preempted_ns
  uint64_t stopped_ns = 0;                       // and of their OpRecord::stopped_ns
};

class PlatformTimeline;

class IdealClient {
 public:
  // `timeline`: the platform's speed (nullptr: the steady replay equals the first).
  IdealClient(const measure::HistogramOptions& h, int servers, uint64_t measure_start_ns, uint64_t interval_ns,
              const PlatformTimeline* timeline = nullptr);

  // Takes logged records (in any order; consumed).
  void Add(std::vector<OpRecord>* batch);
  // Replays every taken op due before `watermark_ns`, in order of intended
  // start; with a timeline, it stops at the first op that ended after the
  // timeline's coverage (unless the watermark is UINT64_MAX: the last call).
  void Advance(uint64_t watermark_ns);
  // The intended start of the first op not yet replayed (UINT64_MAX: none).
  uint64_t next_intended_ns() const { return head_ < pending_.size() ? pending_[head_].intended_ns : UINT64_MAX; }

  // Over the measured window (ops due at or after its start): the ideal
  // client's response times, and the observed response times of the same ops.
  const measure::Histogram& ideal() const { return ideal_; }
  const measure::Histogram& observed() const { return observed_; }
  // The steady-platform ideal client's response times over the same ops.
  const measure::Histogram& steady() const { return steady_; }
  // The own-CPU ideal client's (service times less the worker's run-queue wait in them).
  const measure::Histogram& own_cpu() const { return own_cpu_; }
  // The ideal client's with the platform's stops before each op (OpRecord::stopped_ns).
  const measure::Histogram& with_stops() const { return with_stops_; }
  // The workers' waits for a CPU measured inside those ops (OpRecord::preempted_ns), summed.
  uint64_t preempted_ns() const { return preempted_ns_; }
  // Per arrival interval, complete up to the last Advance()'s watermark.
  const std::vector<IdealInterval>& intervals() const { return done_; }
  uint64_t replayed() const { return replayed_; }
  size_t waiting() const { return pending_.size() - head_; }

 private:
  void CloseIntervalsBefore(uint64_t t_ns);
  void CloseInterval();
  void ResetInterval();

  measure::HistogramOptions options_;
  uint64_t measure_start_ns_, interval_ns_;
  // Free instants of the c servers, earliest first.
  std::priority_queue<uint64_t, std::vector<uint64_t>, std::greater<>> free_at_;
  std::priority_queue<double, std::vector<double>, std::greater<>> steady_free_at_;  // the steady replay's
  std::priority_queue<uint64_t, std::vector<uint64_t>, std::greater<>> own_free_at_;  // the own-CPU replay's
  std::priority_queue<uint64_t, std::vector<uint64_t>, std::greater<>> stops_free_at_;  // the stops replay's
  const PlatformTimeline* timeline_;
  std::vector<OpRecord> pending_;  // sorted by intended start from head_ on
  size_t head_ = 0;
  std::vector<OpRecord> merged_;
  measure::Histogram ideal_, observed_, steady_, own_cpu_, with_stops_;
  // The open arrival interval (index done_.size()) and its histograms.
  measure::Histogram interval_ideal_, interval_observed_, interval_steady_, interval_own_cpu_, interval_with_stops_;
  uint64_t interval_preempted_ns_ = 0, preempted_ns_ = 0;
  uint64_t interval_stopped_ns_ = 0;
  std::vector<IdealInterval> done_;
  uint64_t replayed_ = 0;
};

}  // namespace storebench::driver
