// OpPolicy: what happens around each op of a worker's loop, written once for
// every loop that runs ops — the driver's open loop, its closed loops and a
// backend worker's own closed loop (backend::Worker::RunClosed): whether an op
// is warm-up or measured, when the loop ends (a stop or halt request, the end
// of the run, the ops limit), the error limit that halts the run, and the
// record into the worker's recorder.
//
// A closed loop at queue depth 1, a read-method benchmark's usual shape:
//
//   for (uint64_t start; (start = policy.Start()) != 0;) {
//     ... one op ...
//     policy.Done(kind, outcome, bytes, start, policy.Now());
//   }
//
// Driven from outside, every op would cost a virtual call into the worker, a
// completion written and read back and a switch on the submit result; next to
// a 2 µs warm read that is a visible share of what the client reports as the
// engine's rate. A worker whose op is one synchronous call runs this loop
// itself: Start() and Done() are inline, so the stop conditions, the clock
// reads and the record sit in the worker's own loop.
//
// A loop with several ops in flight (the driver's) asks Stopping(), Ended()
// and LimitReached() itself, calls BeginMeasuringAt() before it starts an op
// and records each completion with RecordOpen() or RecordClosed().
//
// Made by the driver from its worker's Args; used by one worker thread.
#pragma once

#include <atomic>
#include <cstdint>
#include <vector>

#include "storebench/measure/clock.h"
#include "storebench/measure/recorder.h"

namespace storebench::measure {

// The run's measured window (Clock ns), the same for every worker and fixed
// before they start.
struct OpWindow {
  uint64_t measure_start_ns = 0;  // ops due (open loop) or started (closed loop) before are warm-up
  uint64_t end_ns = UINT64_MAX;   // no op starts at or after this
};

class OpPolicy {
 public:
  struct Args {
    const Clock* clock = nullptr;
    ThreadRecorder* recorder = nullptr;
    const OpWindow* window = nullptr;         // read when the policy is made; null = no warm-up, no end
    const std::atomic<bool>* stop = nullptr;  // the caller's (SIGINT)
    std::atomic<bool>* halt = nullptr;        // the run's own, raised at max_errors; may be null
    uint64_t ops_limit = 0;                   // closed loops: measured ops of this worker; 0 = none
    uint32_t kind_offset = 0;                 // the worker's first kind in the recorder's layout
    std::atomic<uint64_t>* warmup_ops = nullptr;  // written by this thread only
    // Failed measured ops across all workers (touched only when an op fails),
    // the limit that raises *halt (0 = failures never stop the run) and, per
    // outcome index, whether it is an error (1).
    std::atomic<uint64_t>* failed = nullptr;
    uint64_t max_errors = 0;
    const std::vector<char>* error_outcomes = nullptr;
  };
  // Called once, on the worker's thread, before the first measured op starts.
  using MeasureStartedFn = void (*)(void* context);

  explicit OpPolicy(const Args& a, MeasureStartedFn measure_started = nullptr, void* context = nullptr)
      : clock_(*a.clock), recorder_(*a.recorder), stop_(*a.stop), halt_(a.halt ? *a.halt : *a.stop),
        measure_start_ns_(a.window ? a.window->measure_start_ns : 0),
        end_ns_(a.window ? a.window->end_ns : UINT64_MAX), limit_(a.ops_limit ? a.ops_limit : UINT64_MAX),
        kind_offset_(a.kind_offset), a_(a), measure_started_(measure_started), context_(context) {}
  OpPolicy(const OpPolicy&) = delete;
  OpPolicy& operator=(const OpPolicy&) = delete;

  // The start instant of the next op (Clock ns), or 0 when the loop ends: a
  // stop or halt request, the end of the run, or the ops limit reached. For a
  // closed loop at depth 1; what is staged is handed over when it ends.
  [[gnu::always_inline]] uint64_t Start() {
    if (Stopping()) [[unlikely]]
      return End();
    const uint64_t now = clock_.NowNs();
    if (Ended(now) || LimitReached(0)) [[unlikely]]
      return End();
    BeginMeasuringAt(now);
    return now;
  }

  // Now, for an op's end.
  [[gnu::always_inline]] uint64_t Now() const { return clock_.NowNs(); }

  // Whether a stop or a halt was asked for.
  [[gnu::always_inline]] bool Stopping() const {
    return stop_.load(std::memory_order_relaxed) || halt_.load(std::memory_order_relaxed);
  }
  // Whether no op may start at `now`: the run's end.
  [[gnu::always_inline]] bool Ended(uint64_t now) const { return now >= end_ns_; }
  // Whether the ops limit is reached with `in_flight` more ops still to complete.
  [[gnu::always_inline]] bool LimitReached(uint64_t in_flight) const { return counted_ + in_flight >= limit_; }
  // Called before an op due (open loop) or starting (closed) at `t` starts:
  // the first at or after the window's start calls measure_started.
  [[gnu::always_inline]] void BeginMeasuringAt(uint64_t t) {
    if (!measuring_ && t >= measure_start_ns_) [[unlikely]]
      BeginMeasuring();
  }

