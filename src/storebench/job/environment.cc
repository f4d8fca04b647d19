#include "storebench/job/environment.h"

#include <nlohmann/json.hpp>
#include <sys/statfs.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <fstream>
#include <linux/magic.h>
#include <thread>

#include "storebench/measure/clock.h"

namespace storebench::job {
namespace {

std::string CpuModel() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("model name", 0) == 0) {
      auto colon = line.find(':');
      if (colon != std::string::npos) return line.substr(line.find_first_not_of(" \t", colon + 1));
    }
  }
  return "";
}

std::string FilesystemType(const std::string& path) {
  struct statfs st {};
  if (path.empty() || statfs(path.c_str(), &st) != 0) return "";
  switch (static_cast<unsigned long>(st.f_type)) {
    case EXT4_SUPER_MAGIC: return "ext4";
    case TMPFS_MAGIC: return "tmpfs";
    case XFS_SUPER_MAGIC: return "xfs";
    case BTRFS_SUPER_MAGIC: return "btrfs";
    case OVERLAYFS_SUPER_MAGIC: return "overlayfs";
    case NFS_SUPER_MAGIC: return "nfs";
    default: {
      char buf[32];
      snprintf(buf, sizeof buf, "0x%lx", static_cast<unsigned long>(st.f_type));
      return buf;
    }
  }
}

}  // namespace

nlohmann::json DescribeEnvironment(const std::string& data_path) {
  utsname u{};
  uname(&u);
  char host[256] = {};
  gethostname(host, sizeof host - 1);
  long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
  nlohmann::json env = {
      {"kernel", std::string(u.sysname) + " " + u.release},
      {"machine", u.machine},
      {"cpu_model", CpuModel()},
      {"cpus", std::thread::hardware_concurrency()},
      {"memory_bytes", pages > 0 && page > 0 ? static_cast<uint64_t>(pages) * static_cast<uint64_t>(page) : 0},
      {"hostname", host},
      {"clock", measure::Clock::Default().source_name()},
  };
  if (!data_path.empty()) {
    env["data_path"] = data_path;
    env["filesystem"] = FilesystemType(data_path);
  }
  return env;
}

}  // namespace storebench::job
