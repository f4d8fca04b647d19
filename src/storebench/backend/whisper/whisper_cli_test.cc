// End-to-end tests of `storebench prepare|run --backend whisper`: the data set
// whisper.py reads, the points a run leaves in it as whisper.py fetches them,
// exact vs buffered I/O on identical runs, the JSON contract and the messages
// for a missing or mismatching data set. No wall-clock thresholds.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "storebench/testing/binary_test_fixture.h"
#include "storebench/whisper/python_helper.h"

namespace {

namespace fs = std::filesystem;
using storebench::testing::Outcome;
using storebench::testing::Slurp;
using storebench::whisper::testing::PythonWhisperAvailable;
using storebench::whisper::testing::RunCommand;

constexpr int kMetrics = 24;
constexpr int kPointsPerUpdate = 10;
constexpr int kOps = 60;

// Prints {path: [[timestamp, value], …]} of whisper.fetch(path, from, until, now), known values only.
constexpr const char* kFetchScript = R"(
import json, sys, whisper
frm, until, now = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
out = {}
for path in sys.argv[4:]:
    (start, end, step), values = whisper.fetch(path, frm, until, now)
    out[path] = [[start + i * step, v] for i, v in enumerate(values) if v is not None]
print(json.dumps(out))
)";

constexpr const char* kInfoScript = R"(
import json, sys, whisper
print(json.dumps([whisper.info(p) for p in sys.argv[1:]]))
)";

class WhisperCli : public storebench::testing::BinaryTest {
 protected:
  void Prepare(const fs::path& data) {
    Outcome p = Run("prepare --backend whisper --data " + data.string() + " --metrics " + std::to_string(kMetrics) +
                    " --retention 60s:1d,5m:30d,1h:5y --sparse");
    ASSERT_EQ(p.code, 0) << p.err;
  }
  // One update run of exactly kOps ops with `io_flags`; its JSON document. Open loop, because a
  // closed loop also runs ops in the driver's 1 ms before the start, as warm-up, a number that varies.
  nlohmann::json RunUpdates(const fs::path& data, const std::string& io_flags) {
    const fs::path json_path = dir_ / "run.json";
    Outcome r = Run("run --backend whisper --data " + data.string() + " --workload update --points-per-update " +
                    std::to_string(kPointsPerUpdate) + " --ops " + std::to_string(kOps) +
                    " --schedule constant:5000 --threads 1 --seed 5 --quiet --json " + json_path.string() + " " + io_flags);
    EXPECT_EQ(r.code, 0) << r.err;
    return nlohmann::json::parse(Slurp(json_path), nullptr, false);
  }
  std::vector<std::string> Files(const fs::path& data) {
    std::vector<std::string> files;
    for (const auto& e : fs::recursive_directory_iterator(data))
      if (e.path().extension() == ".wsp") files.push_back(e.path().string());
    std::sort(files.begin(), files.end());
    return files;
  }
  // The same update runs on two identical data sets, with `flags_a` and with
  // `flags_b`; checks that they leave byte-identical files and returns both JSON documents.
  std::pair<nlohmann::json, nlohmann::json> RunBothWays(const std::string& flags_a, const std::string& flags_b) {
    const fs::path a_set = dir_ / "a", b_set = dir_ / "b";
    Prepare(a_set);
    Prepare(b_set);
    std::pair<nlohmann::json, nlohmann::json> docs = {RunUpdates(a_set, flags_a), RunUpdates(b_set, flags_b)};
    EXPECT_FALSE(docs.first.is_discarded()) << flags_a;
    EXPECT_FALSE(docs.second.is_discarded()) << flags_b;
    const auto af = Files(a_set), bf = Files(b_set);
    EXPECT_EQ(af.size(), bf.size());
    for (size_t i = 0; i < std::min(af.size(), bf.size()); ++i)
      EXPECT_TRUE(Slurp(af[i]) == Slurp(bf[i])) << af[i] << " (" << flags_a << ") vs " << bf[i] << " (" << flags_b << ")";
    return docs;
  }
};

