// End-to-end tests of `storebench prepare/run --backend file`: every method
// reads verified bytes, corruption and bad data sets are named, cache states
// show in the residency, the accounting adds up, query classes stay apart.
#include <sys/mount.h>
#include <sys/statfs.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include <linux/magic.h>

#include "storebench/testing/binary_test_fixture.h"

namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using storebench::testing::Outcome;
using storebench::testing::Slurp;

class FileCli : public storebench::testing::BinaryTest {
 protected:
  void SetUp() override {
    BinaryTest::SetUp();
    data_ = (dir_ / "data").string();
  }
  void Prepare(const std::string& dir, const std::string& more = "") {
    Outcome o = Run("prepare --backend file --data " + dir + " --files 4 --file-size 1M " + more);
    ASSERT_EQ(o.code, 0) << o.err;
  }
  // Runs and returns the JSON result; fails the test on a non-zero exit.
  json RunJson(const std::string& args) {
    const std::string path = (dir_ / "result.json").string();
    Outcome o = Run("run --backend file --data " + data_ + " --quiet --json " + path + " " + args);
    EXPECT_EQ(o.code, 0) << args << "\n" << o.err;
    if (o.code != 0) return json::object();
    return json::parse(Slurp(path));
  }

  std::string data_;
};

TEST_F(FileCli, EveryMethodReturnsTheStampedBytes) {
  Prepare(data_);
  struct Case {
    const char* args;
  };
  const Case cases[] = {
      {"--method read --buffer 8k"},  {"--method read --buffer 0"},       {"--method pread"},
      {"--method pread_threadpool"},  {"--method pread_threadpool --cache cold --iodepth 4"},
      {"--method mmap --madvise random"}, {"--method io_uring --iodepth 8"}, {"--method io_uring --iodepth 8 --direct"},
      {"--method pread --direct --cache cold"}, {"--method io_uring --fixed-buffers --register-files --iodepth 4"},
  };
  for (const Case& c : cases) {
    for (const char* workload : {"--workload randread --block-size 4k", "--workload seqread --block-size 64k --prefetch",
                                 "--workload seqread --block-size 16k"}) {
      const std::string args = std::string(c.args) + " " + workload + " --verify --ops 300";
      if (std::string(c.args).find("iodepth") != std::string::npos && std::string(workload).find("prefetch") != std::string::npos)
        continue;  // prefetch is for --iodepth 1
      json j = RunJson(args);
      ASSERT_TRUE(j.contains("totals")) << args;
      EXPECT_EQ(j["totals"]["outcomes"]["ok"], 300) << args;
      EXPECT_EQ(j["totals"]["outcomes"]["error:verify"], 0) << args;
      EXPECT_GT(j["io"]["returned_bytes"].get<uint64_t>(), 0u) << args;
    }
  }
  for (const char* cols : {"--method pread", "--method io_uring", "--method pread_threadpool --serial-columns",
                           "--method mmap --offset-dist sequential --prefetch",
                           "--method io_uring --offset-dist sequential --prefetch"}) {
    json j = RunJson(std::string("--workload columns --columns 3 --block-size 8k --verify --ops 200 ") + cols);
    ASSERT_TRUE(j.contains("totals")) << cols;
    EXPECT_EQ(j["totals"]["outcomes"]["ok"], 200) << cols;
    EXPECT_EQ(j["totals"]["bytes"], 200 * 3 * 8192) << cols;  // each query reads its 3 columns
  }
}