  // Records the op that Start() returned `start` for. Kinds and outcomes are
  // the worker's layout's; an op that started before the measured window is
  // warm-up, counted and left out.
  //
  // Successful ops are staged: their service times are kept here, in one
  // array written in sequence, and handed to the recorder together (up to
  // kStageOps at a time, never more than kStageSpanNs after the first of them
  // ended, and at the end of the loop). After a syscall has walked the page
  // cache and copied a block, the recorder's lines (histogram bucket and
  // header, outcome and byte counts, its epoch) are no longer in the L1
  // cache; touched once per op, each miss stood in the loop's way (about 2 %
  // of a 2 µs warm read); touched once per kStageOps ops, they cost a miss
  // per batch. Every op is recorded exactly as before; an op may only fall
  // into the reporter's next interval instead of its own, up to
  // kStageSpanNs plus one op late.
  [[gnu::always_inline]] void Done(uint32_t kind, uint32_t outcome, uint64_t bytes, uint64_t start, uint64_t end) {
    if (WarmUp(start)) [[unlikely]]
      return;
    ++counted_;
    if (outcome != 0 || kind != staged_kind_ || staged_ == kStageOps || end >= flush_by_ns_) [[unlikely]] {
      DoneSlow(kind, outcome, bytes, start, end);
      return;
    }
    stage_[staged_++] = end - start;
    staged_bytes_ += bytes;
  }

  // Hands the staged ops to the recorder (Start() does when the loop ends).
  void Flush() {
    if (staged_ == 0) return;
    recorder_.RecordClosedBatch(kind_offset_ + staged_kind_, 0, stage_, staged_, staged_bytes_);
    staged_ = 0;
    staged_bytes_ = 0;
  }

  // Records a completed op at once, not staged: an open loop's, whose
  // response time runs from its intended start, and one whose intended start
  // was before the measured window is warm-up, wherever it ended (the line
  // backend::Worker::MeasureStarted() draws)...
  [[gnu::always_inline]] void RecordOpen(uint32_t kind, uint32_t outcome, uint64_t bytes, uint64_t intended,
                                         uint64_t start, uint64_t end) {
    if (WarmUp(intended)) [[unlikely]]
      return;
    recorder_.Record(kind_offset_ + kind, outcome, intended, start, end, bytes);
    Counted(outcome);
  }
  // ... or a closed loop's, from its start.
  [[gnu::always_inline]] void RecordClosed(uint32_t kind, uint32_t outcome, uint64_t bytes, uint64_t start,
                                           uint64_t end) {
    if (WarmUp(start)) [[unlikely]]
      return;
    recorder_.RecordClosed(kind_offset_ + kind, outcome, start, end, bytes);
    Counted(outcome);
  }

  // Whether any op started in the measured window, and how many were recorded.
  bool measuring() const { return measuring_; }
  uint64_t counted() const { return counted_; }

  static constexpr uint32_t kStageOps = 64;
  static constexpr uint64_t kStageSpanNs = 1'000'000;

 private:
  // Whether an op due or started at `t` is warm-up, which is then counted.
  [[gnu::always_inline]] bool WarmUp(uint64_t t) {
    if (t >= measure_start_ns_) [[likely]]
      return false;
    // Only this thread writes the counter: a load+store is enough, no RMW.
    std::atomic<uint64_t>& w = *a_.warmup_ops;
    w.store(w.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
    return true;
  }

  [[gnu::always_inline]] void Counted(uint32_t outcome) {
    ++counted_;
    if (outcome != 0) [[unlikely]]
      Failed(outcome);
  }

  [[gnu::noinline]] uint64_t End() {
    Flush();
    return 0;
  }

  [[gnu::noinline]] void BeginMeasuring() {
    measuring_ = true;
    if (measure_started_) measure_started_(context_);
  }

  [[gnu::noinline]] void DoneSlow(uint32_t kind, uint32_t outcome, uint64_t bytes, uint64_t start, uint64_t end) {
    Flush();
    if (outcome != 0) {
      recorder_.RecordClosed(kind_offset_ + kind, outcome, start, end, bytes);
      flush_by_ns_ = 0;  // the next success starts a new stage here
      Failed(outcome);
      return;
    }
    staged_kind_ = kind;
    stage_[0] = end - start;
    staged_ = 1;
    staged_bytes_ = bytes;
    flush_by_ns_ = end + kStageSpanNs;
  }

  // A measured op that ended with `outcome` (not 0): counts it across the
  // workers when that outcome is an error, and halts the run at the limit.
  [[gnu::noinline]] void Failed(uint32_t outcome) {
    if (a_.max_errors == 0 || !a_.error_outcomes || outcome >= a_.error_outcomes->size() ||
        !(*a_.error_outcomes)[outcome])
      return;
    if (a_.failed->fetch_add(1, std::memory_order_relaxed) + 1 >= a_.max_errors && a_.halt)
      a_.halt->store(true, std::memory_order_relaxed);
  }

  // What every op reads, first; the rest of Args only on rare paths.
  const Clock& clock_;
  ThreadRecorder& recorder_;
  const std::atomic<bool>& stop_;
  const std::atomic<bool>& halt_;
  const uint64_t measure_start_ns_;
  const uint64_t end_ns_;
  const uint64_t limit_;
  const uint32_t kind_offset_;
  bool measuring_ = false;
  uint64_t counted_ = 0;
  uint32_t staged_kind_ = 0;
  uint32_t staged_ = 0;
  uint64_t staged_bytes_ = 0;
  uint64_t flush_by_ns_ = 0;  // 0: nothing staged yet, the next success starts a stage
  uint64_t stage_[kStageOps];
  const Args a_;
  const MeasureStartedFn measure_started_;
  void* const context_;
};

}  // namespace storebench::measure
