// End-to-end tests of the storebench binary: flags in, exit code, summary and
// result files out.
#include <sched.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include "storebench/testing/binary_test_fixture.h"

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>

namespace {

namespace fs = std::filesystem;
using storebench::testing::Outcome;
using storebench::testing::Slurp;
using storebench::testing::StorebenchBinary;

class Cli : public storebench::testing::BinaryTest {
 protected:
  // Runs `args` with --json into the test's directory; the outcome and the document.
  Outcome RunWithJson(const std::string& args, const std::string& name, nlohmann::json* doc) {
    const auto json = dir_ / (name + ".json");
    Outcome o = Run(args + " --json " + json.string());
    if (o.code == 0) *doc = nlohmann::json::parse(Slurp(json));
    return o;
  }
};

TEST_F(Cli, RunWritesJsonAndCsvWithTheContractKeys) {
  auto json = dir_ / "r.json", csv = dir_ / "r.csv";
  Outcome o = Run("run --backend null --threads 2 --ops 200k --interval 50ms --seed 7 --json " + json.string() +
                  " --csv " + csv.string());
  ASSERT_EQ(o.code, 0) << o.err;
  EXPECT_NE(o.out.find("ops/s"), std::string::npos);
  auto doc = nlohmann::json::parse(Slurp(json));
  EXPECT_EQ(doc["schema"], "storebench.run/2");
  EXPECT_EQ(doc["totals"]["ops"], 200000);
  EXPECT_EQ(doc["totals"]["errors"], 0);
  EXPECT_GT(doc["throughput"]["ops_per_sec"].get<double>(), 0);
  for (const char* which : {"response", "service"})
    for (const char* k : {"p50_ns", "p90_ns", "p99_ns", "p999_ns", "p9999_ns", "max_ns", "histogram"})
      EXPECT_TRUE(doc["latency"][which].contains(k)) << which << "." << k;
  uint64_t sum = 0;
  for (const auto& i : doc["intervals"]) sum += i["ops"].get<uint64_t>();
  EXPECT_EQ(sum, 200000u);
  EXPECT_FALSE(doc["environment"]["kernel"].get<std::string>().empty());
  EXPECT_EQ(doc["config"]["seed"], 7);
  std::string text = Slurp(csv);
  EXPECT_EQ(text.rfind("elapsed_s,", 0), 0u);
  EXPECT_GE(std::count(text.begin(), text.end(), '\n'), 2);
}

// A result's config is a job: --job reruns it exactly, and flags override it.
TEST_F(Cli, JobFromAResultReproducesItsConfigAndFlagsOverride) {
  auto first = dir_ / "first.json", again = dir_ / "again.json", changed = dir_ / "changed.json";
  ASSERT_EQ(Run("run --backend null --threads 2 --ops 20k --seed 9 --service-time spin:1us --class a:threads=1 "
                "--class b:threads=1,schedule=constant:2000 --json " + first.string() + " --quiet")
                .code,
            0);
  Outcome o = Run("run --job " + first.string() + " --json " + again.string() + " --quiet");
  ASSERT_EQ(o.code, 0) << o.err;
  auto a = nlohmann::json::parse(Slurp(first)), b = nlohmann::json::parse(Slurp(again));
  EXPECT_EQ(a["config"], b["config"]);
  EXPECT_EQ(b["totals"]["ops"], 20000);
  ASSERT_EQ(Run("run --job " + first.string() + " --seed 10 --json " + changed.string() + " --quiet").code, 0);
  auto c = nlohmann::json::parse(Slurp(changed));
  EXPECT_EQ(c["config"]["seed"], 10);
  c["config"]["seed"] = 9;
  EXPECT_EQ(a["config"], c["config"]);
  // --print-job prints the resolved job, which is a job file too.
  o = Run("run --job " + first.string() + " --print-job");
  ASSERT_EQ(o.code, 0) << o.err;
  auto printed = nlohmann::json::parse(o.out);
  EXPECT_EQ(printed, a["config"]);
  EXPECT_FALSE(fs::exists(dir_ / "never.json"));
  // A broken job file is bad input, named.
  std::ofstream(dir_ / "bad.json") << "{\"threads\": 2, \"colour\": 1}";
  o = Run("run --job " + (dir_ / "bad.json").string());
  EXPECT_EQ(o.code, 2);
  EXPECT_NE(o.err.find("colour"), std::string::npos) << o.err;
}

// A backend that throttles its own service (a write delay every worker sleeps
// through): the tail is queueing behind the engine and the client's share is small.
TEST_F(Cli, AnEnginesOwnDelaysAreReportedAsQueueingBehindTheEngine) {
  nlohmann::json doc;
  Outcome o = RunWithJson("run --backend null --service-time spin:20us --threads 1 --schedule constant:20000 "
                  "--duration 3s --stall 50ms/500ms", "stall", &doc);
  ASSERT_EQ(o.code, 0) << o.err;
  for (const char* at : {"p99", "max"}) {
    const auto& c = doc["causes"][at];
    EXPECT_EQ(c["largest"], "queueing") << doc["causes"].dump();
    EXPECT_LT(c["client"].get<double>(), 0.1) << doc["causes"].dump();
  }
  EXPECT_NE(o.out.find("the response tail is queueing behind the engine"), std::string::npos) << o.out;
  EXPECT_EQ(o.out.find("ewer workers"), std::string::npos) << o.out;  // one worker on more CPUs
}

// More workers than the CPUs they are pinned to: each waits behind the others,
// the client's doing, and only then does the note suggest fewer workers.
TEST_F(Cli, WorkersThatOutnumberTheirCpusAreTheClientsTail) {
  nlohmann::json doc;
  Outcome o = RunWithJson("run --backend null --service-time spin:20us --threads 3 --cpus 0 --schedule constant:30000 "
                  "--duration 2s", "crowd", &doc);
  ASSERT_EQ(o.code, 0) << o.err;
  EXPECT_EQ(doc["causes"]["p99"]["largest"], "client") << doc["causes"].dump();
  EXPECT_NE(o.out.find("3 workers shared 1 CPU)"), std::string::npos) << o.out;
  EXPECT_NE(o.out.find("Fewer workers than the CPUs they run on"), std::string::npos) << o.out;
}

TEST_F(Cli, RunWritesHdrHistogramLogsAndAnHtmlReport) {
  auto hlog = dir_ / "r.hlog", hgrm = dir_ / "r.hgrm", html = dir_ / "r.html", json = dir_ / "r.json";
  Outcome o = Run("run --backend null --threads 2 --ops 50k --interval 20ms --schedule constant:100000 --quiet --json " +
                  json.string() + " --hlog " + hlog.string() + " --hgrm " + hgrm.string() + " --html " + html.string());
  ASSERT_EQ(o.code, 0) << o.err;
  auto doc = nlohmann::json::parse(Slurp(json));
  const std::string log = Slurp(hlog);
  EXPECT_EQ(log.rfind("#[Histogram log format version", 0), 0u) << log.substr(0, 200);
  // One response and one service line per interval with ops.
  size_t lines = 0, with_ops = 0;
  for (const char* tag : {"\nTag=op,", "\nTag=op.service,"})
    for (size_t p = log.find(tag); p != std::string::npos; p = log.find(tag, p + 1)) ++lines;
  for (const auto& i : doc["intervals"]) with_ops += i["ops"].get<uint64_t>() > 0;
  EXPECT_EQ(lines, 2 * with_ops);
  EXPECT_NE(Slurp(hgrm).find("Percentile"), std::string::npos);
  const std::string page = Slurp(html);
  EXPECT_NE(page.find("<html"), std::string::npos);
  // The log is readable by storebench's own .hlog reader: compare takes it with the same op count.
  Outcome c = Run("report --hgrm " + (dir_ / "again.hgrm").string() + " " + hlog.string());
  EXPECT_EQ(c.code, 0) << c.err;
  // Two outputs on one file are refused before the run.
  o = Run("run --backend null --ops 10 --json " + json.string() + " --hlog " + json.string());
  EXPECT_EQ(o.code, 2);
  EXPECT_NE(o.err.find("--hlog: '" + json.string() + "' is the same file as --json"), std::string::npos) << o.err;
}

TEST_F(Cli, VersionNamesTheBuild) {
  Outcome o = Run("--version");
  ASSERT_EQ(o.code, 0) << o.err;
  EXPECT_EQ(o.out.rfind("storebench 0.", 0), 0u) << o.out;
  for (const char* k : {"commit", "RocksDB", "liburing"}) EXPECT_NE(o.out.find(k), std::string::npos) << k;
  auto json = dir_ / "v.json";
  ASSERT_EQ(Run("run --backend null --ops 1000 --quiet --json " + json.string()).code, 0);
  auto doc = nlohmann::json::parse(Slurp(json));
  for (const char* k : {"version", "git_commit", "build_type", "compiler", "rocksdb", "liburing"})
    EXPECT_TRUE(doc["tool"].contains(k)) << k;
}

TEST_F(Cli, BadInputGivesOneLineNamingTheFlagAndExitTwo) {
  auto json = dir_ / "bad.json";
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"run --duration ten", "--duration"},
      {"run --duration 1s --threads 0", "--threads"},
      {"run --duration 1s --threads -3", "--threads"},
      {"run --duration 1s --schedule burst:5", "--schedule"},
      {"run --duration 1s --schedule constant:0", "--schedule"},
      {"run --duration 1s --backend nosuch", "--backend"},
      {"run --duration 1s --service-time fast", "--service-time"},
      {"run --duration 1s --stall 2s/1s", "--stall"},
      {"run --duration 1s --interval 0", "--interval"},
      {"run --duration 1s --no-such-flag", "--no-such-flag"},
      {"run --ops 1.5", "--ops"},
      {"run", "--duration"},
      {"run --duration 1s --json /nonexistent/dir/r.json", "--json"},
      {"run --duration 1s --block-size 4k", "--block-size"},  // an option of another backend
      {"run --duration 1s --max-errors few", "--max-errors"},
      {"run --duration 1s --fail-every -1", "--fail-every"},
  };
  for (const auto& [args, flag] : cases) {
    Outcome o = Run(args + (args.find("--json") == std::string::npos ? " --json " + json.string() : ""));
    EXPECT_EQ(o.code, 2) << args << " -> " << o.err;
    EXPECT_NE(o.err.find(flag), std::string::npos) << args << " -> " << o.err;
    EXPECT_EQ(std::count(o.err.begin(), o.err.end(), '\n'), 1) << args << " -> " << o.err;
    EXPECT_FALSE(fs::exists(json)) << args;
  }
}

