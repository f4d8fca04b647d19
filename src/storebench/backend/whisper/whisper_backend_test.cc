// The whisper backend's parts without the binary: flags, the data set (prepare,
// reuse, resume, mismatch and missing-set messages) and the files it makes.
#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <filesystem>

#include "storebench/backend/whisper/accounting.h"
#include "storebench/backend/whisper/dataset.h"
#include "storebench/backend/whisper/options.h"
#include "storebench/backend/whisper/workloads.h"
#include "storebench/whisper/whisper.h"

namespace storebench::backend::wsp {
namespace {

namespace fs = std::filesystem;

class WhisperDataset : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::path(::testing::TempDir()) / ("wsp_backend_" + std::to_string(getpid()) + "_" +
                                             ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  WhisperOptions Options(const OptionValues& extra) {
    OptionValues v = {{"data", dir_.string()}};
    for (const auto& [k, x] : extra) v[k] = x;
    auto o = ParseWhisperOptions(v);
    EXPECT_TRUE(o.ok()) << o.status().message();
    return *o;
  }
  fs::path dir_;
};

TEST(WhisperOptions, BufferAndIoChooseTheMode) {
  auto exact = ParseWhisperOptions({{"buffer", "0"}});
  ASSERT_TRUE(exact.ok());
  EXPECT_EQ(exact->io.mode, whisper::IoMode::kExact);
  auto buffered = ParseWhisperOptions({{"buffer", "4k"}});
  ASSERT_TRUE(buffered.ok());
  EXPECT_EQ(buffered->io.mode, whisper::IoMode::kBuffered);
  EXPECT_EQ(buffered->io.buffer_size, 4096u);
  auto python = ParseWhisperOptions({{"io", "python"}});
  ASSERT_TRUE(python.ok());
  EXPECT_EQ(python->io.mode, whisper::IoMode::kPythonUnbuffered);
  auto minimal = ParseWhisperOptions({{"io", "minimal"}});
  ASSERT_TRUE(minimal.ok());
  EXPECT_EQ(minimal->io.mode, whisper::IoMode::kMinimal);
}

TEST(WhisperOptions, BadValuesNameTheFlag) {
  for (const OptionValues& v : std::vector<OptionValues>{{{"workload", "scan"}},
                                                         {{"io", "python"}, {"buffer", "8k"}},
                                                         {{"io", "minimal"}, {"buffer", "8k"}},
                                                         {{"retention", "60s:1d,90s:30d"}},
                                                         {{"metric-dist", "nope"}},
                                                         {{"xff", "1.5"}},
                                                         {{"points-per-update", "0"}}}) {
    auto o = ParseWhisperOptions(v);
    ASSERT_FALSE(o.ok()) << v.begin()->first;
    EXPECT_NE(o.status().message().find("--" + v.rbegin()->first), std::string::npos) << o.status().message();
  }
}

TEST_F(WhisperDataset, PrepareMakesValidAgedFilesInATreeAndReusesAMatchingSet) {
  WhisperOptions o = Options({{"metrics", "300"}, {"retention", "60s:1d,5m:30d,1h:5y"}, {"sparse", "1"}});
  bool created = false;
  auto d = PrepareDataset(o, 1, &created);
  ASSERT_TRUE(d.ok()) << d.status().message();
  EXPECT_TRUE(created);
  EXPECT_EQ(d->paths.size(), 300u);
  EXPECT_NE(d->paths[299].find("/servers/host-0001/cpu/metric-0000299.wsp"), std::string::npos);
  EXPECT_EQ(d->file_bytes, 16u + 3 * 12 + (1440u + 8640 + 43800) * 12);
  // Every archive got a base point at or before the start, aligned, within its retention.
  for (uint64_t m : {0, 1, 299}) {
    auto f = whisper::WhisperFile::Open(d->paths[m], whisper::OpenMode::kRead, {});
    ASSERT_TRUE(f.ok());
    auto h = (*f)->ReadHeader();
    ASSERT_TRUE(h.ok());
    for (const auto& a : h->archives) {
      uint8_t buf[whisper::kPointSize];
      ASSERT_TRUE((*f)->ReadAt(a.offset, buf, sizeof(buf)).ok());
      const whisper::Point p = whisper::DecodePoint(buf);
      EXPECT_EQ(p.timestamp % a.seconds_per_point, 0u);
      EXPECT_LE(p.timestamp, d->start);
      EXPECT_GT(int64_t{p.timestamp}, d->start - static_cast<int64_t>(a.retention()) - a.seconds_per_point);
    }
  }
  bool again = true;
  auto d2 = PrepareDataset(o, 7, &again);
  ASSERT_TRUE(d2.ok());
  EXPECT_FALSE(again);
}

TEST_F(WhisperDataset, AnInterruptedPrepareResumes) {
  WhisperOptions o = Options({{"metrics", "20"}, {"sparse", "1"}});
  bool created = false;
  ASSERT_TRUE(PrepareDataset(o, 1, &created).ok());
  fs::remove(dir_ / kManifestName);
  fs::remove(MetricPath(dir_.string(), 7));
  auto d = PrepareDataset(o, 1, &created);
  ASSERT_TRUE(d.ok()) << d.status().message();
  EXPECT_TRUE(created);
  EXPECT_TRUE(fs::exists(MetricPath(dir_.string(), 7)));
}

TEST_F(WhisperDataset, MismatchAndMissingSetsSayWhatToDo) {
  auto missing = OpenDataset(Options({}));
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), Status::Code::kNotFound);
  EXPECT_NE(missing.status().message().find("storebench prepare --backend whisper --data"), std::string::npos)
      << missing.status().message();

