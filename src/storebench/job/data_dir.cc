#include "storebench/job/data_dir.h"

#include <sys/stat.h>

#include <filesystem>
#include <fmt/format.h>

namespace storebench::job {
namespace fs = std::filesystem;
namespace {

// The first entry that is not storebench's nor a file system's own (an ext4
// root's lost+found); empty when there is none.
std::string ForeignEntry(const std::string& dir, bool* marked) {
  *marked = false;
  std::error_code ec;
  std::string first;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    const std::string name = e.path().filename().string();
    if (name == kDataSetMarker) *marked = true;
    else if (name != "lost+found" && first.empty()) first = name;
  }
  return *marked ? std::string() : first;
}

// The topmost missing directory on the way to `dir` (empty when it exists).
std::string TopMissing(const std::string& dir) {
  std::error_code ec;
  fs::path p = fs::absolute(dir, ec), top;
  for (; !p.empty() && !fs::exists(p, ec); p = p.parent_path()) {
    top = p;
    if (p == p.parent_path()) break;
  }
  return top.string();
}

}  // namespace

StatusOr<DirLock> LockDataSetForRun(const backend::Backend& b) {
  const std::string dir = b.DataDir();
  if (dir.empty()) return DirLock();
  return DirLock::Acquire(dir, "--data", b.WritesData() ? DirLock::Mode::kExclusive : DirLock::Mode::kShared);
}

StatusOr<PrepareClaim> PrepareClaim::Take(const std::string& dir) {
  PrepareClaim c;
  c.dir_ = dir;
  c.made_ = TopMissing(dir);
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec)
    return Status::IOError(fmt::format("--data {}: cannot create it: {}{}", dir, ec.message(),
                                               ec == std::errc::read_only_file_system ? " (a read-only file system)" : ""));
  auto lock = DirLock::Acquire(dir, "--data");
  if (!lock.ok()) return lock.status();
  c.lock_ = std::move(*lock);
  bool marked = false;
  const std::string foreign = ForeignEntry(dir, &marked);
  if (!foreign.empty())
    return Status::InvalidArgument(fmt::format(
        "--data {}: holds files storebench did not make (e.g. '{}'); prepare into an empty or new directory, or "
        "move those files away",
        dir, foreign));
  c.was_empty_ = !marked;
  if (!marked) {
    const std::string marker = dir + "/" + kDataSetMarker;
    FILE* f = std::fopen(marker.c_str(), "w");
    if (!f) return ErrnoStatus("create", marker, errno);
    std::fclose(f);
  }
  return c;
}

void PrepareClaim::Undo() {
  std::error_code ec;
  if (!made_.empty()) {
    fs::remove_all(made_, ec);
    return;
  }
  if (!was_empty_) return;
  for (const auto& e : fs::directory_iterator(dir_, ec))
    if (e.path().filename() != "lost+found") fs::remove_all(e.path(), ec);
}

}  // namespace storebench::job