TEST_F(Cli, MaxErrorsStopsTheRunWritesResultsAndExitsOne) {
  auto json = dir_ / "errors.json";
  Outcome o = Run("run --fail-every 5 --max-errors 100 --duration 60s --quiet --json " + json.string());
  EXPECT_EQ(o.code, 1) << o.err;
  EXPECT_NE(o.err.find("--max-errors"), std::string::npos) << o.err;
  EXPECT_EQ(std::count(o.err.begin(), o.err.end(), '\n'), 1) << o.err;
  ASSERT_TRUE(fs::exists(json));
  auto doc = nlohmann::json::parse(Slurp(json));
  EXPECT_TRUE(doc["totals"]["stopped_on_errors"].get<bool>());
  EXPECT_GE(doc["totals"]["errors"].get<uint64_t>(), 100u);
  EXPECT_EQ(doc["totals"]["outcomes"]["error"], doc["totals"]["errors"]);
  EXPECT_EQ(doc["config"]["max_errors"], "100");
  // Without --max-errors failures are counted and the run goes on (20% failed:
  // above the default --max-error-ratio, so that is raised here; see reliability_test).
  o = Run("run --fail-every 5 --ops 1000 --quiet --max-error-ratio 1 --json " + json.string());
  EXPECT_EQ(o.code, 0) << o.err;
  doc = nlohmann::json::parse(Slurp(json));
  EXPECT_FALSE(doc["totals"]["stopped_on_errors"].get<bool>());
  EXPECT_EQ(doc["totals"]["errors"], 200);
}

