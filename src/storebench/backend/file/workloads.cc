#include "storebench/backend/file/workloads.h"

#include <algorithm>
#include <vector>

#include <fmt/format.h>

#include "storebench/backend/file/stamp.h"
#include "storebench/io/prefetch.h"
#include "storebench/io/read_method.h"
#include "storebench/measure/clock.h"
#include "storebench/workload/key_distribution.h"
#include "storebench/workload/random.h"

namespace storebench::backend::file {
namespace {

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
    Status& first = outcome == kErrorVerify ? totals_.first_verify_error : totals_.first_error;
    if (first.ok()) first = st;
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

// randread, and seqread with several block reads in flight.
class BlockWorker final : public FileWorkerBase {
 public:
  BlockWorker(const FileShared& shared, const WorkerContext& context) : FileWorkerBase(shared, context) {}

  Status Init() {
    const FileOptions& o = shared_.options;
    depth_ = static_cast<unsigned>(std::max(1, context_.queue_depth));
    io::MethodOptions mo = WorkerMethodOptions(shared_, depth_);
    const bool fixed = o.fixed_buffers;
    if (fixed) {
      mo.fixed_buffers = depth_;
      mo.fixed_buffer_size = o.block_size;
    }
    auto m = io::CreateReadMethod(o.method, mo);
    if (!m.ok()) return m.status();
    method_ = m->get();
    methods_.push_back(std::move(*m));
    for (const std::string& p : shared_.dataset.paths) {
      auto f = method_->Open(p);
      if (!f.ok()) return f.status();
    }
    fixed_ = fixed && method_->Has(io::kCapFixedBuffers);
    for (unsigned i = 0; i < depth_; ++i) {
      if (fixed_) {
        bufs_.push_back(method_->fixed_buffer(static_cast<int>(i)).data());
      } else {
        owned_.emplace_back(o.block_size, std::max<size_t>(4096, method_->alignment(0).memory));
        if (owned_.back().empty()) return Status::IOError("allocate read buffers: out of memory");
        bufs_.push_back(owned_.back().data());
      }
    }
    done_.resize(depth_);
    req_.length = o.block_size;
    req_.priority = context_.priority;
    if (o.workload == Workload::kRandRead) {
      slots_per_file_ = (shared_.dataset.file_size - o.block_size) / o.align + 1;
      items_ = slots_per_file_ * shared_.dataset.files;
      single_file_ = shared_.dataset.files == 1;
      auto d = workload::MakeKeyDistribution(o.offset_dist, items_, "--offset-dist");
      if (!d.ok()) return d.status();
      dist_ = std::move(*d);
      uniform_ = dynamic_cast<workload::UniformDistribution*>(dist_.get()) != nullptr;
      rng_ = workload::Random(context_.seed);
      align_ = o.align;
      // One block at a time from a method that can read synchronously: the
      // plain read path (ReadMethod::ReadPlain), no request or completion built.
      plain_ = depth_ == 1 && !fixed_ && !o.verify;
      for (size_t i = 0; i < method_->file_count(); ++i) plain_ = plain_ && method_->PlainReads(static_cast<int>(i));
    } else {
      share_ = ScanShare();
      pass_ops_ = BlocksPerFile() * share_.size();
    }
    return Status::Ok();
  }

