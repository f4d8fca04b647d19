#include "storebench/whisper/file.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include <fmt/format.h>

namespace storebench::whisper {

SyscallCounters& SyscallCounters::operator+=(const SyscallCounters& o) {
  open += o.open, close += o.close, pread += o.pread, pwrite += o.pwrite, read += o.read, write += o.write;
  lseek += o.lseek, flock += o.flock, fadvise += o.fadvise, fstat += o.fstat;
  bytes_read += o.bytes_read, bytes_written += o.bytes_written;
  return *this;
}

SyscallCounters SyscallCounters::operator-(const SyscallCounters& o) const {
  SyscallCounters d = *this;
  d.open -= o.open, d.close -= o.close, d.pread -= o.pread, d.pwrite -= o.pwrite, d.read -= o.read;
  d.write -= o.write, d.lseek -= o.lseek, d.flock -= o.flock, d.fadvise -= o.fadvise, d.fstat -= o.fstat;
  d.bytes_read -= o.bytes_read, d.bytes_written -= o.bytes_written;
  return d;
}

std::string_view IoModeName(IoMode mode) {
  switch (mode) {
    case IoMode::kExact:
      return "exact";
    case IoMode::kMinimal:
      return "minimal";
    case IoMode::kPythonUnbuffered:
      return "python";
    case IoMode::kBuffered:
      return "buffered";
  }
  return "?";
}

std::optional<Header> HeaderCache::Get(const std::string& path) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = headers_.find(path);
  if (it == headers_.end()) return std::nullopt;
  return it->second;
}

void HeaderCache::Put(const std::string& path, const Header& header) {
  std::lock_guard<std::mutex> lock(mu_);
  headers_[path] = header;
}

void HeaderCache::Invalidate(const std::string& path) {
  std::lock_guard<std::mutex> lock(mu_);
  headers_.erase(path);
}

WhisperFile::WhisperFile(std::string path, int fd, bool writable, const IoOptions& options, SyscallCounters* sink)
    : path_(std::move(path)), fd_(fd), writable_(writable), options_(options), sink_(sink) {}

WhisperFile::~WhisperFile() { (void)Close(); }

template <typename F>
void WhisperFile::Count(F&& bump) {
  bump(own_);
  if (sink_ != nullptr) bump(*sink_);
}

Status WhisperFile::Fail(std::string_view op, int err) { return ErrnoStatus(op, path_, err); }

StatusOr<std::unique_ptr<WhisperFile>> WhisperFile::Open(const std::string& path, OpenMode mode,
                                                         const IoOptions& options, SyscallCounters* counters) {
  if (options.mode == IoMode::kBuffered && options.buffer_size == 0) {
    return Status::InvalidArgument("open whisper file " + path + ": buffered mode needs a buffer size > 0");
  }
  int flags = O_CLOEXEC;
  flags |= mode == OpenMode::kRead ? O_RDONLY : mode == OpenMode::kReadWrite ? O_RDWR : O_RDWR | O_CREAT | O_EXCL;
  int fd = ::open(path.c_str(), flags, 0644);
  const int open_errno = errno;
  std::unique_ptr<WhisperFile> f(new WhisperFile(path, fd, mode != OpenMode::kRead, options, counters));
  f->Count([](SyscallCounters& c) { ++c.open; });
  if (fd < 0) {
    if (mode == OpenMode::kCreate && open_errno == EEXIST) {
      return Status::InvalidArgument(fmt::format("File {} already exists!", path));
    }
    return f->Fail("open", open_errno);
  }
  // Python's FileIO always fstat()s a new file; we need the size for validation anyway.
  if (options.check_file_size || f->python_mode()) {
    struct stat st;
    f->Count([](SyscallCounters& c) { ++c.fstat; });
    if (::fstat(fd, &st) != 0) return f->Fail("fstat", errno);
    f->file_size_ = static_cast<uint64_t>(st.st_size);
  }
  if (options.mode == IoMode::kBuffered) {
    f->buffer_.resize(options.buffer_size);
    // Constructing BufferedReader tells() the raw file once, BufferedRandom twice
    // (counted with strace on CPython 3.11).
    for (int i = 0; i < (mode == OpenMode::kRead ? 1 : 2); ++i) {
      StatusOr<int64_t> pos = f->SysLseek(0, SEEK_CUR);
      if (!pos.ok()) return pos.status();
    }
  }
  if (options.fadvise_random) {
    f->Count([](SyscallCounters& c) { ++c.fadvise; });
    int rc = ::posix_fadvise(fd, 0, 0, POSIX_FADV_RANDOM);
    if (rc != 0) return f->Fail("posix_fadvise", rc);
  }
  return f;
}

