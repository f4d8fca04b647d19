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

void ForEachNameValue(std::string_view text, std::string_view delimiter, std::string_view separator,
                      const std::function<void(std::string_view, std::string_view)>& fn) {
  size_t pos = 0;
  while (pos < text.size()) {
    size_t end = text.find(delimiter, pos);
    if (end == std::string_view::npos) end = text.size();
    std::string_view piece = text.substr(pos, end - pos);
    pos = end + delimiter.size();
    size_t sep = piece.find(separator);
    if (sep != std::string_view::npos) fn(piece.substr(0, sep), piece.substr(sep + separator.size()));
  }
}

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

namespace {

// The data set: where it is, its keys and values, how prepare fills it.
void AddDataSetOptions(OptionTable<RocksdbConfig>& t) {
  std::vector<std::string> compression_words;
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
              });
}

// What the workers do: the workload, its keys, and the shapes of its ops.
void AddWorkloadOptions(OptionTable<RocksdbConfig>& t) {
  std::vector<std::string> workload_words;
  for (const NamedWorkload& n : kWorkloads) workload_words.emplace_back(n.name);
  t.Custom({"workload", OptionType::kEnum, "workload (rocksdb)", "readrandom", workload_words, "", ""},
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
            "rocksdb readwhilewriting: the writer's rate, e.g. 1000/s (0 = unthrottled, like db_bench)", "0", true);
}

// The engine's own settings: cache, filters, files, RocksDB's option strings, statistics, writes.
void AddEngineOptions(OptionTable<RocksdbConfig>& t) {
  t.Size("cache-size", &RocksdbConfig::cache_size,
         "rocksdb: LRU block cache size as db_bench's --cache_size, e.g. 8M (default 8M; 0 = no block cache)", "")
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
               "rocksdb: perf context level (0 or 1 off, as db_bench's default 1; 2 counts; 3-5 also times), summed into the JSON", "0", 0, 5)
      .Flag("print-options", &RocksdbConfig::print_options,
            "rocksdb: put the options the DB runs with (RocksDB's OPTIONS-file names and values) in the JSON "
            "under rocksdb.options")
      .Flag("sync", &RocksdbConfig::sync, "rocksdb: WriteOptions.sync")
      .Flag("disable-wal", &RocksdbConfig::disable_wal, "rocksdb: WriteOptions.disableWAL")
      .Require([](RocksdbConfig& c) -> Status {
        if (c.sync && c.disable_wal)
          return Status::InvalidArgument(
              "--sync: a synced write needs the WAL; --sync with --disable-wal makes every Put fail");
        return Status::Ok();
      });
}

// db_bench's mixgraph flags, each under db_bench's own name and default.
void AddMixgraphOptions(OptionTable<RocksdbConfig>& t) {
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
}

}  // namespace

const OptionTable<RocksdbConfig>& RocksdbOptionTable() {
  static const OptionTable<RocksdbConfig> table = [] {
    OptionTable<RocksdbConfig> t("backend 'rocksdb'");
    AddDataSetOptions(t);
    AddWorkloadOptions(t);
    AddEngineOptions(t);
    AddMixgraphOptions(t);
    return t;
  }();
  return table;
}

std::shared_ptr<rocksdb::Cache> DbBenchBlockCache(uint64_t capacity) {
  if (capacity == 0) return nullptr;  // db_bench: no block cache at all (no_block_cache=true)
  // db_bench's NewCache for --cache_type=lru_cache: --cache_numshardbits -1
  // (RocksDB picks: 4 for 8 MiB), not strict, --cache_high_pri_pool_ratio 0,
  // --cache_low_pri_pool_ratio 0, no memory allocator, no secondary cache.
  rocksdb::LRUCacheOptions opts(static_cast<size_t>(capacity), -1, false, 0.0, nullptr);
  opts.low_pri_pool_ratio = 0.0;
  return rocksdb::NewLRUCache(opts);
}

rocksdb::Options DbBenchOptions(uint64_t cache_size) {
  rocksdb::Options o;
  // DBOptions that db_bench 7.8.3 sets to other values than RocksDB's defaults.
  o.create_if_missing = true;               // InitializeOptionsGeneral; run opens only an existing DB (Open checks)
  o.create_missing_column_families = true;  // InitializeOptionsGeneral
  o.table_cache_numshardbits = 4;           // --table_cache_numshardbits
  o.enable_pipelined_write = true;          // --enable_pipelined_write
  o.delayed_write_rate = 8u << 20;          // --delayed_write_rate
  o.dump_malloc_stats = true;               // --dump_malloc_stats
  // ColumnFamilyOptions.
  o.compression = rocksdb::kSnappyCompression;           // --compression_type
  o.hard_pending_compaction_bytes_limit = 128ull << 30;  // --hard_pending_compaction_bytes_limit
  // --fifo_compaction_max_table_files_size_mb 0, --fifo_compaction_allow_compaction true
  o.compaction_options_fifo = rocksdb::CompactionOptionsFIFO(0, true);
  // BlockBasedTableOptions.
  rocksdb::BlockBasedTableOptions t;
  t.index_shortening = rocksdb::BlockBasedTableOptions::IndexShorteningMode::kShortenSeparatorsAndSuccessor;
  t.pin_top_level_index_and_filter = false;  // --pin_top_level_index_and_filter
  t.block_cache = DbBenchBlockCache(cache_size);
  t.no_block_cache = t.block_cache == nullptr;
  o.table_factory.reset(rocksdb::NewBlockBasedTableFactory(t));
  return o;
}

