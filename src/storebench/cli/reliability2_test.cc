// Fault cases of the second reliability campaign (issue 30; docs/reliability.md):
// one file under two spellings, outputs over inputs, a search directory's
// lock, output flags that runs of a search or matrix would each overwrite,
// and a matrix's launcher. Each asserts the exit code, the one line on stderr
// and that no file was replaced.
#include <signal.h>
#include <sys/file.h>
#include <fcntl.h>
#include <unistd.h>

#include <gtest/gtest.h>

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

class Reliability2 : public storebench::testing::BinaryTest {
 protected:
  // storebench ARGS run in the test's directory, so relative paths are relative to it.
  void ExpectRefused(const Outcome& o, const std::string& args, const std::string& needle) {
    EXPECT_EQ(o.code, 2) << args << ": " << o.err;
    EXPECT_EQ(LineCount(o.err), 1u) << args << ": " << o.err;
    EXPECT_NE(o.err.find(needle), std::string::npos) << args << ": " << o.err;
  }
  std::string Run1000(const std::string& name) {
    Outcome o = RunHere("run --backend null --ops 1000 --quiet --json " + name);
    EXPECT_EQ(o.code, 0) << o.err;
    return Slurp(dir_ / name);
  }
};

TEST_F(Reliability2, OneOutputUnderTwoSpellingsIsRefused) {
  fs::create_symlink("a.json", dir_ / "link.csv");
  const std::string abs = (dir_ / "a.json").string();
  for (const std::string& outputs : {std::string("--json a.json --hlog ./a.json"), "--json " + abs + " --html a.json",
                                     std::string("--json a.json --csv link.csv"),
                                     std::string("--json sub/../a.json --hgrm a.json")}) {
    fs::create_directories(dir_ / "sub");
    const std::string args = "run --backend null --ops 100 --quiet " + outputs;
    ExpectRefused(RunHere(args), args, "is the same file as --json");
    EXPECT_FALSE(fs::exists(dir_ / "a.json")) << args << ": refused before the run";
  }
}

TEST_F(Reliability2, AnOutputNeverReplacesAnInput) {
  const std::string r = Run1000("r.json"), b = Run1000("b.json");
  const std::vector<std::string> cases = {
      "report r.json -o r.json",          "report r.json --hlog r.json",     "report ./r.json --hgrm " + (dir_ / "r.json").string(),
      "compare r.json b.json --json ./r.json", "compare r.json,b.json b.json --json b.json",
      "run --job r.json --json ./r.json --quiet"};
  for (const std::string& args : cases) {
    ExpectRefused(RunHere(args), args, "an output never replaces an input");
    EXPECT_EQ(Slurp(dir_ / "r.json"), r) << args;
    EXPECT_EQ(Slurp(dir_ / "b.json"), b) << args;
  }
}

TEST_F(Reliability2, AnOutputWhoseDirectoryWentAwayIsNamedAndTheOthersAreWritten) {
  // The --json directory is removed once the run has started (its first
  // progress line is out): the --csv is still written, the JSON goes to
  // $TMPDIR instead and the line says so, and the exit code is 1.
  ::setenv("TMPDIR", dir_.c_str(), 1);
  const fs::path gone = dir_ / "gone";
  fs::create_directories(gone);
  bool removed = false;
  Outcome o = RunSignalledWhen(
      {"run", "--backend", "null", "--threads", "1", "--duration", "3s", "--progress", "always", "--json",
       (gone / "a.json").string(), "--csv", (dir_ / "a.csv").string()},
      [&] {
        if (!removed && fs::exists(dir_ / "err") && fs::file_size(dir_ / "err") > 0) removed = fs::remove_all(gone) > 0;
        return false;  // never signalled: the run ends by itself
      },
      SIGTERM);
  ASSERT_TRUE(removed) << "the run ended before its first progress line: " << o.err;
  EXPECT_EQ(o.code, 1) << o.err;
  ::unsetenv("TMPDIR");
  EXPECT_NE(o.err.find("storebench: --json not written: "), std::string::npos) << o.err;
  const std::string rescued = (dir_ / ("storebench-rescued-")).string();
  EXPECT_NE(o.err.find("its content is in " + rescued), std::string::npos) << o.err;
  EXPECT_TRUE(fs::exists(dir_ / "a.csv"));
}

