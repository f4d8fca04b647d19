// WhisperFile's Python modes: the seek/read/write of Python's FileIO
// (kPythonUnbuffered) and of io.BufferedRandom/BufferedReader (kBuffered),
// following CPython 3.11 Modules/_io/bufferedio.c branch by branch so that
// the syscalls issued are the ones whisper.py would issue. Member names and
// the -1 "invalid" convention are bufferedio.c's.
#include <unistd.h>

#include <algorithm>
#include <cstring>

#include <fmt/format.h>

#include "storebench/whisper/file.h"

namespace storebench::whisper {
namespace {

Status ShortRead(const std::string& path, size_t got, size_t n) {
  return Status::Corruption(
      fmt::format("read whisper file {}: file ends early (read {} of {} bytes)", path, got, n));
}

}  // namespace

// RAW_OFFSET(): how far the raw file position is ahead of the logical one.
int64_t WhisperFile::RawOffset() const {
  return ((read_end_ != -1) || (write_end_ != -1)) && raw_pos_ >= 0 ? raw_pos_ - pos_ : 0;
}

Status WhisperFile::Seek(uint64_t target_u) {
  const auto target = static_cast<int64_t>(target_u);
  if (options_.mode == IoMode::kPythonUnbuffered) return SysLseek(target, SEEK_SET).status();
  // Fast path: stay inside the read buffer (only while unread bytes remain in it).
  int64_t current = abs_pos_;
  if (current == -1) {
    StatusOr<int64_t> t = SysLseek(0, SEEK_CUR);
    if (!t.ok()) return t.status();
    current = *t;
  }
  int64_t avail = ReadAhead();
  if (avail > 0) {
    int64_t offset = target - (current - RawOffset());
    if (offset >= -pos_ && offset <= avail) {
      pos_ += offset;
      return Status::Ok();
    }
  }
  if (writable_) STOREBENCH_RETURN_IF_ERROR(FlushWriteBuffer());
  STOREBENCH_RETURN_IF_ERROR(SysLseek(target, SEEK_SET).status());
  raw_pos_ = -1;
  read_end_ = -1;
  return Status::Ok();
}

Status WhisperFile::Read(void* out_v, size_t n_u) {
  auto* out = static_cast<uint8_t*>(out_v);
  if (options_.mode == IoMode::kPythonUnbuffered) {
    StatusOr<size_t> got = SysRead(out, n_u);
    if (!got.ok()) return got.status();
    return *got == n_u ? Status::Ok() : ShortRead(path_, *got, n_u);
  }
  const auto n = static_cast<int64_t>(n_u);
  const auto size = static_cast<int64_t>(buffer_.size());
  int64_t current = ReadAhead();
  if (n <= current) {  // _bufferedreader_read_fast
    std::memcpy(out, buffer_.data() + pos_, n_u);
    pos_ += n;
    return Status::Ok();
  }
  // _bufferedreader_read_generic
  int64_t remaining = n, written = 0;
  if (current > 0) {
    std::memcpy(out, buffer_.data() + pos_, static_cast<size_t>(current));
    remaining -= current, written += current, pos_ += current;
  }
  if (writable_) STOREBENCH_RETURN_IF_ERROR(FlushAndRewind());
  read_end_ = -1;
  while (remaining > 0) {
    int64_t r = remaining - remaining % size;  // MINUS_LAST_BLOCK: whole buffers go straight to the caller
    if (r == 0) break;
    StatusOr<size_t> got = SysRead(out + written, static_cast<size_t>(r));
    if (!got.ok()) return got.status();
    if (*got == 0) return ShortRead(path_, static_cast<size_t>(written), n_u);
    remaining -= static_cast<int64_t>(*got), written += static_cast<int64_t>(*got);
  }
  pos_ = 0, raw_pos_ = 0, read_end_ = 0;
  while (remaining > 0 && read_end_ < size) {  // _bufferedreader_fill_buffer
    const int64_t start = read_end_ != -1 ? read_end_ : 0;
    StatusOr<size_t> got = SysRead(buffer_.data() + start, static_cast<size_t>(size - start));
    if (!got.ok()) return got.status();
    if (*got == 0) return ShortRead(path_, static_cast<size_t>(written), n_u);
    read_end_ = start + static_cast<int64_t>(*got);
    raw_pos_ = read_end_;
    int64_t take = std::min<int64_t>(remaining, static_cast<int64_t>(*got));
    std::memcpy(out + written, buffer_.data() + pos_, static_cast<size_t>(take));
    written += take, pos_ += take, remaining -= take;
  }
  return Status::Ok();
}

Status WhisperFile::Write(const void* data_v, size_t len_u) {
  const auto* data = static_cast<const uint8_t*>(data_v);
  if (options_.mode == IoMode::kPythonUnbuffered) return SysWriteAll(data, len_u);
  const auto len = static_cast<int64_t>(len_u);
  const auto size = static_cast<int64_t>(buffer_.size());
  if (read_end_ == -1 && write_end_ == -1) pos_ = 0, raw_pos_ = 0;
  auto adjust_position = [this](int64_t new_pos) {
    pos_ = new_pos;
    if (read_end_ != -1 && read_end_ < pos_) read_end_ = pos_;
  };
  if (len <= size - pos_) {  // fast path: the data fits the buffer
    std::memcpy(buffer_.data() + pos_, data, len_u);
    if (write_end_ == -1 || write_pos_ > pos_) write_pos_ = pos_;
    adjust_position(pos_ + len);
    if (pos_ > write_end_) write_end_ = pos_;
    return Status::Ok();
  }
  STOREBENCH_RETURN_IF_ERROR(FlushWriteBuffer());
  if (int64_t offset = RawOffset(); offset != 0) {
    STOREBENCH_RETURN_IF_ERROR(SysLseek(-offset, SEEK_CUR).status());
    raw_pos_ -= offset;
  }
  int64_t remaining = len, written = 0;
  if (remaining > size) {  // one raw write of everything but what fits the buffer
    STOREBENCH_RETURN_IF_ERROR(SysWriteAll(data, len_u));
    written = len, remaining = 0;
  }
  read_end_ = -1;
  write_pos_ = 0, write_end_ = -1;
  if (remaining > 0) std::memcpy(buffer_.data(), data + written, static_cast<size_t>(remaining));
  write_pos_ = 0;
  write_end_ = remaining;
  adjust_position(remaining);
  raw_pos_ = 0;
  return Status::Ok();
}

// _bufferedwriter_flush_unlocked
Status WhisperFile::FlushWriteBuffer() {
  if (write_end_ != -1 && write_pos_ != write_end_) {
    int64_t rewind = RawOffset() + (pos_ - write_pos_);
    if (rewind != 0) {
      STOREBENCH_RETURN_IF_ERROR(SysLseek(-rewind, SEEK_CUR).status());
      raw_pos_ -= rewind;
    }
    STOREBENCH_RETURN_IF_ERROR(
        SysWriteAll(buffer_.data() + write_pos_, static_cast<size_t>(write_end_ - write_pos_)));
    write_pos_ = write_end_;
    raw_pos_ = write_pos_;
  }
  write_pos_ = 0, write_end_ = -1;
  return Status::Ok();
}

// buffered_flush_and_rewind_unlocked: also what BufferedRandom.flush()/close() do.
Status WhisperFile::FlushAndRewind() {
  STOREBENCH_RETURN_IF_ERROR(FlushWriteBuffer());
  Status st = SysLseek(-RawOffset(), SEEK_CUR).status();
  read_end_ = -1;
  return st;
}

}  // namespace storebench::whisper
