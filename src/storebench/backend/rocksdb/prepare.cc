#include "storebench/backend/rocksdb/prepare.h"

#include <rocksdb/db.h>
#include <rocksdb/write_batch.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <filesystem>
#include <fmt/format.h>
#include <thread>

#include "storebench/backend/rocksdb/dataset.h"
#include "storebench/base/units.h"
#include "storebench/workload/db_bench_key.h"
#include "storebench/workload/random.h"

namespace storebench::backend::rocksdb_backend {
namespace {

constexpr size_t kBatchKeys = 1000;

// A failed write during the fill, with the likely cause spelled out.
Status WriteFailed(const std::string& dir, uint64_t done, uint64_t num, const rocksdb::Status& s) {
  std::string msg = s.ToString();
  std::string hint;
  if (msg.find("No space") != std::string::npos) hint = " — the disk is full; free space or choose another --data";
  else if (msg.find("Read-only") != std::string::npos || msg.find("Permission denied") != std::string::npos)
    hint = " — the directory is not writable; choose another --data";
  return Status::IOError(
      fmt::format("prepare: writing the data set into {} failed after {} of {} keys: {}{}", dir, done, num, msg, hint));
}

// Creates `dir` and checks that it is writable and roughly large enough.
Status CheckDirectory(const std::string& dir, uint64_t estimate_bytes) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec)
    return Status::IOError(fmt::format("prepare: cannot create {}: {}{}", dir, ec.message(),
                                       ec == std::errc::read_only_file_system ? " (a read-only file system)" : ""));
  if (::access(dir.c_str(), W_OK) != 0)
    return Status::IOError(fmt::format("prepare: {} is not writable: {}{}", dir, std::strerror(errno),
                                       errno == EROFS ? " (a read-only file system)" : ""));
  struct statvfs vfs {};
  if (::statvfs(dir.c_str(), &vfs) == 0) {
    uint64_t avail = static_cast<uint64_t>(vfs.f_bavail) * vfs.f_frsize;
    if (avail < estimate_bytes)
      return Status::IOError(fmt::format("prepare: {} has {} free; the data set needs about {} — free space or "
                                         "choose another --data",
                                         dir, FormatBytes(static_cast<double>(avail)),
                                         FormatBytes(static_cast<double>(estimate_bytes))));
  }
  return Status::Ok();
}

