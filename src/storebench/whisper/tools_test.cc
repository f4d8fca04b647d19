// The whisper-* replacements against the Python scripts on the same files.
#include "storebench/whisper/tools.h"

#include <ctime>
#include <sstream>

#include <gtest/gtest.h>

#include "storebench/whisper/python_helper.h"

namespace storebench::whisper {
namespace {

struct ToolOutput {
  int code;
  std::string out, err;
};

ToolOutput Ours(const std::vector<std::string>& args) {
  std::ostringstream out, err;
  int code = RunWhisperTool(args, out, err);
  return {code, out.str(), err.str()};
}

testing::CommandResult Theirs(const std::string& tool, const std::vector<std::string>& args) {
  std::vector<std::string> argv = {"/usr/bin/python3", "/usr/bin/whisper-" + tool};
  argv.insert(argv.end(), args.begin(), args.end());
  return testing::RunCommand(argv);
}

class ToolsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!testing::PythonWhisperAvailable()) GTEST_SKIP() << "/usr/bin/python3 cannot import whisper";
    dir_ = testing::MakeTempDir();
    // Points well inside the first archive, so that a second passing between the
    // two implementations' wall-clock "now" cannot change where they land.
    now_ = static_cast<int64_t>(std::time(nullptr));
  }
  // Compares our tool with the script on the same arguments.
  void ExpectSame(const std::string& tool, const std::vector<std::string>& args) {
    std::vector<std::string> ours_args = {tool};
    ours_args.insert(ours_args.end(), args.begin(), args.end());
    ToolOutput o = Ours(ours_args);
    testing::CommandResult t = Theirs(tool, args);
    EXPECT_EQ(o.code, t.exit_code) << tool << " stderr ours: " << o.err << " theirs: " << t.err;
    EXPECT_EQ(o.out, t.out) << tool;
  }
  std::string dir_;
  int64_t now_ = 0;
};

TEST_F(ToolsTest, CreateAndInfoMatchTheScripts) {
  const std::string a = dir_ + "/a.wsp", b = dir_ + "/b.wsp";
  ToolOutput o = Ours({"create", a, "60s:1d", "5m:30d", "--xFilesFactor=0.3", "--aggregationMethod", "max"});
  testing::CommandResult t = Theirs("create", {b, "60s:1d", "5m:30d", "--xFilesFactor=0.3", "--aggregationMethod", "max"});
  EXPECT_EQ(o.code, 0);
  EXPECT_EQ(t.exit_code, 0);
  EXPECT_EQ(o.out, "Created: " + a + " (121000 bytes)\n");
  EXPECT_EQ(t.out, "Created: " + b + " (121000 bytes)\n");
  for (const std::string& f : {a, b}) {
    ExpectSame("info", {f});
    ExpectSame("info", {"--json", f});
    ExpectSame("info", {f, "xFilesFactor"});
    ExpectSame("info", {f, "archives"});
    ExpectSame("info", {f, "nosuchfield"});
  }
  ExpectSame("create", {"--estimate", "60s:1d,5m:30d,1h:5y"});
  EXPECT_EQ(Ours({"create", a, "60:10"}).code, 1);  // exists
  EXPECT_EQ(Ours({"create", a}).code, 1);           // missing archives: help, like optparse
}