  // The plain closed loop at depth 1, the read-method benchmark's own shape.
  // The next block is drawn before the op's clock starts, so an op's service
  // time is the read and its counters only. What changes per op — the
  // generator, the op count, the sampling countdown — is kept in locals and
  // written back at the end: after the read's syscall the worker object's
  // lines are out of the L1 cache, and updating them per op cost ~1.5 % of a
  // 2 µs warm read beside the bare loop on the same CPU (the locals cost
  // nothing measurable there).
  bool RunClosed(measure::OpPolicy& loop) override {
    if (!plain_) return false;
    workload::Random rng = rng_;
    char* const buf = bufs_[0];
    const size_t length = req_.length;
    uint64_t ops = 0;                       // totals_.ops, as Submit counts them
    uint32_t countdown = sample_countdown_;  // SampleTick's, in a register
    bool measuring = loop.measuring();
    int file = 0;
    uint64_t offset = 0;
    NextBlock(rng, &file, &offset);
    for (uint64_t start; (start = loop.Start()) != 0;) {
      if (loop.measuring() != measuring) [[unlikely]] {  // MeasureStarted() restarted the counts
        measuring = true;
        ops = 0;
        countdown = sample_countdown_;
      }
      uint64_t end;
      const Completion c = ReadPlainBlock(0, file, offset, length, buf, ops, [&] { end = loop.Now(); });
      loop.Done(c.kind, c.outcome, c.bytes, start, end);
      if (--countdown <= 1) [[unlikely]] {
        sample_countdown_ = countdown;
        SampleWindow();
        countdown = sample_countdown_;
      }
      NextBlock(rng, &file, &offset);
    }
    rng_ = rng;
    totals_.ops += ops;
    sample_countdown_ = countdown;
    return true;
  }

  SubmitResult Submit(uint64_t tag, Completion* out) override {
    SampleTick();
    io::ReadRequest& r = req_;
    if (plain_) [[likely]] {
      NextBlock(rng_, &r.file, &r.offset);
      *out = ReadPlainBlock(tag, r.file, r.offset, r.length, bufs_[0], totals_.ops, [] {});
      return SubmitResult::kCompleted;
    }
    if (dist_) {
      NextBlock(rng_, &r.file, &r.offset);
    } else {
      r.file = static_cast<int>(share_[scan_file_]);
      r.offset = scan_offset_;
      r.length = static_cast<size_t>(
          std::min<uint64_t>(shared_.options.block_size, shared_.dataset.file_size - scan_offset_));
    }
    // The driver's tags are 0..queue_depth-1; the modulo is only a guard.
    const unsigned slot = tag < depth_ ? static_cast<unsigned>(tag) : static_cast<unsigned>(tag % depth_);
    r.buf = bufs_[slot];
    r.tag = tag;
    r.fixed_buffer = fixed_ ? static_cast<int>(slot) : -1;
    io::ReadCompletion c;
    StatusOr<io::ReadSubmitResult> res = method_->Submit(r, &c);
    if (!res.ok()) [[unlikely]] {
      ++totals_.ops;
      *out = Completion{tag, 0, Fail(res.status(), kErrorIo), 0};
      return SubmitResult::kCompleted;
    }
    if (*res == io::ReadSubmitResult::kBusy) return SubmitResult::kBusy;
    ++totals_.ops;
    if (!dist_) Advance();
    if (*res == io::ReadSubmitResult::kQueued) return SubmitResult::kQueued;
    *out = Finish(c);
    return SubmitResult::kCompleted;
  }

  size_t Reap(size_t min, std::span<Completion> out) override {
    StatusOr<size_t> n = method_->Reap(min, std::min<size_t>(out.size(), depth_), done_.data());
    if (!n.ok()) {
      Fail(n.status(), kErrorIo);
      return 0;
    }
    for (size_t i = 0; i < *n; ++i) out[i] = Finish(done_[i]);
    return *n;
  }

 private:
  // The next random block. The uniform draw is inlined and one file needs no
  // division: the common randread costs a multiply-shift and a multiply here.
  [[gnu::always_inline]] void NextBlock(workload::Random& rng, int* file, uint64_t* offset) {
    const uint64_t k = uniform_ ? rng.Uniform(items_) : dist_->Next(rng);
    if (single_file_) {
      *offset = k * align_;
    } else {
      *file = static_cast<int>(k / slots_per_file_);
      *offset = (k % slots_per_file_) * align_;
    }
  }

