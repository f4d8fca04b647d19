// Every output of every command that writes is proved writable before any
// work (issue 51 M2 and the new fault cases): a name the file system cannot
// hold, a pseudo file system, a read-only mount, a full disk. And when the
// disk fills during a run, what was measured is kept and nothing that existed
// is truncated. Cases that mount a tmpfs skip visibly where that is not permitted.
#include <sys/mount.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "storebench/testing/binary_test_fixture.h"

namespace storebench::cli {
namespace {

namespace fs = std::filesystem;
using storebench::testing::LineCount;
using storebench::testing::Outcome;
using storebench::testing::Slurp;
using storebench::testing::StorebenchBinary;

class OutputPaths : public storebench::testing::BinaryTest {
 protected:
  void SetUp() override {
    BinaryTest::SetUp();
    // A rescued output lands in the test's own directory, not in /tmp.
    ::setenv("TMPDIR", (dir_ / "rescue").c_str(), 1);
    fs::create_directories(dir_ / "rescue");
  }
  void TearDown() override {
    for (auto it = mounts_.rbegin(); it != mounts_.rend(); ++it) ::umount2(it->c_str(), MNT_DETACH);
    ::unsetenv("TMPDIR");
    BinaryTest::TearDown();
  }
  // Mounts a tmpfs of `size` at dir_/NAME; false where that is not permitted (the caller skips).
  bool MountTmpfs(const std::string& name, const char* size) {
    const fs::path at = dir_ / name;
    fs::create_directories(at);
    if (geteuid() != 0 || ::mount("tmpfs", at.c_str(), "tmpfs", 0, size) != 0) return false;
    mounts_.push_back(at.string());
    return true;
  }
  bool RemountReadOnly(const std::string& name) {
    const fs::path at = dir_ / name;
    return ::mount(nullptr, at.c_str(), nullptr, MS_REMOUNT | MS_RDONLY, nullptr) == 0;
  }
  // A null run's result in dir_/NAME, an input for report and compare.
  std::string RunResult(const std::string& name) {
    const std::string path = (dir_ / name).string();
    Outcome o = Run("run --backend null --ops 2000 --quiet --json " + path);
    EXPECT_EQ(o.code, 0) << o.err;
    return path;
  }
  void ExpectRefusedNaming(const Outcome& o, const std::string& args, const std::string& flag, const std::string& why) {
    EXPECT_EQ(o.code, 2) << args << "\n" << o.err;
    EXPECT_EQ(LineCount(o.err), 1u) << args << "\n" << o.err;
    EXPECT_NE(o.err.find("storebench: " + flag + ": cannot write '"), std::string::npos) << args << "\n" << o.err;
    EXPECT_NE(o.err.find(why), std::string::npos) << args << "\n" << o.err;
  }
  std::vector<std::string> mounts_;
};

// Each output flag of each command that writes, as "COMMAND … FLAG %s …"
// with %s where the path goes, and whether it names a directory.
struct OutputFlag {
  std::string flag;
  std::string command;  // %s: the path
  bool directory = false;
};

std::vector<OutputFlag> EveryOutputFlag(const std::string& a, const std::string& b) {
  const std::string run = "run --backend null --ops 1000 --quiet ";
  const std::string search = "search --slo 'p99<=1s' --max-rate 2k --step-duration 50ms ";
  const std::string matrix = "matrix --vary threads=1,2 ";
  return {
      {"--json", run + "--json %s"},
      {"--csv", run + "--csv %s"},
      {"--html", run + "--html %s"},
      {"--hlog", run + "--hlog %s"},
      {"--hgrm", run + "--hgrm %s"},
      {"-o", "report " + a + " -o %s"},
      {"--hlog", "report " + a + " --hlog %s"},
      {"--hgrm", "report " + a + " --hgrm %s"},
      {"--json", "compare " + a + " " + b + " --json %s"},
      {"--json", search + "--json %s -- --backend null"},
      {"--out", search + "--out %s -- --backend null", true},
      {"--out", matrix + "--out %s -- --backend null --ops 100", true},
      {"--html", matrix + "--out m --html %s -- --backend null --ops 100"},
      {"--data", "prepare --backend file --files 1 --file-size 64k --data %s", true},
  };
}

std::string Fill(std::string command, const std::string& path) {
  return command.replace(command.find("%s"), 2, "'" + path + "'");
}

// A name over NAME_MAX, one that fits but whose temporary twin (NAME.tmp.PID)
// does not, and paths under /proc and /sys: each refused, naming the flag, exit 2.
TEST_F(OutputPaths, EveryOutputFlagOfEveryCommandIsProvedWritableFirst) {
  const std::string a = RunResult("a.json"), b = RunResult("b.json");
  struct Bad {
    std::string path, why;
  };
  const std::vector<Bad> files = {{(dir_ / std::string(300, 'n')).string(), "; the file system of"},
                                  {(dir_ / (std::string(250, 'n') + ".json")).string(), "; the file system of"},
                                  {"/proc/storebench-out.json", "is on proc, a pseudo file system"},
                                  {"/sys/storebench-out.json", "is on sysfs, a pseudo file system"}};
  const std::vector<Bad> dirs = {{(dir_ / std::string(300, 'd') / "x").string(), "; the file system of"},
                                 {"/proc/storebench-out", "is on proc, a pseudo file system"},
                                 {"/sys/kernel/storebench-out", "is on sysfs, a pseudo file system"}};
  for (const OutputFlag& f : EveryOutputFlag(a, b)) {
    for (const Bad& bad : f.directory ? dirs : files) {
      const std::string args = Fill(f.command, bad.path);
      ExpectRefusedNaming(RunShell("cd " + dir_.string() + " && " + StorebenchBinary() + " " + args), args, f.flag,
                          bad.why);
    }
  }
  EXPECT_FALSE(fs::exists(dir_ / "m")) << "a refused matrix made its --out";
}

// A read-only mount for any output, and for the data set of prepare and of
// a run that writes: refused before the run, naming the path, exit 2.
TEST_F(OutputPaths, AReadOnlyFileSystemIsRefusedBeforeTheRun) {
  if (!MountTmpfs("ro", "size=8m")) GTEST_SKIP() << "cannot mount a tmpfs here (needs root and mount permission)";
  const std::string ro = (dir_ / "ro").string();
  const std::string whisper = ro + "/whisper";
  ASSERT_EQ(Run("prepare --backend whisper --data " + whisper + " --metrics 4 --retention 60:100").code, 0);
  if (!RemountReadOnly("ro")) GTEST_SKIP() << "cannot remount the tmpfs read-only here";
  const std::string a = RunResult("a.json"), b = RunResult("b.json");
  for (const OutputFlag& f : EveryOutputFlag(a, b)) {
    const std::string args = Fill(f.command, ro + (f.directory ? "/new-dir" : "/out.file"));
    ExpectRefusedNaming(Run(args), args, f.flag, "is on a read-only file system");
  }
  const std::string update = "run --backend whisper --workload update --ops 100 --quiet --data " + whisper;
  ExpectRefusedNaming(Run(update), update, "--data", "is on a read-only file system");
  // Reading a data set on a read-only mount is fine.
  Outcome o = Run("run --backend whisper --workload fetch --ops 100 --quiet --data " + whisper);
  EXPECT_EQ(o.code, 0) << o.err;
}

// An output directory with no room left is refused before the run, not found out after it.
TEST_F(OutputPaths, AFullOutputDirectoryIsRefusedBeforeTheRun) {
  if (!MountTmpfs("full", "size=64k")) GTEST_SKIP() << "cannot mount a tmpfs here (needs root and mount permission)";
  { std::ofstream filler(dir_ / "full" / "filler", std::ios::binary); filler << std::string(1 << 20, 'x'); }
  const std::string args = "run --backend null --ops 1000 --quiet --json " + (dir_ / "full" / "r.json").string();
  ExpectRefusedNaming(Run(args), args, "--json", "no space left on the device");
}

// The output disk fills during the run: the run ends with one line naming
// the output and where its content went instead; the --json that was there
// before is intact; the rescued copy is the whole result.
TEST_F(OutputPaths, AnOutputDiskThatFillsDuringTheRunLosesNothing) {
  if (!MountTmpfs("out", "size=64k")) GTEST_SKIP() << "cannot mount a tmpfs here (needs root and mount permission)";
  const fs::path json = dir_ / "out" / "r.json";
  const std::string before = "{\"an earlier result\": true}\n";
  { std::ofstream(json) << before; }
  const fs::path filler = dir_ / "out" / "filler";
  bool filled = false;
  // Once the run is under way (its first progress line is out), fill what is left of the disk.
  Outcome o = RunSignalledWhen(
      {"run", "--backend", "null", "--threads", "1", "--duration", "3s", "--interval", "100ms", "--progress", "always",
       "--json", json.string()},
      [&] {
        if (!filled && fs::exists(dir_ / "err") && fs::file_size(dir_ / "err") > 0) {
          std::ofstream f(filler, std::ios::binary);
          f << std::string(1 << 20, 'x');
          filled = true;
        }
        return false;  // never signalled: the run ends by itself
      },
      SIGTERM);
  ASSERT_TRUE(filled) << "the run ended before its first progress line: " << o.err;
  EXPECT_EQ(o.code, 1) << o.err;
  const std::string last = o.err.substr(o.err.rfind("storebench: "));
  EXPECT_EQ(LineCount(last), 1u) << o.err;
  EXPECT_NE(last.find("--json not written: "), std::string::npos) << o.err;
  EXPECT_NE(last.find("No space left on device"), std::string::npos) << o.err;
  EXPECT_EQ(Slurp(json), before) << "the earlier --json was replaced or truncated";
  const std::string marker = "its content is in ";
  const size_t at = last.find(marker);
  ASSERT_NE(at, std::string::npos) << o.err;
  const std::string rescued = last.substr(at + marker.size(), last.find(' ', at + marker.size()) - at - marker.size());
  EXPECT_EQ(fs::path(rescued).parent_path(), dir_ / "rescue") << o.err;
  auto doc = nlohmann::json::parse(Slurp(rescued));
  EXPECT_GT(doc["totals"]["ops"].get<uint64_t>(), 0u);
  EXPECT_FALSE(doc["totals"]["interrupted"].get<bool>());
  for (const auto& e : fs::directory_iterator(dir_ / "out"))
    EXPECT_EQ(e.path().filename().string().find(".tmp."), std::string::npos) << "left behind: " << e.path();
}

}  // namespace
}  // namespace storebench::cli
