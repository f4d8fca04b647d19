// The rocksdb backend's options: the flags it declares, their parsed form
// (RocksdbConfig, a plain struct built once) and the rocksdb::Options built
// from them.
//
// Option sources apply in this order, later ones winning: RocksDB's defaults
// (or an OPTIONS file given with --options-file, read by RocksDB's own
// LoadOptionsFromFile), then storebench's typed flags (--cache-size,
// --bloom-bits, --direct-reads, --max-open-files, --compression), then the
// `key=value;…` lists --db-options, --cf-options and --table-options, parsed by
// RocksDB's GetDBOptionsFromString / GetColumnFamilyOptionsFromString /
// GetBlockBasedTableOptionsFromString. Errors in a file or list carry RocksDB's
// own message and are InvalidArgument (exit 2).
//
// Without an OPTIONS file the engine starts from db_bench 7.8.3's settings for
// its default flags (DbBenchOptions: DBOptions, ColumnFamilyOptions and
// BlockBasedTableOptions with its 8 MiB LRU block cache; DbBenchReadOptions,
// DbBenchWriteOptions), so one DB opened by either tool with the same flags
// writes the same OPTIONS file (rocksdb_backend_test checks it against
// /usr/bin/db_bench). Shape defaults follow db_bench too (num 1M, key size 16,
// value size 100). Pure functions; thread-safe.
#pragma once

#include <rocksdb/cache.h>
#include <rocksdb/db.h>
#include <rocksdb/options.h>

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "storebench/backend/backend.h"
#include "storebench/workload/mixgraph.h"

namespace storebench::backend::rocksdb_backend {

enum class Workload { kReadRandom, kMultiGet, kOverwrite, kUpdateRandom, kDelete, kScan, kReadWhileWriting, kMixgraph };

struct RocksdbConfig {
  std::string data;  // the DB directory
  // Data-set shape; unset = from the DB's manifest, else db_bench's defaults.
  std::optional<uint64_t> num;
  std::optional<uint64_t> key_size;
  std::optional<uint64_t> value_size;
  bool fill_sequential = false;  // prepare: fillseq instead of fillrandom
  uint64_t seed = 1;

  Workload workload = Workload::kReadRandom;
  std::string workload_name = "readrandom";
  std::string key_dist = "uniform";
  uint64_t batch_size = 16;   // multiget keys per op
  uint64_t scan_length = 10;  // scan: Next() calls after the Seek
  double writer_rate = 0;     // readwhilewriting writer ops/s; 0 = as fast as it can
  workload::MixgraphConfig mixgraph;

  // Engine options; unset typed options keep RocksDB's (or the OPTIONS file's) value.
  std::string compression;  // "" = snappy without an OPTIONS file
  std::optional<uint64_t> cache_size;
  std::optional<int> bloom_bits;
  bool direct_reads = false;
  std::optional<int> max_open_files;
  std::string options_file;
  std::string db_options;
  std::string cf_options;
  std::string table_options;
  bool statistics = false;
  int perf_level = 0;  // rocksdb::PerfLevel; 0 = off
  bool sync = false;
  bool disable_wal = false;
  bool print_options = false;  // the options the DB runs with, in the JSON under rocksdb.options

  // The shape with db_bench's defaults filled in.
  uint64_t num_or_default() const { return num.value_or(1'000'000); }
  uint64_t key_size_or_default() const { return key_size.value_or(16); }
  uint64_t value_size_or_default() const { return value_size.value_or(100); }
};

// The rocksdb backend's options, declared once (both `prepare` and `run`).
const OptionTable<RocksdbConfig>& RocksdbOptionTable();

// Parses option values into a config; InvalidArgument naming the flag.
inline StatusOr<RocksdbConfig> ParseRocksdbConfig(const OptionValues& values, uint64_t seed) {
  auto c = RocksdbOptionTable().Parse(values);
  if (c.ok()) c->seed = seed;
  return c;
}

// db_bench's --cache_size default.
inline constexpr uint64_t kDbBenchCacheSize = 8u << 20;

// db_bench's block cache for --cache_size=capacity (LRU, shard bits chosen by
// RocksDB, no high- or low-priority pool); nullptr for 0, as db_bench.
std::shared_ptr<rocksdb::Cache> DbBenchBlockCache(uint64_t capacity);
// The rocksdb::Options db_bench 7.8.3 opens a DB with for its default flags and --cache_size=cache_size.
rocksdb::Options DbBenchOptions(uint64_t cache_size);
// db_bench's ReadOptions and WriteOptions for its default flags (and --sync, --disable_wal).
rocksdb::ReadOptions DbBenchReadOptions();
rocksdb::WriteOptions DbBenchWriteOptions(bool sync, bool disable_wal);

// The rocksdb::Options for `config` (see the order above); InvalidArgument with
// RocksDB's message for a bad OPTIONS file or option list.
StatusOr<rocksdb::Options> BuildRocksdbOptions(const RocksdbConfig& config);

// The options `db` runs with, serialized by RocksDB as in its OPTIONS file:
// section ("DBOptions", "CFOptions", "TableOptions"; the default column
// family) → option name → value. InvalidArgument when RocksDB cannot serialize them.
using OptionsText = std::map<std::string, std::map<std::string, std::string>>;
StatusOr<OptionsText> DescribeOptions(rocksdb::DB* db);

// Calls fn(name, value) for each "name<separator>value" piece of `text`
// between delimiters; pieces without the separator are skipped.
void ForEachNameValue(std::string_view text, std::string_view delimiter, std::string_view separator,
                      const std::function<void(std::string_view, std::string_view)>& fn);

// The workload's name for a Workload.
const char* WorkloadName(Workload w);

}  // namespace storebench::backend::rocksdb_backend
