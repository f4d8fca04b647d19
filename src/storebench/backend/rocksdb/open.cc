#include "storebench/backend/rocksdb/open.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <rocksdb/convenience.h>
#include <rocksdb/utilities/options_util.h>

#include <algorithm>
#include <cerrno>
#include <fmt/format.h>
#include <vector>

#include "storebench/base/proc_locks.h"

namespace storebench::backend::rocksdb_backend {
namespace {

// The process holding the POSIX lock RocksDB takes on DIR/LOCK, if another one
// does. Opening LOCK is safe only while this process holds no lock on it (its
// close would drop that lock): that case is left to RocksDB's own check.
std::optional<pid_t> LockHolder(const std::string& lock_path) {
  struct stat st {};
  if (::stat(lock_path.c_str(), &st) != 0) return std::nullopt;
  const std::vector<uint64_t> own = InodesWithOwnPosixLocks();
  if (std::find(own.begin(), own.end(), static_cast<uint64_t>(st.st_ino)) != own.end()) return std::nullopt;
  const int fd = ::open(lock_path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return std::nullopt;
  struct flock fl {};
  fl.l_type = F_WRLCK;
  fl.l_whence = SEEK_SET;
  const int rc = ::fcntl(fd, F_GETLK, &fl);
  ::close(fd);
  if (rc != 0 || fl.l_type == F_UNLCK) return std::nullopt;
  return fl.l_pid;
}

Status InUse(const std::string& dir, const std::string& holder) {
  return Status::InvalidArgument(fmt::format(
      "--data {}: the database is open in another process ({} holds {}/LOCK); wait for it to close the "
      "database, or run on a copy",
      dir, holder, dir));
}

// The OPTIONS file RocksDB would read back, parsed without writing anything.
Status CheckOptionsFile(const std::string& dir) {
  rocksdb::ConfigOptions config;
  config.ignore_unknown_options = true;  // options of a newer RocksDB are not corruption
  rocksdb::DBOptions db;
  std::vector<rocksdb::ColumnFamilyDescriptor> families;
  rocksdb::Status s = rocksdb::LoadLatestOptions(config, dir, &db, &families);
  if (s.ok() || s.IsNotFound()) return Status::Ok();
  return Status::Corruption(fmt::format("--data {}: RocksDB cannot read its OPTIONS file: {}; restore it from a "
                                        "backup, or remove it to open the database with storebench's options",
                                        dir, s.ToString()));
}

}  // namespace

StatusOr<rocksdb::DB*> OpenDatabase(const rocksdb::Options& options, const std::string& dir) {
  if (std::optional<pid_t> pid = LockHolder(dir + "/LOCK")) return InUse(dir, DescribeProcess(*pid));
  STOREBENCH_RETURN_IF_ERROR(CheckOptionsFile(dir));
  rocksdb::DB* raw = nullptr;
  rocksdb::Status s = rocksdb::DB::Open(options, dir, &raw);
  if (s.ok()) return raw;
  const std::string msg = fmt::format("--data {}: RocksDB cannot open it: {}", dir, s.ToString());
  // "lock hold by current process" or EAGAIN on LOCK: the holder is this process or has just taken it.
  if (s.IsIOError() && s.ToString().find("lock") != std::string::npos)
    return InUse(dir, s.ToString().find("current process") != std::string::npos ? "this process" : "another process");
  if (s.IsCorruption()) return Status::Corruption(msg);
  if (s.IsIOError()) return Status::IOError(msg);
  return Status::InvalidArgument(msg);
}

}  // namespace storebench::backend::rocksdb_backend
