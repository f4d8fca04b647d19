#include "storebench/io/page_cache.h"
#include "storebench/io/fd.h"

#include "storebench/base/proc_locks.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <optional>
#include <cerrno>
#include <vector>

#include <fmt/format.h>

// Debian 12's kernel headers predate cachestat (Linux 6.5); the number is the
// same on every architecture that uses the generic syscall table and x86_64.
#ifndef __NR_cachestat
#define __NR_cachestat 451
#endif

namespace storebench::io {
namespace {

struct CachestatRange {
  uint64_t off;
  uint64_t len;  // 0 = to the end of the file
};
struct Cachestat {
  uint64_t nr_cache;
  uint64_t nr_dirty;
  uint64_t nr_writeback;
  uint64_t nr_evicted;
  uint64_t nr_recently_evicted;
};

using Fd = UniqueFd;

const uint64_t kPage = static_cast<uint64_t>(sysconf(_SC_PAGESIZE));

enum class Probe { kOk, kUnsupported, kUntruthful };

// A file's last page is resident whole; its bytes beyond the end of the file
// are not the file's, so residency never exceeds the file's size.
Probe TryCachestat(int fd, uint64_t size, Residency& r) {
  CachestatRange range{0, 0};
  Cachestat cs{};
  if (syscall(__NR_cachestat, fd, &range, &cs, 0) != 0) {
    return errno == EPERM ? Probe::kUntruthful : Probe::kUnsupported;
  }
  r.resident_bytes += std::min<uint64_t>(cs.nr_cache * kPage, size);
  r.dirty_bytes += cs.nr_dirty * kPage;
  return Probe::kOk;
}

// Counts resident pages in windows so the vector stays small for huge files.
Status Mincore(int fd, uint64_t size, const std::string& path, Residency& r) {
  constexpr uint64_t kWindow = uint64_t{1} << 30;
  std::vector<unsigned char> vec;
  for (uint64_t off = 0; off < size; off += kWindow) {
    const uint64_t len = std::min(kWindow, size - off);
    void* p = mmap(nullptr, len, PROT_READ, MAP_SHARED, fd, static_cast<off_t>(off));
    if (p == MAP_FAILED) return ErrnoStatus("mmap for mincore", path, errno);
    vec.resize((len + kPage - 1) / kPage);
    const int rc = mincore(p, len, vec.data());
    const int err = errno;
    munmap(p, len);
    if (rc != 0) return ErrnoStatus("mincore", path, err);
    uint64_t resident = 0;
    for (unsigned char v : vec) resident += (v & 1) * kPage;
    r.resident_bytes += std::min(resident, len);  // the window's last page counts up to the file's end
  }
  return Status::Ok();
}

// The files this process holds POSIX locks on, read once per call: opening
// and closing one of them would drop the lock (see the header).
class LockedFiles {
 public:
  LockedFiles() : inodes_(InodesWithOwnPosixLocks()) {}
  // The file's stat when it may be opened; nullopt when it must not be (or is gone: errno says which).
  std::optional<struct stat> MayOpen(const std::string& path, bool* locked) const {
    struct stat st {};
    *locked = false;
    if (::stat(path.c_str(), &st) != 0) return std::nullopt;
    *locked = std::find(inodes_.begin(), inodes_.end(), static_cast<uint64_t>(st.st_ino)) != inodes_.end();
    if (*locked) return std::nullopt;
    return st;
  }

