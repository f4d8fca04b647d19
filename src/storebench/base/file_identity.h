// Which file a path names, so that two spellings of one file are seen as one:
// `a.json` and `./a.json`, a relative and an absolute path, a symbolic link
// and its target, two hard links. Every command that writes files checks its
// outputs against each other and against its inputs with CommandFiles before
// any work: no output ever replaces an input or another output.
// Thread-safety: free functions and a plain value type; no shared state.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "storebench/base/status.h"

namespace storebench {

// A file that exists is its device and inode (symbolic links followed); one
// yet to be made is the absolute path it will be created at: its directory
// resolved by realpath(3), a dangling link followed to where it points (as
// WriteFileAtomically follows it).
struct FileIdentity {
  bool exists = false;
  uint64_t device = 0, inode = 0;
  std::string resolved;  // absolute, symbolic links resolved as far as they exist

  bool SameFileAs(const FileIdentity& other) const {
    return exists && other.exists ? device == other.device && inode == other.inode : resolved == other.resolved;
  }
};

FileIdentity IdentifyFile(const std::string& path);

// The files one command reads and writes, each with the flag (or operand)
// that names it. Empty paths are ignored, so optional flags go in unchecked.
class CommandFiles {
 public:
  void Input(std::string_view flag, const std::string& path);
  // A directory whose files the command reads (and may write itself): no
  // other output may be put directly in it.
  void InputDirectory(std::string_view flag, const std::string& dir);
  void Output(std::string_view flag, const std::string& path);
  // A directory the command makes (if missing) and writes into (--out).
  void OutputDirectory(std::string_view flag, const std::string& dir);

  // InvalidArgument, one line naming the flag: first, when an output cannot
  // be written where it is asked for (output_path.h: every output and output
  // directory proved writable); then, naming both flags, when an output is the
  // same file as an earlier output or as an input, or lies in an input
  // directory. Every command that writes calls it once, before any work.
  Status Check() const;

 private:
  struct File {
    std::string flag, path;
    FileIdentity id;
  };
  std::vector<File> inputs_, directories_, outputs_;
  std::vector<std::pair<std::string, std::string>> output_directories_;  // flag, path
};

}  // namespace storebench
