#include "storebench/base/atomic_file.h"

#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fmt/format.h>

namespace storebench {
namespace {

Status WriteAll(int fd, std::string_view text, const std::string& path) {
  size_t done = 0;
  while (done < text.size()) {
    ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      return ErrnoStatus("write", path, errno);
    }
    done += static_cast<size_t>(n);
  }
  return Status::Ok();
}

}  // namespace

std::string DirectoryOf(const std::string& path) {
  auto slash = path.rfind('/');
  if (slash == std::string::npos) return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}

std::string AtomicTempPath(const std::string& resolved) { return fmt::format("{}.tmp.{}", resolved, getpid()); }

std::string ResolveOutputLink(const std::string& path) {
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0 || !S_ISLNK(st.st_mode)) return path;
  char buf[PATH_MAX];
  if (::realpath(path.c_str(), buf) != nullptr) return buf;
  // A dangling link: its target does not exist yet; create it where the link points.
  ssize_t n = ::readlink(path.c_str(), buf, sizeof buf - 1);
  if (n <= 0) return path;
  std::string target(buf, static_cast<size_t>(n));
  return target[0] == '/' ? target : DirectoryOf(path) + "/" + target;
}

Status WriteFileAtomically(const std::string& given, std::string_view text) {
  const std::string path = ResolveOutputLink(given);
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode)) {
    if (S_ISDIR(st.st_mode)) return Status::InvalidArgument(fmt::format("{}: is a directory", given));
    int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC);
    if (fd < 0) return ErrnoStatus("open", path, errno);
    Status s = WriteAll(fd, text, path);
    ::close(fd);
    return s;
  }
  const std::string tmp = AtomicTempPath(path);
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return ErrnoStatus("open", path, errno);
  Status s = WriteAll(fd, text, path);
  if (s.ok() && ::fsync(fd) != 0) s = ErrnoStatus("fsync", path, errno);
  if (::close(fd) != 0 && s.ok()) s = ErrnoStatus("close", path, errno);
  if (s.ok() && ::rename(tmp.c_str(), path.c_str()) != 0) s = ErrnoStatus("rename", path, errno);
  if (!s.ok()) {
    ::unlink(tmp.c_str());
    return s;
  }
  int dir = ::open(DirectoryOf(path).c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir >= 0) {
    ::fsync(dir);
    ::close(dir);
  }
  return Status::Ok();
}

}  // namespace storebench
