// The rocksdb backend: option parsing through RocksDB's own parsers, the
// manifest and its error messages, and data sets exchanged with Debian's
// db_bench in both directions with the same found ratio. End-to-end cases run
// the storebench binary (STOREBENCH_BINARY); db_bench cases skip without it.
#include <rocksdb/db.h>
#include <rocksdb/table.h>
#include <sys/mount.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>
#include <sstream>

#include "storebench/backend/rocksdb/dataset.h"
#include "storebench/backend/rocksdb/options.h"
#include "storebench/backend/rocksdb/prepare.h"
#include "storebench/backend/rocksdb/workloads.h"
#include "storebench/testing/binary_test_fixture.h"
#include "storebench/workload/db_bench_key.h"

namespace storebench::backend::rocksdb_backend {
namespace {

namespace fs = std::filesystem;

constexpr const char* kDbBench = "/usr/bin/db_bench";

struct Shell {
  int code = -1;
  std::string out;  // stdout and stderr together
};

Shell RunMerged(const std::string& cmd) {
  Shell r;
  std::FILE* p = ::popen((cmd + " 2>&1").c_str(), "r");
  if (!p) return r;
  char buf[4096];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, p)) > 0) r.out.append(buf, n);
  int rc = ::pclose(p);
  r.code = WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
  return r;
}

nlohmann::json ReadJson(const fs::path& p) {
  std::ifstream in(p);
  return nlohmann::json::parse(in, nullptr, false);
}

// db_bench's "( F of N found)" from a readrandom report; -1 when absent.
double DbBenchFoundRatio(const std::string& out) {
  std::smatch m;
  if (!std::regex_search(out, m, std::regex(R"(\((\d+) of (\d+) found\))"))) return -1;
  return std::stod(m[1]) / std::stod(m[2]);
}

// Distinct keys in the DB, after checking each is a db_bench key of key_size bytes below num.
uint64_t CountKeys(const fs::path& dir, size_t key_size, uint64_t num, uint64_t value_size) {
  rocksdb::DB* raw = nullptr;
  rocksdb::Options o;
  EXPECT_TRUE(rocksdb::DB::OpenForReadOnly(o, dir.string(), &raw).ok());
  if (!raw) return 0;
  std::unique_ptr<rocksdb::DB> db(raw);
  std::unique_ptr<rocksdb::Iterator> it(db->NewIterator(rocksdb::ReadOptions()));
  uint64_t n = 0;
  for (it->SeekToFirst(); it->Valid(); it->Next(), ++n) {
    EXPECT_EQ(it->key().size(), key_size);
    EXPECT_EQ(it->value().size(), value_size);
    auto index = workload::DecodeDbBenchKey(std::string_view(it->key().data(), it->key().size()));
    EXPECT_TRUE(index.ok());
    EXPECT_LT(*index, num);
  }
  return n;
}

class Rocksdb : public storebench::testing::BinaryTest {
 protected:
  RocksdbConfig Config(const OptionValues& v) {
    auto c = ParseRocksdbConfig(v, 7);
    EXPECT_TRUE(c.ok()) << c.status().message();
    return *c;
  }
  Shell Storebench(const std::string& args) { return RunMerged(storebench::testing::StorebenchBinary() + " " + args); }
  static bool HaveDbBench() { return ::access(kDbBench, X_OK) == 0; }
};

