// Minor cases of the third reliability campaign (issue 51): two searches
// sharing one --json, and one verdict on a stored result for run --job,
// report and compare.
#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "storebench/testing/binary_test_fixture.h"

namespace storebench::cli {
namespace {

namespace fs = std::filesystem;
using storebench::testing::LineCount;
using storebench::testing::Outcome;
using storebench::testing::Slurp;

using Reliability3 = storebench::testing::BinaryTest;

// Two searches writing one --json would each replace the other's document:
// while one holds it, the second is refused with one line (exit 1, as for a
// shared --out), whatever spelling it uses, and the document is untouched.
TEST_F(Reliability3, TwoSearchesSharingOneJsonAreNotRunTogether) {
  const std::string search = "search --slo 'p99<=1s' --max-rate 2k --min-rate 1k --precision 40% --step-duration 50ms";
  const std::string stored = "{\"an earlier search\": true}\n";
  std::ofstream(dir_ / "s.json") << stored;
  // Held as a running search holds it (DirLock::AcquireForFile).
  const int fd = ::open((dir_ / ".s.json.storebench.lock").c_str(), O_RDWR | O_CREAT, 0644);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(flock(fd, LOCK_EX), 0);
  fs::create_directories(dir_ / "sub");
  for (const std::string& spelling : {std::string("s.json"), std::string("sub/../s.json"), (dir_ / "s.json").string()}) {
    Outcome o = RunHere(search + " --json " + spelling + " -- --backend null --threads 1");
    EXPECT_EQ(o.code, 2) << spelling << ": " << o.err;
    EXPECT_EQ(LineCount(o.err), 1u) << o.err;
    EXPECT_NE(o.err.find("--json " + spelling + ": another storebench process is writing there"), std::string::npos)
        << o.err;
    EXPECT_EQ(o.out, "") << "refused before its first step";
  }
  ::close(fd);
  EXPECT_EQ(Slurp(dir_ / "s.json"), stored);
}

// A stored result that report and compare refuse is refused by run --job too
// (exit 2, naming the file), and one they accept, run --job accepts.
TEST_F(Reliability3, RunJobReportAndCompareGiveOneVerdictOnAResult) {
  ASSERT_EQ(RunHere("run --backend null --threads 1 --ops 1000 --quiet --json good.json").code, 0);
  const auto good = nlohmann::json::parse(Slurp(dir_ / "good.json"));
  std::vector<std::pair<std::string, nlohmann::json>> bad;
  {
    auto d = good;
    d["schema"] = "storebench.run/99";
    bad.emplace_back("schema.json", d);
  }
  {
    auto d = good;
    d["latency"]["response"]["histogram"] = "hlog1:3:garbage";
    bad.emplace_back("histogram.json", d);
  }
  {
    auto d = good;
    d["throughput"]["ops_per_sec"] = -5;
    bad.emplace_back("rate.json", d);
  }
  for (const auto& [name, doc] : bad) {
    std::ofstream(dir_ / name) << doc.dump(1);
    for (const std::string& args : {"run --job " + name + " --ops 100 --quiet", "report " + name + " -o r.html",
                                    "compare " + name + " good.json"}) {
      Outcome o = RunHere(args);
      EXPECT_NE(o.code, 0) << args;
      EXPECT_NE(o.code, 1) << args << ": refused as bad input, not as a failed run: " << o.err;
      EXPECT_EQ(LineCount(o.err), 1u) << args << ": " << o.err;
      EXPECT_NE(o.err.find(name), std::string::npos) << args << ": " << o.err;
    }
  }
  Outcome o = RunHere("run --job good.json --ops 100 --quiet");
  EXPECT_EQ(o.code, 0) << o.err;
}

}  // namespace
}  // namespace storebench::cli

namespace storebench::cli {
namespace {

// A text in the result that is not UTF-8 (here the title; in the field, a
// file name or an error message from a damaged data set) is written with the
// byte replaced, never lost to the JSON writer's exception.
TEST_F(Reliability3, ATextThatIsNotUtf8StillWritesTheResult) {
  Outcome o = RunHere("run --backend null --threads 1 --ops 100 --quiet --title \"$(printf 't\\206')\" --json r.json");
  ASSERT_EQ(o.code, 0) << o.err;
  auto doc = nlohmann::json::parse(Slurp(dir_ / "r.json"), nullptr, false);
  ASSERT_FALSE(doc.is_discarded());
  EXPECT_EQ(doc["totals"]["ops"], 100);
}

}  // namespace
}  // namespace storebench::cli
