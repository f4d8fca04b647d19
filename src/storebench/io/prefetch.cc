#include "storebench/io/prefetch.h"

#include <algorithm>

#include <fmt/format.h>

namespace storebench::io {

// Pool mode: a sync method's read run ahead on a pool thread.
class SequentialReader::Task final : public PoolTask {
 public:
  void Run() override;
  SequentialReader* reader = nullptr;
  int index = 0;
};

struct SequentialReader::Chunk {
  AlignedBuffer buffer;
  uint64_t offset = 0;
  size_t length = 0;  // asked for
  size_t bytes = 0;   // got
  State state = State::kIdle;
  Status error;
  Task task;
};

void SequentialReader::Task::Run() {
  Chunk& c = reader->chunks_[index];
  StatusOr<size_t> r = [&] {
    std::lock_guard<std::mutex> one_at_a_time(reader->read_mu_);
    return reader->method_.Read(reader->file_, c.offset, c.length, c.buffer.data(), reader->options_.priority);
  }();
  std::lock_guard<std::mutex> lock(reader->mu_);
  c.bytes = r.ok() ? *r : 0;
  c.error = r.status();
  c.state = State::kReady;
  reader->cv_.notify_all();
}

StatusOr<std::unique_ptr<SequentialReader>> SequentialReader::Create(ReadMethod& method, int file,
                                                                    const PrefetchOptions& options) {
  if (file < 0 || static_cast<size_t>(file) >= method.file_count()) {
    return Status::InvalidArgument(fmt::format("sequential reader: file index {} is not open", file));
  }
  if (options.buffer_size == 0) return Status::InvalidArgument("sequential reader: buffer size must be > 0");
  const OpenedFile& f = method.file(file);
  const uint32_t align = f.alignment.offset;
  if (f.direct && (options.buffer_size % align != 0 || options.begin % align != 0)) {
    return Status::InvalidArgument(fmt::format(
        "sequential reader on {}: with O_DIRECT the buffer size ({}) and start offset ({}) must be multiples of {} bytes",
        f.path, options.buffer_size, options.begin, align));
  }
  if (method.in_flight() != 0) {
    return Status::InvalidArgument(fmt::format("sequential reader on {}: the method has reads in flight", f.path));
  }
  const uint64_t end = std::min(options.end, f.size);
  std::unique_ptr<SequentialReader> r(new SequentialReader(method, file, options, end));
  const int n = options.prefetch ? 2 : 1;
  for (int i = 0; i < n; ++i) {
    r->chunks_[i].buffer = AlignedBuffer(options.buffer_size, std::max<size_t>(f.alignment.memory, 4096));
    if (r->chunks_[i].buffer.empty()) {
      return Status::IOError(fmt::format("sequential reader: allocate {} bytes: out of memory", options.buffer_size));
    }
  }
  for (int i = 0; i < n; ++i) STOREBENCH_RETURN_IF_ERROR(r->Issue(i));
  return r;
}

SequentialReader::SequentialReader(ReadMethod& method, int file, const PrefetchOptions& options, uint64_t end)
    : method_(method),
      file_(file),
      options_(options),
      end_(end),
      async_(method.Has(kCapAsync)),
      pool_(method.Has(kCapAsync) ? nullptr : options.pool),
      next_offset_(options.begin),
      position_(options.begin),
      chunks_(std::make_unique<Chunk[]>(2)) {
  for (int i = 0; i < 2; ++i) {
    chunks_[i].task.reader = this;
    chunks_[i].task.index = i;
  }
}

SequentialReader::~SequentialReader() { Drain(); }

void SequentialReader::Drain() {
  for (int i = 0; i < 2; ++i) {
    if (pool_ != nullptr || chunks_[i].state == State::kPending) (void)Wait(i);
  }
}

Status SequentialReader::Issue(int index) {
  Chunk& c = chunks_[index];
  if (next_offset_ >= end_) {
    c.state = State::kIdle;
    return Status::Ok();
  }
  c.offset = next_offset_;
  // O_DIRECT lengths stay whole buffers; the read then stops short at end of file.
  c.length = method_.file(file_).direct ? options_.buffer_size
                                        : static_cast<size_t>(std::min<uint64_t>(options_.buffer_size, end_ - c.offset));
  next_offset_ += c.length;
  if (pool_ != nullptr) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      c.state = State::kPending;
    }
    pool_->Enqueue(&c.task, options_.priority);
    return Status::Ok();
  }
  ReadRequest req;
  req.file = file_;
  req.offset = c.offset;
  req.length = c.length;
  req.buf = c.buffer.data();
  req.tag = static_cast<uint64_t>(index);
  req.priority = options_.priority;
  for (;;) {
    ReadCompletion done;
    StatusOr<ReadSubmitResult> r = method_.Submit(req, &done);
    if (!r.ok()) return r.status();
    if (*r == ReadSubmitResult::kCompleted) {
      c.bytes = done.bytes;
      c.error = method_.ErrorStatus(done);
      c.state = State::kReady;
      return Status::Ok();
    }
    if (*r == ReadSubmitResult::kQueued) {
      c.state = State::kPending;
      return Status::Ok();
    }
    // Busy: the method allows a single read in flight, which is the other chunk's.
    STOREBENCH_RETURN_IF_ERROR(Wait(index ^ 1));
  }
}

Status SequentialReader::Wait(int index) {
  if (pool_ != nullptr) {
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait(lock, [&] { return chunks_[index].state != State::kPending; });
    return Status::Ok();
  }
  while (chunks_[index].state == State::kPending) {
    ReadCompletion done[2];
    StatusOr<size_t> n = method_.Reap(1, 2, done);
    if (!n.ok()) return n.status();
    for (size_t i = 0; i < *n; ++i) {
      Chunk& c = chunks_[done[i].tag & 1];
      c.bytes = done[i].bytes;
      c.error = method_.ErrorStatus(done[i]);
      c.state = State::kReady;
    }
  }
  return Status::Ok();
}

StatusOr<std::span<const char>> SequentialReader::Next() {
  if (returned_ >= 0) {
    const int refill = returned_;
    returned_ = -1;
    STOREBENCH_RETURN_IF_ERROR(Issue(refill));
  }
  Chunk& c = chunks_[current_];
  STOREBENCH_RETURN_IF_ERROR(Wait(current_));
  if (c.state == State::kIdle) return std::span<const char>();
  // Pool mode: the task has published its result under mu_, and Wait() synchronised with it.
  c.state = State::kIdle;
  if (!c.error.ok()) return c.error;
  const size_t bytes = static_cast<size_t>(std::min<uint64_t>(c.bytes, end_ - c.offset));
  if (bytes < c.length) next_offset_ = end_;  // end of file came early: issue nothing more
  returned_ = current_;
  if (options_.prefetch) current_ ^= 1;
  position_ = c.offset + bytes;
  return std::span<const char>(c.buffer.data(), bytes);
}

}  // namespace storebench::io