TEST_F(Rocksdb, OptionListsGoThroughRocksdbsParsers) {
  RocksdbConfig c = Config({{"cf-options", "write_buffer_size=1048576;level0_file_num_compaction_trigger=7"},
                            {"db-options", "max_background_jobs=3"},
                            {"table-options", "block_size=16384"},
                            {"bloom-bits", "10"}});
  auto o = BuildRocksdbOptions(c);
  ASSERT_TRUE(o.ok()) << o.status().message();
  EXPECT_EQ(o->write_buffer_size, 1048576u);
  EXPECT_EQ(o->level0_file_num_compaction_trigger, 7);
  EXPECT_EQ(o->max_background_jobs, 3);
  EXPECT_EQ(o->compression, rocksdb::kSnappyCompression);  // db_bench's default
  const auto* t = o->table_factory->GetOptions<rocksdb::BlockBasedTableOptions>();
  ASSERT_NE(t, nullptr);
  EXPECT_EQ(t->block_size, 16384u);
  ASSERT_NE(t->block_cache, nullptr);
  EXPECT_EQ(t->block_cache->GetCapacity(), 8u << 20);  // db_bench's default cache
  EXPECT_NE(t->filter_policy, nullptr);
}

TEST_F(Rocksdb, UnknownOptionsCarryRocksdbsMessageAndAreBadInput) {
  for (const char* flag : {"db-options", "cf-options", "table-options"}) {
    auto o = BuildRocksdbOptions(Config({{flag, "no_such_option=1"}}));
    ASSERT_FALSE(o.ok()) << flag;
    EXPECT_EQ(o.status().code(), Status::Code::kInvalidArgument);
    EXPECT_NE(o.status().message().find(std::string("--") + flag), std::string::npos);
    EXPECT_NE(o.status().message().find("no_such_option"), std::string::npos) << o.status().message();
  }
  std::ofstream(dir_ / "OPTIONS-bad") << "[Version]\n  rocksdb_version=7.8.3\n  options_file_version=1.1\n"
                                         "[DBOptions]\n  no_such_db_option=1\n";
  auto o = BuildRocksdbOptions(Config({{"options-file", (dir_ / "OPTIONS-bad").string()}}));
  ASSERT_FALSE(o.ok());
  EXPECT_EQ(o.status().code(), Status::Code::kInvalidArgument);
  EXPECT_NE(o.status().message().find("no_such_db_option"), std::string::npos) << o.status().message();

  Shell s = Storebench("run --backend rocksdb --data " + dir_.string() + " --ops 10 --cf-options 'bogus=2'");
  EXPECT_EQ(s.code, 2) << s.out;
  EXPECT_NE(s.out.find("bogus"), std::string::npos) << s.out;
}

TEST_F(Rocksdb, AnOptionsFileWrittenByRocksdbIsLoaded) {
  fs::path db = dir_ / "db";
  PrepareReport report;
  ASSERT_TRUE(PrepareDataSet(Config({{"data", db.string()}, {"num", "100"}, {"cf-options", "write_buffer_size=2097152"}}),
                             &report)
                  .ok());
  fs::path file;
  for (const auto& e : fs::directory_iterator(db))
    if (e.path().filename().string().rfind("OPTIONS-", 0) == 0) file = e.path();
  ASSERT_FALSE(file.empty());
  auto o = BuildRocksdbOptions(Config({{"options-file", file.string()}}));
  ASSERT_TRUE(o.ok()) << o.status().message();
  EXPECT_EQ(o->write_buffer_size, 2097152u);
}

