#include "storebench/backend/rocksdb/rocksdb_backend.h"

#include <rocksdb/db.h>
#include <rocksdb/statistics.h>

#include <atomic>
#include <filesystem>
#include <fmt/format.h>

#include "storebench/backend/rocksdb/dataset.h"
#include "storebench/backend/rocksdb/options.h"
#include "storebench/backend/rocksdb/prepare.h"
#include "storebench/backend/rocksdb/workloads.h"
#include "storebench/workload/key_distribution.h"

namespace storebench::backend {
namespace {

using namespace rocksdb_backend;
using measure::MergeRule;
using measure::Unit;

// RocksDB's own histograms worth a line in the JSON when --statistics is on.
constexpr std::pair<rocksdb::Histograms, const char*> kHistograms[] = {
    {rocksdb::DB_GET, "db.get.micros"},
    {rocksdb::DB_WRITE, "db.write.micros"},
    {rocksdb::DB_SEEK, "db.seek.micros"},
    {rocksdb::DB_MULTIGET, "db.multiget.micros"},
};

class RocksdbBackend final : public Backend {
 public:
  RocksdbBackend(RocksdbConfig config, const std::atomic<bool>* stop) : stop_(stop) {
    state_.config = std::move(config);
  }
  ~RocksdbBackend() override {
    if (db_) db_->Close();
  }

  uint32_t capabilities() const override { return kCanPrepare | kNeedsData; }

  Status Prepare(PrepareReport* report) override { return PrepareDataSet(state_.config, report, stop_); }

  std::vector<std::string> DataPaths() const override { return data_paths_; }
  std::string DataDir() const override { return state_.config.data; }
  bool WritesDataDir() const override { return true; }  // DB::Open writes LOCK, LOG and the MANIFEST

  Status Open() override {
    RocksdbConfig& c = state_.config;
    if (c.data.empty()) return Status::InvalidArgument("--data: give the DB directory, e.g. --data ./db");
    auto options = BuildRocksdbOptions(c);  // bad options are reported before a missing DB
    if (!options.ok()) return options.status();
    if (!HasDatabase(c.data))
      return Status::NotFound(fmt::format(
          "--data {}: no RocksDB database there; make one with: storebench prepare --backend rocksdb --data {} "
          "--num {} --key-size {} --value-size {}",
          c.data, c.data, c.num_or_default(), c.key_size_or_default(), c.value_size_or_default()));
    auto manifest = ReadManifest(c.data);
    if (!manifest.ok()) return manifest.status();
    has_manifest_ = manifest->has_value();
    STOREBENCH_RETURN_IF_ERROR(ResolveShape(*manifest, &c));
    statistics_ = options->statistics;
    rocksdb::DB* raw = nullptr;
    rocksdb::Status s = rocksdb::DB::Open(*options, c.data, &raw);
    if (!s.ok()) {
      std::string msg = fmt::format("--data {}: RocksDB cannot open it: {}", c.data, s.ToString());
      return s.IsInvalidArgument() || s.IsNotSupported() ? Status::InvalidArgument(msg) : Status::IOError(msg);
    }
    db_.reset(raw);
    state_.db = raw;
    std::error_code ec;
    for (const auto& e : std::filesystem::directory_iterator(c.data, ec))
      if (e.is_regular_file(ec)) data_paths_.push_back(e.path().string());
    STOREBENCH_RETURN_IF_ERROR(CheckKeySize());
    if (c.print_options) {
      auto text = DescribeOptions(raw);
      if (!text.ok()) return text.status();
      options_text_ = std::move(*text);
    }
    // Fail before the run on bad workload flags, not in every worker.
    auto dist = workload::MakeKeyDistribution(c.key_dist, c.num_or_default());
    if (!dist.ok()) return dist.status();
    if (c.workload == Workload::kMixgraph) {
      auto m = workload::Mixgraph::Create(c.mixgraph, c.num_or_default());
      if (!m.ok()) return m.status();
      state_.mixgraph = std::move(*m);
    }
    uint64_t max_value = c.value_size_or_default();
    if (c.workload == Workload::kMixgraph)
      max_value = std::max<uint64_t>(max_value, static_cast<uint64_t>(std::max<int64_t>(c.mixgraph.mix_max_value_size, 1)));
    state_.values = std::make_unique<ValueSource>(max_value, c.seed);
    state_.read = DbBenchReadOptions();
    state_.write = DbBenchWriteOptions(c.sync, c.disable_wal);
    return Status::Ok();
  }

