// Semantics of the operations on their own (the comparison with whisper.py
// itself is in fidelity_test.cc).
#include <sys/stat.h>

#include <gtest/gtest.h>

#include "storebench/whisper/whisper.h"

namespace storebench::whisper {
namespace {

class OpsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    path_ = ::testing::TempDir() + "ops_" + ::testing::UnitTest::GetInstance()->current_test_info()->name() + ".wsp";
    ::unlink(path_.c_str());
  }
  std::string path_;
};

constexpr int64_t kOpsNow = 1700000040;  // a multiple of 60

TEST_F(OpsTest, CreateLaysOutArchivesLikeWhisperPy) {
  ASSERT_TRUE(Create(path_, *ParseRetentionList("60s:1d,5m:30d,1h:5y"), {}).ok());
  StatusOr<Header> h = Info(path_);
  ASSERT_TRUE(h.ok()) << h.status().ToString();
  EXPECT_EQ(h->max_retention, 5u * 365 * 86400);
  ASSERT_EQ(h->archives.size(), 3u);
  EXPECT_EQ(h->archives[0].offset, 52u);
  EXPECT_EQ(h->archives[1].offset, 52u + 1440 * 12);
  struct stat st;
  ASSERT_EQ(::stat(path_.c_str(), &st), 0);
  EXPECT_EQ(static_cast<uint64_t>(st.st_size), h->archives[2].end());
  EXPECT_EQ(Create(path_, {{60, 10}}, {}).message(), "File " + path_ + " already exists!");
}

TEST_F(OpsTest, UpdateManyLastOfIntervalWinsAndPropagates) {
  CreateOptions o;
  o.x_files_factor = 0;
  ASSERT_TRUE(Create(path_, {{60, 10}, {300, 10}}, o).ok());
  // 61 and 119 share an interval: the later timestamp wins; equal timestamps: the first given.
  ASSERT_TRUE(UpdateMany(path_, {{kOpsNow - 119, 1}, {kOpsNow - 61, 2}, {kOpsNow, 5}, {kOpsNow, 6}}, kOpsNow).ok());
  StatusOr<std::optional<FetchResult>> r = Fetch(path_, kOpsNow - 180, kOpsNow, kOpsNow);
  ASSERT_TRUE(r.ok() && r->has_value());
  EXPECT_EQ((*r)->step, 60);
  ASSERT_EQ((*r)->values.size(), 3u);
  EXPECT_EQ((*r)->values[0], 2.0);  // kOpsNow-119 and kOpsNow-61 share the interval kOpsNow-120
  EXPECT_FALSE((*r)->values[1].has_value());
  EXPECT_EQ((*r)->values[2], 5.0);
  StatusOr<std::optional<FetchResult>> low = Fetch(path_, kOpsNow - 3000, kOpsNow, kOpsNow);
  ASSERT_TRUE(low.ok() && low->has_value());
  EXPECT_EQ((*low)->step, 300);
}

TEST_F(OpsTest, TooOldPointsAreDroppedAndSingleUpdateRefusesThem) {
  ASSERT_TRUE(Create(path_, {{60, 10}}, {}).ok());
  ASSERT_TRUE(UpdateMany(path_, {{kOpsNow - 10000, 1}}, kOpsNow).ok());
  StatusOr<std::optional<FetchResult>> r = Fetch(path_, kOpsNow - 500, kOpsNow, kOpsNow);
  ASSERT_TRUE(r.ok() && r->has_value());
  for (const auto& v : (*r)->values) EXPECT_FALSE(v.has_value());
  Status st = Update(path_, 1, kOpsNow - 10000, kOpsNow);
  EXPECT_EQ(st.code(), Status::Code::kInvalidArgument);
  EXPECT_NE(st.message().find("Timestamp not covered"), std::string::npos);
}

TEST_F(OpsTest, FetchOutsideRetentionIsEmptyAndBadRangeIsAnError) {
  ASSERT_TRUE(Create(path_, {{60, 10}}, {}).ok());
  EXPECT_FALSE(Fetch(path_, kOpsNow + 10, kOpsNow + 20, kOpsNow)->has_value());
  EXPECT_FALSE(Fetch(path_, 0, kOpsNow - 1000, kOpsNow)->has_value());
  EXPECT_EQ(Fetch(path_, kOpsNow, kOpsNow - 1, kOpsNow).status().code(), Status::Code::kInvalidArgument);
  EXPECT_EQ(Fetch(path_, kOpsNow - 100, kOpsNow, kOpsNow, {}, nullptr, 7).status().code(), Status::Code::kInvalidArgument);
}

TEST_F(OpsTest, SetAggregationReturnsOldAndInvalidatesCache) {
  ASSERT_TRUE(Create(path_, {{60, 10}}, {}).ok());
  HeaderCache cache;
  IoOptions io;
  io.header_cache = &cache;
  ASSERT_TRUE(Info(path_, io).ok());
  EXPECT_TRUE(cache.Get(path_).has_value());
  StatusOr<AggregationSetting> old = SetAggregation(path_, AggregationMethod::kMax, 0.25, io);
  ASSERT_TRUE(old.ok());
  EXPECT_EQ(old->method, AggregationMethod::kAverage);
  EXPECT_EQ(old->x_files_factor, 0.5f);
  EXPECT_FALSE(cache.Get(path_).has_value());
  EXPECT_EQ(Info(path_, io)->aggregation, AggregationMethod::kMax);
  EXPECT_FALSE(SetAggregation(path_, std::nullopt, 1.5).ok());
}

TEST_F(OpsTest, SparseAndFallocateGiveTheSameContent) {
  for (Allocation a : {Allocation::kSparse, Allocation::kFallocate}) {
    std::string p = path_ + std::to_string(static_cast<int>(a));
    ::unlink(p.c_str());
    CreateOptions o;
    o.allocation = a;
    ASSERT_TRUE(Create(p, {{60, 100}}, o).ok());
    EXPECT_EQ(Info(p)->archives[0].end(), 28u + 1200);
  }
}

}  // namespace
}  // namespace storebench::whisper