TEST_F(Cli, HelpForEverySubcommand) {
  for (const char* sub : {"", "run", "prepare", "demo"}) {
    Outcome o = Run(std::string(sub) + " --help");
    EXPECT_EQ(o.code, 0) << sub;
    EXPECT_NE(o.out.find("--"), std::string::npos) << sub;
  }
  Outcome o = Run("run --help");
  EXPECT_NE(o.out.find("--schedule"), std::string::npos);
  EXPECT_NE(o.out.find("--service-time"), std::string::npos);
  // An option several backends own shows each one's default, not the first one's.
  EXPECT_NE(o.out.find("[file: 8k]"), std::string::npos) << o.out;
  EXPECT_NE(o.out.find("[whisper: 0]"), std::string::npos) << o.out;
}

TEST_F(Cli, SigintStillWritesValidResults) {
  auto json = dir_ / "int.json";
  // Signalled once the live line shows a measured interval's rate ("measuring
  // … | N ops/s": one has been reported), not after a fixed time: a slow
  // machine or a sanitizer build may still be starting after any fixed wait.
  Outcome o = RunSignalledWhen({"run", "--backend", "null", "--service-time", "sleep:100us", "--duration", "60s",
                                "--interval", "100ms", "--progress", "always", "--json", json.string()},
                               [&] { return Slurp(dir_ / "err").find(" ops/s") != std::string::npos; }, SIGINT);
  EXPECT_EQ(o.code, 130) << o.err;
  ASSERT_TRUE(fs::exists(json));
  auto doc = nlohmann::json::parse(Slurp(json));
  EXPECT_TRUE(doc["totals"]["interrupted"].get<bool>());
  EXPECT_GT(doc["totals"]["ops"].get<uint64_t>(), 0u);
  uint64_t sum = 0;
  for (const auto& i : doc["intervals"]) sum += i["ops"].get<uint64_t>();
  EXPECT_EQ(sum, doc["totals"]["ops"].get<uint64_t>());
}

