#include "storebench/base/output_path.h"

#include <fcntl.h>
#include <linux/magic.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fmt/format.h>
#include <utility>
#include <vector>

#include "storebench/base/atomic_file.h"

namespace storebench {
namespace {

// File systems that hold the kernel's state, not files: a regular file there
// cannot be made, or writing one changes the system instead of storing data.
const char* PseudoFileSystem(long type) {
  static const std::vector<std::pair<long, const char*>> kPseudo = {
      {PROC_SUPER_MAGIC, "proc"},       {SYSFS_MAGIC, "sysfs"},
      {DEVPTS_SUPER_MAGIC, "devpts"},   {CGROUP_SUPER_MAGIC, "cgroup"},
      {CGROUP2_SUPER_MAGIC, "cgroup2"}, {DEBUGFS_MAGIC, "debugfs"},
      {TRACEFS_MAGIC, "tracefs"},       {SECURITYFS_MAGIC, "securityfs"},
      {BPF_FS_MAGIC, "bpf"},            {PSTOREFS_MAGIC, "pstore"},
      {0x62656570L, "configfs"},        {0x65735543L, "fusectl"},
      {EFIVARFS_MAGIC, "efivarfs"},     {BINFMTFS_MAGIC, "binfmt_misc"},
      {HUGETLBFS_MAGIC, "hugetlbfs"},   {0x19800202L, "mqueue"},
      {NSFS_MAGIC, "nsfs"},             {SELINUX_MAGIC, "selinuxfs"},
      {SMACK_MAGIC, "smackfs"}};
  for (const auto& [magic, name] : kPseudo)
    if (static_cast<unsigned long>(type) == static_cast<unsigned long>(magic)) return name;
  return nullptr;
}

std::string BaseName(const std::string& path) {
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

// `dir` (which exists) is a directory on a real, writable file system.
Status CheckFileSystem(const std::string& dir, const std::string& given, std::string_view flag) {
  auto refuse = [&](const std::string& why) {
    return Status::InvalidArgument(fmt::format("{}: cannot write '{}': {}", flag, given, why));
  };
  struct stat st {};
  if (::stat(dir.c_str(), &st) != 0) return refuse(fmt::format("directory '{}': {}", dir, std::strerror(errno)));
  if (!S_ISDIR(st.st_mode)) return refuse(fmt::format("'{}' is not a directory", dir));
  struct statfs fs {};
  if (::statfs(dir.c_str(), &fs) == 0)
    if (const char* pseudo = PseudoFileSystem(static_cast<long>(fs.f_type)))
      return refuse(fmt::format("'{}' is on {}, a pseudo file system of the kernel; give a path on a disk", dir, pseudo));
  struct statvfs vfs {};
  if (::statvfs(dir.c_str(), &vfs) == 0 && (vfs.f_flag & ST_RDONLY))
    return refuse(fmt::format("'{}' is on a read-only file system", dir));
  return Status::Ok();
}

// Each name is within the file system's NAME_MAX, and the whole path within its PATH_MAX.
Status CheckNameLengths(const std::string& dir, const std::vector<std::string>& names, const std::string& full,
                        const std::string& given, std::string_view flag) {
  errno = 0;
  const long name_max = ::pathconf(dir.c_str(), _PC_NAME_MAX);
  const long path_max = ::pathconf(dir.c_str(), _PC_PATH_MAX);
  for (const std::string& name : names)
    if (name_max > 0 && static_cast<long>(name.size()) > name_max)
      return Status::InvalidArgument(fmt::format(
          "{}: cannot write '{}': the name '{}…' is {} bytes{}; the file system of '{}' allows {}", flag, given,
          name.substr(0, 24), name.size(),
          &name == &names.back() && names.size() > 1 ? " with the suffix of the temporary file written first" : "",
          dir, name_max));
  if (path_max > 0 && static_cast<long>(full.size()) >= path_max)
    return Status::InvalidArgument(fmt::format("{}: cannot write '{}': the path is {} bytes; the file system allows {}",
                                               flag, given, full.size(), path_max - 1));
  return Status::Ok();
}

// Creates `probe`, writes one block into it and removes it: what the real
// write will do, short of the size. A full disk or a quota fails here.
Status Probe(const std::string& probe, const std::string& dir, const std::string& given, std::string_view flag) {
  auto refuse = [&](int err) {
    return Status::InvalidArgument(fmt::format("{}: cannot write '{}': {} (a test file in '{}')", flag, given,
                                               err == ENOSPC ? "no space left on the device" : std::strerror(err), dir));
  };
  const int fd = ::open(probe.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return refuse(errno);
  static const char kBlock[4096] = {};
  ssize_t n;
  do n = ::write(fd, kBlock, sizeof kBlock);
  while (n < 0 && errno == EINTR);
  const int err = n < 0 ? errno : n < static_cast<ssize_t>(sizeof kBlock) ? ENOSPC : 0;
  ::close(fd);
  ::unlink(probe.c_str());
  return err ? refuse(err) : Status::Ok();
}

}  // namespace

Status CheckOutputPath(const std::string& given, std::string_view flag) {
  if (given.empty()) return Status::InvalidArgument(fmt::format("{}: give a file name, e.g. {} out.json", flag, flag));
  const std::string path = ResolveOutputLink(given);
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0) {
    if (S_ISDIR(st.st_mode))
      return Status::InvalidArgument(fmt::format("{}: '{}' is a directory; give a file name", flag, given));
    if (!S_ISREG(st.st_mode)) {  // a device or FIFO is written through, wherever it lives
      if (::access(path.c_str(), W_OK) != 0)
        return Status::InvalidArgument(fmt::format("{}: cannot write '{}': {}", flag, given, std::strerror(errno)));
      return Status::Ok();
    }
  }  // else a file to be made (a name too long to look up is measured below)
  const std::string dir = DirectoryOf(path);
  struct stat dst {};
  if (::stat(dir.c_str(), &dst) != 0 || !S_ISDIR(dst.st_mode))
    return Status::InvalidArgument(fmt::format("{}: cannot write '{}': directory '{}' does not exist", flag, given, dir));
  STOREBENCH_RETURN_IF_ERROR(CheckFileSystem(dir, given, flag));
  const std::string temp = AtomicTempPath(path);
  STOREBENCH_RETURN_IF_ERROR(CheckNameLengths(dir, {BaseName(path), BaseName(temp)}, temp, given, flag));
  if (::access(dir.c_str(), W_OK) != 0)
    return Status::InvalidArgument(fmt::format("{}: cannot write '{}': {}", flag, given, std::strerror(errno)));
  return Probe(temp, dir, given, flag);
}

Status CheckOutputDirectory(const std::string& given, std::string_view flag) {
  if (given.empty()) return Status::InvalidArgument(fmt::format("{}: give a directory, not an empty value", flag));
  // The names still to be made, below the nearest directory that exists.
  std::string existing = given;
  std::vector<std::string> to_make;
  struct stat st {};
  while (::stat(existing.c_str(), &st) != 0) {  // also a name too long to look up: measured below
    while (existing.size() > 1 && existing.back() == '/') existing.pop_back();
    to_make.push_back(BaseName(existing));
    const std::string parent = DirectoryOf(existing);
    if (parent == existing) break;
    existing = parent;
  }
  STOREBENCH_RETURN_IF_ERROR(CheckFileSystem(existing, given, flag));
  const std::string probe = fmt::format("{}/.storebench.probe.{}", existing, getpid());
  to_make.push_back(BaseName(probe));
  STOREBENCH_RETURN_IF_ERROR(CheckNameLengths(existing, to_make, given + "/" + BaseName(probe), given, flag));
  return Probe(probe, existing, given, flag);
}

Status CheckDataDirectoryWritable(const std::string& dir, std::string_view flag) {
  struct stat st {};
  // A missing data set is the backend's to name (with its remedy: prepare it).
  if (dir.empty() || ::stat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) return Status::Ok();
  return CheckFileSystem(dir, dir, flag);
}

}  // namespace storebench