  measure::RecorderLayout Layout() const override { return WorkloadLayout(state_.config.workload); }

  StatusOr<std::unique_ptr<Worker>> NewWorker(const WorkerContext& context) override {
    return MakeRocksdbWorker(&state_, context);
  }

  Status BeforeRun() override {
    state_.ResetTotals();
    intervals_ = 0;
    intervals_stopped_ = 0;
    intervals_delayed_ = 0;
    return Status::Ok();
  }

  // RocksDB's statistics then cover the measured window, as the workers' counters do.
  void MeasureStarted() override {
    if (statistics_) statistics_->Reset();
    prev_stall_micros_ = 0;
  }

  void IntervalFigures(measure::MetricSet* out) override {
    if (!db_) return;
    auto prop = [&](const char* name) {
      uint64_t v = 0;
      db_->GetIntProperty(name, &v);
      return v;
    };
    uint64_t stopped = prop("rocksdb.is-write-stopped");
    uint64_t delayed_rate = prop("rocksdb.actual-delayed-write-rate");
    intervals_.fetch_add(1, std::memory_order_relaxed);
    if (stopped) intervals_stopped_.fetch_add(1, std::memory_order_relaxed);
    if (delayed_rate) intervals_delayed_.fetch_add(1, std::memory_order_relaxed);
    out->Flag({"write_stopped"}, stopped != 0);
    out->Gauge({"delayed_write_rate"}, static_cast<double>(delayed_rate), Unit::kPerSecond);
    out->Gauge({"l0_files"}, static_cast<double>(prop("rocksdb.num-files-at-level0")), Unit::kCount);
    out->Gauge({"immutable_memtables"}, static_cast<double>(prop("rocksdb.num-immutable-mem-table")), Unit::kCount);
    out->Gauge({"pending_compaction_bytes"}, static_cast<double>(prop("rocksdb.estimate-pending-compaction-bytes")),
               Unit::kBytes);
    out->Gauge({"running_compactions"}, static_cast<double>(prop("rocksdb.num-running-compactions")), Unit::kCount);
    if (statistics_) {
      uint64_t stall = statistics_->getTickerCount(rocksdb::STALL_MICROS);
      out->Counter({"stall_micros"}, stall - prev_stall_micros_);
      prev_stall_micros_ = stall;
    }
  }