TEST_F(ToolsTest, UpdateFetchAndDumpMatchTheScripts) {
  const std::string f = dir_ + "/u.wsp";
  ASSERT_EQ(Ours({"create", f, "60:120", "300:100"}).code, 0);
  std::vector<std::string> points;
  for (int i = 5; i < 15; ++i) points.push_back(std::to_string(now_ - 60 * i) + ":" + std::to_string(i * 1.5));
  std::vector<std::string> args = {"update", f};
  args.insert(args.end(), points.begin(), points.end());
  ASSERT_EQ(Ours(args).code, 0);
  ASSERT_EQ(Ours({"update", f, std::to_string(now_ - 1800) + ":-7"}).code, 0);
  const std::string from = std::to_string(now_ - 3000), until = std::to_string(now_ - 600);
  ExpectSame("fetch", {"--from", from, "--until", until, f});
  ExpectSame("fetch", {"--from=" + from, "--until=" + until, "--json", f});
  ExpectSame("fetch", {"--from", from, "--until", until, "--drop", "nulls", f});
  ExpectSame("fetch", {"--from", from, "--until", until, "--pretty", f});
  ExpectSame("fetch", {"--from", from, "--until", until, "--pretty", "-t", "%Y-%m-%d %H:%M", f});
  ExpectSame("dump", {f});
  ExpectSame("dump", {"--pretty", f});
  ExpectSame("fetch", {"--from", "100", "--until", "200", f});  // no data: exit 1
  // The same update through whisper-update gives the same file.
  const std::string g = dir_ + "/g.wsp";
  ASSERT_EQ(Ours({"create", g, "60:120", "300:100"}).code, 0);
  std::vector<std::string> py_args = {g};
  py_args.insert(py_args.end(), points.begin(), points.end());
  ASSERT_EQ(Theirs("update", py_args).exit_code, 0);
  ASSERT_EQ(Theirs("update", {g, std::to_string(now_ - 1800) + ":-7"}).exit_code, 0);
  EXPECT_EQ(Ours({"dump", f}).out, Theirs("dump", {g}).out);
}

// --io changes how bytes move, never the files or the output.
TEST_F(ToolsTest, EveryIoModeGivesTheScriptsFilesAndOutput) {
  std::vector<std::string> points;
  for (int i = 5; i < 25; ++i) points.push_back(std::to_string(now_ - 60 * i) + ":" + std::to_string(i * 0.5));
  const std::string py = dir_ + "/py.wsp";
  ASSERT_EQ(Theirs("create", {py, "60:120", "300:100", "3600:50"}).exit_code, 0);
  std::vector<std::string> py_args = {py};
  py_args.insert(py_args.end(), points.begin(), points.end());
  ASSERT_EQ(Theirs("update", py_args).exit_code, 0);
  ASSERT_EQ(Theirs("update", {py, std::to_string(now_ - 1800) + ":-7"}).exit_code, 0);
  const std::string from = std::to_string(now_ - 3000), until = std::to_string(now_ - 600);
  const std::string expected = Theirs("fetch", {"--from", from, "--until", until, py}).out;
  for (const char* io : {"exact", "minimal", "python"}) {
    const std::string f = dir_ + "/" + io + ".wsp";
    ASSERT_EQ(Ours({"create", "--io", io, f, "60:120", "300:100", "3600:50"}).code, 0) << io;
    std::vector<std::string> args = {"update", "--io=" + std::string(io), f};
    args.insert(args.end(), points.begin(), points.end());
    ASSERT_EQ(Ours(args).code, 0) << io;
    ASSERT_EQ(Ours({"update", f, "--io", io, std::to_string(now_ - 1800) + ":-7"}).code, 0) << io;
    EXPECT_EQ(Ours({"dump", f}).out, Theirs("dump", {py}).out) << io;
    EXPECT_EQ(Ours({"fetch", "--io", io, "--from", from, "--until", until, py}).out, expected) << io;
  }
}

TEST_F(ToolsTest, BadUsageIsOneLineAndExitTwo) {
  for (const std::vector<std::string>& args : std::vector<std::vector<std::string>>{
           {"fetch", "--from", "yesterday", "x.wsp"},
           {"fetch", "--drop", "all", "x.wsp"},
           {"info", "--bogus", "x.wsp"},
           {"update", "x.wsp", "12:ab"},
           {"update", "--io", "mmap", "x.wsp", "12:1"},
           {"dump"},
           {"frobnicate"}}) {
    ToolOutput o = Ours(args);
    EXPECT_EQ(o.code, 2) << args[0];
    EXPECT_EQ(std::count(o.err.begin(), o.err.end(), '\n'), 1) << o.err;
  }
  ToolOutput o = Ours({"fetch", "--from", "yesterday", "x.wsp"});
  EXPECT_NE(o.err.find("--from"), std::string::npos);
  EXPECT_NE(o.err.find("UNIX_TIME"), std::string::npos);
}

TEST_F(ToolsTest, MissingFileFailsWithExitOne) {
  EXPECT_EQ(Ours({"info", dir_ + "/none.wsp"}).code, 1);
  ExpectSame("dump", {dir_ + "/none.wsp"});
}

}  // namespace
}  // namespace storebench::whisper
