// file_floor: the floor under `storebench run --backend file --workload
// randread` — a bare loop per read method that does only the I/O, at the same
// offsets (storebench's generator, seeds and block mapping), so
// storebench/floor says how much of each read the harness costs.
//
//   file_floor --method pread|read|preadv2|mmap|io_uring [--iodepth N] [--direct] [--timed]
//              [--threads T] [--seconds S | --ops N] [--block-size B] [--seed N] FILE...
//
// Per op, and nothing else: draw k = Uniform(slots × files) from the worker's
// workload::Random (seeded Random::SeedFor(seed, worker), as the driver
// does), read block_size bytes of file k / slots at (k % slots) × block_size,
// check the return value and count the op. Methods:
//   read      lseek + read(2)                 (storebench --method read --buffer 0)
//   pread     pread(2)                        (--method pread)
//   preadv2   preadv2(RWF_NOWAIT), pread on EAGAIN  (--method pread_threadpool, warm)
//   mmap      memcpy from a whole-file MAP_SHARED mapping  (--method mmap)
//   --timed   (sync methods) also what any measuring client must do per op:
//             read storebench's clock before and after the read and record
//             the difference in a storebench histogram — so floor --timed /
//             floor is the measurement's own share, and storebench / floor
//             --timed what the layers above it add
//   io_uring  qd1: one io_uring_submit_and_wait per read; qdN: N in flight,
//             each wake-up reaps every completion and refills with one enter
//             (--method io_uring --iodepth N)
// Threads start together; the main thread sleeps S seconds (or until SIGINT or
// SIGTERM, so a script can stop it when a run beside it ends) and raises a
// flag the loops test once per op (or each thread stops after --ops N). Prints one
// JSON line: ops, elapsed_s, ops_per_s, the process's user_s and sys_s over
// the same span (ops per CPU-second do not depend on how much of the machine
// other processes took), and start_epoch_s, the wall clock when the loops
// started (to line the span up with another program's timeline).
// The page-cache state is the caller's (bench/fio_compare.sh warms or evicts).
#include <fcntl.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#ifdef STOREBENCH_HAVE_LIBURING
#include <liburing.h>
#endif

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "storebench/measure/clock.h"
#include "storebench/measure/histogram.h"
#include "storebench/workload/random.h"