TEST_F(Cli, OpenLoopStallShowsInResponseNotService) {
  auto json = dir_ / "co.json";
  Outcome o = Run("run --backend null --schedule constant:1000 --stall 100ms/1s --duration 2s --json " +
                  json.string());
  ASSERT_EQ(o.code, 0) << o.err;
  auto doc = nlohmann::json::parse(Slurp(json));
  EXPECT_GT(doc["latency"]["response"]["p99_ns"].get<uint64_t>(), 20'000'000u);
  EXPECT_LT(doc["latency"]["service"]["p99_ns"].get<uint64_t>(), 1'000'000u);
  EXPECT_TRUE(doc["schedule"]["open_loop"].get<bool>());
}

// The default job is an ordinary job: printed as a job file, run with
// changes by `run --default-job`, and reran with `run --job`.
class DefaultJob : public storebench::testing::BinaryTest {
 protected:
  void SetUp() override {
    BinaryTest::SetUp();
    Outcome o = Run("--print-job");
    if (o.code == 2 && o.err.find("needs the rocksdb backend") != std::string::npos)
      GTEST_SKIP() << "this storebench was built without librocksdb-dev";
  }
};

TEST_F(DefaultJob, PrintJobPrintsTheJobThatRunDefaultJobRuns) {
  Outcome root = Run("--print-job --json " + (dir_ / "never.json").string());
  ASSERT_EQ(root.code, 0) << root.err;
  auto job = nlohmann::json::parse(root.out);
  EXPECT_EQ(job["backend"], "rocksdb");
  EXPECT_EQ(job["two_phase"], "0.95");
  EXPECT_EQ(job["backend_options"]["num"], "200000");
  EXPECT_FALSE(fs::exists(dir_ / "never.json"));
  Outcome run = Run("run --default-job --print-job");
  ASSERT_EQ(run.code, 0) << run.err;
  EXPECT_EQ(nlohmann::json::parse(run.out), job);
  // Flags change it; the printed job is a job file.
  run = Run("run --default-job --duration 2s --num 5000 --print-job");
  ASSERT_EQ(run.code, 0) << run.err;
  auto changed = nlohmann::json::parse(run.out);
  EXPECT_EQ(changed["duration"], "2s");
  EXPECT_EQ(changed["backend_options"]["num"], "5000");
  EXPECT_EQ(changed["two_phase"], "0.95");
  std::ofstream(dir_ / "job.json") << run.out;
  Outcome again = Run("run --job " + (dir_ / "job.json").string() + " --print-job");
  ASSERT_EQ(again.code, 0) << again.err;
  EXPECT_EQ(nlohmann::json::parse(again.out), changed);
}

