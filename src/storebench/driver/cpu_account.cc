#include "storebench/driver/cpu_account.h"

#include <dirent.h>
#include <pthread.h>
#include <sched.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <utility>

#include "storebench/io/proc_io.h"

namespace storebench::driver {
namespace {

// A thread's time on a CPU so far (schedstat's first field); false when it has exited.
bool OnCpuNs(pid_t tid, uint64_t* ns, uint64_t* runqueue = nullptr) {
  char path[64];
  std::snprintf(path, sizeof path, "/proc/self/task/%d/schedstat", static_cast<int>(tid));
  std::FILE* f = std::fopen(path, "re");
  if (!f) return false;
  unsigned long long on_cpu = 0, waiting = 0;
  const int n = std::fscanf(f, "%llu %llu", &on_cpu, &waiting);
  std::fclose(f);
  if (n != 2) return false;
  *ns = on_cpu;
  if (runqueue) *runqueue = waiting;
  return true;
}

std::string Comm(pid_t tid) {
  char path[64];
  std::snprintf(path, sizeof path, "/proc/self/task/%d/comm", static_cast<int>(tid));
  std::FILE* f = std::fopen(path, "re");
  if (!f) return {};
  char buf[64] = {};
  const bool got = std::fgets(buf, sizeof buf, f) != nullptr;
  std::fclose(f);
  if (!got) return {};
  std::string s(buf);
  while (!s.empty() && (s.back() == '\n' || s.back() == '\r')) s.pop_back();
  return s;
}

bool Contains(const std::vector<pid_t>& sorted, pid_t tid) {
  return std::binary_search(sorted.begin(), sorted.end(), tid);
}

}  // namespace

void CpuHeld::Add(const CpuHeld& o) {
  workers_ns += o.workers_ns;
  engine_ns += o.engine_ns;
  client_ns += o.client_ns;
  others_ns += o.others_ns;
  steal_ns += o.steal_ns;
  capacity_ns += o.capacity_ns;
  backlogged_ns += o.backlogged_ns;
  backlogged_runqueue_ns += o.backlogged_runqueue_ns;
  preempted_in_ops_ns += o.preempted_in_ops_ns;
  stopped_between_ops_ns += o.stopped_between_ops_ns;
  for (const auto& [name, ns] : o.engine_threads) engine_threads[name] += ns;
}

void NameClientThread(const char* name) {
  char full[16];
  std::snprintf(full, sizeof full, "sb:%s", name);
  (void)pthread_setname_np(pthread_self(), full);
}

std::string ThreadPoolName(std::string comm) {
  while (!comm.empty() && (std::isdigit(static_cast<unsigned char>(comm.back())) || comm.back() == '-' ||
                           comm.back() == '_' || comm.back() == '#'))
    comm.pop_back();
  return comm.empty() ? "unnamed" : comm;
}

CpuAccount::CpuAccount(std::vector<Worker> workers, std::vector<pid_t> client, std::vector<int> worker_cpus)
    : workers_(std::move(workers)), client_(std::move(client)) {
  for (int c : worker_cpus) {
    if (c < 0) continue;
    if (static_cast<size_t>(c) >= on_worker_cpu_.size()) on_worker_cpu_.resize(static_cast<size_t>(c) + 1, false);
    on_worker_cpu_[static_cast<size_t>(c)] = true;
  }
  for (const Worker& w : workers_) worker_tids_.push_back(w.tid);
  std::sort(worker_tids_.begin(), worker_tids_.end());
  std::sort(client_.begin(), client_.end());
  slot_wait_.assign(workers_.size(), 0);
  cpus_ = std::max(1L, sysconf(_SC_NPROCESSORS_ONLN));
}

CpuAccount::Reading CpuAccount::ReadTotals() const {
  Reading r;
  rusage ru{};
  if (getrusage(RUSAGE_SELF, &ru) == 0) r.process_ns = io::TimevalNs(ru.ru_utime) + io::TimevalNs(ru.ru_stime);
  // Lines "cpu" (all) and "cpuN": user nice system idle iowait irq softirq steal guest guest_nice
  // (guest time is already inside user and nice).
  std::FILE* f = std::fopen("/proc/stat", "re");
  if (!f) return r;
  const double ns_per_tick = 1e9 / static_cast<double>(std::max(1L, sysconf(_SC_CLK_TCK)));
  unsigned long long busy = 0, steal = 0;
  bool any = false;
  char line[512];
  while (std::fgets(line, sizeof line, f)) {
    if (std::strncmp(line, "cpu", 3) != 0) break;
    const bool total = line[3] == ' ';
    if (total != on_worker_cpu_.empty()) continue;
    if (!total) {
      const long cpu = std::strtol(line + 3, nullptr, 10);
      if (cpu < 0 || static_cast<size_t>(cpu) >= on_worker_cpu_.size() || !on_worker_cpu_[static_cast<size_t>(cpu)])
        continue;
    }
    unsigned long long v[8] = {};
    const char* fields = std::strchr(line, ' ');
    if (!fields || std::sscanf(fields, "%llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1], &v[2], &v[3], &v[4],
                               &v[5], &v[6], &v[7]) != 8)
      continue;
    busy += v[0] + v[1] + v[2] + v[5] + v[6];
    steal += v[7];
    any = true;
  }
  std::fclose(f);
  if (any) {
    r.machine_busy_ns = static_cast<uint64_t>(static_cast<double>(busy) * ns_per_tick);
    r.machine_steal_ns = static_cast<uint64_t>(static_cast<double>(steal) * ns_per_tick);
    r.machine = true;
  }
  return r;
}

uint64_t CpuAccount::ThreadDelta(pid_t tid, uint64_t on_cpu) {
  auto [it, fresh] = seen_.try_emplace(tid, on_cpu);
  const uint64_t before = it->second;
  it->second = on_cpu;
  return fresh || on_cpu < before ? 0 : on_cpu - before;
}

bool CpuAccount::MayRunOnWorkerCpus(pid_t tid) const {
  if (on_worker_cpu_.empty()) return true;
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(tid, sizeof set, &set) != 0) return true;  // a thread that ended: counted as before
  for (size_t c = 0; c < on_worker_cpu_.size(); ++c)
    if (on_worker_cpu_[c] && CPU_ISSET(c, &set)) return true;
  return false;
}

