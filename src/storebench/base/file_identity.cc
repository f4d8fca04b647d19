#include "storebench/base/file_identity.h"

#include "storebench/base/output_path.h"

#include <limits.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fmt/format.h>

namespace storebench {
namespace {

namespace fs = std::filesystem;

// A dangling link's target (relative targets are relative to the link's
// directory), link after link: where a write through `path` creates the file.
fs::path FollowDanglingLinks(fs::path path) {
  for (int hops = 0; hops < 40; ++hops) {  // 40: the kernel's own limit (MAXSYMLINKS)
    struct stat st {};
    if (::lstat(path.c_str(), &st) != 0 || !S_ISLNK(st.st_mode)) return path;
    char buf[PATH_MAX];
    const ssize_t n = ::readlink(path.c_str(), buf, sizeof buf - 1);
    if (n <= 0) return path;
    const fs::path target(std::string(buf, static_cast<size_t>(n)));
    path = target.is_absolute() ? target : path.parent_path() / target;
  }
  return path;
}

}  // namespace

FileIdentity IdentifyFile(const std::string& path) {
  FileIdentity id;
  std::error_code ec;
  const fs::path absolute = fs::absolute(path.empty() ? fs::path(".") : fs::path(path), ec);
  struct stat st {};
  if (::stat(absolute.c_str(), &st) == 0) {
    id.exists = true;
    id.device = st.st_dev;
    id.inode = st.st_ino;
    id.resolved = fs::canonical(absolute, ec).string();
    if (ec) id.resolved = absolute.lexically_normal().string();
    return id;
  }
  const fs::path target = FollowDanglingLinks(absolute);
  fs::path resolved = fs::weakly_canonical(target, ec);
  id.resolved = (ec ? target.lexically_normal() : resolved).string();
  return id;
}

void CommandFiles::Input(std::string_view flag, const std::string& path) {
  if (!path.empty()) inputs_.push_back({std::string(flag), path, IdentifyFile(path)});
}

void CommandFiles::InputDirectory(std::string_view flag, const std::string& dir) {
  if (!dir.empty()) directories_.push_back({std::string(flag), dir, IdentifyFile(dir)});
}

void CommandFiles::Output(std::string_view flag, const std::string& path) {
  if (!path.empty()) outputs_.push_back({std::string(flag), path, IdentifyFile(path)});
}

void CommandFiles::OutputDirectory(std::string_view flag, const std::string& dir) {
  if (!dir.empty()) output_directories_.emplace_back(std::string(flag), dir);
}

Status CommandFiles::Check() const {
  for (const File& out : outputs_) STOREBENCH_RETURN_IF_ERROR(CheckOutputPath(out.path, out.flag));
  for (const auto& [flag, dir] : output_directories_) STOREBENCH_RETURN_IF_ERROR(CheckOutputDirectory(dir, flag));
  for (size_t i = 0; i < outputs_.size(); ++i) {
    const File& out = outputs_[i];
    for (const File& in : inputs_)
      if (out.id.SameFileAs(in.id))
        return Status::InvalidArgument(
            fmt::format("{}: '{}' is the same file as the input {} '{}'; an output never replaces an input, write it "
                        "elsewhere",
                        out.flag, out.path, in.flag, in.path));
    for (size_t k = 0; k < i; ++k)
      if (out.id.SameFileAs(outputs_[k].id))
        return Status::InvalidArgument(fmt::format("{}: '{}' is the same file as {} '{}'; give each output its own file",
                                                   out.flag, out.path, outputs_[k].flag, outputs_[k].path));
    const FileIdentity parent = IdentifyFile(fs::path(out.id.resolved).parent_path().string());
    for (const File& dir : directories_)
      if (parent.SameFileAs(dir.id))
        return Status::InvalidArgument(fmt::format(
            "{}: '{}' is inside {} '{}', whose files storebench reads and writes itself; write it elsewhere", out.flag,
            out.path, dir.flag, dir.path));
  }
  return Status::Ok();
}

}  // namespace storebench