  bool created = false;
  ASSERT_TRUE(PrepareDataset(Options({{"metrics", "10"}, {"sparse", "1"}}), 1, &created).ok());
  auto other = PrepareDataset(Options({{"metrics", "11"}, {"sparse", "1"}}), 1, &created);
  ASSERT_FALSE(other.ok());
  EXPECT_NE(other.status().message().find("different whisper data set"), std::string::npos);
  auto run = OpenDataset(Options({{"retention", "10s:1h"}}));
  ASSERT_FALSE(run.ok());
  EXPECT_EQ(run.status().code(), Status::Code::kInvalidArgument);
  EXPECT_NE(run.status().message().find("--retention 10s:1h"), std::string::npos) << run.status().message();
  auto ok = OpenDataset(Options({}));
  ASSERT_TRUE(ok.ok()) << ok.status().message();
  EXPECT_EQ(ok->metrics, 10u);

  ASSERT_EQ(truncate(MetricPath(dir_.string(), 3).c_str(), 100), 0);
  auto short_file = OpenDataset(Options({}));
  ASSERT_FALSE(short_file.ok());
  EXPECT_NE(short_file.status().message().find("metric-0000003.wsp has 100 bytes"), std::string::npos)
      << short_file.status().message();
}

TEST(WhisperWorkload, PointValuesEncodeMetricAndInterval) {
  Dataset d;
  d.archives = {{60, 1440}};
  d.start = kStartTime;
  const int64_t a0 = whisper::AlignDown(kStartTime, 60);
  EXPECT_EQ(PointValue(d, 0, a0), 1e6);
  EXPECT_EQ(PointValue(d, 41, a0 + 5 * 60), 42e6 + 5);
  EXPECT_EQ(PointValue(d, 41, a0 - 9 * 60), 42e6 - 9);
}

// The cache hit ratio of a cold start (issue 51): 200,000 reads of 1,000 B
// with 5.8 MiB read from the device. Counted per page looked up (one page per
// syscall + bytes / 4 KiB) it is 0.994, which read as "all cached"; by bytes,
// 3 % of what the reads returned came from the device. Both are shown, each
// saying what it counts, and both are ratios of counters, so merged results
// (two runs, two MPI ranks) give the ratio of the sums.
TEST(WhisperAccounting, CacheHitRatioIsGivenByPageLookupAndByByte) {
  auto figures = [](uint64_t reads, uint64_t device_bytes) {
    Dataset d;
    WhisperAccounting acc;
    acc.Begin(d);
    WhisperWorkerTotals t;
    t.update.ops = reads;
    t.update.io.pread = reads;
    t.update.io.bytes_read = reads * 1000;
    acc.AddWorker(t);
    measure::MetricSet m;
    m.Counter({"io", "device_read_bytes"}, device_bytes, measure::Unit::kBytes);
    acc.Figures(d, WhisperOptions{}, &m);
    return m;
  };
  const uint64_t device = static_cast<uint64_t>(5.8 * 1024 * 1024);
  measure::MetricSet m = figures(200'000, device);
  const double lookups = 200'000 * 4096.0 + 200'000 * 1000.0;
  EXPECT_NEAR(*m.Value({"cache", "hit_ratio"}), 1 - device / lookups, 1e-12);
  EXPECT_NEAR(*m.Value({"cache", "hit_ratio"}), 0.994, 0.0005);
  EXPECT_NEAR(*m.Value({"cache", "byte_hit_ratio"}), 1 - device / (200'000 * 1000.0), 1e-12);
  EXPECT_LT(*m.Value({"cache", "byte_hit_ratio"}), 0.98);
  // The summary says what each counts.
  EXPECT_EQ(m.Find({"cache", "hit_ratio"})->summary, "hit ratio by page lookup");
  EXPECT_EQ(m.Find({"cache", "byte_hit_ratio"})->summary, "hit ratio by byte");
  ASSERT_NE(m.Find({"cache", "byte_hit_ratio_basis"}), nullptr);
  // Readahead can bring in more than the reads returned: the ratio stops at 0.
  EXPECT_EQ(*figures(1'000, 64 << 20).Value({"cache", "byte_hit_ratio"}), 0);
  // Merged: the ratio of the summed counters, not an average of two ratios.
  measure::MetricSet merged = figures(200'000, device);
  ASSERT_TRUE(merged.Merge(figures(100'000, 0)).ok());
  EXPECT_NEAR(*merged.Value({"cache", "byte_hit_ratio"}), 1 - device / (300'000 * 1000.0), 1e-12);
}

}  // namespace
}  // namespace storebench::backend::wsp