bool CpuAccount::RunqueueNs(pid_t tid, uint64_t* ns) {
  uint64_t on_cpu = 0;
  return OnCpuNs(tid, &on_cpu, ns);
}

void CpuAccount::Begin(uint64_t now_ns) { (void)Take(now_ns); }

CpuHeld CpuAccount::Take(uint64_t now_ns) {
  const bool first = last_ns_ == 0;
  CpuHeld h;
  uint64_t elsewhere = 0;  // the process's threads that may not run on the workers' CPUs
  h.backlogged_ns = std::exchange(held_.backlogged_ns, 0);
  h.backlogged_runqueue_ns = std::exchange(held_.backlogged_runqueue_ns, 0);
  for (const Worker& w : workers_) {
    uint64_t ns = 0;
    if (!OnCpuNs(w.tid, &ns) && w.cpu_at_end_ns) ns = w.cpu_at_end_ns->load(std::memory_order_relaxed);
    if (ns) h.workers_ns += ThreadDelta(w.tid, ns);
  }
  // The rest of the process's live threads: the client's by id or name, the engine's by name.
  if (DIR* d = opendir("/proc/self/task")) {
    while (dirent* e = readdir(d)) {
      if (e->d_name[0] < '0' || e->d_name[0] > '9') continue;
      const pid_t tid = static_cast<pid_t>(std::atoi(e->d_name));
      if (Contains(worker_tids_, tid)) continue;
      uint64_t ns = 0;
      if (!OnCpuNs(tid, &ns)) continue;
      const uint64_t delta = ThreadDelta(tid, ns);
      // A thread kept off the workers' CPUs (the reporter and the hiccup meter
      // under --cpus) never held one of them: its time is in no share.
      if (!MayRunOnWorkerCpus(tid)) {
        elsewhere += delta;
        continue;
      }
      const std::string comm = Comm(tid);
      if (Contains(client_, tid) || comm.rfind("sb:", 0) == 0)
        h.client_ns += delta;
      else if (delta)
        h.engine_threads[ThreadPoolName(comm)] += delta;
    }
    closedir(d);
  }
  const Reading now = ReadTotals();
  if (first) {
    last_ = now;
    last_ns_ = now_ns;
    return {};
  }
  const uint64_t process = now.process_ns > last_.process_ns ? now.process_ns - last_.process_ns : 0;
  const uint64_t known = h.workers_ns + h.client_ns + elsewhere;
  h.engine_ns = process > known ? process - known : 0;
  // A thread's share sampled a moment apart from the process's may exceed it by
  // microseconds: the named threads bound the engine's share from below.
  uint64_t named = 0;
  for (const auto& [name, ns] : h.engine_threads) named += ns;
  h.engine_ns = std::max(h.engine_ns, named);
  if (now.machine && last_.machine) {
    const uint64_t busy = now.machine_busy_ns > last_.machine_busy_ns ? now.machine_busy_ns - last_.machine_busy_ns : 0;
    const uint64_t mine = h.workers_ns + h.client_ns + h.engine_ns;
    h.others_ns = busy > mine ? busy - mine : 0;
    h.steal_ns = now.machine_steal_ns > last_.machine_steal_ns ? now.machine_steal_ns - last_.machine_steal_ns : 0;
  }
  h.capacity_ns = now_ns > last_ns_ ? (now_ns - last_ns_) * static_cast<uint64_t>(cpus_) : 0;
  last_ = now;
  last_ns_ = now_ns;
  return h;
}

}  // namespace storebench::driver
