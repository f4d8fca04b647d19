#include "storebench/base/dir_lock.h"

#include "storebench/base/proc_locks.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <filesystem>
#include <fmt/format.h>

#include "storebench/base/atomic_file.h"

namespace storebench {

StatusOr<DirLock> DirLock::Acquire(const std::string& dir, std::string_view flag, Mode mode) {
  int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  // Where the directory cannot be opened nothing can be written there either:
  // the caller's own error names the cause better than the lock's would.
  if (fd < 0) return DirLock();
  const int op = (mode == Mode::kShared ? LOCK_SH : LOCK_EX) | LOCK_NB;
  while (::flock(fd, op) != 0) {
    if (errno == EINTR) continue;
    const int err = errno;
    ::close(fd);
    if (err != EWOULDBLOCK) return ErrnoStatus("flock", dir, err);
    const std::optional<pid_t> holder = OtherLockHolder(dir);
    return Status::InvalidArgument(fmt::format(
        "{} {}: another storebench process is writing there or reading it ({} holds the directory's lock); wait "
        "for it to finish or choose another directory",
        flag, dir, holder ? DescribeProcess(*holder) : std::string("its pid is not listed in /proc/locks")));
  }
  return DirLock(fd);
}

StatusOr<DirLock> DirLock::AcquireForFile(const std::string& file, std::string_view flag) {
  const std::string resolved = ResolveOutputLink(file);
  const size_t slash = resolved.rfind('/');
  const std::string name = slash == std::string::npos ? resolved : resolved.substr(slash + 1);
  return Lock(DirectoryOf(resolved) + "/." + name + ".storebench.lock", flag, file);
}

StatusOr<DirLock> DirLock::Lock(const std::string& path, std::string_view flag, const std::string& what) {
  int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  // Where no lock file can be made nothing else can be written either: the
  // writer's own error names the cause better than the lock's would.
  if (fd < 0 && (errno == EROFS || errno == EACCES || errno == ENOENT || errno == ENOTDIR)) return DirLock();
  if (fd < 0) return ErrnoStatus("open", path, errno);
  while (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
    if (errno == EINTR) continue;
    const int err = errno;
    ::close(fd);
    if (err == EWOULDBLOCK)
      return Status::InvalidArgument(fmt::format("{} {}: another storebench process is writing there (it holds {}); "
                                                 "wait for it to finish or choose another path",
                                                 flag, what, path));
    return ErrnoStatus("flock", path, err);
  }
  return DirLock(fd);
}

StatusOr<DirLock> DirLock::CreateAndAcquire(const std::string& dir, std::string_view flag) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return Status::InvalidArgument(fmt::format("{}: cannot create '{}': {}", flag, dir, ec.message()));
  return Acquire(dir, flag);
}

DirLock& DirLock::operator=(DirLock&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = other.fd_;
    other.fd_ = -1;
  }
  return *this;
}

DirLock::~DirLock() {
  if (fd_ >= 0) ::close(fd_);
}

}  // namespace storebench