TEST_F(Rocksdb, ManifestMismatchesAreNamed) {
  fs::path db = dir_ / "db";
  PrepareReport report;
  OptionValues shape = {{"data", db.string()}, {"num", "1000"}, {"key-size", "20"}, {"value-size", "100"}};
  ASSERT_TRUE(PrepareDataSet(Config(shape), &report).ok());
  EXPECT_TRUE(report.created);
  uint64_t keys = CountKeys(db, 20, 1000, 100);  // fillrandom: 1000·(1 − 1/e) ≈ 632 distinct keys
  EXPECT_GT(keys, 550u);
  EXPECT_LT(keys, 700u);

  // The same shape again is reused, not refilled.
  report = {};
  ASSERT_TRUE(PrepareDataSet(Config(shape), &report).ok());
  EXPECT_FALSE(report.created);
  EXPECT_NE(report.description.find("--num 1000"), std::string::npos) << report.description;

  OptionValues other = shape;
  other["value-size"] = "400";
  Status s = PrepareDataSet(Config(other), &report);
  EXPECT_EQ(s.code(), Status::Code::kInvalidArgument);
  EXPECT_NE(s.message().find("already holds a data set prepared with --num 1000 --key-size 20 --value-size 100"),
            std::string::npos)
      << s.message();

  // run: a flag that contradicts the manifest; none given → the manifest's shape.
  auto manifest = ReadManifest(db.string());
  ASSERT_TRUE(manifest.ok() && manifest->has_value());
  RocksdbConfig c = Config({{"data", db.string()}, {"key-size", "16"}});
  s = ResolveShape(*manifest, &c);
  EXPECT_EQ(s.code(), Status::Code::kInvalidArgument);
  EXPECT_NE(s.message().find("--key-size 16: " + db.string() + " was prepared with --num 1000 --key-size 20"),
            std::string::npos)
      << s.message();
  c = Config({{"data", db.string()}});
  ASSERT_TRUE(ResolveShape(*manifest, &c).ok());
  EXPECT_EQ(c.num_or_default(), 1000u);
  EXPECT_EQ(c.key_size_or_default(), 20u);
  EXPECT_EQ(c.value_size_or_default(), 100u);

  Shell run = Storebench("run --backend rocksdb --data " + db.string() + " --ops 10 --value-size 400");
  EXPECT_EQ(run.code, 2) << run.out;
  EXPECT_NE(run.out.find("was prepared with"), std::string::npos) << run.out;
}

TEST_F(Rocksdb, AMissingDatabaseSuggestsPrepare) {
  fs::path db = dir_ / "nothing-here";
  Shell s = Storebench("run --backend rocksdb --data " + db.string() + " --ops 10 --num 5000 --key-size 20");
  EXPECT_EQ(s.code, 2) << s.out;
  EXPECT_NE(s.out.find("storebench prepare --backend rocksdb --data " + db.string() + " --num 5000 --key-size 20"),
            std::string::npos)
      << s.out;
}

TEST_F(Rocksdb, OpErrorsAreCountedByStatus) {
  EXPECT_EQ(OutcomeOf(rocksdb::Status::OK()), kOk);
  EXPECT_EQ(OutcomeOf(rocksdb::Status::NotFound()), kNotFound);
  EXPECT_EQ(OutcomeOf(rocksdb::Status::IOError("x")), kErrorIO);
  EXPECT_EQ(OutcomeOf(rocksdb::Status::Corruption("x")), kErrorCorruption);
  measure::RecorderLayout l = WorkloadLayout(Workload::kReadRandom);
  EXPECT_FALSE(l.IsError(kNotFound));
  EXPECT_TRUE(l.IsError(kErrorIO));
  EXPECT_EQ(l.outcomes[kErrorCorruption], "error:Corruption");
}