rocksdb::ReadOptions DbBenchReadOptions() {
  // db_bench's read_options_ for its default flags (Benchmark::Run).
  rocksdb::ReadOptions r(/*verify_checksums=*/true, /*fill_cache=*/true);  // --verify_checksum true
  r.total_order_seek = false;                                            // --total_order_seek
  r.prefix_same_as_start = false;                                        // --prefix_same_as_start
  r.rate_limiter_priority = rocksdb::Env::IO_TOTAL;                      // --rate_limit_user_ops false
  r.tailing = false;                                                     // --use_tailing_iterator
  r.readahead_size = 0;                                                  // --readahead_size
  r.adaptive_readahead = false;                                          // --adaptive_readahead
  r.async_io = false;                                                    // --async_io
  return r;
}

rocksdb::WriteOptions DbBenchWriteOptions(bool sync, bool disable_wal) {
  // db_bench's write_options_ (Benchmark::Run): WriteOptions() plus --sync, --disable_wal.
  rocksdb::WriteOptions w;
  w.sync = sync;
  w.disableWAL = disable_wal;
  w.rate_limiter_priority = rocksdb::Env::IO_TOTAL;  // --rate_limit_auto_wal_flush false
  return w;
}

StatusOr<rocksdb::Options> BuildRocksdbOptions(const RocksdbConfig& c) {
  rocksdb::ConfigOptions parse;
  parse.ignore_unknown_options = false;
  parse.input_strings_escaped = false;
  const bool from_file = !c.options_file.empty();
  // Without an OPTIONS file: db_bench's engine settings, cache included; with one: the file's.
  rocksdb::Options options = from_file ? rocksdb::Options() : DbBenchOptions(c.cache_size.value_or(kDbBenchCacheSize));
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

  // Typed flags: over the OPTIONS file only when given.
  if (!c.compression.empty()) {
    auto t = ParseCompression(c.compression);
    if (!t.ok()) return t.status();
    options.compression = *t;
  }
  if (c.direct_reads) options.use_direct_reads = true;
  if (c.max_open_files) options.max_open_files = *c.max_open_files;

  const bool cache_from_flag = from_file && c.cache_size;
  if (cache_from_flag || c.bloom_bits || !c.table_options.empty()) {
    const auto* current = options.table_factory->GetOptions<rocksdb::BlockBasedTableOptions>();
    if (!current)
      return Status::InvalidArgument(fmt::format(
          "--cache-size/--bloom-bits/--table-options apply to the block-based table; the table factory is '{}'",
          options.table_factory->Name()));
    rocksdb::BlockBasedTableOptions table = *current;
    if (cache_from_flag) {
      table.block_cache = DbBenchBlockCache(*c.cache_size);
      table.no_block_cache = table.block_cache == nullptr;
    }
    // As db_bench's --bloom_bits: 0 = no filter, N = NewBloomFilterPolicy(N) (format_version 5: fast local bloom).
    if (c.bloom_bits && *c.bloom_bits > 0) table.filter_policy.reset(rocksdb::NewBloomFilterPolicy(*c.bloom_bits));
    else if (c.bloom_bits) table.filter_policy.reset();
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

namespace {

// "name=value" lines (RocksDB's serialization with a newline delimiter) into *out.
void AddOptionLines(const std::string& text, std::map<std::string, std::string>* out) {
  ForEachNameValue(text, "\n", "=", [out](std::string_view name, std::string_view value) {
    if (!name.empty()) (*out)[std::string(name)] = std::string(value);
  });
}

}  // namespace

StatusOr<OptionsText> DescribeOptions(rocksdb::DB* db) {
  rocksdb::ConfigOptions config;
  config.delimiter = "\n";
  const rocksdb::Options options = db->GetOptions();
  OptionsText out;
  std::string text;
  rocksdb::Status s = rocksdb::GetStringFromDBOptions(config, db->GetDBOptions(), &text);
  if (!s.ok()) return FromRocksdb("--print-options: DBOptions", s);
  AddOptionLines(text, &out["DBOptions"]);
  text.clear();
  s = rocksdb::GetStringFromColumnFamilyOptions(config, options, &text);
  if (!s.ok()) return FromRocksdb("--print-options: ColumnFamilyOptions", s);
  AddOptionLines(text, &out["CFOptions"]);
  text.clear();
  s = options.table_factory->GetOptionString(config, &text);
  if (!s.ok()) return FromRocksdb("--print-options: table options", s);
  AddOptionLines(text, &out["TableOptions"]);
  return out;
}

}  // namespace storebench::backend::rocksdb_backend
