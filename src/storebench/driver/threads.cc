#include "storebench/driver/threads.h"

#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <fmt/format.h>
#include <set>
#include <utility>

#include "storebench/base/units.h"
#include "storebench/io/proc_io.h"

namespace storebench::driver {
namespace {

// A schedstat file's first two fields: ns on a CPU, ns waiting on a run queue.
std::optional<std::pair<uint64_t, uint64_t>> ReadSchedstat(const char* path) {
  std::FILE* f = std::fopen(path, "re");
  if (!f) return std::nullopt;
  unsigned long long on_cpu = 0, waiting = 0;
  int n = std::fscanf(f, "%llu %llu", &on_cpu, &waiting);
  std::fclose(f);
  if (n != 2) return std::nullopt;
  return std::pair<uint64_t, uint64_t>{on_cpu, waiting};
}

}  // namespace

pid_t CurrentTid() { return static_cast<pid_t>(::syscall(SYS_gettid)); }

ThreadSched OwnThreadSched() {
  ThreadSched s;
  const auto stat = ReadSchedstat("/proc/thread-self/schedstat");
  rusage ru{};
  const bool usage = getrusage(RUSAGE_THREAD, &ru) == 0;
  if (usage) s.involuntary_switches = static_cast<uint64_t>(ru.ru_nivcsw);
  if (stat) {
    s.cpu_ns = stat->first;
    s.runqueue_wait_ns = stat->second;
  } else if (usage) {  // no schedstat: the thread's rusage, to the microsecond
    s.cpu_ns = io::TimevalNs(ru.ru_utime) + io::TimevalNs(ru.ru_stime);
  }
  return s;
}

namespace {
std::atomic<int> runqueue_readers_open{0};
}  // namespace

RunqueueReader::RunqueueReader() {
  if (runqueue_readers_open.fetch_add(1) >= kMaxOpen) {
    runqueue_readers_open.fetch_sub(1);
    return;
  }
  fd_ = ::open("/proc/thread-self/schedstat", O_RDONLY | O_CLOEXEC);
  if (fd_ < 0) runqueue_readers_open.fetch_sub(1);
}

RunqueueReader::~RunqueueReader() {
  if (fd_ < 0) return;
  ::close(fd_);
  runqueue_readers_open.fetch_sub(1);
}

uint64_t RunqueueReader::WaitNs() const {
  char buf[96];
  const ssize_t n = ::pread(fd_, buf, sizeof buf - 1, 0);
  if (n <= 0) return UINT64_MAX;
  // "ON_CPU WAITING TIMESLICES\n": the second number, parsed by hand (sscanf costs ~1,000 instructions).
  const char* p = buf;
  const char* end = buf + n;
  while (p < end && *p != ' ') ++p;
  uint64_t waiting = 0;
  for (++p; p < end && *p >= '0' && *p <= '9'; ++p) waiting = waiting * 10 + static_cast<uint64_t>(*p - '0');
  return waiting;
}

std::optional<uint64_t> RunqueueWaitNs(pid_t tid) {
  char path[64];
  std::snprintf(path, sizeof path, "/proc/self/task/%d/schedstat", static_cast<int>(tid));
  const auto stat = ReadSchedstat(path);
  if (!stat) return std::nullopt;
  return stat->second;
}

WakeupLatency MeasureWakeupLatency(const measure::Clock& clock, int samples) {
  std::vector<uint64_t> late;
  late.reserve(static_cast<size_t>(samples));
  constexpr uint64_t kSleepNs = 20'000;
  for (int i = 0; i < samples; ++i) {
    uint64_t before = clock.NowNs();
    timespec ts{0, static_cast<long>(kSleepNs)};
    nanosleep(&ts, nullptr);
    uint64_t slept = clock.NowNs() - before;
    late.push_back(slept > kSleepNs ? slept - kSleepNs : 0);
  }
  WakeupLatency w;
  if (late.empty()) return w;
  std::sort(late.begin(), late.end());
  // Integer ranks: the ceil(p·n)-th smallest.
  auto at = [&](uint64_t num, uint64_t den) {
    const uint64_t rank = std::max<uint64_t>(1, (num * late.size() + den - 1) / den);
    return late[std::min<uint64_t>(rank, late.size()) - 1];
  };
  w.p50_ns = at(1, 2);
  w.p99_ns = at(99, 100);
  w.max_ns = late.back();
  w.samples = samples;
  return w;
}

std::vector<int> AllowedCpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  std::vector<int> out;
  if (sched_getaffinity(0, sizeof set, &set) != 0) {
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    for (int i = 0; i < n; ++i) out.push_back(i);
    return out;
  }
  for (int i = 0; i < CPU_SETSIZE; ++i)
    if (CPU_ISSET(i, &set)) out.push_back(i);
  return out;
}