StatusOr<int64_t> WhisperFile::SysLseek(int64_t offset, int whence) {
  Count([](SyscallCounters& c) { ++c.lseek; });
  off_t r = ::lseek(fd_, offset, whence);
  if (r < 0) return Fail("lseek", errno);
  abs_pos_ = r;
  return static_cast<int64_t>(r);
}

StatusOr<size_t> WhisperFile::SysRead(void* buf, size_t n) {
  for (;;) {
    Count([](SyscallCounters& c) { ++c.read; });
    ssize_t r = ::read(fd_, buf, n);
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) return Fail("read", errno);
    Count([r](SyscallCounters& c) { c.bytes_read += static_cast<uint64_t>(r); });
    if (abs_pos_ != -1) abs_pos_ += r;
    return static_cast<size_t>(r);
  }
}

Status WhisperFile::SysWriteAll(const void* buf, size_t n) {
  const auto* p = static_cast<const uint8_t*>(buf);
  while (n > 0) {
    Count([](SyscallCounters& c) { ++c.write; });
    ssize_t r = ::write(fd_, p, n);
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) return Fail("write", errno);
    Count([r](SyscallCounters& c) { c.bytes_written += static_cast<uint64_t>(r); });
    if (abs_pos_ != -1) abs_pos_ += r;
    p += r, n -= static_cast<size_t>(r);
  }
  return Status::Ok();
}

Status WhisperFile::Lock() {
  if (!options_.lock || locked_) return Status::Ok();
  Count([](SyscallCounters& c) { ++c.flock; });
  if (::flock(fd_, LOCK_EX) != 0) return Fail("flock", errno);
  locked_ = true;
  return Status::Ok();
}

Status WhisperFile::Allocate(uint64_t offset, uint64_t len) {
  int rc = ::posix_fallocate(fd_, static_cast<off_t>(offset), static_cast<off_t>(len));
  return rc == 0 ? Status::Ok() : Fail("posix_fallocate", rc);
}

StatusOr<Header> WhisperFile::ReadHeader() {
  // whisper.py locks only where it writes (update, update_many, set_aggregation).
  if (writable_) STOREBENCH_RETURN_IF_ERROR(Lock());
  if (options_.header_cache != nullptr) {
    if (std::optional<Header> h = options_.header_cache->Get(path_)) return *h;
  }
  const uint64_t requested_before = requested_read_bytes_;  // ReadAt below counts the header once, here
  std::vector<uint8_t> bytes;
  if (!python_mode()) {
    // kMinimal also takes the first archive's base point, which every update and
    // most fetches read next (it follows the header when there are <= hint archives).
    const size_t hint = std::max<uint32_t>(options_.header_archives_hint, 1);
    bytes.resize(kMetadataSize + kArchiveInfoSize * hint + (plans_reads() ? kPointSize : 0));
    StatusOr<size_t> got = SysPread(0, bytes.data(), bytes.size());
    if (!got.ok()) return got.status();
    bytes.resize(*got);
    if (plans_reads()) Merge(0, bytes.data(), bytes.size(), false, false);
    StatusOr<Metadata> meta = ParseMetadata(bytes, path_);
    if (!meta.ok()) return meta.status();
    size_t need = kMetadataSize + kArchiveInfoSize * size_t{meta->archive_count};
    if (need > bytes.size()) {
      size_t have = bytes.size();
      bytes.resize(need);
      Status st = Prefetch(have, need - have + kPointSize);
      if (st.ok()) st = ReadAt(have, bytes.data() + have, need - have);
      if (!st.ok()) bytes.resize(have);  // ParseHeader names the truncation.
    }
  } else {
    // whisper.py: tell(), seek(0), read(16), read(12) per archive, seek(back).
    STOREBENCH_RETURN_IF_ERROR(PythonTell());
    bytes.resize(kMetadataSize);
    STOREBENCH_RETURN_IF_ERROR(Seek(0));
    STOREBENCH_RETURN_IF_ERROR(Read(bytes.data(), kMetadataSize));
    StatusOr<Metadata> meta = ParseMetadata(bytes, path_);
    if (!meta.ok()) return meta.status();
    for (uint32_t i = 0; i < meta->archive_count; ++i) {
      size_t have = bytes.size();
      bytes.resize(have + kArchiveInfoSize);
      if (!Read(bytes.data() + have, kArchiveInfoSize).ok()) {
        bytes.resize(have);
        break;
      }
    }
    // The restoring seek goes to where the tell() found the file: 0 in every
    // whisper.py path, because the header is always the first thing read.
    STOREBENCH_RETURN_IF_ERROR(Seek(0));
  }
  StatusOr<Header> h = ParseHeader(bytes, path_, file_size_);
  requested_read_bytes_ = requested_before + (h.ok() ? h->header_size() : bytes.size());
  if (h.ok() && options_.header_cache != nullptr) options_.header_cache->Put(path_, *h);
  return h;
}

