// Data sets: prepare writes stamped files and the manifest last, does nothing
// on a matching set, refuses a different one; opening names what is wrong.
#include "storebench/backend/file/dataset.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>

#include "storebench/backend/file/stamp.h"

namespace storebench::backend::file {
namespace {

namespace fs = std::filesystem;

class DatasetTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = (fs::path(::testing::TempDir()) /
            ("file_dataset_" + std::string(::testing::UnitTest::GetInstance()->current_test_info()->name())))
               .string();
    fs::remove_all(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string dir_;
};

TEST_F(DatasetTest, PrepareStampsEveryBlockAndIsIdempotent) {
  bool created = false;
  auto d = PrepareDataset(dir_, 2, 64 << 10, 42, &created);
  ASSERT_TRUE(d.ok()) << d.status().message();
  EXPECT_TRUE(created);
  ASSERT_EQ(d->paths.size(), 2u);
  std::ifstream in(d->paths[1], std::ios::binary);
  std::vector<char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  ASSERT_EQ(bytes.size(), 64u << 10);
  BlockVerifier ver(42);
  EXPECT_TRUE(ver.Check(1, d->paths[1], 0, bytes).ok());

  const auto mtime = fs::last_write_time(d->paths[0]);
  auto again = PrepareDataset(dir_, 2, 64 << 10, 99, &created);
  ASSERT_TRUE(again.ok());
  EXPECT_FALSE(created);
  EXPECT_EQ(again->seed, 42u);  // the existing set, untouched
  EXPECT_EQ(fs::last_write_time(d->paths[0]), mtime);
}

TEST_F(DatasetTest, DifferentExistingSetIsRefused) {
  bool created = false;
  ASSERT_TRUE(PrepareDataset(dir_, 2, 64 << 10, 1, &created).ok());
  auto other = PrepareDataset(dir_, 3, 64 << 10, 1, &created);
  ASSERT_EQ(other.status().code(), Status::Code::kInvalidArgument);
  EXPECT_NE(other.status().message().find("already holds a different file data set (2 files"), std::string::npos)
      << other.status().message();

  auto open = OpenDataset(dir_, 0, 128 << 10);
  ASSERT_EQ(open.status().code(), Status::Code::kInvalidArgument);
  EXPECT_NE(open.status().message().find("has 2 files of 64.0 KiB"), std::string::npos) << open.status().message();
  EXPECT_TRUE(OpenDataset(dir_, 0, 0).ok());
  EXPECT_TRUE(OpenDataset(dir_, 2, 64 << 10).ok());
}

TEST_F(DatasetTest, MissingOrIncompleteSetSuggestsPrepare) {
  auto open = OpenDataset(dir_, 0, 0);
  ASSERT_EQ(open.status().code(), Status::Code::kNotFound);
  EXPECT_NE(open.status().message().find("storebench prepare --backend file --data " + dir_), std::string::npos)
      << open.status().message();
  // Files without the manifest (a prepare that died) do not pass for a data set.
  fs::create_directories(dir_);
  std::ofstream(DataFilePath(dir_, 0)) << "partial";
  EXPECT_EQ(OpenDataset(dir_, 0, 0).status().code(), Status::Code::kNotFound);
}

TEST_F(DatasetTest, TruncatedFileIsReported) {
  bool created = false;
  auto d = PrepareDataset(dir_, 2, 64 << 10, 1, &created);
  ASSERT_TRUE(d.ok());
  fs::resize_file(d->paths[1], 4096);
  auto open = OpenDataset(dir_, 0, 0);
  ASSERT_FALSE(open.ok());
  EXPECT_NE(open.status().message().find("data-00001.bin has 4096 bytes"), std::string::npos)
      << open.status().message();
}

TEST_F(DatasetTest, FileSizeMustBeWholeStampBlocks) {
  bool created = false;
  auto d = PrepareDataset(dir_, 1, 5000, 1, &created);
  ASSERT_EQ(d.status().code(), Status::Code::kInvalidArgument);
  EXPECT_NE(d.status().message().find("--file-size"), std::string::npos);
}

}  // namespace
}  // namespace storebench::backend::file
