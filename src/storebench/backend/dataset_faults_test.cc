// Fault cases of the data sets through the binary (issue 16; docs/reliability.md):
// corrupt manifests, a prepare stopped (SIGINT/SIGTERM) or killed (SIGKILL)
// and run again, a second writer, a full disk. Each case asserts the exit
// code, the one line on stderr and what is (not) left on disk. Cases that
// mount a small tmpfs skip visibly when that is not permitted.
#include <signal.h>
#include <sys/file.h>
#include <sys/mount.h>
#include <sys/wait.h>
#include <fcntl.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "storebench/testing/binary_test_fixture.h"

namespace storebench::backend {
namespace {

namespace fs = std::filesystem;
using storebench::testing::LineCount;
using storebench::testing::Outcome;
using storebench::testing::Slurp;
using storebench::testing::StorebenchBinary;

class DatasetFaults : public storebench::testing::BinaryTest {
 protected:
  std::string Data() { return (dir_ / "data").string(); }
  void WriteManifest(const std::string& name, const std::string& text) {
    fs::create_directories(Data());
    std::ofstream(fs::path(Data()) / name) << text;
  }
  // Holds the data set directory's lock (a flock on the directory) as another writer would.
  int HoldLock(const std::string& dir) {
    fs::create_directories(dir);
    int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY);
    EXPECT_GE(fd, 0);
    EXPECT_EQ(flock(fd, LOCK_EX), 0);
    return fd;
  }
  // Mounts a tmpfs of `size` at dir_/small; false when not permitted (the caller skips).
  bool MountTmpfs(const char* size) {
    small_ = dir_ / "small";
    fs::create_directories(small_);
    if (geteuid() != 0 || mount("tmpfs", small_.c_str(), "tmpfs", 0, size) != 0) return false;
    mounted_ = true;
    return true;
  }
  void TearDown() override {
    if (mounted_) umount(small_.c_str());
    BinaryTest::TearDown();
  }
  fs::path small_;
  bool mounted_ = false;
};

TEST_F(DatasetFaults, CorruptManifestsAreNamedNeverACrash) {
  const std::string file_ok = R"({"format":1,"files":2,"file_size":65536,"seed":1,"complete":true})";
  struct Case {
    const char* backend;
    const char* manifest;
    std::string text;
    const char* field;
  };
  const std::vector<Case> cases = {
      {"file", "storebench-file.json", R"({"format":1,"files":0,"file_size":65536,"seed":1,"complete":true})", "'files'"},
      {"file", "storebench-file.json", R"({"format":1,"files":"2","file_size":65536,"seed":1,"complete":true})", "'files'"},
      {"file", "storebench-file.json", R"({"format":1,"files":null,"file_size":65536,"seed":1,"complete":true})", "'files'"},
      {"file", "storebench-file.json", R"({"format":1,"files":-1,"file_size":65536,"seed":1,"complete":true})", "'files'"},
      {"file", "storebench-file.json", R"({"format":1,"files":1e8,"file_size":65536,"seed":1,"complete":true})", "'files'"},
      {"file", "storebench-file.json", R"({"format":1,"files":2,"file_size":65536,"seed":1,"complete":false})", "'complete'"},
      {"whisper", "storebench-whisper.json",
       R"({"format":1,"metrics":1e13,"archives":[[60,1440]],"aggregation":"average","xff":0.5,"sparse":true,"start":1600000000,"complete":true})",
       "'metrics'"},
      {"whisper", "storebench-whisper.json",
       R"({"format":1,"metrics":-1,"archives":[[60,1440]],"aggregation":"average","xff":0.5,"sparse":true,"start":1600000000,"complete":true})",
       "'metrics'"},
  };
  for (const Case& c : cases) {
    fs::remove_all(Data());
    WriteManifest(c.manifest, c.text);
    Outcome o = Run(std::string("run --backend ") + c.backend + " --data " + Data() + " --ops 10 --quiet");
    EXPECT_EQ(o.code, 2) << c.text << ": " << o.err;
    EXPECT_EQ(LineCount(o.err), 1u) << o.err;
    EXPECT_NE(o.err.find(std::string(c.manifest) + ": corrupt manifest: field " + c.field), std::string::npos)
        << c.text << ": " << o.err;
  }
}

TEST_F(DatasetFaults, FilePrepareWithAnotherSeedSaysSo) {
  ASSERT_EQ(Run("prepare --backend file --data " + Data() + " --files 1 --file-size 64k --seed 3").code, 0);
  // The set is kept (prepare is idempotent; runs verify with the manifest's seed), and the other seed is said.
  Outcome o = Run("prepare --backend file --data " + Data() + " --files 1 --file-size 64k --seed 7");
  EXPECT_EQ(o.code, 0) << o.err;
  EXPECT_NE(o.out.find("this set has another seed (made with --seed 3, not 7)"), std::string::npos) << o.out;
  EXPECT_NE(o.out.find("already prepared"), std::string::npos) << o.out;
}

TEST_F(DatasetFaults, ColumnsBeyondTheFilesAreRefused) {
  ASSERT_EQ(Run("prepare --backend file --data " + Data() + " --files 2 --file-size 64k").code, 0);
  Outcome o = Run("run --backend file --data " + Data() + " --workload columns --columns 5 --ops 10 --quiet");
  EXPECT_EQ(o.code, 2) << o.err;
  EXPECT_EQ(LineCount(o.err), 1u) << o.err;
  EXPECT_NE(o.err.find("--columns 5: the data set has 2 files"), std::string::npos) << o.err;
}

TEST_F(DatasetFaults, IoUringDepthBeyondTheKernelRingIsNamed) {
  ASSERT_EQ(Run("prepare --backend file --data " + Data() + " --files 1 --file-size 64k").code, 0);
  Outcome o = Run("run --backend file --data " + Data() + " --method io_uring --iodepth 65536 --ops 10 --quiet");
  if (o.err.find("--method") != std::string::npos) GTEST_SKIP() << "no io_uring in this build: " << o.err;
  EXPECT_EQ(o.code, 2) << o.err;
  EXPECT_EQ(LineCount(o.err), 1u) << o.err;
  EXPECT_NE(o.err.find("--iodepth 65536: an io_uring ring holds at most 32768 entries"), std::string::npos) << o.err;
}

TEST_F(DatasetFaults, SecondPrepareOfADirectoryIsRefused) {
  for (const char* args : {"--backend file --files 1 --file-size 64k", "--backend whisper --metrics 2"}) {
    fs::remove_all(Data());
    int fd = HoldLock(Data());
    Outcome o = Run(std::string("prepare ") + args + " --data " + Data());
    ::close(fd);
    EXPECT_EQ(o.code, 2) << args << ": " << o.err;
    EXPECT_EQ(LineCount(o.err), 1u) << o.err;
    EXPECT_NE(o.err.find("--data " + Data() + ": another storebench process is writing there"), std::string::npos)
        << o.err;
    EXPECT_FALSE(fs::exists(fs::path(Data()) / "storebench-file.json"));
    EXPECT_FALSE(fs::exists(fs::path(Data()) / "servers"));
  }
}

TEST_F(DatasetFaults, FilePrepareStoppedLeavesNoManifestAndRunsAgain) {
  // 1 GiB: far more than is written before the signal.
  const fs::path first = fs::path(Data()) / "data-00000.bin";
  Outcome o = RunSignalledWhen({"prepare", "--backend", "file", "--data", Data(), "--files", "4", "--file-size", "256M"},
                               [&] { return fs::exists(first); }, SIGTERM);
  if (o.code == 0) GTEST_SKIP() << "the prepare finished before the signal";
  EXPECT_EQ(o.code, 130) << o.err;
  EXPECT_EQ(LineCount(o.err), 1u) << o.err;
  EXPECT_NE(o.err.find("prepare interrupted"), std::string::npos) << o.err;
  EXPECT_FALSE(fs::exists(fs::path(Data()) / "storebench-file.json"));
  EXPECT_EQ(Run("run --backend file --data " + Data() + " --ops 10 --quiet").code, 2);  // not a data set
  // The next prepare starts it again (here a smaller set: the partial one is not a set of any shape).
  fs::remove(fs::path(Data()) / "data-00001.bin");  // keep the test's disk use small
  o = Run("prepare --backend file --data " + Data() + " --files 1 --file-size 1M");
  EXPECT_EQ(o.code, 0) << o.err;
  EXPECT_EQ(Run("run --backend file --data " + Data() + " --ops 10 --quiet --verify").code, 0);
}

TEST_F(DatasetFaults, NoSpaceForTheFileManifestRemovesTheDataFiles) {
  if (!MountTmpfs("size=2m")) GTEST_SKIP() << "cannot mount a tmpfs here (needs root and mount permission)";
  // The two files take every page; the manifest's write is the one that fails.
  Outcome o = Run("prepare --backend file --data " + small_.string() + "/d --files 2 --file-size 1M");
  EXPECT_EQ(o.code, 1) << o.err;
  EXPECT_EQ(LineCount(o.err), 1u) << o.err;
  EXPECT_NE(o.err.find("No space left on device"), std::string::npos) << o.err;
  EXPECT_FALSE(fs::exists(small_ / "d" / "storebench-file.json"));
  EXPECT_FALSE(fs::exists(small_ / "d" / "data-00000.bin"));
  EXPECT_FALSE(fs::exists(small_ / "d" / "data-00001.bin"));
}

TEST_F(DatasetFaults, WhisperPrepareStoppedOrKilledResumes) {
  const std::vector<std::string> prepare = {"prepare", "--backend", "whisper", "--data", Data(),
                                            "--metrics", "5000", "--retention", "60:60", "--sparse"};
  const fs::path m0 = fs::path(Data()) / "servers/host-0000/cpu/metric-0000000.wsp";
  const fs::path m1 = fs::path(Data()) / "servers/host-0000/cpu/metric-0000001.wsp";
  const fs::path m9 = fs::path(Data()) / "servers/host-0000/cpu/metric-0000009.wsp";
  Outcome o = RunSignalledWhen(prepare, [&] { return fs::exists(m0); }, SIGINT);
  if (o.code == 0) GTEST_SKIP() << "the prepare finished before the signal";
  EXPECT_EQ(o.code, 130) << o.err;
  EXPECT_EQ(LineCount(o.err), 1u) << o.err;
  EXPECT_NE(o.err.find("run the same prepare again to resume"), std::string::npos) << o.err;
  EXPECT_FALSE(fs::exists(fs::path(Data()) / "storebench-whisper.json"));

  o = RunSignalledWhen(prepare, [&] { return fs::exists(m9); }, SIGKILL);
  if (o.code == 0) GTEST_SKIP() << "the prepare finished before the signal";
  EXPECT_EQ(o.code, 128 + SIGKILL);
  // What a kill at any moment may leave: a file cut short, a torn header.
  ASSERT_TRUE(fs::exists(m1));
  fs::resize_file(m0, 10);
  std::ofstream(m1, std::ios::binary | std::ios::in) << "torn header!";
  o = Run("prepare --backend whisper --data " + Data() + " --metrics 5000 --retention 60:60 --sparse");
  EXPECT_EQ(o.code, 0) << o.err;
  EXPECT_TRUE(fs::exists(fs::path(Data()) / "storebench-whisper.json"));
  o = Run("run --backend whisper --data " + Data() + " --workload fetch --metric-dist uniform --ops 20000 --quiet");
  EXPECT_EQ(o.code, 0) << o.err;  // every file, the repaired ones included, reads back
}

TEST_F(DatasetFaults, WhisperRetentionBeyondTheDiskLeavesNothing) {
  Outcome o = Run("prepare --backend whisper --data " + Data() + " --metrics 1 --retention 1s:100y");
  EXPECT_EQ(o.code, 2) << o.err;
  EXPECT_EQ(LineCount(o.err), 1u) << o.err;
  EXPECT_NE(o.err.find("--retention: a metric file of 1:3153600000"), std::string::npos) << o.err;
  EXPECT_FALSE(fs::exists(Data()));
  // A schema that fits whisper's offsets but not the disk is refused before anything is written too.
  o = Run("prepare --backend whisper --data " + Data() + " --metrics 100000 --retention 1s:3y");
  EXPECT_EQ(o.code, 1) << o.err;
  EXPECT_EQ(LineCount(o.err), 1u) << o.err;
  EXPECT_NE(o.err.find("nothing was written"), std::string::npos) << o.err;
  EXPECT_FALSE(fs::exists(Data()));
}

TEST_F(DatasetFaults, WhisperRunOnAFullDiskWritesItsResults) {
  if (!MountTmpfs("size=4m")) GTEST_SKIP() << "cannot mount a tmpfs here (needs root and mount permission)";
  const std::string data = (small_ / "w").string();
  ASSERT_EQ(Run("prepare --backend whisper --data " + data + " --metrics 64 --retention 60:100000 --sparse").code, 0);
  // Fill what is left, so that writing into the sparse files' holes fails.
  { std::ofstream filler(small_ / "filler", std::ios::binary); std::string mb(1 << 20, 'x'); for (int i = 0; i < 8; ++i) filler << mb; }
  const std::string json = (dir_ / "full.json").string();
  Outcome o = Run("run --backend whisper --data " + data + " --workload update --ops 2000 --json " + json);
  EXPECT_EQ(o.code, 1) << o.err;
  EXPECT_EQ(LineCount(o.err), 1u) << o.err;
  EXPECT_NE(o.err.find("--max-error-ratio"), std::string::npos) << o.err;
  ASSERT_TRUE(fs::exists(json));
  auto doc = nlohmann::json::parse(Slurp(json));
  EXPECT_GT(doc["totals"]["errors"].get<uint64_t>(), 0u);
  EXPECT_NE(doc.dump().find("No space left on device"), std::string::npos);  // whisper.first_error
}

#if STOREBENCH_HAVE_ROCKSDB
TEST_F(DatasetFaults, RocksdbManifestOutOfRangeIsNamedNotBlamedOnKeyDist) {
  ASSERT_EQ(Run("prepare --backend rocksdb --data " + Data() + " --num 100").code, 0);
  const fs::path m = fs::path(Data()) / "storebench-manifest.json";
  auto doc = nlohmann::json::parse(Slurp(m));
  for (const auto& [field, value] : std::vector<std::pair<const char*, nlohmann::json>>{
           {"num", 0}, {"num", 1e30}, {"value_size", -1}, {"value_size", 1e11}}) {
    auto bad = doc;
    bad[field] = value;
    std::ofstream(m) << bad.dump();
    Outcome o = Run("run --backend rocksdb --data " + Data() + " --ops 10 --quiet");
    EXPECT_EQ(o.code, 2) << o.err;
    EXPECT_EQ(LineCount(o.err), 1u) << o.err;
    EXPECT_NE(o.err.find(std::string("corrupt manifest: field '") + field + "'"), std::string::npos) << o.err;
    EXPECT_EQ(o.err.find("--key-dist"), std::string::npos) << o.err;
  }
}

TEST_F(DatasetFaults, RocksdbPrepareStoppedIsRefusedByRunAndRestartedByPrepare) {
  const fs::path current = fs::path(Data()) / "CURRENT";
  Outcome o = RunSignalledWhen({"prepare", "--backend", "rocksdb", "--data", Data(), "--num", "50M", "--value-size", "10"},
                               [&] { return fs::exists(current); }, SIGINT);
  if (o.code == 0) GTEST_SKIP() << "the prepare finished before the signal";
  EXPECT_EQ(o.code, 130) << o.err;
  EXPECT_EQ(LineCount(o.err), 1u) << o.err;
  auto manifest = nlohmann::json::parse(Slurp(fs::path(Data()) / "storebench-manifest.json"));
  EXPECT_FALSE(manifest["complete"].get<bool>());
  o = Run("run --backend rocksdb --data " + Data() + " --ops 10 --quiet");
  EXPECT_EQ(o.code, 2) << o.err;
  EXPECT_NE(o.err.find("did not finish"), std::string::npos) << o.err;
  // Even with the shape given: an unfinished prepare is never measured.
  EXPECT_EQ(Run("run --backend rocksdb --data " + Data() + " --num 50M --value-size 10 --ops 10 --quiet").code, 2);
  o = Run("prepare --backend rocksdb --data " + Data() + " --num 1000");  // starts again from nothing
  EXPECT_EQ(o.code, 0) << o.err;
  EXPECT_EQ(Run("run --backend rocksdb --data " + Data() + " --ops 10 --quiet").code, 0);
  // A second writer is refused.
  int fd = HoldLock(Data());
  o = Run("prepare --backend rocksdb --data " + Data() + " --num 1000");
  ::close(fd);
  EXPECT_EQ(o.code, 2) << o.err;
  EXPECT_NE(o.err.find("another storebench process is writing there"), std::string::npos) << o.err;
}
#else
TEST_F(DatasetFaults, RocksdbCases) { GTEST_SKIP() << "built without RocksDB"; }
#endif

}  // namespace
}  // namespace storebench::backend
