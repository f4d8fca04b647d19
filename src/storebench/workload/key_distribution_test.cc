#include "storebench/workload/key_distribution.h"

#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "storebench/workload/stats_test_util.h"
#include "storebench/workload/zipfian.h"

namespace storebench::workload {
namespace {

using testing::ExpectChiSquareFit;

std::unique_ptr<KeyDistribution> Make(std::string_view spec, uint64_t items) {
  StatusOr<std::unique_ptr<KeyDistribution>> dist = MakeKeyDistribution(spec, items);
  EXPECT_TRUE(dist.ok()) << spec << ": " << dist.status().ToString();
  return dist.ok() ? std::move(dist.value()) : nullptr;
}

TEST(KeyDistributionFactoryTest, BuildsEveryRegisteredNameAndRoundTripsDescribe) {
  for (const KeyDistributionInfo& info : KeyDistributionRegistry()) {
    std::unique_ptr<KeyDistribution> dist = Make(info.name, 100);
    ASSERT_NE(dist, nullptr) << info.name;
    EXPECT_EQ(dist->item_count(), 100u);
    std::unique_ptr<KeyDistribution> again = Make(dist->Describe(), 100);
    ASSERT_NE(again, nullptr) << dist->Describe();
    EXPECT_EQ(again->Describe(), dist->Describe());
  }
}

TEST(KeyDistributionFactoryTest, ParsesParameters) {
  EXPECT_EQ(Make("zipfian", 10)->Describe(), "zipfian:0.99");
  EXPECT_EQ(Make("zipfian:0.9", 10)->Describe(), "zipfian:0.9");
  EXPECT_EQ(Make("zipfian-unscrambled:0.5", 10)->Describe(), "zipfian-unscrambled:0.5");
  EXPECT_EQ(Make("latest:0.7", 10)->Describe(), "latest:0.7");
  EXPECT_EQ(Make("hotspot", 10)->Describe(), "hotspot:0.2,0.8");
  EXPECT_EQ(Make("hotspot:0.1,0.9", 10)->Describe(), "hotspot:0.1,0.9");
}

TEST(KeyDistributionFactoryTest, RejectsBadSpecsNamingFlagAndForm) {
  struct Case {
    const char* spec;
    const char* form_part;
  };
  for (const Case& c : {Case{"pareto", "zipfian[:THETA]"}, Case{"zipfian:1.5", "0<THETA<1"},
                        Case{"zipfian:0", "zipfian[:THETA]"}, Case{"zipfian:x", "zipfian[:THETA]"},
                        Case{"zipfian:", "zipfian[:THETA]"}, Case{"latest:0.5,0.2", "latest[:THETA]"},
                        Case{"hotspot:0.2", "HOT_KEYS,HOT_OPS"}, Case{"hotspot:1.2,0.5", "HOT_KEYS,HOT_OPS"},
                        Case{"uniform:3", "uniform"}, Case{"sequential:1", "sequential"}}) {
    StatusOr<std::unique_ptr<KeyDistribution>> dist = MakeKeyDistribution(c.spec, 100, "--key-dist");
    ASSERT_FALSE(dist.ok()) << c.spec;
    EXPECT_EQ(dist.status().code(), Status::Code::kInvalidArgument);
    const std::string& msg = dist.status().message();
    EXPECT_NE(msg.find("--key-dist"), std::string::npos) << msg;
    EXPECT_NE(msg.find(c.spec), std::string::npos) << msg;
    EXPECT_NE(msg.find(c.form_part), std::string::npos) << msg;
  }
  EXPECT_FALSE(MakeKeyDistribution("uniform", 0).ok());
}

TEST(UniformDistributionTest, FitsUniform) {
  std::unique_ptr<KeyDistribution> dist = Make("uniform", 500);
  Random rng(21);
  std::vector<uint64_t> counts(500);
  for (int i = 0; i < 250'000; ++i) ++counts[dist->Next(rng)];
  ExpectChiSquareFit(counts, std::vector<double>(500, 1.0 / 500), "uniform");
}

TEST(HotspotDistributionTest, HotSetGetsItsFractionUniformly) {
  const uint64_t n = 1000;
  std::unique_ptr<KeyDistribution> dist = Make("hotspot:0.2,0.8", n);
  Random rng(22);
  std::vector<uint64_t> counts(n);
  for (int i = 0; i < 500'000; ++i) ++counts[dist->Next(rng)];
  // Keys [0, 200) share 80% of the draws, keys [200, 1000) share 20%.
  std::vector<double> probs(n);
  for (uint64_t k = 0; k < n; ++k) probs[k] = k < 200 ? 0.8 / 200 : 0.2 / 800;
  ExpectChiSquareFit(counts, probs, "hotspot:0.2,0.8");
}

TEST(HotspotDistributionTest, DegenerateFractionsStayInRange) {
  Random rng(23);
  for (const char* spec : {"hotspot:0,0.8", "hotspot:1,0.3", "hotspot:0.5,0", "hotspot:0.5,1"}) {
    std::unique_ptr<KeyDistribution> dist = Make(spec, 10);
    for (int i = 0; i < 1000; ++i) ASSERT_LT(dist->Next(rng), 10u) << spec;
  }
  std::unique_ptr<KeyDistribution> all_hot = Make("hotspot:0.5,1", 10);
  for (int i = 0; i < 1000; ++i) ASSERT_LT(all_hot->Next(rng), 5u);
}

TEST(SequentialDistributionTest, WrapsAndFollowsResize) {
  std::unique_ptr<KeyDistribution> dist = Make("sequential", 3);
  Random rng(24);
  std::vector<uint64_t> seen;
  for (int i = 0; i < 7; ++i) seen.push_back(dist->Next(rng));
  EXPECT_EQ(seen, (std::vector<uint64_t>{0, 1, 2, 0, 1, 2, 0}));
  dist->AddItems(2);
  seen.clear();
  for (int i = 0; i < 6; ++i) seen.push_back(dist->Next(rng));
  EXPECT_EQ(seen, (std::vector<uint64_t>{1, 2, 3, 4, 0, 1}));
}

TEST(KeyDistributionTest, SetItemCountShrinksEveryDistribution) {
  Random rng(25);
  for (const KeyDistributionInfo& info : KeyDistributionRegistry()) {
    std::unique_ptr<KeyDistribution> dist = Make(info.name, 1'000'000);
    dist->SetItemCount(7);
    for (int i = 0; i < 2000; ++i) ASSERT_LT(dist->Next(rng), 7u) << info.name;
  }
}

}  // namespace
}  // namespace storebench::workload