namespace {

using storebench::measure::Clock;
using storebench::measure::Histogram;
using storebench::workload::Random;

struct Config {
  std::string method = "pread";
  unsigned depth = 1;
  bool direct = false;
  bool timed = false;  // --timed: also what any measuring client must do per op
  int threads = 1;
  double seconds = 5;
  uint64_t block = 4096;
  uint64_t seed = 1;  // storebench's --seed default
  uint64_t ops = UINT64_MAX;  // per thread; with --ops the run ends after them (callgrind's marginal counts)
  std::vector<std::string> paths;
};

struct Files {
  std::vector<int> fds;
  std::vector<char*> maps;
  uint64_t size = 0;   // every file has this size (storebench's data sets do)
  uint64_t slots = 0;  // block offsets per file, as BlockWorker computes them
};

[[noreturn]] void Die(const char* what, const std::string& arg) {
  std::fprintf(stderr, "file_floor: %s %s: %s\n", what, arg.c_str(), std::strerror(errno));
  std::exit(1);
}

// The offset stream of storebench's randread worker: same generator, same mapping.
struct Offsets {
  Random rng;
  uint64_t items, slots, block;
  void Next(size_t* file, uint64_t* offset) {
    const uint64_t k = rng.Uniform(items);
    *file = k / slots;
    *offset = (k % slots) * block;
  }
};

enum class Method { kPread, kRead, kPreadv2, kMmap };

// Returns the ops done before `stop` was seen; the method is a template
// argument so the loop holds no branch the real harness would not.
// Out of line (noinline) so bench/harness_instructions.sh can count them with callgrind.
template <Method M, bool Timed>
[[gnu::noinline]] uint64_t RunSync(const Config& c, const Files& f, Offsets o, const std::atomic<bool>& stop,
                                   Histogram* latency) {
  char* buf = static_cast<char*>(std::aligned_alloc(4096, c.block));
  uint64_t ops = 0;
  const size_t len = c.block;
  const Clock& clock = Clock::Default();
  while (!stop.load(std::memory_order_relaxed) && ops != c.ops) {
    size_t file;
    uint64_t off;
    o.Next(&file, &off);
    [[maybe_unused]] uint64_t t0 = 0;
    if constexpr (Timed) t0 = clock.NowNs();
    ssize_t n;
    if constexpr (M == Method::kPread) {
      n = pread(f.fds[file], buf, len, static_cast<off_t>(off));
    } else if constexpr (M == Method::kRead) {
      if (lseek(f.fds[file], static_cast<off_t>(off), SEEK_SET) < 0) Die("lseek", c.paths[file]);
      n = read(f.fds[file], buf, len);
    } else if constexpr (M == Method::kPreadv2) {
      iovec iov{buf, len};
      n = preadv2(f.fds[file], &iov, 1, static_cast<off_t>(off), RWF_NOWAIT);
      if (n < 0 && errno == EAGAIN) n = pread(f.fds[file], buf, len, static_cast<off_t>(off));
    } else {
      std::memcpy(buf, f.maps[file] + off, len);
      n = static_cast<ssize_t>(len);
    }
    if constexpr (Timed) latency->Record(clock.NowNs() - t0);
    if (n != static_cast<ssize_t>(len)) Die("read", c.paths[file]);
    ++ops;
  }
  std::free(buf);
  return ops;
}

#ifdef STOREBENCH_HAVE_LIBURING
[[gnu::noinline]] uint64_t RunUring(const Config& c, const Files& f, Offsets o, const std::atomic<bool>& stop) {
  io_uring ring;
  if (int rc = io_uring_queue_init(std::max(2u, c.depth), &ring, 0); rc < 0) {
    errno = -rc;
    Die("io_uring_queue_init", "");
  }
  std::vector<char*> bufs(c.depth);
  for (char*& b : bufs) b = static_cast<char*>(std::aligned_alloc(4096, c.block));
  auto prep = [&](unsigned slot) {
    size_t file;
    uint64_t off;
    o.Next(&file, &off);
    io_uring_sqe* sqe = io_uring_get_sqe(&ring);
    io_uring_prep_read(sqe, f.fds[file], bufs[slot], static_cast<unsigned>(c.block), off);
    io_uring_sqe_set_data64(sqe, slot);
  };
  for (unsigned s = 0; s < c.depth; ++s) prep(s);
  uint64_t ops = 0;
  bool stopping = false;
  unsigned inflight = c.depth;
  while (inflight > 0) {
    if (int rc = io_uring_submit_and_wait(&ring, 1); rc < 0 && rc != -EINTR) {
      errno = -rc;
      Die("io_uring_submit_and_wait", "");
    }
    stopping = stopping || stop.load(std::memory_order_relaxed) || ops >= c.ops;
    io_uring_cqe* cqe;
    unsigned head, seen = 0;
    io_uring_for_each_cqe(&ring, head, cqe) {
      if (cqe->res != static_cast<int>(c.block)) {
        errno = cqe->res < 0 ? -cqe->res : EIO;
        Die("io_uring read", c.paths[0]);
      }
      ++seen;
      if (!stopping) {
        ++ops;
        prep(static_cast<unsigned>(io_uring_cqe_get_data64(cqe)));
      } else {
        --inflight;
      }
    }
    io_uring_cq_advance(&ring, seen);
  }
  io_uring_queue_exit(&ring);
  for (char* b : bufs) std::free(b);
  return ops;
}
#endif

Files OpenFiles(const Config& c) {
  Files f;
  for (const std::string& p : c.paths) {
    const int fd = open(p.c_str(), O_RDONLY | (c.direct ? O_DIRECT : 0));
    if (fd < 0) Die("open", p);
    struct stat st;
    if (fstat(fd, &st) != 0) Die("fstat", p);
    if (f.size == 0) f.size = static_cast<uint64_t>(st.st_size);
    if (static_cast<uint64_t>(st.st_size) != f.size) Die("files of unequal size:", p);
    f.fds.push_back(fd);
    if (c.method == "mmap") {
      void* m = mmap(nullptr, f.size, PROT_READ, MAP_SHARED, fd, 0);
      if (m == MAP_FAILED) Die("mmap", p);
      f.maps.push_back(static_cast<char*>(m));
    }
  }
  if (f.size < c.block) Die("file smaller than the block size:", c.paths[0]);
  f.slots = (f.size - c.block) / c.block + 1;
  return f;
}

Config Parse(int argc, char** argv) {
  Config c;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "file_floor: %s needs a value\n", a.c_str());
        std::exit(2);
      }
      return argv[++i];
    };
    if (a == "--method") c.method = value();
    else if (a == "--iodepth") c.depth = static_cast<unsigned>(std::stoul(value()));
    else if (a == "--direct") c.direct = true;
    else if (a == "--timed") c.timed = true;
    else if (a == "--threads") c.threads = std::stoi(value());
    else if (a == "--seconds") c.seconds = std::stod(value());
    else if (a == "--block-size") c.block = std::stoull(value());
    else if (a == "--seed") c.seed = std::stoull(value());
    else if (a == "--ops") c.ops = std::stoull(value());
    else if (!a.empty() && a[0] == '-') {
      std::fprintf(stderr, "file_floor: unknown flag %s (see the comment at the top of bench/file_floor.cc)\n",
                   a.c_str());
      std::exit(2);
    } else c.paths.push_back(a);
  }
  const bool known = c.method == "pread" || c.method == "read" || c.method == "preadv2" || c.method == "mmap" ||
                     c.method == "io_uring";
  if (!known || c.paths.empty() || c.depth == 0 || c.threads < 1 || (c.depth > 1 && c.method != "io_uring") ||
      (c.direct && c.method == "mmap") || (c.timed && c.method == "io_uring")) {
    std::fprintf(stderr,
                 "usage: file_floor --method pread|read|preadv2|mmap|io_uring [--iodepth N (io_uring)] [--direct] [--timed] "
                 "[--threads T] [--seconds S | --ops N] [--block-size B] [--seed N] FILE...\n");
    std::exit(2);
  }
  return c;
}

}  // namespace