// Waits until RocksDB has no compaction pending or running.
void WaitForCompactions(rocksdb::DB* db, const PrepareProgressFn& progress) {
  for (;;) {
    if (progress) progress({"compacting", 0, 0, "keys"});
    uint64_t pending = 0, running = 0;
    db->GetIntProperty("rocksdb.compaction-pending", &pending);
    db->GetIntProperty("rocksdb.num-running-compactions", &running);
    if (pending == 0 && running == 0) return;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
}

Manifest WantedManifest(const RocksdbConfig& config) {
  Manifest want;
  want.num = config.num_or_default();
  want.key_size = config.key_size_or_default();
  want.value_size = config.value_size_or_default();
  want.fill = config.fill_sequential ? "seq" : "random";
  want.seed = config.seed;
  want.compression = config.compression.empty() ? "snappy" : config.compression;
  return want;
}

// What --data holds already: nothing, a prepare of ours that did not finish
// (interrupted or killed: destroyed, to start again from nothing), or a
// finished data set — the one wanted (*reused, described in `report`) or
// another (an error).
Status ReuseOrClear(const RocksdbConfig& config, const Manifest& want, PrepareReport* report, bool* reused) {
  *reused = false;
  if (!HasDatabase(config.data)) return Status::Ok();
  auto have = ReadManifest(config.data);
  if (!have.ok()) return have.status();
  if (have->has_value() && !(*have)->complete) {
    auto options = BuildRocksdbOptions(config);
    if (!options.ok()) return options.status();
    rocksdb::Status d = rocksdb::DestroyDB(config.data, *options);
    if (!d.ok()) return WriteFailed(config.data, 0, want.num, d);
    return Status::Ok();
  }
  if (!have->has_value())
    return Status::InvalidArgument(fmt::format(
        "prepare: {} holds a RocksDB database storebench did not finish preparing (db_bench's, or an interrupted "
        "prepare); run against it with --num/--key-size/--value-size, or remove it, or choose another --data",
        config.data));
  const Manifest& m = **have;
  if (m.num != want.num || m.key_size != want.key_size || m.value_size != want.value_size || m.fill != want.fill)
    return Status::InvalidArgument(fmt::format(
        "prepare: {} already holds a data set prepared with {}, not {}; remove it or choose another --data",
        config.data, m.Flags(), want.Flags()));
  report->description = fmt::format("{} (seed {}, {})", m.Flags(), m.seed, m.compression);
  report->where = config.data;
  report->created = false;
  *reused = true;
  return Status::Ok();
}

// Writes the keys in batches as db_bench's fill does; `stop` is checked between batches.
Status WriteKeys(rocksdb::DB* db, const RocksdbConfig& config, const Manifest& want, PrepareReport* report,
                 const std::atomic<bool>* stop) {
  ValueSource values(want.value_size, config.seed ^ 0x76616c7565ULL);
  workload::Random rng(config.seed);
  rocksdb::WriteOptions write;
  write.disableWAL = true;  // flushed below; the WAL would only slow the fill
  std::string key(want.key_size, '\0');
  rocksdb::WriteBatch batch;
  uint64_t cursor = 0;
  for (uint64_t i = 0; i < want.num; ++i) {
    uint64_t index = config.fill_sequential ? i : rng.Uniform(want.num);
    workload::EncodeDbBenchKey(index, want.key_size, key.data());
    std::string_view v = values.Next(want.value_size, &cursor);
    batch.Put(key, rocksdb::Slice(v.data(), v.size()));
    if (batch.Count() >= static_cast<int>(kBatchKeys) || i + 1 == want.num) {
      if (stop && stop->load(std::memory_order_relaxed)) {
        db->Close();
        return Status::Interrupted(fmt::format("prepare interrupted after {} of {} keys; {} is marked unfinished, "
                                               "run the same prepare again to restart it",
                                               i + 1 - static_cast<uint64_t>(batch.Count()), want.num, config.data));
      }
      rocksdb::Status s = db->Write(write, &batch);
      if (!s.ok()) return WriteFailed(config.data, i + 1 - static_cast<uint64_t>(batch.Count()), want.num, s);
      batch.Clear();
      if (report->progress) report->progress({"writing", i + 1, want.num, "keys"});
    }
  }
  return Status::Ok();
}

// Flushes, waits for the compactions, and closes: runs start from a settled LSM tree.
Status SettleAndClose(std::unique_ptr<rocksdb::DB> db, const std::string& dir, uint64_t num,
                      const PrepareProgressFn& progress, uint64_t* sst_bytes) {
  if (progress) progress({"flushing", 0, 0, "keys"});
  rocksdb::Status s = db->Flush(rocksdb::FlushOptions());
  if (!s.ok()) return WriteFailed(dir, num, num, s);
  WaitForCompactions(db.get(), progress);
  db->GetIntProperty("rocksdb.total-sst-files-size", sst_bytes);
  s = db->Close();
  if (!s.ok()) return WriteFailed(dir, num, num, s);
  return Status::Ok();
}

// Makes the data set in an empty (or emptied) --data.
Status Fill(const RocksdbConfig& config, const Manifest& want, PrepareReport* report, const std::atomic<bool>* stop) {
  const double raw = static_cast<double>(want.num) * static_cast<double>(want.key_size + want.value_size);
  STOREBENCH_RETURN_IF_ERROR(CheckDirectory(config.data, static_cast<uint64_t>(raw * 0.6)));
  auto options = BuildRocksdbOptions(config);
  if (!options.ok()) return options.status();
  options->create_if_missing = true;
  // Until the fill is done the manifest says so: a run refuses the DB and the next prepare restarts it.
  Manifest filling = want;
  filling.complete = false;
  STOREBENCH_RETURN_IF_ERROR(WriteManifest(config.data, filling));
  rocksdb::DB* raw_db = nullptr;
  rocksdb::Status s = rocksdb::DB::Open(*options, config.data, &raw_db);
  if (!s.ok()) return WriteFailed(config.data, 0, want.num, s);
  std::unique_ptr<rocksdb::DB> db(raw_db);

  const auto t0 = std::chrono::steady_clock::now();
  STOREBENCH_RETURN_IF_ERROR(WriteKeys(db.get(), config, want, report, stop));
  uint64_t sst_bytes = 0;
  STOREBENCH_RETURN_IF_ERROR(SettleAndClose(std::move(db), config.data, want.num, report->progress, &sst_bytes));
  STOREBENCH_RETURN_IF_ERROR(WriteManifest(config.data, want));
  double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  report->description = fmt::format("{} (fill{}, seed {}, {})", want.Flags(), want.fill, want.seed, want.compression);
  report->where = config.data;
  report->created = true;
  report->how = fmt::format("in {:.1f} s, {} of SST files", secs, FormatBytes(static_cast<double>(sst_bytes)));
  return Status::Ok();
}

}  // namespace

Status PrepareDataSet(const RocksdbConfig& config, PrepareReport* report, const std::atomic<bool>* stop) {
  if (config.data.empty()) return Status::InvalidArgument("--data: give the DB directory, e.g. --data ./db");
  const Manifest want = WantedManifest(config);
  bool reused = false;
  STOREBENCH_RETURN_IF_ERROR(ReuseOrClear(config, want, report, &reused));
  if (reused) return Status::Ok();
  return Fill(config, want, report, stop);
}

}  // namespace storebench::backend::rocksdb_backend