  // The plain read step, for Submit and RunClosed alike: `length` bytes of
  // block (file, offset) into `buf` (ReadMethod::ReadPlain), counted in `ops`.
  // `returned` runs as soon as the read returns (RunClosed reads the op's end
  // there), before a failure is looked into.
  template <typename Returned>
  [[gnu::always_inline]] Completion ReadPlainBlock(uint64_t tag, int file, uint64_t offset, size_t length, char* buf,
                                                   uint64_t& ops, Returned returned) {
    const io::ReadOutcome got = method_->ReadPlain(file, offset, length, buf);
    returned();
    ++ops;
    uint32_t outcome = kOk;
    if (got.error != 0 || got.bytes != length) [[unlikely]]
      outcome = PlainFailure(file, offset, length, got);
    return Completion{tag, 0, outcome, got.bytes};
  }

  // The outcome of a plain read that failed or came back short (plain reads are never verified).
  [[gnu::noinline]] uint32_t PlainFailure(int file, uint64_t offset, size_t length, const io::ReadOutcome& got) {
    return CheckSlow(*method_, io::ReadCompletion{0, file, offset, length, got.bytes, got.error},
                     static_cast<uint32_t>(file), bufs_[0]);
  }

  void Advance() {
    scan_offset_ += shared_.options.block_size;
    if (scan_offset_ < shared_.dataset.file_size) return;
    scan_offset_ = 0;
    scan_file_ = (scan_file_ + 1) % share_.size();
  }

  Completion Finish(const io::ReadCompletion& c) {
    const uint32_t outcome =
        Check(*method_, c, static_cast<uint32_t>(c.file), bufs_[c.tag < depth_ ? c.tag : c.tag % depth_]);
    if (!dist_) {
      totals_.scans = true;
      CountScanOp(pass_ops_);
    }
    return Completion{c.tag, 0, outcome, c.bytes};
  }

  io::ReadMethod* method_ = nullptr;
  unsigned depth_ = 1;
  bool fixed_ = false;
  bool plain_ = false;
  uint64_t align_ = 1;
  std::vector<io::AlignedBuffer> owned_;
  std::vector<char*> bufs_;
  std::vector<io::ReadCompletion> done_;
  io::ReadRequest req_;  // length and priority set once; the rest per op
  // randread
  std::unique_ptr<workload::KeyDistribution> dist_;
  workload::Random rng_{1};
  uint64_t slots_per_file_ = 1;
  uint64_t items_ = 1;        // slots_per_file_ × files
  bool single_file_ = false;  // every read goes to file 0
  bool uniform_ = false;      // dist_ is uniform: its draw is inlined
  // seqread
  std::vector<uint32_t> share_;
  size_t scan_file_ = 0;
  uint64_t scan_offset_ = 0;
  uint64_t pass_ops_ = 0;
};

// Scans several files in step, one SequentialReader per file at a time: seqread
// at --iodepth 1 (one file after another) and the columns scan (K files together).
class ScanWorker final : public FileWorkerBase {
 public:
  ScanWorker(const FileShared& shared, const WorkerContext& context) : FileWorkerBase(shared, context) {}
  ~ScanWorker() override { readers_.clear(); }

  // columns: read `files` together, one method object each; seqread: one method, files in turn.
  Status Init(std::vector<uint32_t> files, bool together) {
    together_ = together;
    files_ = together ? std::move(files) : ScanShare();
    for (size_t i = 0; i < (together_ ? files_.size() : 1); ++i) {
      auto m = AddMethod(2);
      if (!m.ok()) return m.status();
    }
    for (size_t i = 0; i < files_.size(); ++i) {
      auto f = methods_[together_ ? i : 0]->Open(shared_.dataset.paths[files_[i]]);
      if (!f.ok()) return f.status();
    }
    readers_.resize(together_ ? files_.size() : 1);
    pass_ops_ = BlocksPerFile() * (together_ ? 1 : files_.size());
    totals_.scans = true;
    return StartPass();
  }

  SubmitResult Submit(uint64_t tag, Completion* out) override {
    SampleTick();
    return Scan(tag, out);
  }

