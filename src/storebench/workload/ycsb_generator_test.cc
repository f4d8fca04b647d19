#include "storebench/workload/ycsb_generator.h"

#include <gtest/gtest.h>

#include <map>
#include <set>
#include <thread>

#include "storebench/workload/stats_test_util.h"

namespace storebench::workload {
namespace {

YcsbWorkload Workload(const char* text) {
  YcsbProperties p;
  EXPECT_TRUE(ParseYcsbProperties(text, "t", &p).ok());
  auto w = YcsbWorkloadOf(p);
  EXPECT_TRUE(w.ok()) << w.status().ToString();
  return *w;
}

// The operation mix of each core workload within 0.5 % (absolute) of its
// proportions, over 1,000,000 draws (the standard error at p = 0.5 is 0.05 %).
TEST(YcsbGenerator, TheOperationMixFollowsTheProportions) {
  struct Case {
    const char* text;
    double read, update, insert, scan, rmw;
  };
  for (const Case& c :
       {Case{"recordcount=1000\noperationcount=1000\nreadproportion=0.5\nupdateproportion=0.5\n", 0.5, 0.5, 0, 0, 0},
        Case{"recordcount=1000\noperationcount=1000\nreadproportion=0.95\nupdateproportion=0.05\n", 0.95, 0.05, 0, 0,
             0},
        Case{"recordcount=1000\noperationcount=1000\nreadproportion=0.95\nupdateproportion=0\ninsertproportion=0.05\n"
             "requestdistribution=latest\n",
             0.95, 0, 0.05, 0, 0},
        Case{"recordcount=1000\noperationcount=1000\nreadproportion=0\nupdateproportion=0\nscanproportion=0.95\n"
             "insertproportion=0.05\nrequestdistribution=zipfian\nmaxscanlength=100\n",
             0, 0, 0.05, 0.95, 0},
        Case{"recordcount=1000\noperationcount=1000\nreadproportion=0.5\nupdateproportion=0\n"
             "readmodifywriteproportion=0.5\nrequestdistribution=zipfian\n",
             0.5, 0, 0, 0, 0.5}}) {
    const YcsbWorkload w = Workload(c.text);
    YcsbInsertCounter inserts(w.recordcount);
    YcsbGenerator g(w, &inserts, 7);
    constexpr int kDraws = 1'000'000;
    double n[5] = {};
    for (int i = 0; i < kDraws; ++i) {
      const YcsbDraw d = g.Next();
      n[static_cast<int>(d.op)] += 1;
      if (d.op == YcsbOp::kInsert) inserts.Acknowledge(d.keynum);
    }
    const double want[5] = {c.read, c.update, c.insert, c.scan, c.rmw};
    for (int k = 0; k < 5; ++k)
      EXPECT_NEAR(n[k] / kDraws, want[k], 0.005) << YcsbOpName(static_cast<YcsbOp>(k)) << " in " << c.text;
  }
}

// Workload E's scan lengths are uniform over 1..100 (chi-square, alpha 1e-3).
TEST(YcsbGenerator, ScanLengthsAreUniformOverOneToMaxscanlength) {
  const YcsbWorkload w = Workload("recordcount=1000\noperationcount=1000\nscanproportion=1\nreadproportion=0\n"
                                  "updateproportion=0\nmaxscanlength=100\n");
  YcsbInsertCounter inserts(w.recordcount);
  YcsbGenerator g(w, &inserts, 11);
  std::vector<uint64_t> counts(100, 0);
  for (int i = 0; i < 200'000; ++i) {
    const uint32_t len = g.NextScanLength();
    ASSERT_GE(len, 1u);
    ASSERT_LE(len, 100u);
    ++counts[len - 1];
  }
  testing::ExpectChiSquareFit(counts, std::vector<double>(100, 0.01), "scan lengths");
}

// The uniform request distribution over a table of 50 records, and the
// hotspot split (20 % of the keys take 80 % of the draws), against their
// theoretical frequencies (chi-square, alpha 1e-3).
TEST(YcsbGenerator, UniformAndHotspotKeysFitTheirDistributions) {
  const YcsbWorkload u = Workload("recordcount=50\noperationcount=1\n");
  YcsbInsertCounter inserts(u.recordcount);
  YcsbGenerator gu(u, &inserts, 3);
  std::vector<uint64_t> counts(50, 0);
  for (int i = 0; i < 100'000; ++i) ++counts[gu.NextKeynum()];
  testing::ExpectChiSquareFit(counts, std::vector<double>(50, 1.0 / 50), "uniform keys");
  const YcsbWorkload h = Workload("recordcount=50\noperationcount=1\nrequestdistribution=hotspot\n");
  YcsbGenerator gh(h, &inserts, 5);
  std::fill(counts.begin(), counts.end(), 0);
  for (int i = 0; i < 100'000; ++i) ++counts[gh.NextKeynum()];
  std::vector<double> probs(50);
  for (int k = 0; k < 50; ++k) probs[k] = k < 10 ? 0.8 / 10 : 0.2 / 40;
  testing::ExpectChiSquareFit(counts, probs, "hotspot keys");
}

// Zipfian: the scrambled zipfian over the records plus twice the expected
// inserts; a draw beyond the last acknowledged insert is drawn again, so no
// key above it comes out, and the hottest key is the first rank's that hashes into the table.
TEST(YcsbGenerator, ZipfianKeysStayBelowTheLastInsertAndRankZeroIsHottest) {
  const YcsbWorkload w = Workload("recordcount=1000\noperationcount=10000\nrequestdistribution=zipfian\n"
                                  "insertproportion=0.05\nreadproportion=0.95\nupdateproportion=0\n");
  YcsbInsertCounter inserts(w.recordcount);
  YcsbGenerator g(w, &inserts, 9);
  std::map<uint64_t, uint64_t> counts;
  for (int i = 0; i < 200'000; ++i) {
    const uint64_t k = g.NextKeynum();
    ASSERT_LT(k, 1000u);
    ++counts[k];
  }
  // 1000 records + 2 × 500 expected inserts + 1 = 2001 items in the scrambled space. Rank 0
  // hashes to a record not inserted yet (1560): its draws are drawn again, and the hottest
  // key is that of the first rank that hashes inside the table.
  uint64_t rank = 0;
  while (FnvHash64(rank) % 2001 >= 1000) ++rank;
  const uint64_t hottest = FnvHash64(rank) % 2001;
  EXPECT_EQ(counts.count(FnvHash64(0) % 2001), 0u);
  uint64_t best = 0, best_key = 0;
  for (const auto& [k, n] : counts)
    if (n > best) best = n, best_key = k;
  EXPECT_EQ(best_key, hottest);
}

// YCSB's acknowledged counter: Last() advances only over a contiguous run of
// acknowledged inserts, in whatever order they complete.
TEST(YcsbGenerator, TheInsertCounterAdvancesOverContiguousAcknowledgementsOnly) {
  YcsbInsertCounter c(10);
  EXPECT_EQ(c.Last(), 9);
  const uint64_t a = c.Next(), b = c.Next(), d = c.Next();
  EXPECT_EQ(a, 10u);
  c.Acknowledge(d);
  c.Acknowledge(b);
  EXPECT_EQ(c.Last(), 9) << "10 is not acknowledged yet";
  c.Acknowledge(a);
  EXPECT_EQ(c.Last(), 12);
  c.Acknowledge(a);
  EXPECT_EQ(c.Last(), 12) << "a second acknowledgement changes nothing";
}

// Workload D with many threads: "latest" never reads a record whose insert
// was not acknowledged, although inserts complete out of order.
TEST(YcsbGenerator, LatestNeverReadsAnUnacknowledgedInsert) {
  const YcsbWorkload w = Workload("recordcount=1000\noperationcount=100000\nreadproportion=0.5\n"
                                  "updateproportion=0\ninsertproportion=0.5\nrequestdistribution=latest\n");
  YcsbInsertCounter inserts(w.recordcount);
  constexpr int kThreads = 4, kOps = 50'000;
  std::vector<std::atomic<uint8_t>> done(w.recordcount + kThreads * kOps);
  for (uint64_t k = 0; k < w.recordcount; ++k) done[k] = 1;
  std::atomic<uint64_t> bad{0}, reads{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] {
      YcsbGenerator g(w, &inserts, 100 + t);
      std::vector<uint64_t> pending;  // inserts in flight, acknowledged a few ops later (out of order)
      for (int i = 0; i < kOps; ++i) {
        const YcsbDraw d = g.Next();
        if (d.op == YcsbOp::kInsert) {
          pending.push_back(d.keynum);
        } else {
          reads.fetch_add(1, std::memory_order_relaxed);
          if (!done[d.keynum].load(std::memory_order_acquire)) bad.fetch_add(1);
        }
        if (pending.size() > 3) {
          const uint64_t k = pending[i % pending.size()];
          pending.erase(pending.begin() + static_cast<long>(i % pending.size()));
          done[k].store(1, std::memory_order_release);
          inserts.Acknowledge(k);
        }
      }
      for (uint64_t k : pending) {
        done[k].store(1, std::memory_order_release);
        inserts.Acknowledge(k);
      }
    });
  for (auto& t : threads) t.join();
  EXPECT_GT(reads.load(), 0u);
  EXPECT_EQ(bad.load(), 0u);
  // Every insert acknowledged: the last is the highest number handed out.
  const uint64_t next = inserts.Next();
  EXPECT_EQ(inserts.Last(), static_cast<int64_t>(next) - 1);
  EXPECT_GT(next, w.recordcount);
}

}  // namespace
}  // namespace storebench::workload
