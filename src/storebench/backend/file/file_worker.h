// The file backend's workers (workloads.h: NewFileWorker makes the one a
// workload needs): what every worker has (FileWorkerBase), and the makers of
// the three kinds. Internal to backend/file/.
#pragma once

#include <memory>
#include <algorithm>
#include <vector>

#include <fmt/format.h>

#include "storebench/backend/file/stamp.h"
#include "storebench/io/prefetch.h"
#include "storebench/io/read_method.h"
#include "storebench/measure/clock.h"
#include "storebench/workload/key_distribution.h"
#include "storebench/workload/random.h"

#include "storebench/backend/file/workloads.h"

namespace storebench::backend::file {

// What every worker has: method objects, a verifier, totals handed over on destruction.
class FileWorkerBase : public Worker {
 public:
  ~FileWorkerBase() override {
    // Derived members (scan readers) are gone by now, so no read is in flight.
    for (const auto& m : methods_) totals_.io += m->counters();
    totals_.io -= io_at_measure_start_;
    shared_.accounting->AddWorker(totals_);
  }

  // Ops are counted when they start, so the count restarts exactly where the driver's does.
  void MeasureStarted() override {
    totals_.ops = 0;
    totals_.harness = {};
    if (window_start_ns_ != 0) SetTiming(false);  // a warm-up sample is dropped, not closed
    window_start_ns_ = 0;
    sample_countdown_ = kSamplePeriod;  // measured op n*64-1 opens a sample, op n*64 closes it
    io_at_measure_start_ = {};
    for (const auto& m : methods_) io_at_measure_start_ += m->counters();
  }

 protected:
  FileWorkerBase(const FileShared& shared, const WorkerContext& context)
      : shared_(shared), context_(context), verifier_(shared.dataset.seed) {
    totals_.group = context.group;
  }

  StatusOr<io::ReadMethod*> AddMethod(unsigned depth) {
    auto m = io::CreateReadMethod(shared_.options.method, WorkerMethodOptions(shared_, depth));
    if (!m.ok()) return m.status();
    methods_.push_back(std::move(*m));
    return methods_.back().get();
  }

  // Harness sampling (accounting.h): every kSamplePeriod-th op opens a
  // window that the next op closes; inside it every read-method call is
  // timed, so the window minus those calls is what the client spent on one
  // op outside the I/O. Called at the same point of every op's cycle: first
  // thing in Submit, or after the record in the worker's own closed loop.
  static constexpr uint32_t kSamplePeriod = 64;
  // A sample with more than this outside the read-method calls was descheduled
  // (or waited for an open-loop arrival) there: no client work takes that long.
  static constexpr uint64_t kMaxOutsideNs = 100'000;
  void SampleTick() {
    if (--sample_countdown_ > 1) [[likely]] return;
    SampleWindow();
  }

  [[gnu::noinline]] void SampleWindow() {
    const uint64_t now = clock_.NowNs();
    if (sample_countdown_ == 0) {  // close the window the previous Submit opened
      if (window_start_ns_ != 0) {
        const uint64_t window = now - window_start_ns_;
        const uint64_t method = std::min(window, MethodTimedNs() - method_ns_at_open_);
        if (window - method > kMaxOutsideNs) {
          totals_.harness.dropped++;
        } else {
          totals_.harness.samples++;
          totals_.harness.window_ns += window;
          totals_.harness.method_ns += method;
        }
        SetTiming(false);
      }
      window_start_ns_ = 0;
      sample_countdown_ = kSamplePeriod;
      return;
    }
    SetTiming(true);
    method_ns_at_open_ = MethodTimedNs();
    window_start_ns_ = now;
  }

  void SetTiming(bool on) {
    for (const auto& m : methods_) m->set_timing(on);
  }

  uint64_t MethodTimedNs() const {
    uint64_t ns = 0;
    for (const auto& m : methods_) ns += m->counters().timed_ns;
    return ns;
  }

