#include "storebench/base/proc_locks.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <sstream>

#include <fmt/format.h>

namespace storebench {
namespace {

ProcLock::Kind KindOf(const std::string& word) {
  if (word == "POSIX") return ProcLock::Kind::kPosix;
  if (word == "FLOCK") return ProcLock::Kind::kFlock;
  if (word == "OFDLCK") return ProcLock::Kind::kOfd;
  return ProcLock::Kind::kOther;
}

std::string ReadWhole(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace

std::vector<ProcLock> ParseProcLocks(const std::string& text) {
  std::vector<ProcLock> out;
  std::istringstream lines(text);
  std::string line;
  while (std::getline(lines, line)) {
    // A blocked waiter is listed as "1: -> POSIX ..."; it holds nothing.
    if (line.find("->") != std::string::npos) continue;
    std::istringstream w(line);
    std::string ordinal, kind, mode, access, pid, id;
    if (!(w >> ordinal >> kind >> mode >> access >> pid >> id)) continue;
    const size_t colon = id.rfind(':');
    if (colon == std::string::npos) continue;
    ProcLock l;
    l.kind = KindOf(kind);
    l.write = access == "WRITE";
    try {
      l.pid = std::max(0, std::stoi(pid));
      l.inode = std::stoull(id.substr(colon + 1));
    } catch (...) {
      continue;
    }
    out.push_back(l);
  }
  return out;
}

std::vector<ProcLock> ReadProcLocks() { return ParseProcLocks(ReadWhole("/proc/locks")); }

std::vector<uint64_t> InodesWithOwnPosixLocks() {
  std::vector<uint64_t> out;
  const pid_t self = getpid();
  for (const ProcLock& l : ReadProcLocks())
    if (l.kind == ProcLock::Kind::kPosix && l.pid == self) out.push_back(l.inode);
  return out;
}

std::optional<pid_t> OtherLockHolder(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return std::nullopt;
  const pid_t self = getpid();
  for (const ProcLock& l : ReadProcLocks())
    if (l.inode == st.st_ino && l.pid > 0 && l.pid != self) return l.pid;
  return std::nullopt;
}

std::string DescribeProcess(pid_t pid) {
  std::string comm = ReadWhole(fmt::format("/proc/{}/comm", pid));
  while (!comm.empty() && (comm.back() == '\n' || comm.back() == ' ')) comm.pop_back();
  return comm.empty() ? fmt::format("pid {}", pid) : fmt::format("pid {} ({})", pid, comm);
}

}  // namespace storebench
