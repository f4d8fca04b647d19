#include "storebench/backend/rocksdb/rocksdb_backend.h"

#include <rocksdb/db.h>
#include <rocksdb/statistics.h>

#include <atomic>
#include <fmt/format.h>

#include "storebench/backend/rocksdb/dataset.h"
#include "storebench/backend/rocksdb/options.h"
#include "storebench/backend/rocksdb/prepare.h"
#include "storebench/backend/rocksdb/workloads.h"
#include "storebench/workload/key_distribution.h"

namespace storebench::backend {
namespace {

using namespace rocksdb_backend;

// RocksDB's own histograms worth a line in the JSON when --statistics is on.
constexpr std::pair<rocksdb::Histograms, const char*> kHistograms[] = {
    {rocksdb::DB_GET, "db.get.micros"},
    {rocksdb::DB_WRITE, "db.write.micros"},
    {rocksdb::DB_SEEK, "db.seek.micros"},
    {rocksdb::DB_MULTIGET, "db.multiget.micros"},
};

class RocksdbBackend final : public Backend {
 public:
  explicit RocksdbBackend(RocksdbConfig config) { state_.config = std::move(config); }
  ~RocksdbBackend() override {
    if (db_) db_->Close();
  }

  uint32_t capabilities() const override { return kCanPrepare | kNeedsData; }

  Status Prepare() override { return PrepareDataSet(state_.config, &lines_); }

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
    STOREBENCH_RETURN_IF_ERROR(CheckKeySize());
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
    state_.write.sync = c.sync;
    state_.write.disableWAL = c.disable_wal;
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

  nlohmann::json IntervalSnapshot() override {
    if (!db_) return nullptr;
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
    nlohmann::json j = {{"write_stopped", stopped != 0},
                        {"delayed_write_rate", delayed_rate},
                        {"l0_files", prop("rocksdb.num-files-at-level0")},
                        {"immutable_memtables", prop("rocksdb.num-immutable-mem-table")},
                        {"pending_compaction_bytes", prop("rocksdb.estimate-pending-compaction-bytes")},
                        {"running_compactions", prop("rocksdb.num-running-compactions")}};
    if (statistics_) {
      uint64_t stall = statistics_->getTickerCount(rocksdb::STALL_MICROS);
      j["stall_micros"] = stall - prev_stall_micros_;
      prev_stall_micros_ = stall;
    }
    return j;
  }

  nlohmann::json Results() const override {
    const RocksdbConfig& c = state_.config;
    RunTotals t = state_.Totals();
    uint64_t reads = t.found + t.not_found;
    nlohmann::json r = {{"workload", c.workload_name},
                        {"data", c.data},
                        {"num", c.num_or_default()},
                        {"key_size", c.key_size_or_default()},
                        {"value_size", c.value_size_or_default()},
                        {"shape_from", has_manifest_ ? "manifest" : "flags"},
                        {"found", t.found},
                        {"not_found", t.not_found},
                        {"found_ratio", reads ? static_cast<double>(t.found) / static_cast<double>(reads) : 0.0},
                        {"op_errors", t.errors},
                        {"write_stalls",
                         {{"intervals", intervals_.load()},
                          {"intervals_stopped", intervals_stopped_.load()},
                          {"intervals_delayed", intervals_delayed_.load()}}}};
    if (db_) {
      uint64_t sst = 0;
      db_->GetIntProperty("rocksdb.total-sst-files-size", &sst);
      r["sst_bytes"] = sst;
    }
    if (statistics_) {
      nlohmann::json tickers = nlohmann::json::object();
      for (const auto& [id, name] : rocksdb::TickersNameMap) {
        uint64_t v = statistics_->getTickerCount(id);
        if (v) tickers[name] = v;
      }
      nlohmann::json histograms = nlohmann::json::object();
      for (const auto& [id, name] : kHistograms) {
        rocksdb::HistogramData h;
        statistics_->histogramData(id, &h);
        if (h.count == 0) continue;
        histograms[name] = {{"count", h.count}, {"average", h.average}, {"p50", h.median},
                            {"p95", h.percentile95}, {"p99", h.percentile99}, {"max", h.max}};
      }
      r["statistics"] = {{"tickers", tickers}, {"histograms", histograms}};
      r["write_stalls"]["stall_micros"] = statistics_->getTickerCount(rocksdb::STALL_MICROS);
    }
    if (!t.perf.empty()) r["perf_context"] = t.perf;
    return {{"rocksdb", r}};
  }

  std::vector<std::string> SummaryLines() const override {
    if (!db_) return lines_;
    const RocksdbConfig& c = state_.config;
    RunTotals t = state_.Totals();
    std::vector<std::string> out;
    out.push_back(fmt::format("rocksdb: {} on {} ({} keys of {} B, values of {} B, shape from {})", c.workload_name,
                              c.data, c.num_or_default(), c.key_size_or_default(), c.value_size_or_default(),
                              has_manifest_ ? "the manifest" : "the flags"));
    uint64_t reads = t.found + t.not_found;
    if (reads)
      out.push_back(fmt::format("rocksdb: {:.1f}% of the keys read were found ({} of {}), {} not found",
                                100.0 * static_cast<double>(t.found) / static_cast<double>(reads), t.found, reads,
                                t.not_found));
    if (t.errors) out.push_back(fmt::format("rocksdb: {} ops failed (see totals.outcomes)", t.errors));
    if (intervals_stopped_.load() || intervals_delayed_.load())
      out.push_back(fmt::format("rocksdb: writes stopped in {} and delayed in {} of {} intervals",
                                intervals_stopped_.load(), intervals_delayed_.load(), intervals_.load()));
    return out;
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
  std::vector<std::string> lines_;
  // Written by the reporter thread in IntervalSnapshot(), read after the run.
  uint64_t prev_stall_micros_ = 0;
  std::atomic<uint64_t> intervals_{0}, intervals_stopped_{0}, intervals_delayed_{0};
};

}  // namespace

BackendInfo RocksdbBackendInfo() {
  BackendInfo info;
  info.name = "rocksdb";
  info.description = "RocksDB (system librocksdb): db_bench's workloads, mixgraph, db_bench-compatible data sets";
  info.capabilities = kCanPrepare | kNeedsData;
  info.options = RocksdbOptionSpecs();
  info.create = [](const OptionValues& values, const CommonOptions& common) -> StatusOr<std::unique_ptr<Backend>> {
    auto c = ParseRocksdbConfig(values, common.seed);
    if (!c.ok()) return c.status();
    return std::unique_ptr<Backend>(new RocksdbBackend(std::move(*c)));
  };
  return info;
}

}  // namespace storebench::backend
