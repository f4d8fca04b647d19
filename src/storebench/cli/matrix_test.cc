// End-to-end tests of `storebench matrix` and `storebench compare` over the
// null backend: a faster service time is found faster, identical variants
// prove no difference, interrupted matrices resume, bad input exits 2 with
// one line naming the flag.
#include "storebench/cli/matrix_command.h"

#include "storebench/testing/binary_test_fixture.h"

#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>
#include <sstream>

namespace storebench::cli {
namespace {

namespace fs = std::filesystem;

using storebench::testing::Outcome;
using storebench::testing::Slurp;

class Matrix : public storebench::testing::BinaryTest {
 protected:
  size_t RunFiles(const fs::path& d) {
    size_t n = 0;
    for (const auto& e : fs::directory_iterator(d))
      n += e.path().filename() != "manifest.json" && e.path().filename() != ".storebench.lock";
    return n;
  }
  nlohmann::json CompareJson(const fs::path& d) {
    Outcome o = Run("compare " + d.string() + " --json " + (dir_ / "cmp.json").string());
    EXPECT_EQ(o.code, 0) << o.err;
    return nlohmann::json::parse(Slurp(dir_ / "cmp.json"));
  }
};

// Holds on a loaded machine: what it asserts does not need the runs' timings
// to be consistent. A 2 ms sleep bounds a run at 500 ops/s and its p50 at
// 2 ms or more; a 100 us sleep is far quicker unless wake-ups are late by
// milliseconds on average. So the direction of the effect and the p50 proof
// (every B run's p50 is below every A run's, so every run resample is too)
// are asserted; whether 3 noisy runs prove the throughput ratio is not (the
// fixed-file test in report/compare_test.cc holds that), only that the output
// says one or the other, in the ratio scale's words.
TEST_F(Matrix, TheShorterServiceTimeIsFasterAndTheMatrixResumes) {
  fs::path m = dir_ / "m";
  // Baseline first: the slow variant, so the fast one must come out "faster".
  // Sleeping service times: throughput that other processes on the machine cannot take away.
  std::string cmd = "matrix --out " + m.string() +
                    " --repeat 3 --vary service-time=sleep:2ms,sleep:100us -- --backend null --duration 1s --interval 250ms";
  Outcome o = Run(cmd);
  ASSERT_EQ(o.code, 0) << o.err;
  EXPECT_EQ(RunFiles(m), 6u);
  EXPECT_TRUE(fs::exists(m / "manifest.json"));
  EXPECT_NE(o.out.find("6 to run (interleaved order)"), std::string::npos) << o.out;
  // Interleaved: A B A B A B.
  std::regex line(R"(\[(\d)/6\] service-time=sleep:(\w+) #(\d))");
  std::vector<std::string> order;
  for (std::sregex_iterator it(o.out.begin(), o.out.end(), line), end; it != end; ++it) order.push_back((*it)[2]);
  EXPECT_EQ(order, (std::vector<std::string>{"2ms", "100us", "2ms", "100us", "2ms", "100us"}));
  EXPECT_NE(o.out.find("Welch's t-test on log(ops/s) over repeated runs"), std::string::npos) << o.out;
  EXPECT_NE(o.out.find("service-time=sleep:100us: with 3 and 3 runs and this spread, only ratios above x"),
            std::string::npos)
      << o.out;
  const bool proven = o.out.find("service-time=sleep:100us is ") != std::string::npos;
  EXPECT_TRUE(proven || o.out.find("service-time=sleep:100us: too few runs: about ") != std::string::npos) << o.out;
  EXPECT_EQ(o.out.find("% slower"), std::string::npos) << o.out;

  auto doc = CompareJson(m);
  EXPECT_EQ(doc["baseline"], "service-time=sleep:2ms");
  const auto& t = doc["comparisons"][0]["throughput"];
  EXPECT_EQ(t["samples"], "runs");
  EXPECT_EQ(t["scale"], "log");
  EXPECT_EQ(t["n"], 3);
  EXPECT_EQ(t["significant"].get<bool>(), proven) << t.dump();
  EXPECT_GT(t["ratio"].get<double>(), 1.5) << t.dump();  // a twentieth of the service time: several times faster
  EXPECT_TRUE(doc["comparisons"][0]["latency"]["p50"]["significant"].get<bool>()) << doc["comparisons"][0].dump();
  EXPECT_LT(doc["comparisons"][0]["latency"]["p50"]["rel_diff"].get<double>(), -0.3);

  // Nothing left to do; then one lost run is redone, and only that one.
  o = Run(cmd);
  ASSERT_EQ(o.code, 0) << o.err;
  EXPECT_NE(o.out.find("6 already stored, 0 to run"), std::string::npos) << o.out;
  fs::remove(m / "service-time=sleep_100us-2.json");
  o = Run(cmd);
  ASSERT_EQ(o.code, 0) << o.err;
  EXPECT_NE(o.out.find("5 already stored, 1 to run"), std::string::npos) << o.out;
  EXPECT_NE(o.out.find("[1/1] service-time=sleep:100us #2"), std::string::npos) << o.out;
  EXPECT_EQ(RunFiles(m), 6u);
  // A different matrix in the same directory is refused.
  o = Run("matrix --out " + m.string() + " --repeat 3 --vary threads=1,2 -- --backend null --ops 100");
  EXPECT_EQ(o.code, 2);
  EXPECT_NE(o.err.find("--out:"), std::string::npos) << o.err;
}

TEST_F(Matrix, IdenticalVariantsProveNoDifference) {
  fs::path m = dir_ / "same";
  // The null backend ignores the seed: two names for one workload.
  Outcome o = Run("matrix --out " + m.string() +
                  " --repeat 3 --vary seed=1,2 -- --backend null --service-time spin:20us --duration 1s");
  ASSERT_EQ(o.code, 0) << o.err;
  EXPECT_NE(o.out.find("seed=2: No difference proven at 99.5% confidence"), std::string::npos) << o.out;
  auto doc = CompareJson(m);
  EXPECT_FALSE(doc["comparisons"][0]["throughput"]["significant"].get<bool>());
  EXPECT_EQ(doc["comparisons"][0]["throughput"]["verdict"], "No difference proven at 99.5% confidence");
  EXPECT_EQ(doc["varied"], nlohmann::json::array({"seed"}));
}

TEST_F(Matrix, RandomOrderRunsEveryVariantOncePerRound) {
  fs::path m = dir_ / "r";
  Outcome o = Run("matrix --out " + m.string() +
                  " --repeat 3 --order random --seed 5 --vary threads=1,2,3 -- --backend null --ops 2000");
  ASSERT_EQ(o.code, 0) << o.err;
  std::regex line(R"(\] threads=(\d) #(\d):)");
  std::vector<std::pair<int, int>> runs;
  for (std::sregex_iterator it(o.out.begin(), o.out.end(), line), end; it != end; ++it)
    runs.emplace_back(std::stoi((*it)[2]), std::stoi((*it)[1]));
  ASSERT_EQ(runs.size(), 9u) << o.out;
  bool some_round_reordered = false;
  for (int round = 0; round < 3; ++round) {
    std::set<int> variants;
    for (int i = 0; i < 3; ++i) {
      EXPECT_EQ(runs[round * 3 + i].first, round + 1);
      variants.insert(runs[round * 3 + i].second);
    }
    EXPECT_EQ(variants, (std::set<int>{1, 2, 3}));
    some_round_reordered |= runs[round * 3].second != 1 || runs[round * 3 + 1].second != 2;
  }
  EXPECT_TRUE(some_round_reordered);
}

// One run given twice is refused before anything is read: its comparison
// with itself is zero by construction, and a silent zero reads as a finding.
// Every spelling of the same file counts: the same path, ./path, a link, a
// comma group holding it, a directory named twice.
TEST_F(Matrix, CompareRefusesOneRunGivenTwice) {
  const std::string a = (dir_ / "a.json").string(), b = (dir_ / "b.json").string();
  for (const std::string& json : {a, b}) {
    Outcome o = Run("run --backend null --ops 2000 --quiet --json " + json);
    ASSERT_EQ(o.code, 0) << o.err;
  }
  fs::create_symlink(a, dir_ / "link.json");
  fs::create_directories(dir_ / "d");
  fs::copy_file(a, dir_ / "d" / "x.json");
  const std::string d = (dir_ / "d").string();
  for (const std::string& args :
       {"compare " + a + " " + a, "compare " + a + " " + (dir_ / "." / "a.json").string(),
        "compare " + a + " " + (dir_ / "link.json").string(), "compare " + a + "," + b + " " + a,
        "compare " + d + " " + d + " --json " + (dir_ / "c.json").string()}) {
    Outcome o = Run(args);
    EXPECT_EQ(o.code, 2) << args << "\n" << o.err;
    EXPECT_NE(o.err.find(" are the same file; every difference would be zero"), std::string::npos) << args << o.err;
    EXPECT_EQ(std::count(o.err.begin(), o.err.end(), '\n'), 1) << o.err;
    EXPECT_TRUE(o.out.empty()) << o.out;
  }
  EXPECT_FALSE(fs::exists(dir_ / "c.json"));
  // Two different runs still compare, labelled by their whole names.
  Outcome o = Run("compare " + a + " " + b);
  EXPECT_EQ(o.code, 0) << o.err;
  EXPECT_NE(o.out.find("b: "), std::string::npos) << o.out;
}

TEST_F(Matrix, BadInputExitsTwoWithOneLineNamingTheFlag) {
  std::string out = " --out " + (dir_ / "bad").string();
  struct Case {
    std::string args, expect;
  };
  for (const Case& c : {Case{"matrix" + out + " --vary nosuch=1,2 -- --backend null --ops 10", "'nosuch' is not a run flag"},
                        Case{"matrix" + out + " --vary threads -- --backend null --ops 10", "--vary: expected KEY=V1,V2"},
                        Case{"matrix" + out + " --vary null-async=yes,no -- --backend null --ops 10", "expected null-async=1,0"},
                        Case{"matrix" + out + " --vary threads=1,1 -- --backend null --ops 10", "given twice"},
                        Case{"matrix" + out + " --vary threads=1,2 -- --backend null", "--duration"},
                        Case{"matrix" + out + " --vary threads=1,0 -- --backend null --ops 10", "--threads"},
                        Case{"matrix" + out + " --vary threads=1,2 -- --threads 2 --ops 10", "RUN-ARGS set --threads"},
                        Case{"matrix" + out + " --order zigzag --vary threads=1,2 -- --ops 10", "--order: expected"},
                        Case{"compare a.json b.json --confidence 90", "--confidence: expected 95, 99, 99.5 or 99.9"},
                        // The flags of matrix, search and compare come from option tables: run's one line.
                        Case{"matrix" + out + " --repeat 0 --vary threads=1,2 -- --ops 10",
                             "storebench: --repeat: expected a whole number from 1 to 10000; got '0'"},
                        Case{"search --slo 'p99<=1ms' --repeat 20000 -- --backend null",
                             "storebench: --repeat: expected a whole number from 1 to 10000; got '20000'"},
                        Case{"search --slo 'p99<=1ms' --confidence 90 -- --backend null",
                             "--confidence: expected 95, 99, 99.5 or 99.9"},
                        Case{"compare a.json b.json --latency fast", "--latency: expected response | service; got 'fast'"},
                        Case{"compare " + (dir_ / "none.json").string() + " b.json", "none.json"}}) {
    Outcome o = Run(c.args);
    EXPECT_EQ(o.code, 2) << c.args << "\n" << o.err;
    EXPECT_NE(o.err.find(c.expect), std::string::npos) << c.args << "\n" << o.err;
    EXPECT_EQ(std::count(o.err.begin(), o.err.end(), '\n'), 1) << o.err;
  }
  // Nothing ran for any of them.
  EXPECT_FALSE(fs::exists(dir_ / "bad") && RunFiles(dir_ / "bad") > 0);
}

// Every variant is planned completely, backend options included, before any run.
TEST_F(Matrix, ABadBackendValueFailsBeforeAnyRun) {
  auto out = dir_ / "mm";
  Outcome o = Run("matrix --out " + out.string() + " --repeat 2 --vary block-size=4k,banana -- --backend file --data " +
                  (dir_ / "nodata").string() + " --duration 1s");
  EXPECT_EQ(o.code, 2) << o.err;
  EXPECT_NE(o.err.find("--block-size"), std::string::npos) << o.err;
  EXPECT_EQ(std::count(o.err.begin(), o.err.end(), '\n'), 1) << o.err;
  EXPECT_FALSE(fs::exists(out));
}

TEST(MatrixArgs, FlagsAreGivenOrOmittedAndValuesPassedWithEquals) {
  auto variants = PlanVariants({"null-async=1,0", "threads=1,4"}, {"--backend", "null", "--ops", "100"});
  ASSERT_TRUE(variants.ok()) << variants.status().message();
  ASSERT_EQ(variants->size(), 4u);
  EXPECT_EQ((*variants)[0].name, "null-async=1,threads=1");
  EXPECT_EQ((*variants)[3].name, "null-async=0,threads=4");
  auto on = VariantRunArgs((*variants)[1], {"--ops", "100"}, "x.json");
  EXPECT_EQ(on, (std::vector<std::string>{"run", "--ops", "100", "--null-async", "--threads=4", "--json", "x.json", "--quiet"}));
  auto off = VariantRunArgs((*variants)[2], {}, "y.json");
  EXPECT_EQ(std::count(off.begin(), off.end(), "--null-async"), 0);
  EXPECT_EQ(std::count(off.begin(), off.end(), "--threads=1"), 1);
  // A variant the backend cannot run is refused before any run: --iodepth 4 needs --null-async.
  auto refused = PlanVariants({"null-async=1,0", "iodepth=1,4"}, {"--backend", "null", "--ops", "100"});
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.status().message().find("--null-async"), std::string::npos) << refused.status().message();
}

}  // namespace
}  // namespace storebench::cli