// db_bench fills, storebench reads: the same found ratio as db_bench's readrandom reports.
TEST_F(Rocksdb, ReadsADatabaseDbBenchFilled) {
  if (!HaveDbBench()) GTEST_SKIP() << kDbBench << " missing (apt-get install rocksdb-tools)";
  fs::path db = dir_ / "dbb";
  const std::string shape = " --num=1000 --key_size=20 --value_size=100";
  Shell fill = RunMerged(std::string(kDbBench) + " --benchmarks=fillrandom --db=" + db.string() + shape);
  ASSERT_EQ(fill.code, 0) << fill.out;
  const double exact = static_cast<double>(CountKeys(db, 20, 1000, 100)) / 1000.0;
  EXPECT_GT(exact, 0.55);
  EXPECT_LT(exact, 0.70);
  Shell read = RunMerged(std::string(kDbBench) + " --benchmarks=readrandom --use_existing_db=1 --reads=20000 --db=" +
                        db.string() + shape);
  ASSERT_EQ(read.code, 0) << read.out;
  double db_bench_ratio = DbBenchFoundRatio(read.out);

  fs::path json = dir_ / "run.json";
  Shell run = Storebench("run --backend rocksdb --quiet --data " + db.string() +
                         " --num 1000 --key-size 20 --value-size 100 --ops 20000 --json " + json.string());
  ASSERT_EQ(run.code, 0) << run.out;
  nlohmann::json j = ReadJson(json);
  double ours = j["rocksdb"]["found_ratio"].get<double>();
  // rocksdb.found/not_found cover exactly the measured reads, as totals do.
  EXPECT_EQ(j["rocksdb"]["found"].get<uint64_t>() + j["rocksdb"]["not_found"].get<uint64_t>(),
            j["totals"]["ops"].get<uint64_t>());
  EXPECT_EQ(j["rocksdb"]["shape_from"], "flags");
  EXPECT_EQ(j["totals"]["ops"], 20000);
  EXPECT_EQ(j["totals"]["outcomes"]["ok"], j["rocksdb"]["found"]);
  // 20,000 reads: a sampling error of ~0.35% each; 2.5% is > 6 standard errors.
  EXPECT_NEAR(db_bench_ratio, exact, 0.025) << read.out;
  EXPECT_NEAR(ours, exact, 0.025);
  EXPECT_NEAR(ours, db_bench_ratio, 0.025);

  // Without a manifest the shape must be given: --num at least.
  Shell unknown = Storebench("run --backend rocksdb --quiet --data " + db.string() + " --ops 10");
  EXPECT_EQ(unknown.code, 2) << unknown.out;
  EXPECT_NE(unknown.out.find("no storebench manifest"), std::string::npos) << unknown.out;
  EXPECT_NE(unknown.out.find("--num"), std::string::npos) << unknown.out;
  // With --num alone storebench assumes db_bench's default 16-byte keys and says why it cannot.
  Shell wrong = Storebench("run --backend rocksdb --quiet --data " + db.string() + " --num 1000 --ops 10");
  EXPECT_EQ(wrong.code, 2) << wrong.out;
  EXPECT_NE(wrong.out.find("are 20 bytes long"), std::string::npos) << wrong.out;
  EXPECT_NE(wrong.out.find("pass --key-size 20"), std::string::npos) << wrong.out;
}

// storebench fills, db_bench reads: fillseq finds every key, fillrandom the share that exists.
TEST_F(Rocksdb, DbBenchReadsADatabaseStorebenchFilled) {
  if (!HaveDbBench()) GTEST_SKIP() << kDbBench << " missing (apt-get install rocksdb-tools)";
  const std::string shape = " --num=1000 --key_size=20 --value_size=100";
  for (const char* fill : {"seq", "random"}) {
    fs::path db = dir_ / fill;
    Shell prep = Storebench("prepare --backend rocksdb --data " + db.string() +
                            " --num 1000 --key-size 20 --value-size 100 --fill " + fill);
    ASSERT_EQ(prep.code, 0) << prep.out;
    const double exact = static_cast<double>(CountKeys(db, 20, 1000, 100)) / 1000.0;
    Shell read = RunMerged(std::string(kDbBench) + " --benchmarks=readrandom --use_existing_db=1 --reads=20000 --db=" +
                          db.string() + shape);
    ASSERT_EQ(read.code, 0) << read.out;
    if (std::string(fill) == "seq") {
      EXPECT_EQ(exact, 1.0);
      EXPECT_NE(read.out.find("(20000 of 20000 found)"), std::string::npos) << read.out;
    } else {
      EXPECT_GT(exact, 0.55);
      EXPECT_LT(exact, 0.70);
      EXPECT_NEAR(DbBenchFoundRatio(read.out), exact, 0.025) << read.out;
    }
  }
}

