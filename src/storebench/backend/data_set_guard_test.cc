// What a run and a prepare may do to a data directory (issue 51, S3 and S4):
// a run keeps the engine's own lock and holds storebench's, so a second
// writer is refused and the data set survives; a prepare writes only into a
// directory storebench made and leaves a refused or failed one as it was; an
// engine that cannot be opened is named and its directory left alone; a data
// set cut during a run is counted as errors, never a crash.
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "storebench/base/proc_locks.h"
#include "storebench/testing/binary_test_fixture.h"

#if STOREBENCH_HAVE_ROCKSDB
#include <rocksdb/db.h>
#endif

namespace storebench::backend {
namespace {

namespace fs = std::filesystem;
using storebench::testing::LineCount;
using storebench::testing::Outcome;
using storebench::testing::Slurp;
using storebench::testing::StorebenchBinary;
using storebench::testing::WaitEnd;
using storebench::testing::WaitUntil;

// Every entry under a directory with its size and mtime: equal listings mean nothing was written.
std::map<std::string, std::pair<uintmax_t, int64_t>> Listing(const fs::path& dir) {
  std::map<std::string, std::pair<uintmax_t, int64_t>> out;
  std::error_code ec;
  for (const auto& e : fs::recursive_directory_iterator(dir, ec)) {
    struct stat st {};
    ::lstat(e.path().c_str(), &st);
    out[e.path().string()] = {S_ISREG(st.st_mode) ? static_cast<uintmax_t>(st.st_size) : 0,
                              st.st_mtim.tv_sec * 1'000'000'000LL + st.st_mtim.tv_nsec};
  }
  return out;
}

class DataSetGuard : public storebench::testing::BinaryTest {
 protected:
  std::string D(const char* name = "data") { return (dir_ / name).string(); }

  // Starts the binary in the background, its stdout and stderr into files named after `tag`.
  pid_t Start(const std::vector<std::string>& args, const std::string& tag) {
    const std::string out = (dir_ / (tag + ".out")).string(), err = (dir_ / (tag + ".err")).string();
    fs::remove(out), fs::remove(err);  // a previous run's files must not pass for this one's
    pid_t pid = fork();
    if (pid == 0) {
      int o = ::open(out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      int e = ::open(err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      dup2(o, 1), dup2(e, 2);
      std::vector<char*> argv{const_cast<char*>(StorebenchBinary().c_str())};
      for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
      argv.push_back(nullptr);
      execv(StorebenchBinary().c_str(), argv.data());
      _exit(127);
    }
    return pid;
  }
  // True once the background run has drawn a progress line with an op count:
  // the reporter draws it, so the data set is open and the workers run.
  bool Running(const std::string& tag) { return Slurp(dir_ / (tag + ".err")).find(" ops") != std::string::npos; }
  bool Finished(const std::string& tag) { return !Slurp(dir_ / (tag + ".out")).empty(); }
  // Waits until `ready` holds or the process ended; false when it ended first.
  bool WaitFor(pid_t pid, const std::function<bool()>& ready) {
    int status = 0;
    return WaitUntil(pid, ready, std::chrono::seconds(120), &status) == WaitEnd::kReady;
  }
  // The exit code, or 128 + the signal that ended it.
  int Wait(pid_t pid) {
    int status = 0;
    waitpid(pid, &status, 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  }
  std::vector<std::string> Words(const std::string& line) {
    std::vector<std::string> w;
    std::istringstream in(line);
    for (std::string s; in >> s;) w.push_back(s);
    return w;
  }
};

// A second writer of one data set is refused (exit 2, one line naming the
// directory and the holder); the first finishes and the set is whole.
void ExpectSecondWriterRefused(DataSetGuard* t, const Outcome& second, const std::string& dir) {
  EXPECT_EQ(second.code, 2) << second.err;
  EXPECT_EQ(LineCount(second.err), 1u) << second.err;
  EXPECT_NE(second.err.find("--data " + dir), std::string::npos) << second.err;
  EXPECT_NE(second.err.find("pid "), std::string::npos) << second.err;
  (void)t;
}

TEST_F(DataSetGuard, ASecondWhisperWriterIsRefused) {
  ASSERT_EQ(Run("prepare --backend whisper --metrics 20 --sparse --data " + D()).code, 0);
  const pid_t first = Start(Words("run --backend whisper --workload update --duration 1500ms --interval 100ms "
                                  "--progress always --data " + D()), "first");
  ASSERT_TRUE(WaitFor(first, [&] { return Running("first"); })) << Slurp(dir_ / "first.err");
  Outcome second = Run("run --backend whisper --workload update --ops 100 --quiet --data " + D());
  ExpectSecondWriterRefused(this, second, D());
  EXPECT_EQ(Wait(first), 0) << Slurp(dir_ / "first.err");
  // Readers share the set with each other; the set still reads whole.
  EXPECT_EQ(Run("run --backend whisper --workload fetch --ops 200 --quiet --data " + D()).code, 0);
}

TEST_F(DataSetGuard, PrepareRefusesADirectoryItDidNotMakeAndLeavesItAsItWas) {
  std::vector<std::string> backends = {"file --files 1 --file-size 64k", "whisper --metrics 2"};
#if STOREBENCH_HAVE_ROCKSDB
  backends.push_back("rocksdb --num 1000");
#endif
  for (const std::string& b : backends) {
    fs::remove_all(D());
    fs::create_directories(D());
    // The names storebench itself uses, and an engine's: each is the user's here.
    for (const char* name : {"data-00000.bin", "000001.log", "notes.txt"}) std::ofstream(D() + "/" + name) << "mine";
    const auto before = Listing(D());
    for (int attempt = 0; attempt < 2; ++attempt) {
      Outcome o = Run("prepare --backend " + b + " --data " + D());
      EXPECT_EQ(o.code, 2) << b << ": " << o.err;
      EXPECT_EQ(LineCount(o.err), 1u) << o.err;
      EXPECT_NE(o.err.find("--data " + D() + ": holds files storebench did not make"), std::string::npos) << o.err;
      EXPECT_NE(o.err.find("empty or new directory"), std::string::npos) << o.err;
      EXPECT_EQ(Listing(D()), before) << b;
    }
  }
}

TEST_F(DataSetGuard, AFailedPrepareTakesBackWhatItWrote) {
  fs::create_directories(D());
  // Refused by whisper only once prepare has the directory: past 32-bit offsets.
  Outcome o = Run("prepare --backend whisper --retention 1s:100y --data " + D());
  EXPECT_EQ(o.code, 2) << o.err;
  EXPECT_TRUE(fs::is_empty(D())) << "a failed prepare left files behind";
  o = Run("prepare --backend whisper --retention 1s:100y --data " + D("new/deeper"));
  EXPECT_EQ(o.code, 2) << o.err;
  EXPECT_FALSE(fs::exists(D("new"))) << "a failed prepare left the directories it made";
}

TEST_F(DataSetGuard, AFileOrWhisperSetCutDuringARunIsCountedAsErrors) {
  struct Case {
    std::string prepare, run;
    std::function<void()> cut;
  };
  const std::string data = D();
  const Case cases[] = {
      {"--backend file --files 2 --file-size 1M", "--backend file",
       [&] {
         fs::resize_file(data + "/data-00000.bin", 0);
         fs::remove(data + "/data-00001.bin");
       }},
      {"--backend whisper --metrics 20 --sparse", "--backend whisper --workload mixed",
       [&] {
         std::vector<fs::path> files;
         for (const auto& e : fs::recursive_directory_iterator(data + "/servers"))
           if (e.is_regular_file()) files.push_back(e.path());
         ASSERT_GE(files.size(), 2u);
         fs::resize_file(files[0], 0);
         for (size_t i = 1; i < files.size(); ++i) fs::remove(files[i]);
       }},
  };
  for (const Case& c : cases) {
    fs::remove_all(data);
    ASSERT_EQ(Run("prepare " + c.prepare + " --data " + data).code, 0) << c.prepare;
    const std::string json = (dir_ / "r.json").string();
    fs::remove(json);
    const pid_t pid = Start(Words("run " + c.run + " --duration 1500ms --interval 100ms --progress always "
                                  "--max-error-ratio 1 --json " + json + " --data " + data), "cut");
    ASSERT_TRUE(WaitFor(pid, [&] { return Running("cut"); })) << Slurp(dir_ / "cut.err");
    c.cut();
    const int code = Wait(pid);
    EXPECT_TRUE(code == 0 || code == 1) << c.run << ": ended with " << code << ": " << Slurp(dir_ / "cut.err");
    auto j = nlohmann::json::parse(Slurp(json), nullptr, false);
    ASSERT_FALSE(j.is_discarded()) << c.run << ": no JSON";
    EXPECT_GT(j["totals"]["errors"].get<uint64_t>(), 0u) << c.run;
    uint64_t kind_errors = 0;
    for (const auto& [kind, v] : j["kinds"].items())
      for (const auto& [outcome, n] : v["outcomes"].items())
        if (outcome != "ok") kind_errors += n.get<uint64_t>();
    EXPECT_EQ(kind_errors, j["totals"]["errors"].get<uint64_t>()) << c.run << ": errors not counted per kind";
  }
}

#if STOREBENCH_HAVE_ROCKSDB
// Opens the database read-only, reads every key and verifies every block's checksum.
void ExpectConsistent(const std::string& dir) {
  rocksdb::Options options;
  options.paranoid_checks = true;
  rocksdb::DB* raw = nullptr;
  rocksdb::Status s = rocksdb::DB::OpenForReadOnly(options, dir, &raw);
  ASSERT_TRUE(s.ok()) << s.ToString();
  std::unique_ptr<rocksdb::DB> db(raw);
  std::unique_ptr<rocksdb::Iterator> it(db->NewIterator(rocksdb::ReadOptions()));
  uint64_t n = 0;
  for (it->SeekToFirst(); it->Valid(); it->Next()) ++n;
  EXPECT_TRUE(it->status().ok()) << it->status().ToString();
  EXPECT_GT(n, 0u);
  EXPECT_TRUE(db->VerifyChecksum().ok());
}

bool OwnsPosixLockOn(pid_t pid, const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return false;
  for (const ProcLock& l : ReadProcLocks())
    if (l.kind == ProcLock::Kind::kPosix && l.pid == pid && l.inode == st.st_ino) return true;
  return false;
}

TEST_F(DataSetGuard, ARocksdbRunKeepsTheEnginesLockAndRefusesASecondWriter) {
  ASSERT_EQ(Run("prepare --backend rocksdb --num 5000 --data " + D()).code, 0);
  const pid_t first = Start(Words("run --backend rocksdb --workload overwrite --duration 1500ms --interval 100ms "
                                  "--progress always --cache cold --data " + D()), "first");
  ASSERT_TRUE(WaitFor(first, [&] { return Running("first"); })) << Slurp(dir_ / "first.err");
  // While the run is in its measured window (progress drawn, no summary yet) the engine holds DIR/LOCK.
  int samples = 0;
  while (waitpid(first, nullptr, WNOHANG) == 0 && !Finished("first")) {
    const bool held = OwnsPosixLockOn(first, D() + "/LOCK");
    if (Finished("first")) break;  // it may have closed the DB after printing: not a sample
    EXPECT_TRUE(held) << "the run released RocksDB's LOCK";
    ++samples;
    if (samples == 3) {
      ExpectSecondWriterRefused(this, Run("run --backend rocksdb --workload overwrite --ops 500 --quiet --data " + D()),
                                D());
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  EXPECT_GE(samples, 3) << "the run ended before it could be sampled";
  EXPECT_EQ(Wait(first), 0) << Slurp(dir_ / "first.err");
  ExpectConsistent(D());
  if (std::system("command -v ldb >/dev/null 2>&1") == 0) {
    EXPECT_EQ(RunShell("ldb --db=" + D() + " checkconsistency").code, 0) << Slurp(dir_ / "err");
  } else {
    std::printf("ldb (rocksdb-tools) is absent: checkconsistency skipped, the in-process check ran\n");
  }
}

TEST_F(DataSetGuard, ADatabaseHeldOrCorruptIsNamedAndNothingIsWritten) {
  ASSERT_EQ(Run("prepare --backend rocksdb --num 1000 --data " + D()).code, 0);
  // Another process holds RocksDB's LOCK as RocksDB takes it (fcntl F_SETLK, F_WRLCK).
  int ready[2], release[2];
  ASSERT_EQ(pipe(ready), 0);
  ASSERT_EQ(pipe(release), 0);
  const pid_t holder = fork();
  if (holder == 0) {
    int fd = ::open((D() + "/LOCK").c_str(), O_RDWR);
    struct flock fl {};
    fl.l_type = F_WRLCK;
    fl.l_whence = SEEK_SET;
    char c = fd >= 0 && fcntl(fd, F_SETLK, &fl) == 0 ? 'y' : 'n';
    (void)!write(ready[1], &c, 1);
    (void)!read(release[0], &c, 1);
    _exit(0);
  }
  char c = 0;
  ASSERT_EQ(read(ready[0], &c, 1), 1);
  ASSERT_EQ(c, 'y');
  auto before = Listing(D());
  Outcome o = Run("run --backend rocksdb --ops 100 --quiet --data " + D());
  (void)!write(release[1], &c, 1);
  waitpid(holder, nullptr, 0);
  EXPECT_EQ(o.code, 2) << o.err;
  EXPECT_EQ(LineCount(o.err), 1u) << o.err;
  EXPECT_NE(o.err.find("open in another process (pid " + std::to_string(holder)), std::string::npos) << o.err;
  EXPECT_NE(o.err.find(D() + "/LOCK"), std::string::npos) << o.err;
  EXPECT_EQ(Listing(D()), before) << "a refused run wrote into the database's directory";

  // A corrupt OPTIONS file.
  for (const auto& e : fs::directory_iterator(D()))
    if (e.path().filename().string().rfind("OPTIONS-", 0) == 0) std::ofstream(e.path()) << "[Version]\ngarbage\x01\n";
  before = Listing(D());
  o = Run("run --backend rocksdb --ops 100 --quiet --data " + D());
  EXPECT_EQ(o.code, 2) << o.err;
  EXPECT_EQ(LineCount(o.err), 1u) << o.err;
  EXPECT_NE(o.err.find("OPTIONS"), std::string::npos) << o.err;
  EXPECT_EQ(Listing(D()), before) << "a refused run wrote into the database's directory";
}

TEST_F(DataSetGuard, APreparedSettingGivenOtherwiseIsRefused) {
  ASSERT_EQ(Run("prepare --backend rocksdb --num 1000 --compression snappy --data " + D()).code, 0);
  for (const char* flag : {"--compression zstd", "--compression none", "--num 999", "--key-size 20", "--value-size 7"}) {
    Outcome o = Run(std::string("run --backend rocksdb --ops 10 --quiet --data ") + D() + " " + flag);
    EXPECT_EQ(o.code, 2) << flag << ": " << o.err;
    EXPECT_NE(o.err.find(std::string(flag) + ": " + D() + " was prepared with"), std::string::npos) << o.err;
  }
  EXPECT_EQ(Run("run --backend rocksdb --ops 10 --quiet --compression snappy --data " + D()).code, 0);
}
#else
TEST_F(DataSetGuard, RocksdbCases) { GTEST_SKIP() << "built without RocksDB"; }
#endif

}  // namespace
}  // namespace storebench::backend