  void Figures(measure::MetricSet* out) const override {
    const RocksdbConfig& c = state_.config;
    RunTotals t = state_.Totals();
    out->Text({"rocksdb", "workload"}, c.workload_name).summary = "workload";
    out->Text({"rocksdb", "data"}, c.data);
    out->Gauge({"rocksdb", "num"}, static_cast<double>(c.num_or_default()), Unit::kCount, MergeRule::kSame).summary =
        "keys";
    out->Gauge({"rocksdb", "key_size"}, static_cast<double>(c.key_size_or_default()), Unit::kBytes, MergeRule::kSame);
    out->Gauge({"rocksdb", "value_size"}, static_cast<double>(c.value_size_or_default()), Unit::kBytes,
               MergeRule::kSame);
    out->Text({"rocksdb", "shape_from"}, has_manifest_ ? "manifest" : "flags");
    out->Counter({"rocksdb", "found"}, t.found).summary = "found";
    out->Counter({"rocksdb", "not_found"}, t.not_found).summary = "not found";
    out->Counter({"rocksdb", "reads"}, t.found + t.not_found);
    out->Ratio({"rocksdb", "found_ratio"}, {"rocksdb", "found"}, {"rocksdb", "reads"}).summary = "found ratio";
    out->Counter({"rocksdb", "op_errors"}, t.errors);
    out->Counter({"rocksdb", "write_stalls", "intervals"}, intervals_.load());
    out->Counter({"rocksdb", "write_stalls", "intervals_stopped"}, intervals_stopped_.load()).summary =
        "intervals with writes stopped";
    out->Counter({"rocksdb", "write_stalls", "intervals_delayed"}, intervals_delayed_.load()).summary =
        "intervals with writes delayed";
    if (db_) {
      uint64_t sst = 0;
      db_->GetIntProperty("rocksdb.total-sst-files-size", &sst);
      out->Gauge({"rocksdb", "sst_bytes"}, static_cast<double>(sst), Unit::kBytes, MergeRule::kMax);
    }
    if (statistics_) {
      for (const auto& [id, name] : rocksdb::TickersNameMap) {
        uint64_t v = statistics_->getTickerCount(id);
        if (v) out->Counter({"rocksdb", "statistics", "tickers", name}, v);
      }
      // RocksDB's own histogram summaries: not mergeable exactly; merged as the maximum.
      for (const auto& [id, name] : kHistograms) {
        rocksdb::HistogramData h;
        statistics_->histogramData(id, &h);
        if (h.count == 0) continue;
        out->Counter({"rocksdb", "statistics", "histograms", name, "count"}, h.count);
        const std::pair<const char*, double> fields[] = {
            {"average", h.average}, {"p50", h.median}, {"p95", h.percentile95}, {"p99", h.percentile99}, {"max", h.max}};
        for (const auto& [field, v] : fields)
          out->Gauge({"rocksdb", "statistics", "histograms", name, field}, v, Unit::kRatio, MergeRule::kMax);
      }
      out->Counter({"rocksdb", "write_stalls", "stall_micros"}, statistics_->getTickerCount(rocksdb::STALL_MICROS));
    }
    for (const auto& [name, v] : t.perf) out->Counter({"rocksdb", "perf_context", name}, v);
    for (const auto& [section, lines] : options_text_)
      for (const auto& [name, value] : lines) out->Text({"rocksdb", "options", section, name}, value);
  }

  std::vector<ExtraGroup> ExtraGroups() const override {
    if (state_.config.workload != Workload::kReadWhileWriting) return {};
    return {ExtraGroup{"writer", "writer", 1, state_.config.writer_rate}};
  }

  std::string DefaultSchedule() const override {
    const workload::MixgraphConfig& m = state_.config.mixgraph;
    if (state_.config.workload != Workload::kMixgraph || !m.sine_mix_rate) return "";
    return fmt::format("sine:{},{},{},{}", m.sine_a, m.sine_b, m.sine_c, m.sine_d);
  }

 private:
  // A DB whose keys have another length than --key-size would find nothing: say so.
  Status CheckKeySize() {
    std::unique_ptr<rocksdb::Iterator> it(db_->NewIterator(rocksdb::ReadOptions()));
    it->SeekToFirst();
    if (!it->Valid()) return Status::Ok();
    const RocksdbConfig& c = state_.config;
    size_t have = it->key().size();
    if (have == c.key_size_or_default()) return Status::Ok();
    return Status::InvalidArgument(fmt::format(
        "--key-size {}: the keys in {} are {} bytes long{}; pass --key-size {}", c.key_size_or_default(), c.data, have,
        c.key_size ? "" : " (16 is db_bench's default, used because neither a manifest nor --key-size gave one)",
        have));
  }

  RunState state_;
  std::unique_ptr<rocksdb::DB> db_;
  std::shared_ptr<rocksdb::Statistics> statistics_;
  bool has_manifest_ = false;
  OptionsText options_text_;  // --print-options
  std::vector<std::string> data_paths_;
  // Written by the reporter thread in IntervalFigures(), read after the run.
  uint64_t prev_stall_micros_ = 0;
  std::atomic<uint64_t> intervals_{0}, intervals_stopped_{0}, intervals_delayed_{0};
  const std::atomic<bool>* stop_ = nullptr;  // interrupts Prepare()
};

}  // namespace

BackendInfo RocksdbBackendInfo() {
  return MakeBackendInfo<RocksdbConfig>(
      "rocksdb", "RocksDB (system librocksdb): db_bench's workloads, mixgraph, db_bench-compatible data sets",
      kCanPrepare | kNeedsData, RocksdbOptionTable(),
      [](RocksdbConfig c, const CommonOptions& common) -> StatusOr<std::unique_ptr<Backend>> {
        c.seed = common.seed;
        return std::unique_ptr<Backend>(new RocksdbBackend(std::move(c), common.stop));
      });
}

}  // namespace storebench::backend