// Loops a positioned syscall until `n` bytes moved or it returns 0; returns the count.
template <typename Syscall, typename Counter>
StatusOr<size_t> WhisperFile::Positioned(const char* op, uint64_t offset, size_t n, Syscall call, Counter counter) {
  size_t done = 0;
  while (done < n) {
    Count([&counter](SyscallCounters& c) { ++(c.*counter.first); });
    ssize_t r = call(done, static_cast<off_t>(offset + done));
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) return Fail(op, errno);
    Count([&counter, r](SyscallCounters& c) { c.*counter.second += static_cast<uint64_t>(r); });
    if (r == 0) break;
    done += static_cast<size_t>(r);
  }
  return done;
}

StatusOr<size_t> WhisperFile::SysPread(uint64_t offset, void* buf, size_t n) {
  for (;;) {
    Count([](SyscallCounters& c) { ++c.pread; });
    ssize_t r = ::pread(fd_, buf, n, static_cast<off_t>(offset));
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) return Fail("pread", errno);
    Count([r](SyscallCounters& c) { c.bytes_read += static_cast<uint64_t>(r); });
    return static_cast<size_t>(r);
  }
}

Status WhisperFile::ReadAt(uint64_t offset, void* buf, size_t n) {
  requested_read_bytes_ += n;
  if (plans_reads()) return ImageRead(offset, buf, n);
  if (python_mode()) {
    STOREBENCH_RETURN_IF_ERROR(Seek(offset));
    return Read(buf, n);
  }
  auto* p = static_cast<uint8_t*>(buf);
  StatusOr<size_t> done = Positioned("pread", offset, n,
                                     [&](size_t at, off_t off) { return ::pread(fd_, p + at, n - at, off); },
                                     std::pair{&SyscallCounters::pread, &SyscallCounters::bytes_read});
  if (!done.ok()) return done.status();
  if (*done < n) {
    return Status::Corruption(fmt::format("read whisper file {}: file ends before byte {} (read {} of {} at {})",
                                          path_, offset + n, *done, n, offset));
  }
  return Status::Ok();
}

Status WhisperFile::WriteAt(uint64_t offset, const void* buf, size_t n) {
  if (plans_reads()) {
    Merge(offset, static_cast<const uint8_t*>(buf), n, true, true);
    return Status::Ok();
  }
  if (python_mode()) {
    STOREBENCH_RETURN_IF_ERROR(Seek(offset));
    return Write(buf, n);
  }
  return SysPwriteAll(offset, buf, n);
}

Status WhisperFile::SysPwriteAll(uint64_t offset, const void* buf, size_t n) {
  const auto* p = static_cast<const uint8_t*>(buf);
  StatusOr<size_t> done = Positioned("pwrite", offset, n,
                                     [&](size_t at, off_t off) { return ::pwrite(fd_, p + at, n - at, off); },
                                     std::pair{&SyscallCounters::pwrite, &SyscallCounters::bytes_written});
  if (done.ok() && *done < n) return Fail("pwrite", EIO);  // the kernel wrote nothing and said no error
  return done.status();
}

Status WhisperFile::PythonTell() {
  if (!python_mode()) return Status::Ok();
  return SysLseek(0, SEEK_CUR).status();
}

void WhisperFile::InvalidateCachedHeader() {
  if (options_.header_cache != nullptr) options_.header_cache->Invalidate(path_);
}

Status WhisperFile::Close() {
  if (fd_ < 0) return Status::Ok();
  Status st;
  if (options_.mode == IoMode::kBuffered && writable_) st = FlushAndRewind();
  if (plans_reads()) st = Flush();
  Count([](SyscallCounters& c) { ++c.close; });
  if (::close(fd_) != 0 && st.ok()) st = Fail("close", errno);
  fd_ = -1;
  return st;
}

}  // namespace storebench::whisper