int main(int argc, char** argv) {
  const Config c = Parse(argc, argv);
#ifndef STOREBENCH_HAVE_LIBURING
  if (c.method == "io_uring") {
    std::fprintf(stderr, "file_floor: built without liburing\n");
    return 2;
  }
#endif
  // SIGINT/SIGTERM end the timed run early: blocked here (the loop threads
  // inherit the mask), taken by the main thread's sigtimedwait below.
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGINT);
  sigaddset(&stop_signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);
  std::vector<Files> files;  // one set of descriptors per thread, as storebench's workers open their own
  for (int t = 0; t < c.threads; ++t) files.push_back(OpenFiles(c));
  std::atomic<bool> stop{false};
  std::atomic<int> ready{0};
  std::atomic<bool> go{false};
  std::vector<uint64_t> ops(static_cast<size_t>(c.threads));
  std::vector<Histogram> latency(static_cast<size_t>(c.threads));
  (void)Clock::Default();  // calibrated before the loops start
  std::vector<std::thread> threads;
  for (int t = 0; t < c.threads; ++t) {
    threads.emplace_back([&, t] {
      const Files& f = files[static_cast<size_t>(t)];
      Offsets o{Random(Random::SeedFor(c.seed, static_cast<uint64_t>(t))), f.slots * f.fds.size(), f.slots, c.block};
      ready.fetch_add(1);
      go.wait(false);
#ifdef STOREBENCH_HAVE_LIBURING
      if (c.method == "io_uring") {
        ops[static_cast<size_t>(t)] = RunUring(c, f, o, stop);
        return;
      }
#endif
      uint64_t& n = ops[static_cast<size_t>(t)];
      Histogram* h = &latency[static_cast<size_t>(t)];
      auto run = [&]<Method M>() {
        return c.timed ? RunSync<M, true>(c, f, o, stop, h) : RunSync<M, false>(c, f, o, stop, h);
      };
      if (c.method == "pread") n = run.template operator()<Method::kPread>();
      if (c.method == "read") n = run.template operator()<Method::kRead>();
      if (c.method == "preadv2") n = run.template operator()<Method::kPreadv2>();
      if (c.method == "mmap") n = run.template operator()<Method::kMmap>();
    });
  }
  while (ready.load() < c.threads) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  rusage ru0, ru1;
  getrusage(RUSAGE_SELF, &ru0);
  const auto start = std::chrono::steady_clock::now();
  const double start_epoch_s =
      std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
  go.store(true);
  go.notify_all();
  if (c.ops == UINT64_MAX) {
    const auto whole = static_cast<long long>(c.seconds);
    timespec wait{static_cast<time_t>(whole), static_cast<long>((c.seconds - static_cast<double>(whole)) * 1e9)};
    while (sigtimedwait(&stop_signals, nullptr, &wait) < 0 && errno == EINTR) {
      // (a stray EINTR restarts the whole wait: only ever longer, never cut short)
    }
    stop.store(true);
  }
  for (std::thread& th : threads) th.join();
  const auto end = std::chrono::steady_clock::now();
  getrusage(RUSAGE_SELF, &ru1);
  auto secs = [](const timeval& a, const timeval& b) {
    return static_cast<double>(b.tv_sec - a.tv_sec) + static_cast<double>(b.tv_usec - a.tv_usec) / 1e6;
  };
  uint64_t total = 0;
  for (uint64_t n : ops) total += n;
  const double s = std::chrono::duration<double>(end - start).count();
  std::printf("{\"method\": \"%s\", \"iodepth\": %u, \"direct\": %s, \"threads\": %d, \"ops\": %llu, "
              "\"elapsed_s\": %.6f, \"ops_per_s\": %.1f, \"user_s\": %.6f, \"sys_s\": %.6f, \"start_epoch_s\": %.6f, "
              "\"timed\": %s, \"p50_ns\": %llu}\n",
              c.method.c_str(), c.depth, c.direct ? "true" : "false", c.threads,
              static_cast<unsigned long long>(total), s, static_cast<double>(total) / s,
              secs(ru0.ru_utime, ru1.ru_utime), secs(ru0.ru_stime, ru1.ru_stime), start_epoch_s,
              c.timed ? "true" : "false", static_cast<unsigned long long>(latency[0].ValueAtPercentile(50)));
  return 0;
}
