#include "storebench/backend/whisper/options.h"

#include <fmt/format.h>

#include "storebench/base/units.h"
#include "storebench/whisper/retention.h"
#include "storebench/workload/key_distribution.h"

namespace storebench::backend::wsp {
namespace {

constexpr std::pair<const char*, Workload> kWorkloads[] = {
    {"update", Workload::kUpdate}, {"fetch", Workload::kFetch}, {"mixed", Workload::kMixed}};
constexpr std::pair<const char*, file::CacheState> kCacheStates[] = {{"asis", file::CacheState::kAsIs},
                                                                     {"warm", file::CacheState::kWarm},
                                                                     {"cold", file::CacheState::kCold},
                                                                     {"drop", file::CacheState::kDrop}};

template <typename T, size_t N>
Status Pick(const std::pair<const char*, T> (&table)[N], const OptionValues& v, const char* flag, T* out) {
  const std::string text = OptionValue(v, flag);
  if (text.empty()) return Status::Ok();
  std::string names;
  for (const auto& [name, value] : table) {
    if (text == name) {
      *out = value;
      return Status::Ok();
    }
    names += fmt::format("{}{}", names.empty() ? "" : " | ", name);
  }
  return Status::InvalidArgument(fmt::format("--{}: expected {}; got '{}'", flag, names, text));
}

}  // namespace

std::string_view WorkloadName(Workload w) {
  for (const auto& [name, value] : kWorkloads)
    if (value == w) return name;
  return "?";
}

std::string IoModeName(const whisper::IoOptions& io) {
  switch (io.mode) {
    case whisper::IoMode::kExact:
      return "exact (pread/pwrite of the bytes needed)";
    case whisper::IoMode::kMinimal:
      return "minimal (each range read once, one pwrite per changed range)";
    case whisper::IoMode::kBuffered:
      return fmt::format("buffered {} (Python file object)", FormatBytes(static_cast<double>(io.buffer_size)));
    case whisper::IoMode::kPythonUnbuffered:
      return "python (whisper.py 1.1.4: unbuffered lseek+read/write)";
  }
  return "?";
}

StatusOr<WhisperOptions> ParseWhisperOptions(const OptionValues& v) {
  WhisperOptions o;
  o.data = OptionValue(v, "data");
  if (std::string m = OptionValue(v, "metrics"); !m.empty()) {
    auto n = ParseCount(m, "--metrics");
    if (!n.ok()) return n.status();
    if (*n == 0 || *n > 100'000'000) return Status::InvalidArgument("--metrics: expected 1 to 100M metric files");
    o.metrics = *n;
  }
  o.retention = OptionValue(v, "retention");
  if (!o.retention.empty()) {
    auto archives = whisper::ParseRetentionList(o.retention);
    if (!archives.ok()) return Status::InvalidArgument("--retention: " + archives.status().message());
    if (Status st = whisper::ValidateArchiveList(*archives); !st.ok())
      return Status::InvalidArgument("--retention: " + st.message());
  }
  if (std::string a = OptionValue(v, "aggregation"); !a.empty()) {
    auto m = whisper::ParseAggregation(a);
    if (!m.ok()) return Status::InvalidArgument("--aggregation: " + m.status().message());
    o.aggregation = *m;
    o.aggregation_given = true;
  }
  if (std::string x = OptionValue(v, "xff"); !x.empty()) {
    auto d = ParseDouble(x, "--xff");
    if (!d.ok()) return d.status();
    if (!(*d >= 0 && *d <= 1)) return Status::InvalidArgument(fmt::format("--xff: expected 0 to 1; got {}", x));
    o.x_files_factor = *d;
    o.xff_given = true;
  }
  o.sparse = OptionValue(v, "sparse") == "1";

  STOREBENCH_RETURN_IF_ERROR(Pick(kWorkloads, v, "workload", &o.workload));
  STOREBENCH_RETURN_IF_ERROR(Pick(kCacheStates, v, "cache", &o.cache));
  if (std::string k = OptionValue(v, "points-per-update"); !k.empty()) {
    auto n = ParseCount(k, "--points-per-update");
    if (!n.ok()) return n.status();
    if (*n < 1 || *n > 100'000) return Status::InvalidArgument("--points-per-update: expected 1 to 100000");
    o.points_per_update = static_cast<uint32_t>(*n);
  }
  if (std::string r = OptionValue(v, "fetch-range"); !r.empty()) {
    auto ns = ParseDurationNs(r, "--fetch-range");
    if (!ns.ok()) return ns.status();
    if (*ns < 1'000'000'000) return Status::InvalidArgument("--fetch-range: at least 1s, e.g. 1h");
    o.fetch_range_s = static_cast<int64_t>(*ns / 1'000'000'000);
  }
  if (std::string r = OptionValue(v, "mix-update-ratio"); !r.empty()) {
    auto d = ParseDouble(r, "--mix-update-ratio");
    if (!d.ok()) return d.status();
    if (!(*d >= 0 && *d <= 1))
      return Status::InvalidArgument(fmt::format("--mix-update-ratio: expected 0 to 1; got {}", r));
    o.update_ratio = *d;
  }
  if (std::string d = OptionValue(v, "metric-dist"); !d.empty()) o.metric_dist = d;
  // Checked over one item so that a bad spec fails before the data set is touched.
  if (auto dist = workload::MakeKeyDistribution(o.metric_dist, 1, "--metric-dist"); !dist.ok()) return dist.status();

  uint64_t buffer = 0;
  if (std::string b = OptionValue(v, "buffer"); !b.empty()) {
    auto n = ParseSize(b, "--buffer");
    if (!n.ok()) return n.status();
    if (*n > (64u << 20)) return Status::InvalidArgument("--buffer: at most 64M");
    buffer = *n;
  }
  const std::string mode = OptionValue(v, "io");
  if (mode == "python") {
    if (buffer != 0)
      return Status::InvalidArgument("--io python: whisper.py 1.1.4 is unbuffered; drop --buffer (or use --io exact "
                                     "--buffer N for Python's buffered file object)");
    o.io.mode = whisper::IoMode::kPythonUnbuffered;
  } else if (mode == "minimal") {
    if (buffer != 0) return Status::InvalidArgument("--io minimal: reads and writes whole ranges itself; drop --buffer");
    o.io.mode = whisper::IoMode::kMinimal;
  } else if (mode.empty() || mode == "exact") {
    o.io.mode = buffer == 0 ? whisper::IoMode::kExact : whisper::IoMode::kBuffered;
    o.io.buffer_size = buffer == 0 ? o.io.buffer_size : static_cast<size_t>(buffer);
  } else {
    return Status::InvalidArgument(fmt::format("--io: expected exact | minimal | python; got '{}'", mode));
  }
  o.io.fadvise_random = OptionValue(v, "fadvise-random") == "1";
  o.io.lock = OptionValue(v, "lock") == "1";
  o.header_cache = OptionValue(v, "header-cache") == "1";
  return o;
}

std::vector<OptionSpec> WhisperOptionSpecs() {
  return {
      {"data", "data directory (whisper: the metric tree and its manifest)", "", false},
      {"metrics", "whisper: metric files (prepare default 1000; run default: as the data set)", "", false},
      {"retention", "whisper: archives, e.g. 60s:1d,5m:30d,1h:5y (prepare default; run default: as the data set)", "",
       false},
      {"aggregation", "whisper prepare: average | sum | last | max | min | avg_zero | absmax | absmin", "", false},
      {"xff", "whisper prepare: xFilesFactor, 0 to 1 (default 0.5)", "", false},
      {"sparse", "whisper prepare: sparse files instead of whisper.py's zero fill (hundreds of thousands of metrics)",
       "", true},
      {"workload", "workload (whisper: update | fetch | mixed)", "update", false},
      {"points-per-update", "whisper: K points per metric per carbon flush (one update_many)", "10", false},
      {"buffer", "whisper: 0 = exact-size pread/pwrite; 4k, 8k = Python's buffered file object of that size", "0",
       false},
      {"io",
       "whisper: exact (with --buffer) | minimal (each range read once, one pwrite per range) | python (whisper.py "
       "1.1.4's unbuffered lseek+read/write)",
       "exact", false},
      {"fetch-range", "whisper fetch: time range of one fetch, e.g. 1h, 1d", "1h", false},
      {"mix-update-ratio", "whisper mixed: fraction of ops that are updates (the rest fetch)", "0.9", false},
      {"metric-dist", "whisper: which metrics ops touch: uniform | zipfian[:θ] | hotspot:a,b | …", "uniform", false},
      {"fadvise-random", "whisper: posix_fadvise(POSIX_FADV_RANDOM) after every open", "", true},
      {"header-cache", "whisper: cache headers by path (whisper.py's CACHE_HEADERS)", "", true},
      {"lock", "whisper: flock(LOCK_EX) on updates (whisper.py's LOCK)", "", true},
      {"cache", "whisper: page-cache state before the run: warm | cold (fadvise) | drop (drop_caches, root) | asis",
       "asis", false},
  };
}

}  // namespace storebench::backend::wsp