// "[Section] name" → value of every option line in a RocksDB OPTIONS file.
std::map<std::string, std::string> ReadOptionsFile(const fs::path& p) {
  std::map<std::string, std::string> out;
  std::ifstream in(p);
  std::string line, section;
  while (std::getline(in, line)) {
    size_t b = line.find_first_not_of(" \t");
    if (b == std::string::npos || line[b] == '#') continue;
    line = line.substr(b);
    if (line[0] == '[') {
      section = line;
      continue;
    }
    size_t eq = line.find('=');
    if (eq != std::string::npos) out[section + " " + line.substr(0, eq)] = line.substr(eq + 1);
  }
  return out;
}

// The newest OPTIONS file RocksDB wrote in `db` (the highest number: the last open's).
fs::path NewestOptionsFile(const fs::path& db) {
  fs::path newest;
  for (const auto& e : fs::directory_iterator(db)) {
    std::string n = e.path().filename().string();
    if (n.rfind("OPTIONS-", 0) == 0 && (newest.empty() || n > newest.filename().string())) newest = e.path();
  }
  return newest;
}

// The block cache as the last open's LOG describes it (type, capacity, shard bits,
// pools, allocator): the OPTIONS file leaves the cache out. The address line is dropped.
std::vector<std::string> BlockCacheLines(const fs::path& db) {
  std::ifstream in(db / "LOG");
  std::vector<std::string> out;
  std::string line;
  bool in_cache = false;
  while (std::getline(in, line)) {
    if (line.find("  no_block_cache:") != std::string::npos) in_cache = true;
    if (line.find("  persistent_cache:") != std::string::npos) break;
    if (in_cache && line.find("  block_cache: 0x") == std::string::npos) out.push_back(line);
  }
  return out;
}

// db_bench and storebench open one DB with the same flags: RocksDB writes the
// same OPTIONS file and the same block cache for both, except the lines below.
TEST_F(Rocksdb, OpensTheDbWithDbBenchsOptions) {
  if (!HaveDbBench()) GTEST_SKIP() << kDbBench << " missing (apt-get install rocksdb-tools)";
  const std::map<std::string, std::string> kExpectedDifferences = {
      {"[DBOptions] listeners",
       "db_bench's ErrorHandlerListener, which only acts when db_bench waits for recovery from a background "
       "error; storebench counts a failing op and goes on"},
  };
  fs::path db = dir_ / "db";
  const std::string shape = " --num=100 --key_size=20 --value_size=100";
  Shell fill = RunMerged(std::string(kDbBench) + " --benchmarks=fillseq --db=" + db.string() + shape);
  ASSERT_EQ(fill.code, 0) << fill.out;
  struct Case {
    std::string db_bench, storebench;
  };
  for (const Case& c : {Case{"", ""}, Case{" --cache_size=1048576 --bloom_bits=10", " --cache-size 1048576 --bloom-bits 10"},
                        Case{" --cache_size=0", " --cache-size 0"}}) {
    Shell d = RunMerged(std::string(kDbBench) + " --benchmarks=readrandom --use_existing_db=1 --reads=1 --db=" +
                       db.string() + shape + c.db_bench);
    ASSERT_EQ(d.code, 0) << d.out;
    auto theirs = ReadOptionsFile(NewestOptionsFile(db));
    auto their_cache = BlockCacheLines(db);
    fs::path json = dir_ / "run.json";
    Shell s = Storebench("run --backend rocksdb --quiet --ops 1 --print-options --json " + json.string() +
                         " --data " + db.string() + " --num 100 --key-size 20 --value-size 100" + c.storebench);
    ASSERT_EQ(s.code, 0) << s.out;
    auto ours = ReadOptionsFile(NewestOptionsFile(db));
    ASSERT_GT(ours.size(), 100u);
    // --print-options: RocksDB's serialization of the same options, in the JSON.
    const nlohmann::json printed = ReadJson(json)["rocksdb"]["options"];
    for (const auto& [section, name] : {std::pair{"DBOptions", "table_cache_numshardbits"},
                                        std::pair{"CFOptions", "compaction_options_fifo"},
                                        std::pair{"TableOptions", "index_shortening"}}) {
      const std::string file_section = std::string(section) == "DBOptions"  ? "[DBOptions] "
                                       : std::string(section) == "CFOptions" ? "[CFOptions \"default\"] "
                                                                              : "[TableOptions/BlockBasedTable \"default\"] ";
      ASSERT_TRUE(printed[section].contains(name)) << section << " " << name;
      EXPECT_EQ(printed[section][name].get<std::string>(), ours[file_section + name]) << name;
    }
    EXPECT_EQ(BlockCacheLines(db), their_cache) << c.storebench;
    EXPECT_FALSE(their_cache.empty());
    std::set<std::string> names;
    for (const auto& [k, v] : theirs) names.insert(k);
    for (const auto& [k, v] : ours) names.insert(k);
    for (const std::string& k : names) {
      if (kExpectedDifferences.count(k)) continue;
      EXPECT_EQ(ours[k], theirs[k]) << k << " (storebench" << c.storebench << " vs db_bench" << c.db_bench << ")";
    }
  }
}

