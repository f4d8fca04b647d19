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
// Defaults follow db_bench 7.8 where db_bench has the same flag (num 1M,
// key size 16, value size 100, 8 MiB block cache, snappy, no bloom filter), so
// a command line carries over. Pure functions; thread-safe.
#pragma once

#include <rocksdb/options.h>

#include <cstdint>
#include <optional>
#include <string>
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

// The rocksdb::Options for `config` (see the order above); InvalidArgument with
// RocksDB's message for a bad OPTIONS file or option list.
StatusOr<rocksdb::Options> BuildRocksdbOptions(const RocksdbConfig& config);

// The workload's name for a Workload.
const char* WorkloadName(Workload w);

}  // namespace storebench::backend::rocksdb_backend
