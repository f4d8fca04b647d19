// The live merge's tree and its binary interval parts (interval_message.h):
// every rank reaches rank 0 exactly once along a tree of depth ceil(log2 N),
// and parts merged along any tree equal the direct merge of the ranks'
// intervals.
#include "storebench/job/interval_message.h"

#include <gtest/gtest.h>

#include <random>
#include <set>

namespace storebench::job {
namespace {

using measure::Histogram;
using measure::HistogramOptions;

int CeilLog2(int n) {
  int d = 0;
  while ((1 << d) < n) ++d;
  return d;
}

TEST(IntervalTree, EveryRankHasOneParentAndTheDepthIsAtMostCeilLog2) {
  for (int size = 1; size <= 65; ++size) {
    std::vector<int> seen(static_cast<size_t>(size), 0);
    for (int r = 0; r < size; ++r)
      for (int c : TreeChildren(r, size)) {
        ASSERT_LT(c, size);
        ASSERT_EQ(TreeParent(c), r) << "size " << size << " child " << c;
        ++seen[static_cast<size_t>(c)];
      }
    EXPECT_EQ(seen[0], 0) << "rank 0 is nobody's child";
    int depth = 0, most_bits = 0;
    for (int r = 1; r < size; ++r) {
      most_bits = std::max(most_bits, __builtin_popcount(static_cast<unsigned>(r)));
      EXPECT_EQ(seen[static_cast<size_t>(r)], 1) << "size " << size << " rank " << r;
      int d = 0;
      for (int x = r; x != 0; x = TreeParent(x)) ++d;
      depth = std::max(depth, d);
    }
    EXPECT_EQ(depth, most_bits) << "size " << size;  // a rank is as deep as its set bits
    EXPECT_LE(depth, CeilLog2(size)) << "size " << size;
    EXPECT_EQ(static_cast<int>(TreeChildren(0, size).size()), CeilLog2(size)) << "size " << size;
  }
  // At 1,000 ranks rank 0 receives 10 messages an interval.
  EXPECT_EQ(TreeChildren(0, 1000).size(), 10u);
}

driver::IntervalStats RankInterval(std::mt19937_64& rng, Histogram* all_response, Histogram* all_service) {
  Histogram response{HistogramOptions{}}, service{HistogramOptions{}};
  std::lognormal_distribution<double> latency(10.0, 1.5);
  const int n = 1 + static_cast<int>(rng() % 3000);
  for (int i = 0; i < n; ++i) {
    const auto s = static_cast<uint64_t>(latency(rng));
    service.Record(s);
    response.Record(s + rng() % 5000);
  }
  EXPECT_TRUE(all_response->Merge(response).ok());
  EXPECT_TRUE(all_service->Merge(service).ok());
  driver::IntervalStats st;
  st.t_s = 2.0 + static_cast<double>(rng() % 1000) * 1e-6;
  st.length_s = 1.0 + static_cast<double>(rng() % 1000) * 1e-6;
  st.ops = static_cast<uint64_t>(n);
  st.errors = rng() % 3;
  st.bytes = st.ops * 4096;
  st.backlog = static_cast<double>(rng() % 10);
  st.lag_ns = rng() % 100000;
  st.max_lag_ns = st.lag_ns + rng() % 100000;
  st.offered_ops_per_sec = static_cast<double>(rng() % 5000);
  st.response_histogram = response.Encode();
  st.service_histogram = service.Encode();
  return st;
}

// Every rank adds its own interval, merges its children's parts (deepest
// first, as they arrive) and passes its part up: rank 0's part is the whole.
TEST(IntervalPart, MergedAlongTheTreeEqualsTheDirectMerge) {
  for (int size : {1, 2, 3, 5, 7, 8, 13, 32, 33}) {
    std::mt19937_64 rng(static_cast<uint64_t>(size));
    Histogram all_response{HistogramOptions{}}, all_service{HistogramOptions{}};
    std::vector<driver::IntervalStats> own;
    uint64_t ops = 0, errors = 0, bytes = 0, lag = 0, max_lag = 0;
    double backlog = 0, t = 0, len = 0, offered = 0;
    for (int r = 0; r < size; ++r) {
      own.push_back(RankInterval(rng, &all_response, &all_service));
      ops += own.back().ops, errors += own.back().errors, bytes += own.back().bytes;
      backlog += own.back().backlog;
      lag = std::max(lag, own.back().lag_ns);
      max_lag = std::max(max_lag, own.back().max_lag_ns);
      offered += own.back().offered_ops_per_sec;
      t = std::max(t, own.back().t_s), len = std::max(len, own.back().length_s);
    }
    std::vector<std::string> sent(static_cast<size_t>(size));
    for (int r = size - 1; r >= 0; --r) {  // children have higher ranks: they are done first
      IntervalPart part{HistogramOptions{}};
      part.index = 7;
      ASSERT_TRUE(part.AddOwn(own[static_cast<size_t>(r)]).ok());
      for (int c : TreeChildren(r, size)) {
        const std::string& in = sent[static_cast<size_t>(c)];
        ASSERT_EQ(*PartIndex(in, 0), 7u);
        size_t pos = 0;
        ASSERT_TRUE(part.MergeFrom(in, &pos).ok());
        EXPECT_EQ(pos, in.size());
      }
      part.AppendTo(&sent[static_cast<size_t>(r)]);
      if (r != 0) continue;
      EXPECT_EQ(part.ranks, static_cast<uint64_t>(size));
      EXPECT_EQ(part.index, 7u);
      EXPECT_EQ(part.ops, ops);
      EXPECT_EQ(part.errors, errors);
      EXPECT_EQ(part.bytes, bytes);
      EXPECT_EQ(part.lag_ns, lag);
      EXPECT_DOUBLE_EQ(part.backlog, backlog);
      EXPECT_EQ(part.max_lag_ns, max_lag);
      EXPECT_DOUBLE_EQ(part.offered_ops_per_sec, offered);
      EXPECT_EQ(part.t_s, t);
      EXPECT_EQ(part.length_s, len);
      EXPECT_EQ(part.response.Encode(), all_response.Encode()) << "size " << size;
      EXPECT_EQ(part.service.Encode(), all_service.Encode()) << "size " << size;
      const driver::IntervalStats st = part.Stats();
      EXPECT_EQ(st.response.p99, all_response.ValueAtPercentile(99));
      EXPECT_EQ(st.response.max, all_response.max());
      EXPECT_EQ(st.ops, ops);
      EXPECT_EQ(st.max_lag_ns, max_lag);
      EXPECT_DOUBLE_EQ(st.offered_ops_per_sec, offered);
      EXPECT_EQ(st.response_histogram, all_response.Encode());
      EXPECT_EQ(st.service_histogram, all_service.Encode());
    }
  }
}

// A part costs bytes for the buckets it uses, not for the histogram's range.
TEST(IntervalPart, ABinaryPartIsSmallerThanItsTextHistograms) {
  std::mt19937_64 rng(1);
  Histogram r{HistogramOptions{}}, s{HistogramOptions{}};
  const driver::IntervalStats st = RankInterval(rng, &r, &s);
  IntervalPart part{HistogramOptions{}};
  ASSERT_TRUE(part.AddOwn(st).ok());
  std::string bin;
  part.AppendTo(&bin);
  EXPECT_LT(bin.size(), st.response_histogram.size() + st.service_histogram.size());
}

TEST(IntervalPart, TruncatedOrMismatchedPartsAreRefused) {
  std::mt19937_64 rng(2);
  Histogram r{HistogramOptions{}}, s{HistogramOptions{}};
  IntervalPart part{HistogramOptions{}};
  ASSERT_TRUE(part.AddOwn(RankInterval(rng, &r, &s)).ok());
  part.index = 3;
  std::string bin;
  part.AppendTo(&bin);
  for (size_t cut : {size_t{0}, size_t{1}, size_t{10}, bin.size() / 2, bin.size() - 1}) {
    IntervalPart into{HistogramOptions{}};
    size_t pos = 0;
    EXPECT_FALSE(into.MergeFrom(std::string_view(bin).substr(0, cut), &pos).ok()) << "cut at " << cut;
  }
  EXPECT_FALSE(PartIndex("", 0).ok());
  // Another interval's part is not merged into this one.
  IntervalPart other{HistogramOptions{}};
  other.index = 4;
  ASSERT_TRUE(other.AddOwn(RankInterval(rng, &r, &s)).ok());
  size_t pos = 0;
  Status st = other.MergeFrom(bin, &pos);
  EXPECT_FALSE(st.ok());
  EXPECT_NE(st.message().find("interval 3 merged into 4"), std::string::npos) << st.message();
  // Histograms of other options are refused.
  HistogramOptions two;
  two.significant_digits = 2;
  IntervalPart coarse{two};
  coarse.ranks = 1;
  coarse.index = 3;
  pos = 0;
  EXPECT_FALSE(coarse.MergeFrom(bin, &pos).ok());
}

TEST(IntervalPart, ResetEmptiesThePartForTheNextInterval) {
  std::mt19937_64 rng(3);
  Histogram r{HistogramOptions{}}, s{HistogramOptions{}};
  IntervalPart part{HistogramOptions{}};
  ASSERT_TRUE(part.AddOwn(RankInterval(rng, &r, &s)).ok());
  part.Reset();
  EXPECT_EQ(part.ranks, 0u);
  EXPECT_EQ(part.ops, 0u);
  EXPECT_EQ(part.response.count(), 0u);
  EXPECT_EQ(part.service.count(), 0u);
}

}  // namespace
}  // namespace storebench::job