TEST_F(DefaultJob, MisplacedOrConflictingFlagsAreBadInput) {
  Outcome o = Run("--json " + (dir_ / "r.json").string() + " run --backend null --ops 10");
  EXPECT_EQ(o.code, 2);
  EXPECT_NE(o.err.find("--json is given before the subcommand 'run'"), std::string::npos) << o.err;
  EXPECT_EQ(std::count(o.err.begin(), o.err.end(), '\n'), 1) << o.err;
  o = Run("run --default-job --job " + (dir_ / "j.json").string());
  EXPECT_EQ(o.code, 2) << o.err;
  EXPECT_NE(o.err.find("--default-job"), std::string::npos) << o.err;
  o = Run("--json \"\"");
  EXPECT_EQ(o.code, 2) << o.err;
}

// A shortened default job (small data set, short phases) with every output.
TEST_F(DefaultJob, RunDefaultJobWithChangesWritesEveryOutput) {
  const fs::path data = dir_ / "data";
  std::string outs;
  for (const char* ext : {"json", "csv", "hlog", "hgrm"}) outs += fmt::format(" --{0} {1}/r.{0}", ext, dir_.string());
  if (fs::exists("/usr/share/javascript/chart.js/chart.min.js")) outs += " --html " + (dir_ / "r.html").string();
  Outcome o = Run("run --default-job --data " + data.string() + " --num 3000 --duration 300ms --warmup 100ms "
                  "--interval 100ms --progress never" + outs);
  ASSERT_EQ(o.code, 0) << o.err;
  EXPECT_NE(o.out.find("phase 2: open loop at"), std::string::npos) << o.out;
  auto doc = nlohmann::json::parse(Slurp(dir_ / "r.json"));
  EXPECT_EQ(doc["config"]["backend"], "rocksdb");
  EXPECT_EQ(doc["config"]["backend_options"]["num"], "3000");
  EXPECT_TRUE(doc.contains("two_phase"));
  for (const char* f : {"r.csv", "r.hlog", "r.hgrm"}) EXPECT_GT(fs::file_size(dir_ / f), 0u) << f;
  if (fs::exists("/usr/share/javascript/chart.js/chart.min.js")) {
    EXPECT_NE(Slurp(dir_ / "r.html").find("phase 2: open loop at"), std::string::npos);
  }
  // The result's config reruns it.
  o = Run("run --job " + (dir_ / "r.json").string() + " --print-job");
  ASSERT_EQ(o.code, 0) << o.err;
  EXPECT_EQ(nlohmann::json::parse(o.out), doc["config"]);
}

// The issue's own command: no subcommand, output flags (the full default job,
// ~20 s: it prepares 200,000 keys in the working directory, then runs 2 x 9 s).
TEST_F(DefaultJob, NoSubcommandTakesOutputFlags) {
  Outcome o = RunShell("cd " + dir_.string() + " && " + StorebenchBinary() +
                       " --json r.json --csv r.csv --hlog r.hlog --progress never");
  ASSERT_EQ(o.code, 0) << o.err;
  EXPECT_NE(o.out.find("storebench default job"), std::string::npos) << o.out;
  auto doc = nlohmann::json::parse(Slurp(dir_ / "r.json"));
  EXPECT_EQ(doc["config"]["backend"], "rocksdb");
  EXPECT_GT(doc["totals"]["ops"].get<uint64_t>(), 0u);
  EXPECT_GT(fs::file_size(dir_ / "r.csv"), 0u);
  EXPECT_NE(Slurp(dir_ / "r.hlog").find("\nTag=get,"), std::string::npos);
}

}  // namespace
