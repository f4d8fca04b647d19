#include "storebench/backend/whisper/options.h"

#include <fmt/format.h>

#include "storebench/base/units.h"
#include "storebench/whisper/retention.h"
#include "storebench/workload/key_distribution.h"

namespace storebench::backend::wsp {
namespace {

const std::vector<std::pair<std::string, Workload>> kWorkloads = {
    {"update", Workload::kUpdate}, {"fetch", Workload::kFetch}, {"mixed", Workload::kMixed}};

// --io and --buffer together make the I/O mode.
Status ResolveIo(WhisperOptions& o) {
  if (o.io_name == "python") {
    if (o.buffer != 0)
      return Status::InvalidArgument("--io python: whisper.py 1.1.4 is unbuffered; drop --buffer (or use --io exact "
                                     "--buffer N for Python's buffered file object)");
    o.io.mode = whisper::IoMode::kPythonUnbuffered;
  } else if (o.io_name == "minimal") {
    if (o.buffer != 0) return Status::InvalidArgument("--io minimal: reads and writes whole ranges itself; drop --buffer");
    o.io.mode = whisper::IoMode::kMinimal;
  } else {
    o.io.mode = o.buffer == 0 ? whisper::IoMode::kExact : whisper::IoMode::kBuffered;
    if (o.buffer != 0) o.io.buffer_size = static_cast<size_t>(o.buffer);
  }
  return Status::Ok();
}

}  // namespace

std::string_view WorkloadName(Workload w) {
  for (const auto& [name, value] : kWorkloads)
    if (value == w) return name;
  return "?";
}

const OptionTable<WhisperOptions>& WhisperOptionTable() {
  static const OptionTable<WhisperOptions> table = [] {
    OptionTable<WhisperOptions> t("backend 'whisper'");
    t.Path("data", &WhisperOptions::data, "data directory (whisper: the metric tree and its manifest)")
        .Count("metrics", &WhisperOptions::metrics,
               "whisper: metric files (prepare default 1000; run default: as the data set)", "", 1, 100'000'000)
        .Text("retention", &WhisperOptions::retention,
              "whisper: archives (prepare default 60s:1d,5m:30d,1h:5y; run default: as the data set)", "",
              "SECONDS:POINTS or PRECISION:RETENTION, comma-separated, e.g. 60s:1d,5m:30d,1h:5y",
              [](const std::string& v) -> Status {
                auto archives = whisper::ParseRetentionList(v);
                if (!archives.ok()) return Status::InvalidArgument("--retention: " + archives.status().message());
                if (Status st = whisper::ValidateArchiveList(*archives); !st.ok())
                  return Status::InvalidArgument("--retention: " + st.message());
                return Status::Ok();
              })
        .Custom({"aggregation", OptionType::kEnum, "whisper prepare: aggregation method", "",
                 {"average", "sum", "last", "max", "min", "avg_zero", "absmax", "absmin"}, "", ""},
                [](WhisperOptions& o, const std::string& v) -> Status {
                  auto m = whisper::ParseAggregation(v);
                  if (!m.ok()) return Status::InvalidArgument("--aggregation: " + m.status().message());
                  o.aggregation = *m;
                  o.aggregation_given = true;
                  return Status::Ok();
                })
        .Custom({"xff", OptionType::kNumber, "whisper prepare: xFilesFactor (default 0.5)", "", {}, "0 to 1", ""},
                [](WhisperOptions& o, const std::string& v) -> Status {
                  auto d = ParseDouble(v, "--xff");
                  if (!d.ok()) return d.status();
                  if (!(*d >= 0 && *d <= 1)) return OutOfRange("--xff", "0 to 1", v);
                  o.x_files_factor = *d;
                  o.xff_given = true;
                  return Status::Ok();
                })
        .Flag("sparse", &WhisperOptions::sparse,
              "whisper prepare: sparse files instead of whisper.py's zero fill (hundreds of thousands of metrics)")
        .Enum("workload", &WhisperOptions::workload, kWorkloads, "workload (whisper)", "update")
        .Count("points-per-update", &WhisperOptions::points_per_update,
               "whisper: K points per metric per carbon flush (one update_many)", "10", 1, 100'000)
        .Size("buffer", &WhisperOptions::buffer,
              "whisper: 0 = exact-size pread/pwrite; 4k, 8k = Python's buffered file object of that size", "0", 0,
              64u << 20)
        .Enum("io", &WhisperOptions::io_name,
              std::vector<std::pair<std::string, std::string>>{
                  {"exact", "exact"}, {"minimal", "minimal"}, {"python", "python"}},
              "whisper: exact (with --buffer: buffered) | minimal (each range read once, one pwrite per changed "
              "range) | python (whisper.py 1.1.4's unbuffered lseek+read/write)",
              "exact")
        .Custom({"fetch-range", OptionType::kDuration, "whisper fetch: time range of one fetch, e.g. 1h, 1d", "1h", {},
                 "at least 1s", ""},
                [](WhisperOptions& o, const std::string& v) -> Status {
                  auto ns = ParseDurationNs(v, "--fetch-range");
                  if (!ns.ok()) return ns.status();
                  if (*ns < 1'000'000'000) return OutOfRange("--fetch-range", "at least 1s, e.g. 1h", v);
                  o.fetch_range_s = static_cast<int64_t>(*ns / 1'000'000'000);
                  return Status::Ok();
                })
        .Number("mix-update-ratio", &WhisperOptions::update_ratio,
                "whisper mixed: fraction of ops that are updates (the rest fetch)", "0.9", 0, 1)
        .Text("metric-dist", &WhisperOptions::metric_dist, "whisper: which metrics ops touch", "uniform",
              "uniform | zipfian[:THETA] | hotspot:KEYS,OPS | …",
              // Checked over one item so that a bad spec fails before the data set is touched.
              [](const std::string& v) { return workload::MakeKeyDistribution(v, 1, "--metric-dist").status(); })
        .Custom({"fadvise-random", OptionType::kFlag, "whisper: posix_fadvise(POSIX_FADV_RANDOM) after every open", "",
                 {}, "", ""},
                [](WhisperOptions& o, const std::string& v) { return SetFlag(&o.io.fadvise_random, v, "--fadvise-random"); })
        .Flag("header-cache", &WhisperOptions::header_cache, "whisper: cache headers by path (whisper.py's CACHE_HEADERS)")
        .Custom({"lock", OptionType::kFlag, "whisper: flock(LOCK_EX) on updates (whisper.py's LOCK)", "", {}, "", ""},
                [](WhisperOptions& o, const std::string& v) { return SetFlag(&o.io.lock, v, "--lock"); })
        .Require(ResolveIo);
    return t;
  }();
  return table;
}

}  // namespace storebench::backend::wsp