TEST_F(WhisperCli, PrepareMakesFilesWhisperPyReads) {
  if (!PythonWhisperAvailable()) GTEST_SKIP() << "/usr/bin/python3 cannot import whisper";
  const fs::path data = dir_ / "set";
  Prepare(data);
  std::vector<std::string> files = Files(data);
  ASSERT_EQ(files.size(), static_cast<size_t>(kMetrics));
  std::vector<std::string> argv = {"/usr/bin/python3", "-c", kInfoScript, files[0], files[11], files.back()};
  auto r = RunCommand(argv);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  nlohmann::json infos = nlohmann::json::parse(r.out);
  ASSERT_EQ(infos.size(), 3u);
  for (const auto& info : infos) {
    EXPECT_EQ(info["aggregationMethod"], "average");
    EXPECT_EQ(info["maxRetention"], 5 * 365 * 86400);
    ASSERT_EQ(info["archives"].size(), 3u);
    EXPECT_EQ(info["archives"][0]["secondsPerPoint"], 60);
    EXPECT_EQ(info["archives"][2]["points"], 43800);
  }
  // A second prepare reuses the set.
  Outcome again = Run("prepare --backend whisper --data " + data.string() + " --metrics " + std::to_string(kMetrics) +
                      " --sparse");
  EXPECT_EQ(again.code, 0) << again.err;
  EXPECT_NE(again.out.find("already prepared"), std::string::npos) << again.out;
}

TEST_F(WhisperCli, UpdatesLeaveThePointsWhisperPyFetchesAndTheJsonHasTheContractKeys) {
  if (!PythonWhisperAvailable()) GTEST_SKIP() << "/usr/bin/python3 cannot import whisper";
  const fs::path data = dir_ / "set";
  Prepare(data);
  nlohmann::json doc = RunUpdates(data, "--buffer 0");
  ASSERT_FALSE(doc.is_discarded());
  for (const char* key : {"/io/requested_bytes", "/io/syscalls", "/io/rchar_bytes", "/io/device_read_bytes",
                          "/io/read_amplification", "/cache/before/resident_bytes", "/cache/after/resident_bytes",
                          "/cache/dataset_bytes", "/whisper/syscalls_per_update", "/whisper/bytes_read_per_update"}) {
    EXPECT_TRUE(doc.contains(nlohmann::json::json_pointer(key))) << key;
  }
  EXPECT_EQ(doc["whisper"]["updates"], kOps);
  EXPECT_EQ(doc["whisper"]["points_written"], kOps * kPointsPerUpdate);

  // Every point the run wrote, and no other, is in the finest archive with the value that encodes it.
  const nlohmann::json manifest = nlohmann::json::parse(Slurp(data / "storebench-whisper.json"));
  const int64_t start = manifest["start"].get<int64_t>();
  const int64_t a0 = start - start % 60;
  const int64_t now = doc["whisper"]["simulated_time"]["end"].get<int64_t>();
  ASSERT_LT(now - a0, 86400 - 3600);
  const std::vector<std::string> files = Files(data);
  std::vector<std::string> argv = {"/usr/bin/python3", "-c", kFetchScript, std::to_string(a0 - 3600),
                                   std::to_string(now), std::to_string(now)};
  argv.insert(argv.end(), files.begin(), files.end());
  auto r = RunCommand(argv);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json fetched = nlohmann::json::parse(r.out);
  size_t points = 0;
  for (size_t m = 0; m < files.size(); ++m) {
    for (const auto& tv : fetched[files[m]]) {
      const int64_t t = tv[0].get<int64_t>();
      const double v = tv[1].get<double>();
      if (v == 0.0) continue;  // the base point prepare aged the archive with
      ++points;
      EXPECT_EQ(v, static_cast<double>(m + 1) * 1e6 + static_cast<double>((t - a0) / 60)) << files[m] << " @" << t;
    }
  }
  EXPECT_EQ(points, static_cast<size_t>(kOps * kPointsPerUpdate));
}

TEST_F(WhisperCli, ExactIoNeedsFewerSyscallsAndNeverMoreBytesThanBufferedAndWritesTheSameFiles) {
  const auto [exact, buffered] = RunBothWays("--buffer 0", "--buffer 8k");
  if (exact.is_discarded() || buffered.is_discarded()) return;
  const auto& e = exact["whisper"];
  const auto& b = buffered["whisper"];
  EXPECT_LT(e["syscalls_per_update"].get<double>(), b["syscalls_per_update"].get<double>());
  EXPECT_LE(e["bytes_read_per_update"].get<double>(), b["bytes_read_per_update"].get<double>());
  EXPECT_EQ(e["update"]["syscalls_per_op_by_kind"].value("lseek", 0.0), 0.0);
  // The same ops asked for the same bytes; only how they moved differs.
  EXPECT_EQ(exact["io"]["requested_bytes"], buffered["io"]["requested_bytes"]);
  EXPECT_EQ(e["bytes_written_per_update"], b["bytes_written_per_update"]);
}

