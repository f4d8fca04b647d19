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

std::vector<OptionSpec> RocksdbOptionSpecs() {
  std::vector<OptionSpec> specs = {
      {"data", "data directory (rocksdb: the DB directory)", "", false},
      {"num", "rocksdb: number of keys (prepare; on run: default from the DB's manifest, else 1000000 like db_bench)",
       "", false},
      {"key-size", "rocksdb: key size in bytes (db_bench encoding; default from the manifest, else 16)", "", false},
      {"value-size", "rocksdb: value size in bytes (default from the manifest, else 100)", "", false},
      {"fill", "rocksdb prepare: random (fillrandom, ~63% of keys exist) | seq (fillseq, all exist)", "random", false},
      {"compression", "rocksdb: none | snappy | zlib | bzip2 | lz4 | lz4hc | xpress | zstd (default snappy)", "",
       false},
      {"workload", std::string("workload (rocksdb: ") + kWorkloadForms + ")", "readrandom", false},
      {"key-dist", "key distribution: uniform | zipfian[:THETA] | zipfian-unscrambled | latest | hotspot:KEYS,OPS | "
                   "sequential",
       "uniform", false},
      {"batch-size", "rocksdb multiget: keys per MultiGet", "16", false},
      {"scan-length", "rocksdb scan: Next() calls after each Seek", "10", false},
      {"writer-rate", "rocksdb readwhilewriting: the writer's rate, e.g. 1000/s (0 = unthrottled, like db_bench)", "0",
       false},
      {"cache-size", "rocksdb: block cache size, e.g. 8M (default 8M like db_bench)", "", false},
      {"bloom-bits", "rocksdb: bloom filter bits per key (default none)", "", false},
      {"direct-reads", "rocksdb: use_direct_reads (O_DIRECT for user reads)", "", true},
      {"max-open-files", "rocksdb: max_open_files (-1 = unlimited)", "", false},
      {"options-file", "rocksdb: a RocksDB OPTIONS file (read with RocksDB's LoadOptionsFromFile)", "", false},
      {"db-options", "rocksdb: DBOptions as key=value;... (RocksDB's GetDBOptionsFromString)", "", false},
      {"cf-options", "rocksdb: ColumnFamilyOptions as key=value;... (GetColumnFamilyOptionsFromString)", "", false},
      {"table-options", "rocksdb: BlockBasedTableOptions as key=value;... (GetBlockBasedTableOptionsFromString)", "",
       false},
      {"statistics", "rocksdb: collect RocksDB statistics (tickers in the JSON, stall time per interval)", "", true},
      {"perf-level", "rocksdb: perf context level 0-5 (0 off, 2 counts and times), summed into the JSON", "0", false},
      {"sync", "rocksdb: WriteOptions.sync", "", true},
      {"disable-wal", "rocksdb: WriteOptions.disableWAL", "", true},
  };
  const workload::MixgraphConfig defaults;
  for (const std::string& token : workload::FormatMixgraphFlags(defaults)) {
    // "--name=value": db_bench's spelling and default.
    auto eq = token.find('=');
    std::string name = token.substr(2, eq - 2);
    bool is_bool = name == "sine_mix_rate";
    specs.push_back({name, "rocksdb mixgraph (db_bench flag); default " + token.substr(eq + 1), "", is_bool});
  }
  return specs;
}

