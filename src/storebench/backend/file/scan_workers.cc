#include "storebench/backend/file/file_worker.h"

namespace storebench::backend::file {
namespace {

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

StatusOr<std::unique_ptr<Worker>> NewScanWorker(const FileShared& shared, const WorkerContext& context,
                                                std::vector<uint32_t> files, bool together) {
  auto w = std::make_unique<ScanWorker>(shared, context);
  STOREBENCH_RETURN_IF_ERROR(w->Init(std::move(files), together));
  return std::unique_ptr<Worker>(std::move(w));
}

StatusOr<std::unique_ptr<Worker>> NewColumnsWorker(const FileShared& shared, const WorkerContext& context,
                                                   size_t columns) {
  auto w = std::make_unique<ColumnsWorker>(shared, context);
  STOREBENCH_RETURN_IF_ERROR(w->Init(columns));
  return std::unique_ptr<Worker>(std::move(w));
}

}  // namespace storebench::backend::file
