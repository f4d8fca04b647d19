#include "storebench/experiment/stored_run.h"

#include <gtest/gtest.h>

#include <fstream>

#include "storebench/measure/histogram.h"
#include "storebench/report/result.h"

namespace storebench::experiment {
namespace {

namespace fs = std::filesystem;

TEST(StoredRun, OnlyAWholeRunOfTheSameJobIsReused) {
  const fs::path dir = fs::path(::testing::TempDir()) / "stored";
  fs::remove_all(dir);
  fs::create_directories(dir);
  auto write = [&](const char* name, const nlohmann::json& doc) {
    std::ofstream(dir / name) << doc.dump();
    return dir / name;
  };
  const nlohmann::json config = {{"backend", "null"}};
  const std::string histogram = measure::Histogram(measure::HistogramOptions{}).Encode();
  const nlohmann::json whole = {{"schema", report::kRunSchema},
                                {"config", config},
                                {"totals", {{"interrupted", false}}},
                                {"throughput", {{"ops_per_sec", 10.0}}},
                                {"latency", {{"response", {{"histogram", histogram}}}, {"service", {{"histogram", histogram}}}}}};
  auto missing = ReusableRun(dir / "none.json");
  ASSERT_TRUE(missing.ok());
  EXPECT_FALSE(missing->has_value());
  std::ofstream(dir / "torn.json") << "{\"schema\": ";
  EXPECT_FALSE(ReusableRun(dir / "torn.json")->has_value());
  nlohmann::json stopped = whole;
  stopped["totals"]["interrupted"] = true;
  EXPECT_FALSE(ReusableRun(write("stopped.json", stopped))->has_value());
  nlohmann::json unsaid = whole;
  unsaid["totals"].erase("interrupted");
  EXPECT_FALSE(ReusableRun(write("unsaid.json", unsaid))->has_value()) << "a run that does not say it finished is not whole";
  EXPECT_FALSE(ReusableRun(write("other.json", {{"schema", "storebench.search/1"}}))->has_value());
  // Foreign or malformed documents are run again, never read as a run (nor a crash).
  EXPECT_FALSE(ReusableRun(write("number.json", {{"schema", 1}}))->has_value());
  nlohmann::json odd = whole;
  odd["totals"]["interrupted"] = "no";
  EXPECT_FALSE(ReusableRun(write("odd.json", odd))->has_value());
  nlohmann::json partial = whole;
  partial.erase("latency");
  EXPECT_FALSE(ReusableRun(write("partial.json", partial))->has_value());
  auto reused = ReusableRun(write("whole.json", whole), &config);
  ASSERT_TRUE(reused.ok());
  ASSERT_TRUE(reused->has_value());
  EXPECT_EQ(**reused, whole);
  const nlohmann::json another = {{"backend", "file"}};
  auto refused = ReusableRun(dir / "whole.json", &another);
  EXPECT_EQ(refused.status().code(), Status::Code::kInvalidArgument);
  EXPECT_NE(refused.status().message().find("--out:"), std::string::npos) << refused.status().message();
  EXPECT_TRUE(ReusableRun(dir / "whole.json")->has_value()) << "without a job to match, any whole run is reused";
}

}  // namespace
}  // namespace storebench::experiment
