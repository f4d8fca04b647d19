#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <random>
#include <thread>

#include "storebench/io/page_cache.h"
#include "storebench/io/read_method.h"
#include "storebench/io/test_util.h"
#include "storebench/io/thread_pool.h"

namespace storebench::io {
namespace {

using testing::Pattern;
using testing::TempDir;

// A read of an evicted page goes to the pool, and the same read once the page
// is cached is served inline. Something outside the test (the kernel, another
// process) can bring the page back between the eviction and the read: the
// cold read is tried up to five times, each with the file evicted afresh, and
// the test fails only if every one of them was served inline.
TEST(PreadThreadPool, CachedReadsAreServedInlineAndColdOnesByThePool) {
  TempDir dir;
  if (testing::OnTmpfs(dir.path())) GTEST_SKIP() << "TMPDIR is tmpfs: no page cache to evict";
  const std::string path = dir.WriteFile("d", 1 << 20, 3);
  const std::span<const std::string> paths(&path, 1);
  std::vector<char> buf(4096);
  int kept = 0, inline_cold = 0;
  for (int attempt = 0; attempt < 5; ++attempt) {
    ASSERT_TRUE(EvictFromCache(paths).ok());
    StatusOr<Residency> r = MeasureResidency(paths);
    ASSERT_TRUE(r.ok()) << r.status().message();
    if (!r->known()) GTEST_SKIP() << "the page cache residency of " << path << " cannot be measured here";
    if (r->resident_bytes != 0) {
      ++kept;
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
      continue;
    }
    MethodOptions o;
    o.pool_threads = 1;
    StatusOr<std::unique_ptr<ReadMethod>> m = CreateReadMethod("pread_threadpool", o);
    ASSERT_TRUE(m.ok()) << m.status().message();
    ReadMethod& method = **m;
    const int f = *method.Open(path);
    ASSERT_EQ(*method.Read(f, 512 * 1024, 4096, buf.data()), 4096u);
    if (method.counters().pool_reads != 1) {
      ++inline_cold;
      continue;
    }
    EXPECT_EQ(method.counters().inline_reads, 0u);
    EXPECT_GE(method.counters().Of(Syscall::kPreadv2), 1u);
    EXPECT_GE(method.counters().Of(Syscall::kPread), 1u);  // done by the pool, counted at reap
    ASSERT_EQ(*method.Read(f, 512 * 1024, 4096, buf.data()), 4096u);
    EXPECT_EQ(method.counters().inline_reads, 1u) << "the page is cached now";
    EXPECT_EQ(method.counters().pool_reads, 1u);
    const std::vector<char> want = Pattern(3, 512 * 1024, 4096);
    EXPECT_TRUE(std::equal(want.begin(), want.end(), buf.begin()));
    return;
  }
  if (inline_cold == 0)
    GTEST_SKIP() << "the kernel kept " << path << " cached after fsync + DONTNEED, five times";
  FAIL() << "a read of an evicted page must go to the pool: " << inline_cold << " of " << 5 - kept
         << " cold reads were served inline";
}

// Several workers, each with its own method object and several reads in
// flight, share one pool (as query classes do); every byte must be right.
TEST(PreadThreadPool, WorkersShareOnePool) {
  TempDir dir;
  constexpr uint64_t kSize = 256 * 1024;
  std::vector<std::string> paths;
  for (uint64_t s = 0; s < 2; ++s) paths.push_back(dir.WriteFile("f" + std::to_string(s), kSize, s));
  ThreadPool pool(2);
  std::vector<std::string> failures(3);
  std::vector<IoCounters> counters(3);
  std::vector<std::thread> workers;
  for (int w = 0; w < 3; ++w) {
    workers.emplace_back([&, w] {
      MethodOptions o;
      o.pool = &pool;
      o.nowait_probe = (w != 0);  // worker 0 sends everything to the pool
      o.max_in_flight = 4;
      o.priority = w;
      StatusOr<std::unique_ptr<ReadMethod>> m = CreateReadMethod("pread_threadpool", o);
      if (!m.ok()) {
        failures[w] = m.status().message();
        return;
      }
      ReadMethod& method = **m;
      for (const std::string& p : paths) (void)*method.Open(p);
      std::mt19937 rng(w);
      std::vector<std::vector<char>> bufs(4, std::vector<char>(3000));
      std::vector<ReadRequest> slot(4);
      std::vector<int> free_slots = {0, 1, 2, 3};
      ReadCompletion done[4];
      auto check = [&](const ReadCompletion& c) {
        const std::vector<char> want = Pattern(c.file, c.offset, std::min<uint64_t>(c.length, kSize - c.offset));
        if (c.error != 0 || c.bytes != want.size() || !std::equal(want.begin(), want.end(), bufs[c.tag].begin())) {
          failures[w] = "wrong bytes at file " + std::to_string(c.file) + " offset " + std::to_string(c.offset);
        }
        free_slots.push_back(static_cast<int>(c.tag));
      };
      for (int i = 0; i < 400; ++i) {
        while (free_slots.empty()) {
          const size_t n = *method.Reap(1, 4, done);
          for (size_t k = 0; k < n; ++k) check(done[k]);
        }
        const int s = free_slots.back();
        free_slots.pop_back();
        slot[s] = ReadRequest{.file = static_cast<int>(rng() % 2), .offset = rng() % kSize, .length = 3000,
                              .buf = bufs[s].data(), .tag = static_cast<uint64_t>(s), .priority = int(rng() % 3)};
        ReadCompletion c;
        StatusOr<ReadSubmitResult> r = method.Submit(slot[s], &c);
        if (!r.ok() || *r == ReadSubmitResult::kBusy) {
          failures[w] = "unexpected submit result";
          return;
        }
        if (*r == ReadSubmitResult::kCompleted) check(c);
      }
      while (method.in_flight() > 0) {
        const size_t n = *method.Reap(1, 4, done);
        for (size_t k = 0; k < n; ++k) check(done[k]);
      }
      counters[w] = method.counters();
    });
  }
  for (std::thread& t : workers) t.join();
  for (int w = 0; w < 3; ++w) EXPECT_EQ(failures[w], "") << "worker " << w;
  EXPECT_EQ(counters[0].pool_reads, 400u);
  EXPECT_EQ(counters[0].inline_reads, 0u);
  IoCounters total;
  for (const IoCounters& c : counters) total += c;
  EXPECT_EQ(total.completions, 1200u);
  EXPECT_EQ(total.inline_reads + total.pool_reads, 1200u);
}

}  // namespace
}  // namespace storebench::io