StatusOr<std::vector<int>> ParseCpuList(std::string_view text, std::string_view flag) {
  const std::string form = fmt::format("{}: expected CPU numbers and ranges such as 0-3,6", flag);
  std::set<int> cpus;
  if (text.empty()) return Status::InvalidArgument(fmt::format("{}; got ''", form));
  for (std::string_view part : Split(text, ',')) {
    auto dash = part.find('-');
    std::string_view lo = part.substr(0, dash), hi = dash == std::string_view::npos ? lo : part.substr(dash + 1);
    auto a = ParseCount(lo, flag), b = ParseCount(hi, flag);
    if (lo.empty() || hi.empty() || !a.ok() || !b.ok() || *a > *b || *b >= CPU_SETSIZE)
      return Status::InvalidArgument(fmt::format("{}; got '{}'", form, text));
    for (uint64_t c = *a; c <= *b; ++c) cpus.insert(static_cast<int>(c));
  }
  const std::vector<int> allowed = AllowedCpus();
  for (int c : cpus)
    if (std::find(allowed.begin(), allowed.end(), c) == allowed.end())
      return Status::InvalidArgument(fmt::format("{}: CPU {} is not one this process may use ({} allowed)", flag, c,
                                                 allowed.size()));
  return std::vector<int>(cpus.begin(), cpus.end());
}

Status PinCurrentThread(const std::vector<int>& cpus) {
  if (cpus.empty()) return Status::Ok();
  cpu_set_t set;
  CPU_ZERO(&set);
  for (int c : cpus) CPU_SET(c, &set);
  int err = pthread_setaffinity_np(pthread_self(), sizeof set, &set);
  if (err != 0) return ErrnoStatus("pthread_setaffinity_np", "--cpus", err);
  return Status::Ok();
}

StatusOr<int> RaiseToFinish(const std::vector<pthread_t>& threads) {
  sched_param param{};
  param.sched_priority = sched_get_priority_min(SCHED_FIFO);
  int raised = 0;
  for (pthread_t t : threads) {
    const int err = pthread_setschedparam(t, SCHED_FIFO, &param);
    if (err == 0) {
      ++raised;
    } else if (err == EPERM) {
      if (raised == 0) return ErrnoStatus("pthread_setschedparam(SCHED_FIFO)", "stop", err);
    }  // ESRCH: the thread has already ended
  }
  return raised;
}

KeepThreadScheduling::KeepThreadScheduling() {
  if (pthread_getschedparam(pthread_self(), &policy_, &param_) != 0) policy_ = -1;
}

KeepThreadScheduling::~KeepThreadScheduling() {
  if (policy_ < 0) return;
  int now = 0;
  sched_param param{};
  if (pthread_getschedparam(pthread_self(), &now, &param) == 0 &&
      (now != policy_ || param.sched_priority != param_.sched_priority))
    (void)pthread_setschedparam(pthread_self(), policy_, &param_);
}

}  // namespace storebench::driver