// M6: a block --verify finds corrupted is a counted outcome (error:verify),
// like a failed read: the run goes on, its result is written, the first
// failure is named (file.first_error), and --max-errors / --max-error-ratio
// decide the exit code. It used to end the run with exit 2 and no result.
TEST_F(FileCli, CorruptedBlockIsNamedWithFileAndOffset) {
  Prepare(data_);
  {
    std::fstream f(data_ + "/data-00001.bin", std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(3 * 4096 + 100);
    f.write("garbage", 7);
  }
  const std::string path = (dir_ / "verify.json").string();
  const std::string run = "run --backend file --data " + data_ + " --workload seqread --threads 1 --block-size 4k "
                          "--verify --ops 2048 --quiet --json " + path;
  // 2 of 2048 reads fail (the block is read once per pass): within the default 1%.
  Outcome o = Run(run);
  EXPECT_EQ(o.code, 0) << o.err;
  ASSERT_TRUE(std::filesystem::exists(path)) << o.err;
  json j = json::parse(Slurp(path));
  EXPECT_EQ(j["totals"]["outcomes"]["error:verify"], 2) << j["totals"].dump();
  EXPECT_EQ(j["totals"]["errors"], 2);
  EXPECT_EQ(j["totals"]["ops"], 2048);
  EXPECT_NE(j["file"]["first_error"].get<std::string>().find("data-00001.bin (file 1) at offset 12288"),
            std::string::npos) << j["file"].dump();
  // Beyond --max-error-ratio: exit 1, the result still written.
  std::filesystem::remove(path);
  o = Run(run + " --max-error-ratio 0");
  EXPECT_EQ(o.code, 1) << o.err;
  EXPECT_NE(o.err.find("--max-error-ratio"), std::string::npos) << o.err;
  ASSERT_TRUE(std::filesystem::exists(path));
  EXPECT_EQ(json::parse(Slurp(path))["totals"]["outcomes"]["error:verify"], 2);
  // --max-errors 1 stops the run at the first: exit 1, the result written.
  std::filesystem::remove(path);
  o = Run(run + " --max-errors 1");
  EXPECT_EQ(o.code, 1) << o.err;
  ASSERT_TRUE(std::filesystem::exists(path));
  j = json::parse(Slurp(path));
  EXPECT_EQ(j["totals"]["outcomes"]["error:verify"], 1);
  EXPECT_LT(j["totals"]["ops"].get<uint64_t>(), 2048u);
  // Without --verify the same run passes: the check is what found it.
  EXPECT_EQ(Run("run --backend file --data " + data_ + " --workload seqread --ops 2048 --quiet").code, 0);
}

TEST_F(FileCli, MismatchingOrMissingDataSetIsRefusedClearly) {
  Outcome o = Run("run --backend file --data " + data_ + " --ops 10");
  EXPECT_EQ(o.code, 2);
  EXPECT_NE(o.err.find("storebench prepare --backend file --data " + data_), std::string::npos) << o.err;
  Prepare(data_);
  o = Run("run --backend file --data " + data_ + " --files 8 --ops 10");
  EXPECT_EQ(o.code, 2);
  EXPECT_NE(o.err.find("has 4 files of 1.0 MiB (4.0 MiB), but this run asks for 8 files"), std::string::npos) << o.err;
  o = Run("prepare --backend file --data " + data_ + " --files 4 --file-size 2M");
  EXPECT_EQ(o.code, 2);
  EXPECT_NE(o.err.find("already holds a different file data set"), std::string::npos) << o.err;
  o = Run("prepare --backend file --data " + data_ + " --files 4 --file-size 1M");
  EXPECT_EQ(o.code, 0);
  EXPECT_NE(o.out.find("nothing to do"), std::string::npos) << o.out;
}

TEST_F(FileCli, BadMethodCombinationsAreRefusedUpFront) {
  Prepare(data_);
  Outcome o = Run("run --backend file --data " + data_ + " --method pread --iodepth 8 --ops 10");
  EXPECT_EQ(o.code, 2);
  EXPECT_NE(o.err.find("use io_uring or pread_threadpool"), std::string::npos) << o.err;
  o = Run("run --backend file --data " + data_ + " --method mmap --direct --ops 10");
  EXPECT_EQ(o.code, 2) << o.err;
  o = Run("run --backend file --data " + data_ + " --method pread --direct --block-size 1000 --ops 10");
  EXPECT_EQ(o.code, 2);
  EXPECT_NE(o.err.find("multiples of"), std::string::npos) << o.err;
}

TEST_F(FileCli, DirectOnTmpfsIsRefusedWithAReason) {
  struct statfs sf {};
  if (statfs("/dev/shm", &sf) != 0 || sf.f_type != TMPFS_MAGIC) GTEST_SKIP() << "/dev/shm is not tmpfs here";
  const std::string shm = "/dev/shm/file_cli_" + std::to_string(getpid());
  Prepare(shm);
  Outcome o = Run("run --backend file --data " + shm + " --direct --ops 10");
  fs::remove_all(shm);
  EXPECT_EQ(o.code, 2);
  EXPECT_NE(o.err.find("--direct"), std::string::npos) << o.err;
  EXPECT_NE(o.err.find("tmpfs"), std::string::npos) << o.err;
}

TEST_F(FileCli, ColdCacheEmptiesAndWarmCacheFillsTheResidency) {
  Prepare(data_);
  json cold = RunJson("--cache cold --ops 50");
  if (cold["cache"]["before"]["source"] != "cachestat") GTEST_SKIP() << "no cachestat(2) on this kernel";
  const uint64_t dataset = cold["cache"]["dataset_bytes"];
  EXPECT_EQ(dataset, 4u << 20);
  EXPECT_LT(cold["cache"]["before"]["resident_bytes"].get<uint64_t>(), dataset / 16);
  // 50 random 4 KiB reads bring back some of it (readahead may add more).
  EXPECT_GT(cold["cache"]["after"]["resident_bytes"].get<uint64_t>(), 0u);
  json warm = RunJson("--cache warm --ops 50");
  EXPECT_EQ(warm["cache"]["before"]["resident_bytes"].get<uint64_t>(), dataset);
  EXPECT_EQ(warm["io"]["device_read_bytes"], 0);
}

TEST_F(FileCli, AccountingAddsUp) {
  Prepare(data_);
  // The warm-up's reads are left out of the accounting exactly as out of the latencies.
  json j = RunJson("--workload randread --block-size 8k --method pread --warmup 200ms --ops 1000");
  const uint64_t ops = j["io"]["ops"];
  EXPECT_GT(j["totals"]["warmup_ops"].get<uint64_t>(), 0u);
  EXPECT_EQ(ops, 1000u);
  EXPECT_EQ(ops, j["totals"]["ops"].get<uint64_t>());
  EXPECT_EQ(j["io"]["requested_bytes"], ops * 8192);
  EXPECT_EQ(j["io"]["syscalls"], ops);  // one pread per block
  EXPECT_EQ(j["io"]["syscalls_per_op"], 1.0);
  for (const char* k : {"rchar_bytes", "device_read_bytes", "read_amplification"}) EXPECT_TRUE(j["io"].contains(k)) << k;
  for (const char* k : {"user_s", "sys_s", "voluntary_switches", "involuntary_switches"})
    EXPECT_TRUE(j["cpu"].contains(k)) << k;
  // The harness figures: one measured op in 64 sampled (measured op 64n-1 opens a sample,
  // op 64n closes it), each sample split at the read method's calls.
  const json& h = j["file"]["harness"];
  EXPECT_EQ(h["samples"].get<uint64_t>() + h["dropped"].get<uint64_t>(), ops / 64);
  EXPECT_GT(h["samples"].get<uint64_t>(), 0u);
  EXPECT_GT(h["method_ns"].get<uint64_t>(), 0u);
  EXPECT_EQ(h["window_ns"].get<uint64_t>(), h["method_ns"].get<uint64_t>() + h["outside_ns"].get<uint64_t>());
  EXPECT_DOUBLE_EQ(j["file"]["harness_ns_per_op"].get<double>(),
                   static_cast<double>(h["outside_ns"].get<uint64_t>()) / static_cast<double>(h["samples"].get<uint64_t>()));

  // A user-space buffer moves more bytes than asked for (the whisper case).
  j = RunJson("--workload randread --block-size 512 --align 512 --method read --buffer 8k --ops 500");
  EXPECT_EQ(j["io"]["requested_bytes"], j["io"]["ops"].get<uint64_t>() * 512);
  EXPECT_GT(j["io"]["transferred_bytes"].get<uint64_t>(), 8 * j["io"]["requested_bytes"].get<uint64_t>());

  // Cached reads stay inline; evicted ones go to the pool.
  j = RunJson("--method pread_threadpool --cache warm --ops 300");
  EXPECT_EQ(j["io"]["inline_reads"], j["io"]["reads"]);
  j = RunJson("--method pread_threadpool --cache cold --ops 300 --offset-dist uniform");
  EXPECT_GT(j["io"]["pool_reads"].get<uint64_t>(), 0u);
}

TEST_F(FileCli, QueryClassesReportPerGroupResults) {
  Prepare(data_);
  json j = RunJson("--workload seqread --block-size 16k --method pread_threadpool --prefetch --cache cold "
                   "--pool-threads 1 --class high:threads=1,priority=0,ops=128 --class low:threads=1,priority=1,ops=128");
  ASSERT_TRUE(j.contains("kinds"));
  EXPECT_EQ(j["kinds"]["high/seqread"]["ops"], 128);
  EXPECT_EQ(j["kinds"]["low/seqread"]["ops"], 128);
  ASSERT_EQ(j["file"]["groups"].size(), 2u);
  for (const json& g : j["file"]["groups"]) {
    EXPECT_EQ(g["requested_bytes"].get<uint64_t>() % (16 * 1024), 0u);
    EXPECT_TRUE(g["first_pass_s"].is_number()) << g;  // each worker scans 2 of the 4 files: 128 × 16 KiB is one pass
  }
}

TEST_F(FileCli, NoSpaceLeavesNoDataSetBehind) {
  if (geteuid() != 0) GTEST_SKIP() << "needs root to mount a small tmpfs";
  const fs::path mnt = dir_ / "small";
  fs::create_directories(mnt);
  if (mount("tmpfs", mnt.c_str(), "tmpfs", 0, "size=2m") != 0) GTEST_SKIP() << "cannot mount tmpfs here";
  Outcome o = Run("prepare --backend file --data " + mnt.string() + "/d --files 4 --file-size 1M");
  const bool manifest = fs::exists(mnt / "d" / "storebench-file.json");
  size_t left = 0;
  if (fs::exists(mnt / "d"))
    for (const auto& e : fs::directory_iterator(mnt / "d"))
      left += e.is_regular_file() && e.path().filename() != ".storebench.lock" ? 1 : 0;
  umount(mnt.c_str());
  EXPECT_NE(o.code, 0);
  EXPECT_NE(o.err.find("No space left on device"), std::string::npos) << o.err;
  EXPECT_FALSE(manifest);
  EXPECT_EQ(left, 0u);
}

}  // namespace
