#include "storebench/driver/kernel_platform.h"

#include <unistd.h>

#include <fstream>
#include <sstream>

namespace storebench::driver {
namespace {

std::optional<std::string> Slurp(const std::string& path) {
  std::ifstream in(path);
  if (!in) return std::nullopt;
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

std::optional<uint64_t> Field(const std::string& text, const std::string& key) {
  std::istringstream in(text);
  std::string k;
  unsigned long long v = 0;
  while (in >> k >> v)
    if (k == key) return v;
  return std::nullopt;
}

// One line of a pressure file: "some avg10=0.00 avg60=0.00 avg300=0.00 total=123".
std::optional<uint64_t> PressureTotal(const std::string& text, const std::string& kind) {
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind(kind + " ", 0) != 0) continue;
    const size_t at = line.find("total=");
    if (at == std::string::npos) return std::nullopt;
    return std::stoull(line.substr(at + 6));
  }
  return std::nullopt;
}

template <typename T>
std::optional<T> Minus(const std::optional<T>& a, const std::optional<T>& b);

template <>
std::optional<CgroupCpu> Minus(const std::optional<CgroupCpu>& a, const std::optional<CgroupCpu>& b) {
  if (!a || !b) return std::nullopt;
  auto d = [](uint64_t x, uint64_t y) { return y >= x ? y - x : 0; };
  return CgroupCpu{d(a->nr_periods, b->nr_periods), d(a->nr_throttled, b->nr_throttled),
                   d(a->throttled_ns, b->throttled_ns)};
}

template <>
std::optional<Pressure> Minus(const std::optional<Pressure>& a, const std::optional<Pressure>& b) {
  if (!a || !b) return std::nullopt;
  auto d = [](uint64_t x, uint64_t y) { return y >= x ? y - x : 0; };
  return Pressure{d(a->some_ns, b->some_ns), d(a->full_ns, b->full_ns)};
}

}  // namespace

std::optional<CgroupCpu> ParseCpuStat(const std::string& text) {
  const auto throttled = Field(text, "nr_throttled");
  if (!throttled) return std::nullopt;
  CgroupCpu c;
  c.nr_throttled = *throttled;
  c.nr_periods = Field(text, "nr_periods").value_or(0);
  if (const auto ns = Field(text, "throttled_time"))
    c.throttled_ns = *ns;
  else if (const auto us = Field(text, "throttled_usec"))
    c.throttled_ns = *us * 1000;
  else
    return std::nullopt;
  return c;
}

std::optional<Pressure> ParsePressure(const std::string& text) {
  const auto some = PressureTotal(text, "some");
  if (!some) return std::nullopt;
  return Pressure{*some * 1000, PressureTotal(text, "full").value_or(0) * 1000};
}

std::string FindCpuStat(const std::string& proc_self_cgroup, const std::string& root) {
  std::istringstream in(proc_self_cgroup);
  std::string line, v2_path;
  std::vector<std::string> candidates;
  while (std::getline(in, line)) {
    // "N:controllers:/path"; v2 is "0::/path".
    const size_t a = line.find(':'), b = line.find(':', a + 1);
    if (a == std::string::npos || b == std::string::npos) continue;
    const std::string controllers = line.substr(a + 1, b - a - 1), path = line.substr(b + 1);
    if (controllers.empty()) {
      v2_path = path;
      continue;
    }
    std::istringstream names(controllers);
    std::string name;
    while (std::getline(names, name, ','))
      if (name == "cpu") {
        candidates.push_back(root + "/" + controllers + path + "/cpu.stat");
        candidates.push_back(root + "/cpu" + path + "/cpu.stat");
      }
  }
  if (!v2_path.empty()) {
    candidates.push_back(root + "/unified" + v2_path + "/cpu.stat");
    candidates.push_back(root + v2_path + "/cpu.stat");
  }
  for (const std::string& c : candidates) {
    std::string norm = c;
    for (size_t at; (at = norm.find("//")) != std::string::npos;) norm.erase(at, 1);
    if (const auto text = Slurp(norm); text && ParseCpuStat(*text)) return norm;
  }
  return "";
}

KernelPlatform::KernelPlatform() {
  if (const auto text = Slurp("/proc/self/cgroup")) cpu_stat_ = FindCpuStat(*text, "/sys/fs/cgroup");
  psi_ = Slurp("/proc/pressure/cpu").has_value();
}

KernelReading KernelPlatform::Read() const {
  KernelReading r;
  if (!cpu_stat_.empty())
    if (const auto text = Slurp(cpu_stat_)) r.cgroup = ParseCpuStat(*text);
  if (psi_) {
    for (auto [name, into] : {std::pair{"cpu", &r.cpu}, std::pair{"memory", &r.memory}, std::pair{"io", &r.io}})
      if (const auto text = Slurp(std::string("/proc/pressure/") + name)) *into = ParsePressure(*text);
  }
  return r;
}

uint64_t ReadThrottledNs(const std::string& path) {
  if (path.empty()) return 0;
  const auto text = Slurp(path);
  const auto c = text ? ParseCpuStat(*text) : std::nullopt;
  return c ? c->throttled_ns : 0;
}

std::vector<std::string> KernelPlatform::MissingSources() const {
  std::vector<std::string> missing;
  if (cpu_stat_.empty()) missing.push_back("cgroup cpu.stat (no cpu controller for this process's cgroup)");
  if (!psi_) missing.push_back("PSI (/proc/pressure)");
  return missing;
}

KernelReading Delta(const KernelReading& a, const KernelReading& b) {
  KernelReading d;
  d.cgroup = Minus(a.cgroup, b.cgroup);
  d.cpu = Minus(a.cpu, b.cpu);
  d.memory = Minus(a.memory, b.memory);
  d.io = Minus(a.io, b.io);
  return d;
}

}  // namespace storebench::driver