TEST_F(Reliability2, ASearchNeverOverwritesItsOwnSteps) {
  const std::string search = "search --slo 'p99<=1s' --max-rate 2k --min-rate 1k --precision 40% --step-duration 400ms";
  Outcome o = RunHere(search + " --out d -- --backend null --threads 1");
  ASSERT_EQ(o.code, 0) << o.err;
  std::string step;
  for (const auto& e : fs::directory_iterator(dir_ / "d"))
    if (e.path().filename().string().rfind("rate-", 0) == 0) step = e.path().filename().string();
  ASSERT_FALSE(step.empty());
  const std::string stored = Slurp(dir_ / "d" / step);
  const std::string args = search + " --out d --json d/" + step + " -- --backend null --threads 1";
  ExpectRefused(RunHere(args), args, "--json: 'd/" + step + "' is inside --out 'd'");
  EXPECT_EQ(Slurp(dir_ / "d" / step), stored);
  // `report d` says what the directory is.
  ExpectRefused(RunHere("report d -o r.html"), "report d", "d: a search directory, not a matrix");

  // A second search into the same directory is refused while the first holds it.
  const int fd = ::open((dir_ / "d").c_str(), O_RDONLY | O_DIRECTORY);  // the lock is a flock on the directory
  ASSERT_GE(fd, 0);
  ASSERT_EQ(flock(fd, LOCK_EX), 0);
  o = RunHere(search + " --out d -- --backend null --threads 1");
  ::close(fd);
  EXPECT_EQ(o.code, 2) << o.err;
  EXPECT_EQ(LineCount(o.err), 1u) << o.err;
  EXPECT_NE(o.err.find("--out d: another storebench process is writing there"), std::string::npos) << o.err;
  EXPECT_EQ(Slurp(dir_ / "d" / step), stored);
}

TEST_F(Reliability2, ASearchTakesAPrintedJobOrAResultAsItsJob) {
  Outcome o = RunHere("run --backend null --threads 1 --ops 500 --print-job");
  ASSERT_EQ(o.code, 0) << o.err;
  std::ofstream(dir_ / "job.json") << o.out;
  Run1000("r.json");
  const std::string search = "search --slo 'p99<=1s' --max-rate 2k --min-rate 1k --precision 40% --step-duration 400ms";
  for (const char* job : {"job.json", "r.json"}) {
    o = RunHere(search + " -- --job " + job);
    EXPECT_EQ(o.code, 0) << job << ": " << o.err;
    EXPECT_NE(o.out.find("highest rate meeting"), std::string::npos) << o.out;
  }
  // Given on the command line, the duration is still the search's to set.
  const std::string args = search + " -- --job job.json --duration 1s";
  ExpectRefused(RunHere(args), args, "search: RUN-ARGS set --duration");
}

TEST_F(Reliability2, OutputFlagsEveryRunWouldOverwriteAreRefused) {
  for (const char* flag : {"--hlog x.hlog", "--html x.html", "--hgrm x.hgrm", "--csv x.csv"}) {
    const std::string search =
        "search --slo 'p99<=1s' --max-rate 2k --step-duration 50ms -- --backend null " + std::string(flag);
    ExpectRefused(RunHere(search), search, "search: RUN-ARGS must not contain");
    const std::string matrix = "matrix --out m --vary threads=1,2 -- --backend null --ops 100 " + std::string(flag);
    ExpectRefused(RunHere(matrix), matrix, "matrix: RUN-ARGS must not contain");
    EXPECT_FALSE(fs::exists(dir_ / "m" / "manifest.json")) << matrix;
  }
}

TEST_F(Reliability2, AMatrixLauncherIsSplitAsAShellSplitsItAndKeptForResuming) {
  // `env` is a launcher that needs no MPI: it starts the run with one more variable.
  const std::string grid = "matrix --out m --vary threads=1,2 --repeat 1";
  Outcome o = RunHere(grid + " --launcher \"env SB_LAUNCHER_TEST='a b'\" -- --backend null --ops 200");
  ASSERT_EQ(o.code, 0) << o.err;
  auto manifest = nlohmann::json::parse(Slurp(dir_ / "m" / "manifest.json"));
  EXPECT_EQ(manifest["launcher"], nlohmann::json::array({"env", "SB_LAUNCHER_TEST=a b"}));
  // Resumed without the launcher (and more repeats): refused, not mixed into the same variants.
  const std::string resume = "matrix --out m --vary threads=1,2 --repeat 2 -- --backend null --ops 200";
  ExpectRefused(RunHere(resume), resume, "--launcher: m holds runs started under 'env SB_LAUNCHER_TEST=a b'");
  EXPECT_EQ(nlohmann::json::parse(Slurp(dir_ / "m" / "manifest.json")), manifest);
  const std::string bad = grid + " --launcher \"env X='a b\" -- --backend null --ops 200";
  ExpectRefused(RunHere(bad), bad, "--launcher: unterminated single quote");
}

}  // namespace
}  // namespace storebench::cli