 private:
  std::vector<uint64_t> inodes_;
};

}  // namespace

std::string_view ResidencySourceName(ResidencySource s) {
  switch (s) {
    case ResidencySource::kCachestat:
      return "cachestat";
    case ResidencySource::kMincore:
      return "mincore";
    case ResidencySource::kUnknown:
      break;
  }
  return "unknown";
}

bool MincoreIsTruthful(const std::string& path) {
  struct stat st {};
  if (stat(path.c_str(), &st) != 0) return false;
  return st.st_uid == geteuid() || faccessat(AT_FDCWD, path.c_str(), W_OK, AT_EACCESS) == 0;
}

StatusOr<Residency> MeasureResidency(std::span<const std::string> paths, const ResidencyOptions& options) {
  Residency r;
  bool cachestat_works = options.use_cachestat;
  const LockedFiles locked_files;
  for (const std::string& path : paths) {
    bool locked = false;
    if (!locked_files.MayOpen(path, &locked)) {
      if (locked) {
        r.files++;
        r.unknown_files++;
        continue;
      }
      return ErrnoStatus("stat", path, errno);
    }
    Fd f(open(path.c_str(), O_RDONLY | O_CLOEXEC));
    if (f.fd < 0) return ErrnoStatus("open", path, errno);
    struct stat st {};
    if (fstat(f.fd, &st) != 0) return ErrnoStatus("fstat", path, errno);
    const auto size = static_cast<uint64_t>(st.st_size);
    r.files++;
    r.file_bytes += size;
    if (size == 0) continue;
    if (cachestat_works) {
      const Probe p = TryCachestat(f.fd, size, r);
      if (p == Probe::kOk) {
        r.known_bytes += size;
        r.source = ResidencySource::kCachestat;
        continue;
      }
      if (p == Probe::kUntruthful) {
        r.unknown_files++;
        continue;
      }
      cachestat_works = false;  // ENOSYS: an older kernel; mincore from now on
    }
    if (!MincoreIsTruthful(path)) {
      r.unknown_files++;
      continue;
    }
    STOREBENCH_RETURN_IF_ERROR(Mincore(f.fd, size, path, r));
    r.known_bytes += size;
    r.source = ResidencySource::kMincore;
  }
  return r;
}

Status EvictFromCache(std::span<const std::string> paths) {
  const LockedFiles locked_files;
  for (const std::string& path : paths) {
    bool locked = false;
    if (!locked_files.MayOpen(path, &locked) && locked) continue;
    Fd f(open(path.c_str(), O_RDONLY | O_CLOEXEC));
    if (f.fd < 0) return ErrnoStatus("open", path, errno);
    // DONTNEED skips dirty pages, so they must reach the disk first.
    if (fsync(f.fd) != 0) return ErrnoStatus("fsync", path, errno);
    const int rc = posix_fadvise(f.fd, 0, 0, POSIX_FADV_DONTNEED);
    if (rc != 0) return ErrnoStatus("posix_fadvise(DONTNEED)", path, rc);
  }
  return Status::Ok();
}

Status DropCaches(const char* control) {
  sync();
  Fd f(open(control, O_WRONLY | O_CLOEXEC));
  int err = f.fd < 0 ? errno : 0;
  if (err == 0 && write(f.fd, "3\n", 2) != 2) err = errno;
  if (err == 0) return Status::Ok();
  const Status st = ErrnoStatus("write 3 to", control, err);
  if (err == EACCES || err == EPERM || err == EROFS) {
    return Status::InvalidArgument(st.message() +
                                   " (dropping all caches needs root outside a read-only /proc; use cold cache "
                                   "eviction, which needs no privilege)");
  }
  return st;
}

StatusOr<uint64_t> WarmCache(std::span<const std::string> paths, size_t buffer_size) {
  std::vector<char> buf(std::max<size_t>(buffer_size, 4096));
  uint64_t total = 0;
  const LockedFiles locked_files;
  for (const std::string& path : paths) {
    bool locked = false;
    if (!locked_files.MayOpen(path, &locked) && locked) continue;
    Fd f(open(path.c_str(), O_RDONLY | O_CLOEXEC));
    if (f.fd < 0) return ErrnoStatus("open", path, errno);
    for (;;) {
      const ssize_t n = read(f.fd, buf.data(), buf.size());
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) return ErrnoStatus("read", path, errno);
      if (n == 0) break;
      total += static_cast<uint64_t>(n);
    }
  }
  return total;
}

}  // namespace storebench::io
