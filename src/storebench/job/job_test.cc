#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "storebench/backend/backend.h"
#include "storebench/job/job.h"
#include "storebench/job/plan.h"
#include "storebench/job/result_codec.h"
#include "storebench/job/run.h"
#include "storebench/measure/histogram.h"

namespace storebench::job {
namespace {

Job NullJob(OptionValues options, OptionValues backend_options = {}) {
  Job j;
  j.backend = "null";
  j.options = std::move(options);
  j.backend_options = std::move(backend_options);
  return j;
}

TEST(JobTest, ConfigRoundTripsThroughJson) {
  Job j = NullJob({{"threads", "2"}, {"duration", "3s"}, {"schedule", "constant:1000"}}, {{"service-time", "spin:1us"}});
  j.classes = {};
  auto plan = MakePlan(j);
  ASSERT_TRUE(plan.ok()) << plan.status().message();
  nlohmann::json config = plan->job.ToJson();
  EXPECT_EQ(config["threads"], 2);
  EXPECT_EQ(config["duration"], "3s");
  EXPECT_EQ(config["backend_options"]["service-time"], "spin:1us");
  auto back = Job::FromJson(config, "test");
  ASSERT_TRUE(back.ok()) << back.status().message();
  auto replanned = MakePlan(*back);
  ASSERT_TRUE(replanned.ok());
  EXPECT_EQ(replanned->job.ToJson(), config);
  // A result document is read through its config, when it is a result
  // report and compare would read too (job/result_document.h): one verdict.
  nlohmann::json doc = {{"schema", "storebench.run/1"}, {"config", config}};
  auto skeleton = Job::FromJson(doc, "result.json");
  ASSERT_FALSE(skeleton.ok());
  EXPECT_TRUE(skeleton.status().IsBadInput());
  EXPECT_EQ(skeleton.status().message().rfind("--job result.json: ", 0), 0u) << skeleton.status().message();
  const std::string empty = measure::Histogram().Encode();
  doc["totals"] = {{"ops", 0}};
  doc["throughput"] = {{"ops_per_sec", 0.0}};
  doc["latency"] = {{"response", {{"histogram", empty}}}, {"service", {{"histogram", empty}}}};
  auto from_doc = Job::FromJson(doc, "result.json");
  ASSERT_TRUE(from_doc.ok()) << from_doc.status().message();
  EXPECT_EQ(from_doc->options, back->options);
}

TEST(JobTest, UnknownKeysAndBadValuesAreRefusedWithTheFlag) {
  auto j = Job::FromJson({{"threads", 2}, {"colour", "red"}}, "f.json");
  ASSERT_FALSE(j.ok());
  EXPECT_NE(j.status().message().find("colour"), std::string::npos);
  auto p = MakePlan(NullJob({{"threads", "0"}, {"duration", "1s"}}));
  EXPECT_EQ(p.status().message(), "--threads: expected a whole number from 1 to 4096; got '0'");
  p = MakePlan(NullJob({{"duration", "1s"}}, {{"block-size", "4k"}}));
  EXPECT_EQ(p.status().message().rfind("--block-size: not an option of backend 'null'", 0), 0u) << p.status().message();
}

TEST(JobTest, AJobFileWithAKeyTwiceOrADirectoryIsRefused) {
  const std::filesystem::path dir = std::filesystem::temp_directory_path() / ("sb-jobfile-" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "twice.json") << R"({"backend": "null", "threads": 2, "backend_options": {"service-time": "spin:1us", "service-time": "spin:2us"}, "threads": 4})";
  auto twice = Job::Load((dir / "twice.json").string());
  ASSERT_FALSE(twice.ok());
  EXPECT_TRUE(twice.status().IsBadInput());
  EXPECT_EQ(twice.status().message(), "--job " + (dir / "twice.json").string() +
                                          ": the key \"service-time\" is given twice in one object; give each setting once");
  // The same key in two objects is no duplicate.
  std::ofstream(dir / "once.json") << R"({"backend": "null", "duration": "1s", "backend_options": {"duration": "x"}})";
  auto once = Job::Load((dir / "once.json").string());
  EXPECT_TRUE(once.ok() || once.status().message().find("twice") == std::string::npos) << once.status().message();
  auto d = Job::Load(dir.string());
  ASSERT_FALSE(d.ok());
  EXPECT_EQ(d.status().message(), "--job " + dir.string() + ": is a directory; give a job or result JSON file");
  std::filesystem::remove_all(dir);
}

TEST(JobTest, ThePlannedJobKeepsPathsAbsoluteAndTemplatesWhole) {
  // A result's config reruns from any directory: `--job ../r.json` finds the same data set.
  Job j;
  j.backend = "file";
  j.options = {{"ops", "10"}};
  j.backend_options = {{"data", "rel/../d-{rank}"}};
  auto plan = MakePlan(j);
  ASSERT_TRUE(plan.ok()) << plan.status().message();
  EXPECT_EQ(plan->job.ToJson()["backend_options"]["data"], (std::filesystem::current_path() / "d-{rank}").string());
}

TEST(JobTest, OverrideKeepsTheFileAndAppliesTheFlags) {
  Job file = NullJob({{"threads", "2"}, {"duration", "3s"}}, {{"service-time", "spin:1us"}});
  Job flags = NullJob({{"threads", "4"}});
  file.Override(flags, false);
  EXPECT_EQ(file.options["threads"], "4");
  EXPECT_EQ(file.options["duration"], "3s");
  EXPECT_EQ(file.backend_options["service-time"], "spin:1us");
  Job other;
  other.backend = "file";
  file.Override(other, true);
  EXPECT_EQ(file.backend, "file");
  EXPECT_TRUE(file.backend_options.empty());
}

TEST(JobTest, GroupsTheReadMethodCannotRunAreRefused) {
  if (!backend::FindBackend("file")) GTEST_SKIP() << "file backend absent";
  Job j;
  j.backend = "file";
  j.options = {{"duration", "1s"}};
  j.classes = {"a:threads=1,iodepth=8"};
  j.backend_options = {{"data", "/nonexistent"}, {"method", "pread"}};
  auto p = MakePlan(j);
  ASSERT_FALSE(p.ok());
  EXPECT_NE(p.status().message().find("--iodepth 8: method pread"), std::string::npos) << p.status().message();
  j.backend_options["method"] = "io_uring";
  j.backend_options["workload"] = "seqread";
  j.backend_options["prefetch"] = "1";
  p = MakePlan(j);
  ASSERT_FALSE(p.ok());
  EXPECT_NE(p.status().message().find("--prefetch"), std::string::npos) << p.status().message();
  j.backend_options.erase("prefetch");
  EXPECT_TRUE(MakePlan(j).ok());
}

TEST(JobTest, OpsAreATotalOverEveryClass) {
  Job j = NullJob({{"ops", "100"}});
  j.classes = {"a:threads=1", "b:threads=3"};
  auto p = MakePlan(j);
  ASSERT_TRUE(p.ok()) << p.status().message();
  EXPECT_EQ(p->config.groups[0].ops + p->config.groups[1].ops, 100u);
  EXPECT_EQ(p->config.groups[0].ops, 25u);
  EXPECT_FALSE(MakePlan(NullJob({{"ops", "2"}, {"threads", "4"}})).ok());
  EXPECT_FALSE(MakePlan(NullJob({{"duration", "1s"}, {"cache", "cold"}})).ok());
  j.classes = {"a:threads=1,threads=2"};
  EXPECT_FALSE(MakePlan(j).ok());
  j.classes = {"a:threads=1,role=nonsense"};
  EXPECT_FALSE(MakePlan(j).ok());
}

// One null run per seed, each sent as a process would send it (encoded and
// decoded), appended to `runs`.
void SentRuns(std::initializer_list<const char*> seeds, OptionValues options, OptionValues backend_options,
              std::vector<driver::RunResult>* runs) {
  for (const char* seed : seeds) {
    OptionValues with_seed = options;
    with_seed["seed"] = seed;
    auto plan = MakePlan(NullJob(with_seed, backend_options));
    ASSERT_TRUE(plan.ok()) << plan.status().message();
    auto r = RunPlan(*plan, {});
    ASSERT_TRUE(r.ok()) << r.status().message();
    auto sent = DecodeRunResult(nlohmann::json::parse(EncodeRunResult(r->run).dump()));
    ASSERT_TRUE(sent.ok()) << sent.status().message();
    runs->push_back(std::move(*sent));
  }
}

// Two runs, sent as two processes would (encoded and decoded), merge into
// exactly the counters and histograms of one run over both.
TEST(JobTest, TwoResultsMergeExactly) {
  std::vector<driver::RunResult> runs;
  SentRuns({"1", "2"}, {{"ops", "20000"}, {"threads", "2"}, {"interval", "5ms"}},
           {{"service-time", "spin:1us"}, {"fail-every", "7"}}, &runs);
  ASSERT_EQ(runs.size(), 2u);
  const driver::RunResult& a = runs[0];
  const driver::RunResult& b = runs[1];
  measure::Histogram want_resp = a.total->AllResponse();
  ASSERT_TRUE(want_resp.Merge(b.total->AllResponse()).ok());
  const uint64_t want_ops = a.total->ops() + b.total->ops();
  const uint64_t want_errors = a.total->errors() + b.total->errors();
  const uint64_t want_minor = a.metrics.Find({"cpu", "minor_faults"})->count + b.metrics.Find({"cpu", "minor_faults"})->count;
  const size_t intervals = std::max(a.intervals.size(), b.intervals.size());
  uint64_t want_interval_ops = 0;
  for (const auto& r : runs)
    for (const auto& st : r.intervals) want_interval_ops += st.ops;

  driver::RunResult merged = std::move(runs[0]);
  ASSERT_TRUE(MergeRunResults(&merged, runs[1]).ok());
  EXPECT_EQ(merged.total->ops(), want_ops);
  EXPECT_EQ(merged.total->ops(), 40000u);
  EXPECT_EQ(merged.total->errors(), want_errors);
  measure::Histogram got = merged.total->AllResponse();
  EXPECT_EQ(got.count(), want_resp.count());
  for (double p : {50.0, 90.0, 99.0, 99.9, 100.0}) EXPECT_EQ(got.ValueAtPercentile(p), want_resp.ValueAtPercentile(p)) << p;
  EXPECT_EQ(got.max(), want_resp.max());
  EXPECT_EQ(merged.metrics.Find({"cpu", "minor_faults"})->count, want_minor);
  EXPECT_EQ(merged.intervals.size(), intervals);
  uint64_t interval_ops = 0;
  for (const auto& st : merged.intervals) interval_ops += st.ops;
  EXPECT_EQ(interval_ops, want_interval_ops);
  EXPECT_EQ(interval_ops, merged.total->ops());
}

}  // namespace
}  // namespace storebench::job