// Every workload runs and records the kinds it promises; readwhilewriting's writer is its own group.
TEST_F(Rocksdb, WorkloadsRecordTheirKinds) {
  fs::path db = dir_ / "db";
  Shell prep = Storebench("prepare --backend rocksdb --data " + db.string() + " --num 2000 --key-size 20 "
                          "--value-size 100 --fill seq");
  ASSERT_EQ(prep.code, 0) << prep.out;
  struct Case {
    std::string args;
    std::vector<std::string> kinds;
  };
  const std::vector<Case> cases = {
      {"--workload readrandom --statistics --perf-level 2", {"get"}},
      {"--workload multiget --batch-size 8", {"multiget"}},
      {"--workload scan --scan-length 5", {"scan"}},
      {"--workload overwrite", {"put"}},
      {"--workload updaterandom", {"update"}},
      {"--workload delete", {"delete"}},
      {"--workload readwhilewriting --writer-rate 2000/s --threads 1", {"main/get", "writer/put"}},
      {"--workload mixgraph --mix_get_ratio 0.5 --mix_put_ratio 0.3 --mix_seek_ratio 0.2 --mix_max_scan_len 20 "
       "--key_dist_a 0.002312 --key_dist_b 0.3467",
       {"get", "put", "seek"}},
  };
  // Bounded by ops, not time: this host stalls single ops for hundreds of
  // milliseconds now and then, so a 300 ms window could hold no op of a kind.
  // The writer class runs at a rate until the window ends, so that case keeps
  // a duration, 2 s: a stall of 0.5 s still leaves it over a thousand arrivals.
  for (const Case& c : cases) {
    fs::path json = dir_ / "run.json";
    const std::string bound = c.kinds.size() == 2 && c.kinds[1] == "writer/put" ? "--duration 2s " : "--ops 20000 ";
    Shell run = Storebench("run --backend rocksdb --quiet --data " + db.string() + " --warmup 100ms " + bound +
                           c.args +
                           " --json " + json.string());
    ASSERT_EQ(run.code, 0) << c.args << "\n" << run.out;
    nlohmann::json j = ReadJson(json);
    EXPECT_EQ(j["totals"]["errors"], 0) << c.args;
    for (const auto& k : c.kinds) EXPECT_GT(j["kinds"][k]["ops"].get<uint64_t>(), 0u) << c.args << " " << k;
    EXPECT_EQ(j["rocksdb"]["shape_from"], "manifest");
    if (c.kinds[0] == "get" && c.kinds.size() == 1) {
      // fillseq: every key exists; statistics and perf context are in the JSON.
      EXPECT_EQ(j["rocksdb"]["not_found"], 0);
      EXPECT_GT(j["totals"]["warmup_ops"].get<uint64_t>(), 0u);
      EXPECT_EQ(j["rocksdb"]["found"], j["totals"]["ops"]);  // the warm-up's reads are left out
      EXPECT_GT(j["rocksdb"]["statistics"]["tickers"]["rocksdb.number.keys.read"].get<uint64_t>(), 0u);
      EXPECT_GT(j["rocksdb"]["perf_context"]["user_key_comparison_count"].get<uint64_t>(), 0u);
      EXPECT_TRUE(j["intervals"][0]["backend"].contains("stall_micros"));
    }
    if (c.kinds[0] == "multiget") {
      // fillseq: all 8 keys of every measured batch exist.
      EXPECT_EQ(j["rocksdb"]["not_found"], 0);
      EXPECT_EQ(j["rocksdb"]["found"].get<uint64_t>(), 8 * j["kinds"]["multiget"]["ops"].get<uint64_t>());
    }
  }
}