TEST_F(WhisperCli, MinimalIoNeedsFewerSyscallsThanExactAndWritesTheSameFiles) {
  const auto [exact, minimal] = RunBothWays("--io exact", "--io minimal");
  if (exact.is_discarded() || minimal.is_discarded()) return;
  EXPECT_EQ(minimal["whisper"]["io_mode"], "minimal");
  EXPECT_EQ(exact["whisper"]["io_mode"], "exact");
  EXPECT_LT(minimal["whisper"]["syscalls_per_update"].get<double>(), exact["whisper"]["syscalls_per_update"].get<double>());
  EXPECT_EQ(minimal["whisper"]["update"]["syscalls_per_op_by_kind"].value("lseek", 0.0), 0.0);
  EXPECT_EQ(exact["io"]["requested_bytes"], minimal["io"]["requested_bytes"]);
  EXPECT_TRUE(minimal["cache"]["hit_ratio"].is_number());
}

TEST_F(WhisperCli, MissingAndMismatchingDataSetsAreBadInputWithARemedy) {
  Outcome missing = Run("run --backend whisper --data " + (dir_ / "none").string() + " --ops 1");
  EXPECT_EQ(missing.code, 2);
  EXPECT_NE(missing.err.find("storebench prepare --backend whisper --data"), std::string::npos) << missing.err;
  const fs::path data = dir_ / "set";
  Prepare(data);
  Outcome mismatch = Run("run --backend whisper --data " + data.string() + " --metrics 99 --ops 1");
  EXPECT_EQ(mismatch.code, 2);
  EXPECT_NE(mismatch.err.find("--metrics 99"), std::string::npos) << mismatch.err;
  Outcome reprepare = Run("prepare --backend whisper --data " + data.string() + " --metrics 99");
  EXPECT_EQ(reprepare.code, 2);
  EXPECT_NE(reprepare.err.find("different whisper data set"), std::string::npos) << reprepare.err;
}

TEST_F(WhisperCli, FetchAndMixedWorkloadsCountTheirKindsApart) {
  const fs::path data = dir_ / "set";
  Prepare(data);
  const fs::path json_path = dir_ / "mixed.json";
  Outcome r = Run("run --backend whisper --data " + data.string() +
                  " --workload mixed --mix-update-ratio 0.5 --warmup 50ms --ops 200 --schedule constant:5000 --threads 2 --quiet "
                  "--json " + json_path.string());
  ASSERT_EQ(r.code, 0) << r.err;
  const nlohmann::json doc = nlohmann::json::parse(Slurp(json_path));
  const auto& w = doc["whisper"];
  // The warm-up's ops are left out of the whisper figures as out of the totals.
  EXPECT_GT(doc["totals"]["warmup_ops"].get<uint64_t>(), 0u);
  EXPECT_EQ(w["updates"].get<uint64_t>() + w["fetches"].get<uint64_t>(), 200u);
  EXPECT_GT(w["updates"].get<uint64_t>(), 50u);
  EXPECT_GT(w["fetches"].get<uint64_t>(), 50u);
  // A fetch only reads: no writes, and at least the header and the range.
  EXPECT_EQ(w["fetch"]["bytes_written_per_op"], 0.0);
  EXPECT_GE(w["fetch"]["requested_bytes_per_op"].get<double>(), 52.0 + 12);
}

// `whisper create --overwrite` on what it cannot remove says why, not "already exists" (issue 51).
TEST_F(WhisperCli, OverwriteThatCannotRemoveShowsTheRealError) {
  const std::string d = (dir_ / "a_directory.wsp").string();
  std::filesystem::create_directories(d);
  Outcome o = Run("whisper create --overwrite " + d + " 60:10");
  EXPECT_NE(o.code, 0);
  EXPECT_NE(o.err.find("Is a directory"), std::string::npos) << o.err;
  EXPECT_EQ(o.err.find("already exists"), std::string::npos) << o.err;

  const std::string f = (dir_ / "immutable.wsp").string();
  ASSERT_EQ(Run("whisper create " + f + " 60:10").code, 0);
  if (RunShell("chattr +i " + f).code != 0) GTEST_SKIP() << "chattr +i is not permitted here (needs root and ext4/xfs)";
  o = Run("whisper create --overwrite " + f + " 60:10");
  RunShell("chattr -i " + f);
  EXPECT_NE(o.code, 0);
  EXPECT_NE(o.err.find("Operation not permitted"), std::string::npos) << o.err;
  EXPECT_EQ(o.err.find("already exists"), std::string::npos) << o.err;
}

}  // namespace
