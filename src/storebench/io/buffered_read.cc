// read: read(2) at the file position through a user-space buffer, as Python's
// io.BufferedReader does (whisper's case). A request seeks, then reads:
//  * a seek inside the buffered window only moves the position (no syscall);
//    anywhere else it drops the buffer and costs an lseek;
//  * a read copies what the buffer holds, reads whole multiples of the buffer
//    size straight into the caller's memory, then refills the buffer with one
//    buffer-size read(2) for the tail.
// buffer_size 0 is Python's buffering=0: an exact-size read(2) per request.
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "storebench/io/methods.h"

namespace storebench::io {

const MethodInfo kBufferedReadInfo = {"read", kCapUserBuffer,
                                      "read(2) at the file position through a user-space buffer (0 = unbuffered)"};

namespace {

class BufferedReadMethod final : public ReadMethod {
 public:
  explicit BufferedReadMethod(const MethodOptions& o)
      : ReadMethod(kBufferedReadInfo.name, kBufferedReadInfo.capabilities, o) {
    if (o.buffer_size == 0) {
      set_plain_read(&PlainReadUnbuffered);
    } else {
      set_plain_read(&PlainRead);
    }
  }

 protected:
  Status OnOpen(int /*index*/) override {
    state_.emplace_back();
    state_.back().buffer.resize(options().buffer_size);
    return Status::Ok();
  }

  StatusOr<ReadSubmitResult> DoSubmit(const ReadRequest& req, ReadCompletion* done) override {
    const ReadOutcome r = options().buffer_size == 0 ? PlainReadUnbuffered(*this, req.file, req.buf, req.length, req.offset)
                                                     : PlainRead(*this, req.file, req.buf, req.length, req.offset);
    *done = MakeCompletion(req, r.bytes, r.error);
    return ReadSubmitResult::kCompleted;
  }

 private:
  static ReadOutcome PlainRead(ReadMethod& self, int file, char* buf, size_t length, uint64_t offset) {
    return static_cast<BufferedReadMethod&>(self).ReadAt(static_cast<size_t>(file), buf, length, offset);
  }

  // buffer_size 0 (Python's buffering=0): an lseek unless the descriptor is
  // already there, then exact-size read(2)s — the buffered path's syscalls
  // and counts without its buffer bookkeeping.
  static ReadOutcome PlainReadUnbuffered(ReadMethod& self, int file, char* buf, size_t length, uint64_t offset) {
    auto& m = static_cast<BufferedReadMethod&>(self);
    State& s = m.state_[static_cast<size_t>(file)];
    const int fd = m.files_[static_cast<size_t>(file)].fd;
    ReadOutcome out;
    if (length == 0) return out;
    if (s.raw_pos != offset) {
      m.counters_.Count(Syscall::kLseek);
      if (lseek(fd, static_cast<off_t>(offset), SEEK_SET) < 0) {
        out.error = errno;
        return out;
      }
      s.raw_pos = offset;
    }
    while (out.bytes < length) {
      m.counters_.Count(Syscall::kRead);
      const ssize_t r = read(fd, buf + out.bytes, length - out.bytes);
      if (r < 0) {
        if (errno == EINTR) continue;
        out.error = errno;
        break;
      }
      if (r == 0) break;  // end of file
      m.counters_.bytes_transferred += static_cast<uint64_t>(r);
      s.raw_pos += static_cast<uint64_t>(r);
      out.bytes += static_cast<size_t>(r);
    }
    return out;
  }

  ReadOutcome ReadAt(size_t i, char* buf, size_t length, uint64_t offset) {
    State& s = state_[i];
    Seek(s, offset);
    size_t written = 0;
    int error = 0;
    const size_t from_buffer = std::min(length, s.valid - s.cursor);
    if (from_buffer > 0) std::memcpy(buf, s.buffer.data() + s.cursor, from_buffer);
    s.cursor += from_buffer;
    written += from_buffer;
    const size_t bs = s.buffer.size();
    while (written < length && error == 0) {
      const size_t remaining = length - written;
      ssize_t n;
      if (bs == 0 || remaining > bs) {
        // Whole buffer multiples bypass the buffer, exactly like BufferedReader.
        const size_t chunk = bs == 0 ? remaining : remaining - remaining % bs;
        n = RawRead(s, files_[i], buf + written, chunk);
        if (n > 0) written += static_cast<size_t>(n);
      } else {
        n = RawRead(s, files_[i], s.buffer.data(), bs);
        if (n > 0) {
          s.buffer_start = s.raw_pos - static_cast<uint64_t>(n);
          s.valid = static_cast<size_t>(n);
          const size_t take = std::min(remaining, s.valid);
          std::memcpy(buf + written, s.buffer.data(), take);
          s.cursor = take;
          written += take;
        }
      }
      if (n < 0) error = errno;
      if (n == 0) break;  // end of file
    }
    return {written, error};
  }

  struct State {
    std::vector<char> buffer;
    uint64_t buffer_start = 0;  // file offset of buffer[0]
    size_t valid = 0;           // bytes of buffer holding file data
    size_t cursor = 0;          // logical position = buffer_start + cursor
    uint64_t raw_pos = 0;       // the descriptor's file position
  };

  void Seek(State& s, uint64_t offset) {
    if (s.valid > 0 && offset >= s.buffer_start && offset <= s.buffer_start + s.valid) {
      s.cursor = static_cast<size_t>(offset - s.buffer_start);
      return;
    }
    s.valid = 0;
    s.cursor = 0;
    s.buffer_start = offset;
  }

  // read(2) at the logical position, seeking the descriptor first when it is elsewhere.
  ssize_t RawRead(State& s, const OpenedFile& f, char* dst, size_t n) {
    const uint64_t want = s.valid > 0 ? s.buffer_start + s.valid : s.buffer_start;
    if (s.raw_pos != want) {
      counters_.Count(Syscall::kLseek);
      if (lseek(f.fd, static_cast<off_t>(want), SEEK_SET) < 0) return -1;
      s.raw_pos = want;
    }
    ssize_t r;
    do {
      counters_.Count(Syscall::kRead);
      r = read(f.fd, dst, n);
    } while (r < 0 && errno == EINTR);
    if (r > 0) {
      counters_.bytes_transferred += static_cast<uint64_t>(r);
      s.raw_pos += static_cast<uint64_t>(r);
      // Bytes read around the buffer leave it empty at the new position.
      if (dst != s.buffer.data()) {
        s.valid = 0;
        s.cursor = 0;
        s.buffer_start = s.raw_pos;
      }
    }
    return r;
  }

  std::vector<State> state_;
};

}  // namespace

std::unique_ptr<ReadMethod> NewBufferedRead(const MethodOptions& options) {
  return std::make_unique<BufferedReadMethod>(options);
}

}  // namespace storebench::io