TEST_F(Rocksdb, MixgraphSineFlagsBecomeAnOpenLoopSchedule) {
  fs::path db = dir_ / "db";
  ASSERT_EQ(Storebench("prepare --backend rocksdb --data " + db.string() + " --num 1000 --fill seq").code, 0);
  fs::path json = dir_ / "run.json";
  Shell run = Storebench("run --backend rocksdb --quiet --data " + db.string() +
                         " --workload mixgraph --sine_mix_rate --sine_a 100 --sine_b 1 --sine_d 500 --duration 500ms "
                         "--json " + json.string());
  ASSERT_EQ(run.code, 0) << run.out;
  nlohmann::json j = ReadJson(json);
  EXPECT_EQ(j["config"]["schedule"], "");  // the job as given: the workload implies the schedule
  EXPECT_EQ(j["schedule"]["effective"], "sine:100,1,0,500");
  // The driver's process-wide figures cover rocksdb like every backend.
  for (const char* k : {"device_read_bytes", "rchar_bytes"}) EXPECT_TRUE(j["io"][k].is_number()) << k;
  EXPECT_GT(j["cache"]["dataset_bytes"].get<uint64_t>(), 0u);
  for (const char* when : {"before", "after"})
    EXPECT_TRUE(j["cache"][when].contains("resident_bytes")) << when;
  uint64_t ops = j["totals"]["ops"].get<uint64_t>();
  EXPECT_GT(ops, 100u);  // ~250 arrivals due in 0.5 s at 400-600/s
  EXPECT_LT(ops, 400u);
}

// A full or read-only file system during prepare gives a message naming the cause (needs root for mount).
TEST_F(Rocksdb, PrepareOnAFullOrReadOnlyDisk) {
  fs::path mnt = dir_ / "mnt";
  fs::create_directories(mnt);
  if (::mount("tmpfs", mnt.c_str(), "tmpfs", 0, "size=3m") != 0) GTEST_SKIP() << "cannot mount a tmpfs here";
  Shell full = Storebench("prepare --backend rocksdb --data " + (mnt / "db").string() +
                          " --num 8000 --key-size 20 --value-size 400 --compression none --fill seq");
  EXPECT_EQ(full.code, 1) << full.out;
  EXPECT_NE(full.out.find("the disk is full"), std::string::npos) << full.out;
  Shell big = Storebench("prepare --backend rocksdb --data " + (mnt / "db2").string() +
                         " --num 100000 --key-size 20 --value-size 400");
  EXPECT_EQ(big.code, 1) << big.out;
  EXPECT_NE(big.out.find("the data set needs about"), std::string::npos) << big.out;
  ASSERT_EQ(::mount(nullptr, mnt.c_str(), nullptr, MS_REMOUNT | MS_RDONLY, nullptr), 0);
  Shell ro = Storebench("prepare --backend rocksdb --data " + (mnt / "db3").string() + " --num 100");
  EXPECT_EQ(ro.code, 2) << ro.out;
  EXPECT_NE(ro.out.find("read-only file system"), std::string::npos) << ro.out;
  ::umount(mnt.c_str());
}

}  // namespace
}  // namespace storebench::backend::rocksdb_backend
