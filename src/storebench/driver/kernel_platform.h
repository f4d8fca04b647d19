// What the kernel itself says about the platform, where it says anything:
// the process's cgroup CPU throttling (cgroup v1 `cpu.stat`: nr_throttled,
// throttled_time in ns; cgroup v2 `cpu.stat`: nr_throttled, throttled_usec)
// and pressure stall information (/proc/pressure/{cpu,memory,io}: the `some`
// and `full` totals in us). Steal is read with the machine's CPU time
// (cpu_account.h). A source the kernel does not have is reported as missing,
// never as 0: a reading holds std::nullopt for it, and MissingSources() names
// them for the result.
// Thread-safety: a KernelPlatform is read by one thread at a time; the paths
// it found are immutable after construction.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace storebench::driver {

struct CgroupCpu {
  uint64_t nr_periods = 0, nr_throttled = 0, throttled_ns = 0;
};

struct Pressure {
  uint64_t some_ns = 0, full_ns = 0;
};

struct KernelReading {
  std::optional<CgroupCpu> cgroup;
  std::optional<Pressure> cpu, memory, io;
};

// Parses a cpu.stat file's text (v1 throttled_time ns, or v2 throttled_usec).
std::optional<CgroupCpu> ParseCpuStat(const std::string& text);
// Parses one /proc/pressure file's text (`full` may be absent for cpu: 0).
std::optional<Pressure> ParsePressure(const std::string& text);
// The cpu.stat of the cgroup `proc_self_cgroup` (the text of /proc/self/cgroup)
// names, under `root` (normally /sys/fs/cgroup): v1's cpu controller first,
// then the v2 hierarchy; "" when none exists or it has no throttling fields.
std::string FindCpuStat(const std::string& proc_self_cgroup, const std::string& root);

class KernelPlatform {
 public:
  // Finds the sources for this process.
  KernelPlatform();
  KernelReading Read() const;
  const std::string& cpu_stat_path() const { return cpu_stat_; }
  // The sources that are missing here, e.g. {"cgroup cpu.stat", "PSI"}.
  std::vector<std::string> MissingSources() const;

 private:
  std::string cpu_stat_;
  bool psi_ = false;
};

// Throttled time so far of the cgroup whose cpu.stat is at `path` (0 for "" or unreadable).
uint64_t ReadThrottledNs(const std::string& path);

// b − a for every source both readings have.
KernelReading Delta(const KernelReading& a, const KernelReading& b);

}  // namespace storebench::driver