  // The outcome of a finished read of dataset file `file_id` into `buf`.
  uint32_t Check(const io::ReadMethod& m, const io::ReadCompletion& c, uint32_t file_id, const char* buf) {
    if (c.error == 0 && c.bytes == c.length && !shared_.options.verify) [[likely]] return kOk;
    return CheckSlow(m, c, file_id, buf);
  }

  [[gnu::noinline]] uint32_t CheckSlow(const io::ReadMethod& m, const io::ReadCompletion& c, uint32_t file_id,
                                       const char* buf) {
    if (c.error != 0) return Fail(m.ErrorStatus(c), kErrorIo);
    if (c.bytes != c.length) {
      return Fail(Status::IOError(fmt::format("{} read of {} at offset {}: {} bytes of {} (short read)", m.name(),
                                              shared_.dataset.paths[file_id], c.offset, c.bytes, c.length)),
                  kErrorIo);
    }
    if (!shared_.options.verify) return kOk;
    return CheckBytes(file_id, c.offset, std::span<const char>(buf, c.bytes));
  }

  uint32_t CheckBytes(uint32_t file_id, uint64_t offset, std::span<const char> data) {
    if (!shared_.options.verify) return kOk;
    Status st = verifier_.Check(file_id, shared_.dataset.paths[file_id], offset, data);
    return st.ok() ? kOk : Fail(st, kErrorVerify);
  }

  uint32_t Fail(const Status& st, uint32_t outcome) {
    if (totals_.first_error.ok()) totals_.first_error = st;
    return outcome;
  }

  // Scans: counts a finished read and notes when the first full pass ended.
  void CountScanOp(uint64_t pass_ops) {
    if (++scanned_ == pass_ops && totals_.first_pass_ns == 0) {
      totals_.first_pass_ns = std::max<uint64_t>(1, measure::Clock::Default().NowNs() - shared_.start_ns);
    }
  }

  // The files worker `context_.index` of `total_threads` scans.
  std::vector<uint32_t> ScanShare() const {
    std::vector<uint32_t> files;
    const uint64_t n = shared_.dataset.files;
    const uint64_t t = static_cast<uint64_t>(std::max(1, shared_.total_threads));
    for (uint64_t f = static_cast<uint64_t>(context_.index) % n; f < n; f += t) {
      files.push_back(static_cast<uint32_t>(f));
      if (t >= n) break;
    }
    return files;
  }

  uint64_t BlocksPerFile() const {
    return (shared_.dataset.file_size + shared_.options.block_size - 1) / shared_.options.block_size;
  }

  const FileShared& shared_;
  const WorkerContext context_;
  std::vector<std::unique_ptr<io::ReadMethod>> methods_;
  BlockVerifier verifier_;
  FileWorkerTotals totals_;
  io::IoCounters io_at_measure_start_;
  const measure::Clock& clock_ = measure::Clock::Default();
  uint32_t sample_countdown_ = kSamplePeriod;
  uint64_t window_start_ns_ = 0;    // the open sampling window's start; 0 = none open
  uint64_t method_ns_at_open_ = 0;  // MethodTimedNs() when it opened
  uint64_t scanned_ = 0;  // scan reads finished since the run began, warm-up included
};

// randread, and seqread with several block reads in flight (block_worker.cc).
StatusOr<std::unique_ptr<Worker>> NewBlockWorker(const FileShared& shared, const WorkerContext& context);
// A scan of `files` together (the columns scan), or of every file in turn
// (seqread at --iodepth 1) when `files` is empty and not `together` (scan_workers.cc).
StatusOr<std::unique_ptr<Worker>> NewScanWorker(const FileShared& shared, const WorkerContext& context,
                                                std::vector<uint32_t> files, bool together);
// columns point reads over `columns` files (scan_workers.cc).
StatusOr<std::unique_ptr<Worker>> NewColumnsWorker(const FileShared& shared, const WorkerContext& context,
                                                   size_t columns);

}  // namespace storebench::backend::file
