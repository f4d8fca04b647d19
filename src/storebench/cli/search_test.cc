// End-to-end tests of `storebench search` on the null backend, where the
// answer is known: one thread spinning 20 us per op carries about 50,000
// ops/s, and a constant arrival rate below that waits for nothing. Steps are
// short (300 ms); no test asserts a wall-clock figure beyond the ratio of
// the answer to the capacity measured in the same search.
#include "storebench/testing/binary_test_fixture.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>

namespace storebench::cli {
namespace {

namespace fs = std::filesystem;

using storebench::testing::Outcome;
using storebench::testing::Slurp;

constexpr const char* kSpin = " -- --backend null --service-time spin:20us --threads 1";

class Search : public storebench::testing::BinaryTest {
 protected:
  nlohmann::json Doc() { return nlohmann::json::parse(Slurp(dir_ / "search.json")); }
  std::string Json() { return " --json " + (dir_ / "search.json").string(); }
  static const nlohmann::json* StepAt(const nlohmann::json& doc, double rate) {
    for (const auto& s : doc["steps"])
      if (s["target_ops_per_sec"].get<double>() == rate) return &s;
    return nullptr;
  }
};

TEST_F(Search, FindsTheRateBelowTheSpinCapacityAndTheStepAboveReallyFails) {
  // On a machine shared with compilers, an open-loop worker that sleeps until
  // its next arrival gets its core back milliseconds late; a real-time
  // priority (when allowed) keeps the scheduler out of what this test checks.
  // Real-time threads busy for 950 ms of a second are stopped for the other
  // 50 ms (sched_rt_runtime_us); --settle leaves each step's core idle first.
  const std::string rt = std::system("chrt -f 10 true > /dev/null 2>&1") == 0 ? "chrt -f 10 " : "";
  Outcome o = RunShell(rt + testing::StorebenchBinary() + " search --slo 'p99<=200us' --max-rate 120% --step-duration 300ms --settle 100ms" +
                       Json() + kSpin);
  auto doc = Doc();
  if (o.code == 1 && doc["steps"].size() == 2) {
    // Even an eighth of the capacity missed 200 us: on a machine whose other
    // processes delay a waking worker by milliseconds, that is the true answer,
    // and the known one cannot be checked. The failure must be real, though.
    const auto& bottom = doc["steps"][1];
    ASSERT_FALSE(bottom["pass"].get<bool>());
    ASSERT_GT(bottom["slo"][0]["upper_ns"].get<double>(), 200'000) << bottom.dump();
    ASSERT_LT(doc["capacity"]["p50"]["ns"].get<double>(), 40'000);  // the 20 us spin itself is right
    GTEST_SKIP() << "this machine delays the open-loop worker beyond the SLO even at 10% of capacity (p99 "
                 << bottom["p99"]["ns"].get<double>() / 1000 << " us): the known answer needs a quieter machine";
  }
  if (o.code == 1 && doc["confirmation"] == "unconfirmed") {
    // The steps found an answer, but no rate held when run again: on a busy
    // machine (a sanitizer build beside another test) three short runs of a
    // 200 us goal spread that wide. The failures must be genuine.
    for (const auto& round : doc["confirmations"]) {
      ASSERT_FALSE(round["pass"].get<bool>());
      ASSERT_TRUE(round["confirm"]["slo"][0]["upper_ns"].get<double>() > 200'000 ||
                  !round["confirm"]["keeps_pace"].get<bool>())
          << round.dump();
    }
    GTEST_SKIP() << "no rate held in confirmation on this machine now: " << doc["answer"].get<std::string>();
  }
  ASSERT_EQ(o.code, 0) << o.out << o.err;
  EXPECT_EQ(doc["schema"], "storebench.search/1");
  const double capacity = doc["capacity"]["achieved_ops_per_sec"].get<double>();
  EXPECT_EQ(doc["capacity_ops_per_sec"].get<double>(), capacity);
  EXPECT_LE(capacity, 51000);  // 20 us per op on one thread
  EXPECT_GE(capacity, 10000);  // a shared machine steals time, but not four fifths of it
  const double pass = doc["search_highest_passing_rate"].get<double>();
  // Where between the bottom step (an eighth of the capacity) and the
  // capacity the answer lies depends on how busy the machine is (a sanitizer
  // build beside another test put it at 0.59 of the capacity once); what the
  // search must get right is that the answer passed and the step above it failed.
  EXPECT_GE(pass, capacity / 8) << o.out;
  EXPECT_LE(pass, capacity * 1.01) << o.out;
  // The lowest failing step; lowest_failing_rate is at most it (a confirmation set that failed counts too).
  double fail = 0;
  for (const auto& s : doc["steps"])
    if (!s["pass"].get<bool>() && (fail == 0 || s["target_ops_per_sec"].get<double>() < fail))
      fail = s["target_ops_per_sec"].get<double>();
  ASSERT_GT(fail, 0) << o.out;
  ASSERT_TRUE(doc["lowest_failing_rate"].is_number()) << o.out;
  EXPECT_LE(doc["lowest_failing_rate"].get<double>(), fail);
  EXPECT_LE(fail - pass, 0.02 * fail + 1);
  const nlohmann::json* failed = StepAt(doc, fail);
  ASSERT_NE(failed, nullptr);
  EXPECT_FALSE((*failed)["pass"].get<bool>());
  EXPECT_FALSE((*failed)["slo"][0]["pass"].get<bool>()) << failed->dump();  // the latency goal, not only the pace
  EXPECT_GT((*failed)["slo"][0]["upper_ns"].get<double>(), 200'000);
  const nlohmann::json* passed = StepAt(doc, pass);
  ASSERT_NE(passed, nullptr);
  EXPECT_LE((*passed)["slo"][0]["upper_ns"].get<double>(), 200'000);
  // The answer is the rate that held when run again: 3 runs at it, interleaved with 3 at 10% above, judged together.
  const double answer = doc["highest_passing_rate"].get<double>();
  EXPECT_LE(answer, pass);
  EXPECT_EQ(doc["confirm_runs"], 3);
  const auto& rounds = doc["confirmations"];
  ASSERT_GE(rounds.size(), 1u);
  EXPECT_EQ(rounds[0]["rate"].get<double>(), pass);
  for (size_t i = 0; i + 1 < rounds.size(); ++i) EXPECT_FALSE(rounds[i]["pass"].get<bool>());
  const auto& held = rounds.back();
  EXPECT_TRUE(held["pass"].get<bool>());
  EXPECT_EQ(held["rate"].get<double>(), answer);
  EXPECT_EQ(held["above_rate"].get<double>(), std::round(answer * 1.1));
  EXPECT_EQ(held["confirm"]["repeats"], 3);
  EXPECT_EQ(held["above"]["repeats"], 3);
  EXPECT_LE(held["confirm"]["slo"][0]["upper_ns"].get<double>(), 200'000);
  EXPECT_EQ(doc["confirmation"], rounds.size() == 1 ? "confirmed" : "stepped_down");
  EXPECT_NEAR(doc["answer_fraction_of_capacity"].get<double>(), answer / capacity, 1e-9);
  EXPECT_EQ(doc["near_saturation"].get<bool>(), answer > 0.9 * capacity);
  EXPECT_EQ(o.out.find("no steady state") != std::string::npos, answer > 0.9 * capacity) << o.out;
  EXPECT_NE(o.out.find("highest rate meeting p99 <= 200.00 us: "), std::string::npos) << o.out;
  EXPECT_NE(o.out.find(", confirmed by 3 runs (p99 "), std::string::npos) << o.out;
  EXPECT_NE(o.out.find(" ops/s failed (p99 "), std::string::npos) << o.out;
  EXPECT_NE(o.out.find("target ops/s"), std::string::npos) << o.out;  // the table
  EXPECT_NE(o.out.find("[confirm 1] "), std::string::npos) << o.out;
}

TEST_F(Search, AnSloEvenTheLowestRateMissesExitsOne) {
  Outcome o = Run("search --slo 'p99<=5us' --max-rate 20k --min-rate 2k --step-duration 300ms" + Json() + kSpin);
  EXPECT_EQ(o.code, 1) << o.out << o.err;
  EXPECT_NE(o.err.find("no rate meets p99 <= 5.00 us: even the lowest tried, 2,000 ops/s, failed (p99 "),
            std::string::npos)
      << o.err;
  auto doc = Doc();
  EXPECT_TRUE(doc["highest_passing_rate"].is_null());
  EXPECT_EQ(doc["lowest_failing_rate"], 2000);
  EXPECT_EQ(doc["steps"].size(), 2u);  // the top, then the bottom: nothing left to bisect
}

TEST_F(Search, SaysWhenTheClosedLoopCapacityMeetsTheSlo) {
  // 1 s steps: keeping pace allows a backlog of 1 % of a step's arrivals at its end, so a 300 ms
  // step at 2 k ops/s failed on a stall of ~4 ms at its very end (a loaded sanitizer run).
  Outcome o = Run("search --slo 'p99<=1s' --precision 10% --step-duration 1s" + Json() + kSpin);
  ASSERT_EQ(o.code, 0) << o.out << o.err;
  EXPECT_NE(o.out.find("meets p99 <= 1.000 s: latency does not limit this load below its capacity"),
            std::string::npos)
      << o.out;
  auto doc = Doc();
  EXPECT_TRUE(doc["capacity"]["slo"][0]["pass"].get<bool>());
  EXPECT_GT(doc["highest_passing_rate"].get<double>(), 0);
  // The top is 120% of the capacity. The answer stays below it and below what 20 us per op allows;
  // it may pass the closed-loop figure itself, which a loaded machine measured low once (43,326 ops/s
  // against an open loop that then carried 46,142).
  const double capacity = doc["capacity"]["achieved_ops_per_sec"].get<double>();
  const double answer = doc["highest_passing_rate"].get<double>();
  EXPECT_LE(answer, doc["top_ops_per_sec"].get<double>());
  EXPECT_LE(answer, 51'000);
  EXPECT_EQ(doc["top_ops_per_sec"].get<double>(), std::round(1.2 * capacity));
  // An answer this close to the capacity says it has no steady state.
  EXPECT_EQ(doc["near_saturation"].get<bool>(), answer > 0.9 * capacity);
  EXPECT_EQ(o.out.find("has no steady state") != std::string::npos, answer > 0.9 * capacity) << o.out;
  // What stops the open loop is keeping pace, not the goal: in a 1 s step no
  // overload short of 2x makes a queue of a second.
  for (const auto& s : doc["steps"]) EXPECT_TRUE(s["slo"][0]["pass"].get<bool>()) << s.dump();
}

TEST_F(Search, BadSloSyntaxExitsTwoWithOneLine) {
  for (const char* slo : {"p99<1ms", "99<=1ms", "p0<=1ms", "p99<=fast", ":p99<=1ms"}) {
    Outcome o = Run(std::string("search --slo '") + slo + "' --max-rate 1k" + kSpin);
    EXPECT_EQ(o.code, 2) << slo << ": " << o.err;
    EXPECT_NE(o.err.find("--slo: expected [KIND or CLASS:]pNN<=DURATION"), std::string::npos) << o.err;
    EXPECT_EQ(std::count(o.err.begin(), o.err.end(), '\n'), 1) << o.err;
  }
  Outcome o = Run("search --slo 'nosuch:p99<=1ms' --max-rate 1k --step-duration 50ms" + std::string(kSpin));
  EXPECT_EQ(o.code, 2) << o.err;
  EXPECT_NE(o.err.find("'nosuch' is neither an op kind nor a class"), std::string::npos) << o.err;
  for (const char* confirm : {"2", "101", "-1"}) {
    o = Run(std::string("search --slo 'p99<=1ms' --confirm ") + confirm + kSpin);
    EXPECT_EQ(o.code, 2) << confirm << ": " << o.err;
    EXPECT_NE(o.err.find("--confirm: expected 0 (no confirmation) or a whole number of confirmation runs from 3 to 100"),
              std::string::npos)
        << o.err;
  }
  o = Run("search --slo 'p99<=1ms'  -- --backend null --duration 5s");
  EXPECT_EQ(o.code, 2) << o.err;
  EXPECT_NE(o.err.find("RUN-ARGS set --duration"), std::string::npos) << o.err;
}

// The SLO is the class's and the sweep's mechanics are what is checked: the
// goal is loose enough (1 s) that no stall this host has shown (471 ms at
// worst) can fail a 300 ms step of an idle backend; 20 ms once failed on a
// busy machine with a p99 of 19.6 ms from ~150 ops.
TEST_F(Search, ClassSloAndSweep) {
  // --confirm 0: the sweep's mechanics are checked here, confirmation in the known-answer test (300 ms
  // confirmation runs at 2 k ops/s may fall behind on a loaded machine by a few ms of stall at their end).
  // 800 ms steps: class a's p99 needs 299 ops to be bounded at 95 % (half of 1 k ops/s for 300 ms was 150).
  Outcome o = Run("search --slo 'a:p99<=1s' --max-rate 4k --sweep 25%,50% --step-duration 800ms --confirm 0" + Json() +
                  " -- --backend null --class a:threads=1 --class b:threads=1");
  ASSERT_EQ(o.code, 0) << o.out << o.err;
  auto doc = Doc();
  EXPECT_EQ(doc["mode"], "sweep");
  ASSERT_EQ(doc["steps"].size(), 2u);
  EXPECT_EQ(doc["steps"][0]["target_ops_per_sec"], 1000);
  EXPECT_EQ(doc["steps"][1]["target_ops_per_sec"], 2000);
  for (const auto& s : doc["steps"]) {
    EXPECT_NEAR(s["achieved_ops_per_sec"].get<double>(), s["target_ops_per_sec"].get<double>(),
                0.05 * s["target_ops_per_sec"].get<double>());
    EXPECT_TRUE(s["pass"].get<bool>()) << s.dump();
  }
  EXPECT_EQ(doc["slo"][0]["scope"], "a");
  EXPECT_EQ(doc["highest_passing_rate"], 2000);
  EXPECT_NE(o.out.find("highest rate meeting a: p99 <= "), std::string::npos) << o.out;
  EXPECT_NE(o.out.find(": at least 2,000 ops/s ("), std::string::npos) << o.out;
  EXPECT_NE(o.out.find("unconfirmed (--confirm 0), the highest rate swept; none failed"), std::string::npos) << o.out;
  EXPECT_EQ(doc["confirmation"], "off");
  EXPECT_TRUE(doc["confirmations"].empty());
}

TEST_F(Search, AnInterruptedSearchResumesWithoutRepeatingStoredSteps) {
  const fs::path out = dir_ / "steps";
  const std::string cmd =
      "search --slo 'p99<=50ms' --precision 5% --step-duration 400ms --out " + out.string() + Json() + kSpin;
  // Interrupted once its first step is stored, however long that takes on a
  // loaded machine (a fixed timeout once fired before any step was stored).
  Outcome first = RunShell("( " + testing::StorebenchBinary() + " " + cmd + " & p=$!; for i in $(seq 1200); do " +
                           "ls " + out.string() + "/closed-* >/dev/null 2>&1 && break; sleep 0.05; done; " +
                           "kill -INT $p; wait $p )");
  (void)first;  // 130 when interrupted; a very fast machine may have finished (0)
  std::map<std::string, fs::file_time_type> stored;
  for (const auto& e : fs::directory_iterator(out))
    if (e.path().filename().string().rfind("rate-", 0) == 0 || e.path().filename().string().rfind("closed-", 0) == 0)
      stored[e.path().filename().string()] = fs::last_write_time(e.path());
  ASSERT_FALSE(stored.empty()) << first.out << first.err;

  Outcome second = Run(cmd);
  // 0, or 1 when no rate held in confirmation (400 ms runs near the capacity on a loaded machine may keep
  // falling behind): what is checked here is that a rerun reuses every stored run and judges it alike.
  ASSERT_TRUE(second.code == 0 || (second.code == 1 && Doc()["confirmation"] == "unconfirmed"))
      << second.code << second.out << second.err;
  for (const auto& [name, when] : stored) EXPECT_EQ(fs::last_write_time(out / name), when) << name << " was run again";
  const size_t stored_lines = [&] {
    size_t n = 0;
    for (size_t at = 0; (at = second.out.find("(stored)", at)) != std::string::npos; ++at) ++n;
    return n;
  }();
  // A set the rerun judges is "(stored)" when every run of it was stored
  // (a run set aside because its platform dipped, and its repeat, included).
  const nlohmann::json resumed = Doc();
  size_t sets_stored = 0;
  auto all_stored = [&](const nlohmann::json& set) {
    bool all = true;
    for (const auto& f : set["files"]) all = all && stored.count(f.get<std::string>());
    for (const auto& a : set["set_aside"]) all = all && stored.count(a["file"].get<std::string>());
    EXPECT_EQ(set["stored"].get<bool>(), all) << set.dump();
    sets_stored += all;
  };
  all_stored(resumed["capacity"]);
  for (const auto& s : resumed["steps"]) all_stored(s);
  for (const auto& c : resumed["confirmations"]) all_stored(c["confirm"]), all_stored(c["above"]);
  EXPECT_EQ(stored_lines, sets_stored) << second.out;
  const std::string answer = Doc()["answer"];

  // A third run reuses every step and judges them exactly as before.
  Outcome third = Run(cmd);
  ASSERT_EQ(third.code, second.code) << third.err;
  EXPECT_EQ(Doc()["answer"], answer);
  const nlohmann::json doc = Doc();  // kept alive: the loop below iterates into it
  for (const auto& s : doc["steps"]) EXPECT_TRUE(s["stored"].get<bool>());
  EXPECT_TRUE(Doc()["capacity"]["stored"].get<bool>());
  ASSERT_FALSE(doc["confirmations"].empty());
  for (const auto& c : doc["confirmations"]) {
    EXPECT_TRUE(c["confirm"]["stored"].get<bool>());
    EXPECT_TRUE(c["above"]["stored"].get<bool>());
  }
}

}  // namespace
}  // namespace storebench::cli

namespace storebench::cli {
namespace {

// A run whose platform dipped is not judged: the search runs it again with
// other keys and records the one it set aside. The dip is written into a
// stored run (a real dip cannot be ordered up), and the resumed search finds
// it. On a busy machine the first search may already have set runs aside:
// the run it judged is the one made to dip.
TEST_F(Search, ARunWhosePlatformDippedIsRunAgainAndRecorded) {
  const fs::path out = dir_ / "steps";
  const std::string cmd = "search --slo 'p99<=1s' --max-rate 4k --sweep 50% --step-duration 300ms --confirm 0 --out " +
                          out.string() + Json() + " -- --backend null --threads 1";
  // 0, or 1 when the step fell behind on a loaded machine: its verdict is not what is checked here.
  Outcome first = Run(cmd);
  ASSERT_TRUE(first.code == 0 || first.code == 1) << first.out << first.err;
  const nlohmann::json before = Doc()["steps"];
  ASSERT_EQ(before.size(), 1u);
  const std::string file = before[0]["files"][0];
  const bool last_repeat = before[0]["set_aside"].size() == 2;  // the search repeats a run at most twice
  nlohmann::json run = nlohmann::json::parse(Slurp(out / file));
  run["platform"]["unsteady"] = true;
  run["platform"]["speed"]["slow_share"] = 0.3;
  run["platform"]["speed"]["min"] = 0.4;
  {
    std::ofstream(out / file) << run.dump(1);
  }

  Outcome second = Run(cmd);
  ASSERT_TRUE(second.code == 0 || second.code == 1) << second.out << second.err;
  const nlohmann::json step = Doc()["steps"][0];
  ASSERT_EQ(step["files"].size(), 1u);
  const std::string judged = step["files"][0];
  EXPECT_NE(second.out.find(" repeated: the platform dipped (below 0.8 of its speed for up to "), std::string::npos)
      << second.out;
  if (last_repeat) {  // no repeat left: judged, and counted as such
    EXPECT_EQ(judged, file);
    EXPECT_GE(step["unsteady_kept"].get<int>(), 1) << step.dump();
    return;
  }
  const nlohmann::json* aside = nullptr;
  for (const auto& a : step["set_aside"])
    if (a["file"] == file) aside = &a;
  ASSERT_NE(aside, nullptr) << step.dump();
  EXPECT_DOUBLE_EQ((*aside)["slow_share"].get<double>(), 0.3);
  EXPECT_DOUBLE_EQ((*aside)["speed_min"].get<double>(), 0.4);
  EXPECT_NE(judged, file);
  EXPECT_NE(judged.find("-repeat"), std::string::npos) << judged;
  EXPECT_TRUE(fs::exists(out / judged));
  EXPECT_FALSE(step["stored"].get<bool>()) << "the repeat ran now";
  // The repeat drew other keys: a run of its own, not the first one read again.
  EXPECT_NE(nlohmann::json::parse(Slurp(out / judged))["config"]["seed"], run["config"]["seed"]);
}

}  // namespace
}  // namespace storebench::cli
