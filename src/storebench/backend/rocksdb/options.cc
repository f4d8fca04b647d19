#include "storebench/backend/rocksdb/options.h"

#include <rocksdb/cache.h>
#include <rocksdb/convenience.h>
#include <rocksdb/filter_policy.h>
#include <rocksdb/statistics.h>
#include <rocksdb/table.h>
#include <rocksdb/utilities/options_util.h>

#include <array>
#include <charconv>
#include <fmt/format.h>

#include "storebench/base/units.h"

namespace storebench::backend::rocksdb_backend {
namespace {

struct NamedWorkload {
  const char* name;
  Workload workload;
};
constexpr std::array<NamedWorkload, 9> kWorkloads{{
    {"readrandom", Workload::kReadRandom},
    {"multiget", Workload::kMultiGet},
    {"overwrite", Workload::kOverwrite},
    {"updaterandom", Workload::kUpdateRandom},
    {"delete", Workload::kDelete},
    {"scan", Workload::kScan},
    {"readwhilewriting", Workload::kReadWhileWriting},
    {"mixgraph", Workload::kMixgraph},
    {"deleterandom", Workload::kDelete},  // db_bench's name
}};
constexpr const char* kWorkloadForms = "readrandom | multiget | overwrite | updaterandom | delete | scan | "
                                       "readwhilewriting | mixgraph";

struct NamedCompression {
  const char* name;
  rocksdb::CompressionType type;
};
constexpr std::array<NamedCompression, 8> kCompressions{{
    {"none", rocksdb::kNoCompression},
    {"snappy", rocksdb::kSnappyCompression},
    {"zlib", rocksdb::kZlibCompression},
    {"bzip2", rocksdb::kBZip2Compression},
    {"lz4", rocksdb::kLZ4Compression},
    {"lz4hc", rocksdb::kLZ4HCCompression},
    {"xpress", rocksdb::kXpressCompression},
    {"zstd", rocksdb::kZSTD},
}};

// RocksDB's message for a failed parse: InvalidArgument (bad input, exit 2).
Status FromRocksdb(std::string_view what, const rocksdb::Status& s) {
  return Status::InvalidArgument(fmt::format("{}: {}", what, s.ToString()));
}

StatusOr<rocksdb::CompressionType> ParseCompression(const std::string& name) {
  for (const NamedCompression& c : kCompressions) {
    if (name != c.name) continue;
    if (c.type == rocksdb::kNoCompression) return c.type;
    for (rocksdb::CompressionType t : rocksdb::GetSupportedCompressions())
      if (t == c.type) return c.type;
    return Status::NotSupported(fmt::format("--compression: '{}' is not compiled into this librocksdb", name));
  }
  return Status::InvalidArgument(fmt::format(
      "--compression: expected none | snappy | zlib | bzip2 | lz4 | lz4hc | xpress | zstd; got '{}'", name));
}

}  // namespace

const char* WorkloadName(Workload w) {
  for (const NamedWorkload& n : kWorkloads)
    if (n.workload == w) return n.name;
  return "?";
}

namespace {

Status SetOptionalInt(std::optional<int>* out, const std::string& v, const char* flag, int lo, int hi) {
  auto n = ParseInteger(v, flag, lo, hi);
  if (!n.ok()) return n.status();
  *out = static_cast<int>(*n);
  return Status::Ok();
}

}  // namespace

const OptionTable<RocksdbConfig>& RocksdbOptionTable() {
  static const OptionTable<RocksdbConfig> table = [] {
    OptionTable<RocksdbConfig> t("backend 'rocksdb'");
    std::vector<std::string> workload_words, compression_words;
    for (const NamedWorkload& n : kWorkloads) workload_words.emplace_back(n.name);
    for (const NamedCompression& c : kCompressions) compression_words.emplace_back(c.name);
    t.Path("data", &RocksdbConfig::data, "data directory (rocksdb: the DB directory)")
        .Count("num", &RocksdbConfig::num,
               "rocksdb: number of keys (prepare; on run: default from the DB's manifest, else 1000000 like db_bench)",
               "", 1, uint64_t{1} << 40)
        .Count("key-size", &RocksdbConfig::key_size,
               "rocksdb: key size in bytes (db_bench encoding; default from the manifest, else 16)", "", 1, 1'000'000)
        .Count("value-size", &RocksdbConfig::value_size, "rocksdb: value size in bytes (default from the manifest, else 100)",
               "", 0, uint64_t{1} << 30)
        .Custom({"fill", OptionType::kEnum, "rocksdb prepare: fillrandom (~63% of keys exist) or fillseq (all exist)",
                 "random", {"random", "seq"}, "", ""},
                [](RocksdbConfig& c, const std::string& v) -> Status {
                  if (v == "seq" || v == "fillseq") c.fill_sequential = true;
                  else if (v == "random" || v == "fillrandom") c.fill_sequential = false;
                  else return BadChoice("--fill", {"random", "seq"}, v);
                  return Status::Ok();
                })
        .Custom({"compression", OptionType::kEnum, "rocksdb: block compression (default snappy)", "", compression_words,
                 "", ""},
                [](RocksdbConfig& c, const std::string& v) -> Status {
                  auto type = ParseCompression(v);
                  if (!type.ok()) return type.status();
                  c.compression = v;
                  return Status::Ok();
                })
        .Custom({"workload", OptionType::kEnum, "workload (rocksdb)", "readrandom", workload_words, "", ""},
                [](RocksdbConfig& c, const std::string& v) -> Status {
                  for (const NamedWorkload& n : kWorkloads) {
                    if (v == n.name) {
                      c.workload = n.workload;
                      c.workload_name = WorkloadName(n.workload);
                      return Status::Ok();
                    }
                  }
                  return Status::InvalidArgument(fmt::format("--workload: expected {}; got '{}'", kWorkloadForms, v));
                })
        .Text("key-dist", &RocksdbConfig::key_dist, "key distribution", "uniform",
              "uniform | zipfian[:THETA] | zipfian-unscrambled | latest | hotspot:KEYS,OPS | sequential")
        .Count("batch-size", &RocksdbConfig::batch_size, "rocksdb multiget: keys per MultiGet", "16", 1, 65536)
        .Count("scan-length", &RocksdbConfig::scan_length, "rocksdb scan: Next() calls after each Seek", "10")
        .Rate("writer-rate", &RocksdbConfig::writer_rate,
              "rocksdb readwhilewriting: the writer's rate, e.g. 1000/s (0 = unthrottled, like db_bench)", "0", true)
        .Size("cache-size", &RocksdbConfig::cache_size, "rocksdb: block cache size, e.g. 8M (default 8M like db_bench)",
              "")
        .Custom({"bloom-bits", OptionType::kInteger, "rocksdb: bloom filter bits per key (default none)", "", {},
                 "0 to 64", ""},
                [](RocksdbConfig& c, const std::string& v) { return SetOptionalInt(&c.bloom_bits, v, "--bloom-bits", 0, 64); })
        .Flag("direct-reads", &RocksdbConfig::direct_reads, "rocksdb: use_direct_reads (O_DIRECT for user reads)")
        .Custom({"max-open-files", OptionType::kInteger, "rocksdb: max_open_files (-1 = unlimited)", "", {},
                 "-1 to 1000000000", ""},
                [](RocksdbConfig& c, const std::string& v) {
                  return SetOptionalInt(&c.max_open_files, v, "--max-open-files", -1, 1'000'000'000);
                })
        .Path("options-file", &RocksdbConfig::options_file,
              "rocksdb: a RocksDB OPTIONS file (read with RocksDB's LoadOptionsFromFile)")
        .Text("db-options", &RocksdbConfig::db_options, "rocksdb: DBOptions (RocksDB's GetDBOptionsFromString)", "",
              "key=value;...")
        .Text("cf-options", &RocksdbConfig::cf_options,
              "rocksdb: ColumnFamilyOptions (GetColumnFamilyOptionsFromString)", "", "key=value;...")
        .Text("table-options", &RocksdbConfig::table_options,
              "rocksdb: BlockBasedTableOptions (GetBlockBasedTableOptionsFromString)", "", "key=value;...")
        .Flag("statistics", &RocksdbConfig::statistics,
              "rocksdb: collect RocksDB statistics (tickers in the JSON, stall time per interval)")
        .Integer("perf-level", &RocksdbConfig::perf_level,
                 "rocksdb: perf context level (0 off, 2 counts and times), summed into the JSON", "0", 0, 5)
        .Flag("sync", &RocksdbConfig::sync, "rocksdb: WriteOptions.sync")
        .Flag("disable-wal", &RocksdbConfig::disable_wal, "rocksdb: WriteOptions.disableWAL")
        .Require([](RocksdbConfig& c) -> Status {
          if (c.sync && c.disable_wal)
            return Status::InvalidArgument(
                "--sync: a synced write needs the WAL; --sync with --disable-wal makes every Put fail");
          return Status::Ok();
        });
    const workload::MixgraphConfig defaults;
    for (const std::string& token : workload::FormatMixgraphFlags(defaults)) {
      // "--name=value": db_bench's spelling and default.
      auto eq = token.find('=');
      std::string name = token.substr(2, eq - 2);
      const bool is_bool = name == "sine_mix_rate";
      t.Custom({name, is_bool ? OptionType::kFlag : OptionType::kNumber,
                "rocksdb mixgraph (db_bench flag); default " + token.substr(eq + 1), "", {}, "", ""},
               [name](RocksdbConfig& c, const std::string& v) { return workload::SetMixgraphFlag(name, v, &c.mixgraph); });
    }
    return t;
  }();
  return table;
}

StatusOr<rocksdb::Options> BuildRocksdbOptions(const RocksdbConfig& c) {
  rocksdb::Options options;
  rocksdb::ConfigOptions parse;
  parse.ignore_unknown_options = false;
  parse.input_strings_escaped = false;
  const bool from_file = !c.options_file.empty();
  if (from_file) {
    rocksdb::DBOptions db;
    std::vector<rocksdb::ColumnFamilyDescriptor> cfs;
    rocksdb::ConfigOptions file_parse;
    file_parse.ignore_unknown_options = false;
    rocksdb::Status s = rocksdb::LoadOptionsFromFile(file_parse, c.options_file, &db, &cfs);
    if (!s.ok()) return FromRocksdb(fmt::format("--options-file {}", c.options_file), s);
    rocksdb::ColumnFamilyOptions cf;
    for (const auto& d : cfs)
      if (d.name == rocksdb::kDefaultColumnFamilyName) cf = d.options;
    options = rocksdb::Options(db, cf);
  }

  // Typed flags; without an OPTIONS file, db_bench's defaults for the ones it has.
  std::string compression = c.compression.empty() && !from_file ? "snappy" : c.compression;
  if (!compression.empty()) {
    auto t = ParseCompression(compression);
    if (!t.ok()) return t.status();
    options.compression = *t;
  }
  if (c.direct_reads) options.use_direct_reads = true;
  if (c.max_open_files) options.max_open_files = *c.max_open_files;

  std::optional<uint64_t> cache = c.cache_size;
  if (!cache && !from_file) cache = 8u << 20;
  if (cache || c.bloom_bits || !c.table_options.empty()) {
    const auto* current = options.table_factory->GetOptions<rocksdb::BlockBasedTableOptions>();
    if (!current)
      return Status::InvalidArgument(fmt::format(
          "--cache-size/--bloom-bits/--table-options apply to the block-based table; the table factory is '{}'",
          options.table_factory->Name()));
    rocksdb::BlockBasedTableOptions table = *current;
    if (cache) {
      // As db_bench 7.8: LRU, shard bits chosen by RocksDB, no high-priority pool.
      table.block_cache = rocksdb::NewLRUCache(static_cast<size_t>(*cache), -1, false, 0.0);
    }
    if (c.bloom_bits && *c.bloom_bits > 0) table.filter_policy.reset(rocksdb::NewBloomFilterPolicy(*c.bloom_bits));
    if (!c.table_options.empty()) {
      rocksdb::BlockBasedTableOptions parsed;
      rocksdb::Status s = rocksdb::GetBlockBasedTableOptionsFromString(parse, table, c.table_options, &parsed);
      if (!s.ok()) return FromRocksdb("--table-options", s);
      table = parsed;
    }
    options.table_factory.reset(rocksdb::NewBlockBasedTableFactory(table));
  }

  if (!c.db_options.empty()) {
    rocksdb::DBOptions parsed;
    rocksdb::Status s = rocksdb::GetDBOptionsFromString(parse, options, c.db_options, &parsed);
    if (!s.ok()) return FromRocksdb("--db-options", s);
    options = rocksdb::Options(parsed, options);
  }
  if (!c.cf_options.empty()) {
    rocksdb::ColumnFamilyOptions parsed;
    rocksdb::Status s = rocksdb::GetColumnFamilyOptionsFromString(parse, options, c.cf_options, &parsed);
    if (!s.ok()) return FromRocksdb("--cf-options", s);
    options = rocksdb::Options(options, parsed);
  }
  if (c.statistics) options.statistics = rocksdb::CreateDBStatistics();
  return options;
}

}  // namespace storebench::backend::rocksdb_backend