StatusOr<RocksdbConfig> ParseRocksdbConfig(const OptionValues& values, uint64_t seed) {
  RocksdbConfig c;
  c.seed = seed;
  auto get = [&](const char* name) { return OptionValue(values, name); };
  auto count = [&](const char* name, std::optional<uint64_t>* out) -> Status {
    std::string v = get(name);
    if (v.empty()) return Status::Ok();
    auto n = ParseCount(v, std::string("--") + name);
    if (!n.ok()) return n.status();
    *out = *n;
    return Status::Ok();
  };
  auto integer = [&](const char* name, std::optional<int>* out) -> Status {
    std::string v = get(name);
    if (v.empty()) return Status::Ok();
    int n = 0;
    auto [p, ec] = std::from_chars(v.data(), v.data() + v.size(), n);
    if (ec != std::errc() || p != v.data() + v.size())
      return Status::InvalidArgument(fmt::format("--{}: expected a whole number; got '{}'", name, v));
    *out = n;
    return Status::Ok();
  };
  c.data = get("data");
  STOREBENCH_RETURN_IF_ERROR(count("num", &c.num));
  STOREBENCH_RETURN_IF_ERROR(count("key-size", &c.key_size));
  STOREBENCH_RETURN_IF_ERROR(count("value-size", &c.value_size));
  if (c.num && *c.num == 0) return Status::InvalidArgument("--num: must be at least 1");
  if (c.key_size && (*c.key_size < 1 || *c.key_size > 1'000'000))
    return Status::InvalidArgument("--key-size: expected 1 to 1000000 bytes");
  if (c.value_size && *c.value_size > (uint64_t{1} << 30))
    return Status::InvalidArgument("--value-size: expected at most 1 GiB");
  std::string fill = get("fill");
  if (fill == "seq" || fill == "fillseq") c.fill_sequential = true;
  else if (!fill.empty() && fill != "random" && fill != "fillrandom")
    return Status::InvalidArgument(fmt::format("--fill: expected random | seq; got '{}'", fill));

  std::string w = get("workload");
  if (!w.empty()) {
    const NamedWorkload* found = nullptr;
    for (const NamedWorkload& n : kWorkloads)
      if (w == n.name) found = &n;
    if (!found) return Status::InvalidArgument(fmt::format("--workload: expected {}; got '{}'", kWorkloadForms, w));
    c.workload = found->workload;
    c.workload_name = WorkloadName(c.workload);
  }
  if (std::string kd = get("key-dist"); !kd.empty()) c.key_dist = kd;
  std::optional<uint64_t> n;
  STOREBENCH_RETURN_IF_ERROR(count("batch-size", &n));
  if (n) c.batch_size = *n;
  if (c.batch_size < 1 || c.batch_size > 65536) return Status::InvalidArgument("--batch-size: expected 1 to 65536");
  n.reset();
  STOREBENCH_RETURN_IF_ERROR(count("scan-length", &n));
  if (n) c.scan_length = *n;
  if (std::string r = get("writer-rate"); !r.empty() && r != "0") {
    auto rate = ParseRate(r, "--writer-rate");
    if (!rate.ok()) return rate.status();
    c.writer_rate = *rate;
  }
  for (std::string_view name : workload::MixgraphFlagNames()) {
    std::string v = get(std::string(name).c_str());
    if (!v.empty()) STOREBENCH_RETURN_IF_ERROR(workload::SetMixgraphFlag(name, v, &c.mixgraph));
  }

  c.compression = get("compression");
  if (!c.compression.empty()) {
    auto t = ParseCompression(c.compression);
    if (!t.ok()) return t.status();
  }
  if (std::string v = get("cache-size"); !v.empty()) {
    auto size = ParseSize(v, "--cache-size");
    if (!size.ok()) return size.status();
    c.cache_size = *size;
  }
  STOREBENCH_RETURN_IF_ERROR(integer("bloom-bits", &c.bloom_bits));
  STOREBENCH_RETURN_IF_ERROR(integer("max-open-files", &c.max_open_files));
  c.direct_reads = get("direct-reads") == "1";
  c.options_file = get("options-file");
  c.db_options = get("db-options");
  c.cf_options = get("cf-options");
  c.table_options = get("table-options");
  c.statistics = get("statistics") == "1";
  std::optional<int> perf;
  STOREBENCH_RETURN_IF_ERROR(integer("perf-level", &perf));
  c.perf_level = perf.value_or(0);
  if (c.perf_level < 0 || c.perf_level > 5) return Status::InvalidArgument("--perf-level: expected 0 to 5");
  c.sync = get("sync") == "1";
  c.disable_wal = get("disable-wal") == "1";
  return c;
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