namespace storebench::job {
namespace {

// The own-CPU replay of merged processes is kept only when every process has
// it: a figure of part of the ops would be set against the whole run's ideal.
TEST(JobTest, TheOwnCpuReplayMergesOnlyWhenEveryProcessHasIt) {
  std::vector<driver::RunResult> runs;
  SentRuns({"1", "2", "3", "4"}, {{"schedule", "constant:2000"}, {"duration", "200ms"}, {"threads", "1"}},
           {{"service-time", "spin:1us"}}, &runs);
  ASSERT_EQ(runs.size(), 4u);
  if (!runs[0].own_cpu) GTEST_SKIP() << "this kernel gives the workers no schedstat: no own-CPU replay to merge";
  ASSERT_TRUE(runs[1].own_cpu.has_value());
  const uint64_t both = runs[0].own_cpu->count() + runs[1].own_cpu->count();
  driver::RunResult merged = std::move(runs[0]);
  ASSERT_TRUE(MergeRunResults(&merged, runs[1]).ok());
  ASSERT_TRUE(merged.own_cpu.has_value());
  EXPECT_EQ(merged.own_cpu->count(), both);
  EXPECT_EQ(merged.ideal->count(), both);
  runs[2].own_cpu.reset();  // a process that could not measure its workers' waits
  ASSERT_TRUE(MergeRunResults(&merged, runs[2]).ok());
  EXPECT_FALSE(merged.own_cpu.has_value());
  runs[3].own_cpu.reset();
  driver::RunResult other_way = std::move(runs[3]);
  ASSERT_TRUE(MergeRunResults(&other_way, runs[1]).ok());
  EXPECT_FALSE(other_way.own_cpu.has_value());
}

}  // namespace
}  // namespace storebench::job
