#include "storebench/experiment/matrix_grid.h"

#include <gtest/gtest.h>

#include <fstream>

namespace storebench::experiment {
namespace {

namespace fs = std::filesystem;

TEST(MatrixGrid, TheFirstAxisChangesSlowestAndNamesAreSafeFileStems) {
  auto v = CrossAxes({{"threads", {"1", "2"}, false}, {"key-dist", {"zipfian:0.99", "uniform"}, false}});
  ASSERT_TRUE(v.ok()) << v.status().ToString();
  ASSERT_EQ(v->size(), 4u);
  EXPECT_EQ((*v)[0].name, "threads=1,key-dist=zipfian:0.99");
  EXPECT_EQ((*v)[1].name, "threads=1,key-dist=uniform");
  EXPECT_EQ((*v)[2].name, "threads=2,key-dist=zipfian:0.99");
  EXPECT_EQ((*v)[0].stem, "threads=1,key-dist=zipfian_0.99");
  EXPECT_EQ(RunFileName((*v)[3], 2), "threads=2,key-dist=uniform-2.json");
  // Two names that differ only where a file name cannot: refused, not overwritten.
  EXPECT_FALSE(CrossAxes({{"schedule", {"a:1", "a/1"}, false}}).ok());
}

TEST(MatrixGrid, RunsGoInRoundsAndAResumedGridRunsOnlyWhatIsMissing) {
  auto v = CrossAxes({{"threads", {"1", "2", "3"}, false}});
  ASSERT_TRUE(v.ok());
  GridSettings s;
  s.repeat = 2;
  const fs::path dir = fs::path(::testing::TempDir()) / "grid";
  fs::remove_all(dir);
  fs::create_directories(dir);
  GridOrder o = OrderRuns(dir, s, *v);
  EXPECT_EQ(o.runs, (std::vector<std::pair<size_t, int>>{{0, 1}, {1, 1}, {2, 1}, {0, 2}, {1, 2}, {2, 2}}));
  EXPECT_EQ(o.todo, o.runs);
  s.order = "random";
  o = OrderRuns(dir, s, *v);
  for (size_t k = 0; k < o.runs.size(); ++k) EXPECT_EQ(o.runs[k].second, k < 3 ? 1 : 2) << "each round holds every variant once";
  // A file that is not a whole stored run (here: not JSON) is run again.
  std::ofstream(dir / RunFileName((*v)[1], 1)) << "{";
  EXPECT_FALSE(RunIsStored(dir / RunFileName((*v)[1], 1)));
  EXPECT_EQ(OrderRuns(dir, s, *v).todo.size(), 6u);
}

TEST(MatrixGrid, AManifestOfOtherSettingsIsRefused) {
  auto v = CrossAxes({{"threads", {"1", "2"}, false}});
  ASSERT_TRUE(v.ok());
  GridSettings s;
  s.run_args = {"--backend", "null"};
  const nlohmann::json mine = GridManifest(s, {{"threads", {"1", "2"}, false}}, *v);
  EXPECT_EQ(mine["variants"][1]["files"][0], "threads=2-1.json");
  const fs::path path = fs::path(::testing::TempDir()) / "manifest.json";
  std::ofstream(path) << mine.dump();
  EXPECT_TRUE(CheckExistingManifest(path, mine).ok());
  s.run_args = {"--backend", "file"};
  const Status other = CheckExistingManifest(path, GridManifest(s, {{"threads", {"1", "2"}, false}}, *v));
  EXPECT_EQ(other.code(), Status::Code::kInvalidArgument);
  EXPECT_NE(other.message().find("holds a matrix of other settings"), std::string::npos) << other.message();
}

}  // namespace
}  // namespace storebench::experiment