 private:
  SubmitResult Scan(uint64_t tag, Completion* out) {
    uint64_t bytes = 0;
    uint32_t outcome = kOk;
    for (size_t i = 0; i < readers_.size(); ++i) {
      const size_t file_index = together_ ? i : current_;
      const uint64_t at = readers_[i]->position();
      StatusOr<std::span<const char>> got = readers_[i]->Next();
      if (got.ok() && got->empty()) {
        // End of this file: the next file (seqread) or the next pass (columns), then read on.
        Status st = together_ ? (i == 0 ? StartPass() : Status::IOError("columns scan: column files of unequal size"))
                              : NextFile();
        if (!st.ok()) return Done(tag, Fail(st, kErrorIo), bytes, out);
        return Scan(tag, out);
      }
      if (!got.ok()) {
        outcome = std::max(outcome, Fail(got.status(), kErrorIo));
        continue;
      }
      bytes += got->size();
      outcome = std::max(outcome, CheckBytes(files_[file_index], at, *got));
    }
    CountScanOp(pass_ops_);
    return Done(tag, outcome, bytes, out);
  }

  SubmitResult Done(uint64_t tag, uint32_t outcome, uint64_t bytes, Completion* out) {
    ++totals_.ops;
    *out = Completion{tag, 0, outcome, bytes};
    return SubmitResult::kCompleted;
  }

  io::PrefetchOptions Prefetch() const {
    io::PrefetchOptions p;
    p.buffer_size = shared_.options.block_size;
    p.prefetch = shared_.options.prefetch;
    p.priority = context_.priority;
    p.pool = shared_.pool;
    return p;
  }

  Status StartPass() {
    current_ = 0;
    if (!together_) return Open(0, 0, static_cast<int>(current_));
    for (size_t i = 0; i < files_.size(); ++i) STOREBENCH_RETURN_IF_ERROR(Open(i, i, 0));
    return Status::Ok();
  }

  Status NextFile() {
    current_ = (current_ + 1) % files_.size();
    return Open(0, 0, static_cast<int>(current_));
  }

  Status Open(size_t reader, size_t method, int file_index) {
    readers_[reader].reset();  // drains its reads, so the method is free again
    auto r = io::SequentialReader::Create(*methods_[method], file_index, Prefetch());
    if (!r.ok()) return r.status();
    readers_[reader] = std::move(*r);
    return Status::Ok();
  }

  bool together_ = false;
  std::vector<uint32_t> files_;
  std::vector<std::unique_ptr<io::SequentialReader>> readers_;
  size_t current_ = 0;
  uint64_t pass_ops_ = 0;
};

// columns point reads: the same block of K column files per query, together or one by one.
class ColumnsWorker final : public FileWorkerBase {
 public:
  ColumnsWorker(const FileShared& shared, const WorkerContext& context) : FileWorkerBase(shared, context) {}

  Status Init(size_t columns) {
    const FileOptions& o = shared_.options;
    auto m = AddMethod(static_cast<unsigned>(columns));
    if (!m.ok()) return m.status();
    method_ = *m;
    for (size_t i = 0; i < columns; ++i) {
      auto f = method_->Open(shared_.dataset.paths[i]);
      if (!f.ok()) return f.status();
      bufs_.emplace_back(o.block_size, std::max<size_t>(4096, method_->alignment(0).memory));
      if (bufs_.back().empty()) return Status::IOError("allocate read buffers: out of memory");
      io::ReadRequest r;
      r.file = static_cast<int>(i);
      r.length = o.block_size;
      r.buf = bufs_.back().data();
      r.tag = i;
      r.priority = context_.priority;
      reqs_.push_back(r);
    }
    done_.resize(columns);
    together_ = !o.serial_columns && method_->Has(io::kCapAsync);
    auto d = workload::MakeKeyDistribution(o.offset_dist, std::max<uint64_t>(1, shared_.dataset.file_size / o.block_size),
                                           "--offset-dist");
    if (!d.ok()) return d.status();
    dist_ = std::move(*d);
    rng_ = workload::Random(context_.seed);
    return Status::Ok();
  }

