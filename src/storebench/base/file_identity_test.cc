#include "storebench/base/file_identity.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

namespace storebench {
namespace {

namespace fs = std::filesystem;

class FileIdentityTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("sb-identity-" + std::to_string(getpid()));
    fs::create_directories(dir_ / "sub");
    std::ofstream(dir_ / "a.json") << "{}";
    old_ = fs::current_path();
    fs::current_path(dir_ / "sub");
  }
  void TearDown() override {
    fs::current_path(old_);
    fs::remove_all(dir_);
  }
  Status Outputs(const std::string& a, const std::string& b) {
    CommandFiles files;
    files.Output("--json", a);
    files.Output("--csv", b);
    return files.Check();
  }
  fs::path dir_, old_;
};

TEST_F(FileIdentityTest, OneFileUnderTwoSpellingsIsRefused) {
  // Existing and yet to be made; relative, ./, ../ and absolute; a symlink; a dangling symlink.
  for (const auto& [a, b] : std::vector<std::pair<std::string, std::string>>{
           {"../a.json", "./../a.json"},
           {(dir_ / "a.json").string(), "../sub/../a.json"},
           {"new.json", "./new.json"},
           {(dir_ / "sub/new.json").string(), "new.json"}}) {
    Status s = Outputs(a, b);
    EXPECT_FALSE(s.ok()) << a << " vs " << b;
    EXPECT_TRUE(s.IsBadInput()) << s.message();
    EXPECT_NE(s.message().find("--csv: '" + b + "' is the same file as --json '" + a + "'"), std::string::npos)
        << s.message();
  }
  fs::create_symlink(dir_ / "a.json", dir_ / "sub/link.csv");
  EXPECT_FALSE(Outputs("../a.json", "link.csv").ok());
  fs::create_symlink("../later.json", dir_ / "sub/dangling.csv");
  EXPECT_FALSE(Outputs("../later.json", "dangling.csv").ok());
  fs::create_hard_link(dir_ / "a.json", dir_ / "hard.json");
  EXPECT_FALSE(Outputs("../a.json", "../hard.json").ok());
  EXPECT_TRUE(Outputs("../a.json", "a.json").ok());  // sub/a.json is another file
  EXPECT_TRUE(Outputs("x.json", "").ok());           // an absent optional output
}

TEST_F(FileIdentityTest, AnOutputNeverReplacesAnInput) {
  CommandFiles files;
  files.Input("RUN", "../a.json");
  files.Output("-o", (dir_ / "a.json").string());
  Status s = files.Check();
  ASSERT_FALSE(s.ok());
  EXPECT_TRUE(s.IsBadInput());
  EXPECT_EQ(s.message(), "-o: '" + (dir_ / "a.json").string() +
                             "' is the same file as the input RUN '../a.json'; an output never replaces an input, write "
                             "it elsewhere");
}

TEST_F(FileIdentityTest, NoOutputGoesIntoADirectoryTheCommandKeeps) {
  CommandFiles files;
  files.InputDirectory("--out", "../sub");
  files.Output("--json", "./step.json");
  Status s = files.Check();
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("--json: './step.json' is inside --out '../sub'"), std::string::npos) << s.message();
  CommandFiles elsewhere;
  elsewhere.InputDirectory("--out", "../sub");
  elsewhere.Output("--json", "../search.json");
  EXPECT_TRUE(elsewhere.Check().ok());
  CommandFiles later;  // a directory yet to be made
  later.InputDirectory("--out", "../d");
  later.Output("--json", (dir_ / "d/x.json").string());
  EXPECT_FALSE(later.Check().ok());
}

}  // namespace
}  // namespace storebench
