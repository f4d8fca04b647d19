// ClosedLoop: the driver's closed loop at queue depth 1, handed to a worker
// that can run it itself (Worker::RunClosed).
//
// A read-method benchmark's usual shape is one synchronous op after another.
// Driven from outside, every op costs a virtual call into the worker, a
// Completion written and read back and a switch on the submit result; next to
// a 2 µs warm read that is a visible share of what the client reports as the
// engine's rate. A worker whose op is one synchronous call runs this loop
// instead: Start() and Done() are inline, so the stop conditions, the clock
// reads and the histogram record sit in the worker's own loop.
//
//   for (uint64_t start; (start = loop.Start()) != 0;) {
//     ... one op ...
//     loop.Done(kind, outcome, bytes, start, loop.Now());
//   }
//
// The records, warm-up line and stop conditions are the driver's (one
// definition here, used by its own depth-1 loop too). Made and owned by the
// driver; used by one worker thread.
#pragma once

#include <atomic>
#include <cstdint>
#include <vector>

#include "storebench/measure/clock.h"
#include "storebench/measure/recorder.h"

namespace storebench::backend {

class ClosedLoop {
 public:
  struct Args {
    const measure::Clock* clock = nullptr;
    measure::ThreadRecorder* recorder = nullptr;
    const std::atomic<bool>* stop = nullptr;  // the caller's (SIGINT)
    std::atomic<bool>* halt = nullptr;        // the run's own (--max-errors); may be null
    uint64_t measure_start_ns = 0;            // ops started before are warm-up
    uint64_t end_ns = UINT64_MAX;             // no op starts at or after this
    uint64_t ops_limit = 0;                   // measured ops; 0 = none
    uint32_t kind_offset = 0;
    std::atomic<uint64_t>* warmup_ops = nullptr;  // written by this thread only
    // Failed measured ops across all workers (touched only when an op fails),
    // the limit that raises *halt (0 = none) and which outcomes are errors.
    std::atomic<uint64_t>* failed = nullptr;
    uint64_t max_errors = 0;
    const std::vector<char>* error_outcomes = nullptr;
    // Called once, on this thread, before the first measured op starts.
    void (*measure_started)(void* context) = nullptr;
    void* measure_started_context = nullptr;
  };

  explicit ClosedLoop(const Args& a)
      : clock_(*a.clock), recorder_(*a.recorder), stop_(*a.stop), halt_(a.halt ? *a.halt : *a.stop),
        measure_start_ns_(a.measure_start_ns), end_ns_(a.end_ns), limit_(a.ops_limit ? a.ops_limit : UINT64_MAX),
        kind_offset_(a.kind_offset), a_(a) {}
  ClosedLoop(const ClosedLoop&) = delete;
  ClosedLoop& operator=(const ClosedLoop&) = delete;

  // The start instant of the next op (Clock ns), or 0 when the loop ends: a
  // stop or halt request, the end of the run, or the ops limit reached.
  [[gnu::always_inline]] uint64_t Start() {
    if (stop_.load(std::memory_order_relaxed) || halt_.load(std::memory_order_relaxed)) [[unlikely]]
      return End();
    const uint64_t now = clock_.NowNs();
    if (now >= end_ns_ || counted_ >= limit_) [[unlikely]]
      return End();
    if (!measuring_ && now >= measure_start_ns_) [[unlikely]]
      BeginMeasuring();
    return now;
  }

  // Now, for an op's end.
  [[gnu::always_inline]] uint64_t Now() const { return clock_.NowNs(); }

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
    if (start < measure_start_ns_) [[unlikely]] {
      // Only this thread writes the counter: a load+store is enough, no RMW.
      std::atomic<uint64_t>& w = *a_.warmup_ops;
      w.store(w.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
      return;
    }
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

  // Whether any op started in the measured window, and how many were recorded.
  bool measuring() const { return measuring_; }
  uint64_t counted() const { return counted_; }

  static constexpr uint32_t kStageOps = 64;
  static constexpr uint64_t kStageSpanNs = 1'000'000;

 private:
  [[gnu::noinline]] uint64_t End() {
    Flush();
    return 0;
  }

  [[gnu::noinline]] void BeginMeasuring() {
    measuring_ = true;
    if (a_.measure_started) a_.measure_started(a_.measure_started_context);
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

  [[gnu::noinline]] void Failed(uint32_t outcome) {
    if (a_.max_errors == 0 || !a_.error_outcomes || outcome >= a_.error_outcomes->size() ||
        !(*a_.error_outcomes)[outcome])
      return;
    if (a_.failed->fetch_add(1, std::memory_order_relaxed) + 1 >= a_.max_errors && a_.halt)
      a_.halt->store(true, std::memory_order_relaxed);
  }

  // What every op reads, first; the rest of Args only on rare paths.
  const measure::Clock& clock_;
  measure::ThreadRecorder& recorder_;
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
};

}  // namespace storebench::backend