  SubmitResult Submit(uint64_t tag, Completion* out) override {
    SampleTick();
    const uint64_t offset = dist_->Next(rng_) * shared_.options.block_size;
    for (io::ReadRequest& r : reqs_) r.offset = offset;
    bytes_ = 0;
    outcome_ = kOk;
    Status st = together_ ? ReadTogether() : ReadOneByOne();
    if (!st.ok()) outcome_ = std::max(outcome_, Fail(st, kErrorIo));
    ++totals_.ops;
    *out = Completion{tag, 0, outcome_, bytes_};
    return SubmitResult::kCompleted;
  }

 private:
  void Take(const io::ReadCompletion& c) {
    outcome_ = std::max(outcome_, Check(*method_, c, static_cast<uint32_t>(c.file), bufs_[c.tag].data()));
    bytes_ += c.bytes;
  }

  Status ReadOneByOne() {
    for (const io::ReadRequest& r : reqs_) {
      io::ReadCompletion c;
      auto res = method_->Submit(r, &c);
      if (!res.ok()) return res.status();
      if (*res != io::ReadSubmitResult::kCompleted) {
        auto n = method_->Reap(1, 1, &c);
        if (!n.ok()) return n.status();
      }
      Take(c);
    }
    return Status::Ok();
  }

  Status ReadTogether() {
    size_t submitted = 0, finished = 0;
    while (finished < reqs_.size()) {
      if (submitted < reqs_.size()) {
        size_t n_done = 0;
        auto acc = method_->SubmitBatch(std::span<const io::ReadRequest>(reqs_).subspan(submitted), done_.data(),
                                        &n_done);
        if (!acc.ok()) return acc.status();
        submitted += *acc;
        for (size_t i = 0; i < n_done; ++i) Take(done_[i]);
        finished += n_done;
      }
      if (finished < submitted) {
        auto n = method_->Reap(1, done_.size(), done_.data());
        if (!n.ok()) return n.status();
        for (size_t i = 0; i < *n; ++i) Take(done_[i]);
        finished += *n;
      }
    }
    return Status::Ok();
  }

  io::ReadMethod* method_ = nullptr;
  std::vector<io::AlignedBuffer> bufs_;
  std::vector<io::ReadRequest> reqs_;
  std::vector<io::ReadCompletion> done_;
  bool together_ = false;
  std::unique_ptr<workload::KeyDistribution> dist_;
  workload::Random rng_{1};
  uint64_t bytes_ = 0;
  uint32_t outcome_ = kOk;
};

}  // namespace

io::MethodOptions WorkerMethodOptions(const FileShared& shared, unsigned depth) {
  io::MethodOptions m = shared.options.method_options;
  m.pool = shared.pool;
  m.queue_depth = std::max(2u, depth);
  m.max_in_flight = std::max(2u, depth);
  return m;
}

StatusOr<std::unique_ptr<Worker>> NewFileWorker(const FileShared& shared, const WorkerContext& context) {
  const FileOptions& o = shared.options;
  Status st;
  std::unique_ptr<Worker> w;
  const size_t columns = static_cast<size_t>(std::min<uint64_t>(o.columns, shared.dataset.files));
  if (o.workload == Workload::kColumns && o.sequential_columns) {
    auto s = std::make_unique<ScanWorker>(shared, context);
    std::vector<uint32_t> files(columns);
    for (size_t i = 0; i < columns; ++i) files[i] = static_cast<uint32_t>(i);
    st = s->Init(std::move(files), true);
    w = std::move(s);
  } else if (o.workload == Workload::kColumns) {
    auto c = std::make_unique<ColumnsWorker>(shared, context);
    st = c->Init(columns);
    w = std::move(c);
  } else if (o.workload == Workload::kSeqRead && context.queue_depth <= 1) {
    auto s = std::make_unique<ScanWorker>(shared, context);
    st = s->Init({}, false);
    w = std::move(s);
  } else {
    auto b = std::make_unique<BlockWorker>(shared, context);
    st = b->Init();
    w = std::move(b);
  }
  if (!st.ok()) return st;
  return w;
}

}  // namespace storebench::backend::file
