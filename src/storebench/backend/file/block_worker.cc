#include "storebench/backend/file/file_worker.h"

namespace storebench::backend::file {
namespace {

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

}  // namespace

StatusOr<std::unique_ptr<Worker>> NewBlockWorker(const FileShared& shared, const WorkerContext& context) {
  auto w = std::make_unique<BlockWorker>(shared, context);
  STOREBENCH_RETURN_IF_ERROR(w->Init());
  return std::unique_ptr<Worker>(std::move(w));
}

}  // namespace storebench::backend::file
