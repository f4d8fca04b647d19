#include "storebench/base/json_file.h"

#include <nlohmann/json.hpp>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

namespace storebench {
namespace {

TEST(JsonFile, ParsesAndNamesWhereItFailed) {
  auto doc = ParseJson(R"({"a": 1, "b": [1, 2]})", "x.json");
  ASSERT_TRUE(doc.ok());
  EXPECT_EQ((*doc)["a"], 1);
  auto bad = ParseJson("{", "x.json");
  EXPECT_EQ(bad.status().code(), Status::Code::kCorruption);
  EXPECT_EQ(bad.status().message(), "x.json: not valid JSON");
}

TEST(JsonFile, ADuplicateKeyIsRefusedOnlyWhenAsked) {
  const char* text = R"({"a": {"k": 1, "k": 2}})";
  auto kept = ParseJson(text, "j");
  ASSERT_TRUE(kept.ok());
  EXPECT_EQ((*kept)["a"]["k"], 2);
  auto refused = ParseJson(text, "--job j", DuplicateKeys::kRefuse);
  EXPECT_EQ(refused.status().message(), "--job j: the key \"k\" is given twice in one object; give each setting once");
  // The same key in two objects is not a duplicate.
  EXPECT_TRUE(ParseJson(R"({"a": {"k": 1}, "b": {"k": 2}})", "j", DuplicateKeys::kRefuse).ok());
}

TEST(JsonFile, ReadsAFileOrNamesThePath) {
  const std::string path = ::testing::TempDir() + "/json_file_test.json";
  std::ofstream(path) << R"({"schema": "x"})";
  auto doc = ReadJsonFile(path);
  ASSERT_TRUE(doc.ok()) << doc.status().message();
  EXPECT_EQ((*doc)["schema"], "x");
  std::filesystem::remove(path);
  auto missing = ReadJsonFile(path);
  EXPECT_EQ(missing.status().code(), Status::Code::kNotFound);
  EXPECT_EQ(missing.status().message().rfind("open " + path + ": ", 0), 0u) << missing.status().message();
}

}  // namespace
}  // namespace storebench
