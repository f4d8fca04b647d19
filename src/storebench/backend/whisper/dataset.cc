#include "storebench/backend/whisper/dataset.h"

#include "storebench/base/atomic_file.h"

#include <fcntl.h>
#include <sys/statvfs.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>
#include <optional>

#include <fmt/format.h>

#include "storebench/backend/manifest_fields.h"
#include "storebench/base/units.h"
#include "storebench/whisper/whisper.h"
#include "storebench/workload/random.h"

namespace storebench::backend::wsp {
namespace {

constexpr int kFormat = 1;

std::string ManifestPath(const std::string& dir) { return dir + "/" + kManifestName; }

std::string PrepareHint(const std::string& dir, uint64_t metrics, const std::string& retention) {
  return fmt::format("storebench prepare --backend whisper --data {} --metrics {} --retention {}", dir, metrics,
                     retention);
}

whisper::Header ExpectedHeader(const Dataset& d) {
  whisper::Header h;
  h.aggregation = d.aggregation;
  h.x_files_factor = static_cast<float>(d.x_files_factor);
  uint64_t offset = whisper::kMetadataSize + whisper::kArchiveInfoSize * d.archives.size();
  for (const whisper::ArchiveSpec& a : d.archives) {
    h.archives.push_back({static_cast<uint32_t>(offset), a.seconds_per_point, a.points});
    h.max_retention = std::max<uint32_t>(h.max_retention, a.seconds_per_point * a.points);
    offset += uint64_t{a.points} * whisper::kPointSize;
  }
  return h;
}

void FillPaths(Dataset& d) {
  d.paths.clear();
  d.paths.reserve(d.metrics);
  for (uint64_t i = 0; i < d.metrics; ++i) d.paths.push_back(MetricPath(d.dir, i));
  d.file_bytes = ExpectedHeader(d).archives.back().end();
}

// The data set the options ask for (defaults filled in), without paths.
StatusOr<Dataset> Wanted(const WhisperOptions& o) {
  Dataset d;
  d.dir = o.data;
  d.metrics = o.metrics ? o.metrics : kDefaultMetrics;
  auto archives = whisper::ParseRetentionList(o.retention.empty() ? kDefaultRetention : o.retention);
  if (!archives.ok()) return Status::InvalidArgument("--retention: " + archives.status().message());
  STOREBENCH_RETURN_IF_ERROR(whisper::ValidateArchiveList(*archives));
  d.archives = std::move(*archives);
  uint64_t bytes = whisper::kMetadataSize + whisper::kArchiveInfoSize * d.archives.size();
  for (const whisper::ArchiveSpec& a : d.archives) bytes += uint64_t{a.points} * whisper::kPointSize;
  if (bytes > UINT32_MAX)
    return Status::InvalidArgument(fmt::format("--retention: a metric file of {} would take {}, beyond whisper's "
                                               "32-bit offsets (4 GiB); give fewer points",
                                               d.Retention(), FormatBytes(static_cast<double>(bytes))));
  d.aggregation = o.aggregation;
  d.x_files_factor = static_cast<float>(o.x_files_factor);  // as the file stores it
  d.sparse = o.sparse;
  return d;
}

StatusOr<Dataset> ReadManifest(const std::string& dir) {
  auto j = ReadManifestFile(ManifestPath(dir));
  if (!j.ok()) return j.status();
  return ParseManifest(*j, dir);
}

// The free space of `dir`, or of its nearest existing parent; nullopt when unknown.
std::optional<uint64_t> FreeBytes(std::string dir) {
  for (;;) {
    struct statvfs vfs {};
    if (::statvfs(dir.c_str(), &vfs) == 0) return static_cast<uint64_t>(vfs.f_bavail) * vfs.f_frsize;
    auto slash = dir.find_last_of('/');
    if (slash == std::string::npos) dir = ".";
    else if (slash == 0) dir = "/";
    else dir.resize(slash);
    if (dir == "/" || dir == ".") {
      if (::statvfs(dir.c_str(), &vfs) == 0) return static_cast<uint64_t>(vfs.f_bavail) * vfs.f_frsize;
      return std::nullopt;
    }
  }
}

Status WriteManifest(const Dataset& d) {
  nlohmann::json archives = nlohmann::json::array();
  for (const auto& a : d.archives) archives.push_back({a.seconds_per_point, a.points});
  const std::string text = nlohmann::json{{"format", kFormat},        {"metrics", d.metrics},
                                          {"retention", d.Retention()}, {"archives", archives},
                                          {"aggregation", whisper::AggregationName(d.aggregation)},
                                          {"xff", d.x_files_factor},    {"sparse", d.sparse},
                                          {"start", d.start},           {"metrics_per_dir", kMetricsPerDir},
                                          {"file_bytes", d.file_bytes}, {"complete", true}}
                               .dump(1) +
                           "\n";
  sync();  // the metric files reach the disk before the manifest says the set is complete
  return WriteFileAtomically(ManifestPath(d.dir), text);
}

// Gives every archive of `path` a base point placing d.start at a metric-specific slot.
Status AgeFile(const Dataset& d, const whisper::Header& h, uint64_t metric) {
  auto f = whisper::WhisperFile::Open(d.paths[metric], whisper::OpenMode::kReadWrite, {});
  if (!f.ok()) return f.status();
  for (size_t a = 0; a < h.archives.size(); ++a) {
    const whisper::ArchiveInfo& ai = h.archives[a];
    uint64_t key = metric * 131 + a;  // a fixed, well-spread position per metric and archive
    const int64_t back = static_cast<int64_t>(workload::SplitMix64(&key) % ai.retention());
    const whisper::Point base{static_cast<uint32_t>(whisper::AlignDown(d.start - back, ai.seconds_per_point)), 0.0};
    uint8_t buf[whisper::kPointSize];
    whisper::EncodePoint(base, buf);
    STOREBENCH_RETURN_IF_ERROR((*f)->WriteAt(ai.offset, buf, sizeof(buf)));
  }
  return (*f)->Close();
}

// Makes metric file `i`, or keeps it when an earlier, interrupted prepare made it with the right header and
// size. Without a manifest the tree is an unfinished prepare's (killed at any moment), so a file that does not
// match — another schema, cut short, a torn header — is made again.
Status MakeFile(const Dataset& d, const whisper::Header& want, uint64_t i) {
  const std::string& path = d.paths[i];
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0) {
    auto h = whisper::Info(path);
    if (h.ok() && *h == want && static_cast<uint64_t>(st.st_size) == d.file_bytes) return AgeFile(d, want, i);
    if (::unlink(path.c_str()) != 0) return ErrnoStatus("unlink", path, errno);
  }
  whisper::CreateOptions co;
  co.aggregation = d.aggregation;
  co.x_files_factor = d.x_files_factor;
  co.allocation = d.sparse ? whisper::Allocation::kSparse : whisper::Allocation::kZeroFill;
  STOREBENCH_RETURN_IF_ERROR(whisper::Create(path, d.archives, co));
  return AgeFile(d, want, i);
}

Status MakeDirs(const std::string& file) {
  for (size_t slash = file.find('/', 1); slash != std::string::npos; slash = file.find('/', slash + 1)) {
    const std::string dir = file.substr(0, slash);
    if (mkdir(dir.c_str(), 0755) != 0 && errno != EEXIST) return ErrnoStatus("mkdir", dir, errno);
  }
  return Status::Ok();
}

bool SameSettings(const Dataset& a, const Dataset& b) {
  return a.metrics == b.metrics && a.archives == b.archives && a.aggregation == b.aggregation &&
         static_cast<float>(a.x_files_factor) == static_cast<float>(b.x_files_factor);
}

}  // namespace

std::string Dataset::Retention() const {
  std::string s;
  for (const auto& a : archives) s += fmt::format("{}{}:{}", s.empty() ? "" : ",", a.seconds_per_point, a.points);
  return s;
}

std::string Dataset::Describe() const {
  return fmt::format("{} metrics × {} ({}{}), {}, {}, xff {}", metrics, FormatBytes(static_cast<double>(file_bytes)),
                     FormatBytes(static_cast<double>(total_bytes())), sparse ? ", sparse" : "", Retention(),
                     whisper::AggregationName(aggregation), x_files_factor);
}

std::string MetricPath(const std::string& dir, uint64_t i) {
  return fmt::format("{}/servers/host-{:04}/cpu/metric-{:07}.wsp", dir, i / kMetricsPerDir, i);
}

StatusOr<Dataset> ParseManifest(const nlohmann::json& j, const std::string& dir) {
  ManifestFields m(ManifestPath(dir), j);
  Dataset d;
  d.dir = dir;
  m.Count("format", kFormat, kFormat);
  d.metrics = m.Count("metrics", 1, kMaxMetrics);
  for (const auto& [spp, points] : m.Pairs("archives", UINT32_MAX, whisper::kMaxArchives))
    d.archives.push_back({static_cast<uint32_t>(spp), static_cast<uint32_t>(points)});
  auto method = whisper::ParseAggregation(m.Choice("aggregation", {"average", "sum", "last", "max", "min", "avg_zero",
                                                                   "absmax", "absmin"}));
  if (method.ok()) d.aggregation = *method;
  d.x_files_factor = m.Number("xff", 0, 1);
  d.sparse = m.Flag("sparse");
  d.start = m.Integer("start", 0, UINT32_MAX);
  m.RequireComplete();
  if (m.status().ok() && !whisper::ValidateArchiveList(d.archives).ok())
    m.Fail("archives", "is not a valid whisper archive list");
  if (!m.status().ok()) return m.status();
  FillPaths(d);
  return d;
}

StatusOr<Dataset> PrepareDataset(const WhisperOptions& o, uint64_t seed, bool* created,
                                 const PrepareProgressFn& progress, const std::atomic<bool>* stop) {
  (void)seed;  // the files depend on the metric ids only, so any seed reuses a set
  *created = false;
  if (o.data.empty())
    return Status::InvalidArgument("--data: give the directory for the data set, e.g. --data /mnt/sb/whisper");
  auto want = Wanted(o);
  if (!want.ok()) return want.status();
  FillPaths(*want);
  if (std::optional<uint64_t> free = FreeBytes(o.data); !want->sparse && free && *free < want->total_bytes() &&
                                                         !ReadManifest(o.data).ok())
    return Status::IOError(fmt::format("prepare: the data set needs {} ({} metrics of {}) and {} has {} free; "
                                       "nothing was written. Free space, choose another --data, or use --sparse",
                                       FormatBytes(static_cast<double>(want->total_bytes())), want->metrics,
                                       FormatBytes(static_cast<double>(want->file_bytes)), o.data,
                                       FormatBytes(static_cast<double>(*free))));
  if (mkdir(o.data.c_str(), 0755) != 0 && errno != EEXIST) return ErrnoStatus("mkdir", o.data, errno);
  StatusOr<Dataset> existing = ReadManifest(o.data);
  if (existing.ok()) {
    if (SameSettings(*existing, *want)) return existing;
    return Status::InvalidArgument(fmt::format(
        "--data {}: already holds a different whisper data set ({}); asked for {} metrics of {}, {}, xff {}. Choose "
        "another directory, or remove {}/servers and {}/{} first",
        o.data, existing->Describe(), want->metrics, want->Retention(), whisper::AggregationName(want->aggregation),
        want->x_files_factor, o.data, o.data, kManifestName));
  }
  if (existing.status().code() != Status::Code::kNotFound) return existing.status();

  Dataset d = std::move(*want);
  const whisper::Header header = ExpectedHeader(d);
  for (uint64_t i = 0; i < d.metrics; ++i) {
    if (stop && stop->load(std::memory_order_relaxed))
      return Status::Interrupted(fmt::format("prepare interrupted after {} of {} metric files; run the same prepare "
                                             "again to resume it",
                                             i, d.metrics));
    if (i % kMetricsPerDir == 0) STOREBENCH_RETURN_IF_ERROR(MakeDirs(d.paths[i]));
    Status st = MakeFile(d, header, i);
    if (!st.ok()) {
      if (st.code() != Status::Code::kIOError) return st;
      return Status::IOError(fmt::format("{} (the data set needs {}{}; run the same prepare again to resume)",
                                         st.message(), FormatBytes(static_cast<double>(d.total_bytes())),
                                         d.sparse ? " apparent" : ""));
    }
    if (progress) progress({"writing", i + 1, d.metrics, "metrics"});
  }
  if (progress) progress({"syncing", 0, 0, "metrics"});
  STOREBENCH_RETURN_IF_ERROR(WriteManifest(d));
  *created = true;
  return d;
}

StatusOr<Dataset> OpenDataset(const WhisperOptions& o) {
  const std::string retention = o.retention.empty() ? kDefaultRetention : o.retention;
  const uint64_t metrics = o.metrics ? o.metrics : kDefaultMetrics;
  if (o.data.empty()) {
    return Status::InvalidArgument(fmt::format(
        "--data: the whisper backend needs a data set directory; make one with `{}`",
        PrepareHint("DIR", metrics, retention)));
  }
  StatusOr<Dataset> d = ReadManifest(o.data);
  if (!d.ok()) {
    if (d.status().code() != Status::Code::kNotFound) return d.status();
    return Status::NotFound(fmt::format("--data {}: no complete whisper data set there ({} is missing); make one "
                                        "with `{}`",
                                        o.data, kManifestName, PrepareHint(o.data, metrics, retention)));
  }
  auto want = Wanted(o);
  if (!want.ok()) return want.status();
  std::string differs;
  if (o.metrics && o.metrics != d->metrics) differs += fmt::format(" --metrics {}", o.metrics);
  if (!o.retention.empty() && want->archives != d->archives) differs += fmt::format(" --retention {}", o.retention);
  if (o.aggregation_given && o.aggregation != d->aggregation)
    differs += fmt::format(" --aggregation {}", whisper::AggregationName(o.aggregation));
  if (o.xff_given && static_cast<float>(o.x_files_factor) != static_cast<float>(d->x_files_factor))
    differs += fmt::format(" --xff {}", o.x_files_factor);
  if (!differs.empty()) {
    return Status::InvalidArgument(fmt::format(
        "--data {}: the data set there is {}, but this run asks for{}; drop those flags to use it as it is, or make "
        "a matching one with `{}`",
        o.data, d->Describe(), differs, PrepareHint("OTHER_DIR", want->metrics, o.retention.empty() ? d->Retention()
                                                                                                  : o.retention)));
  }
  for (const std::string& p : d->paths) {
    struct stat st {};
    if (stat(p.c_str(), &st) != 0) {
      return Status::Corruption(fmt::format("--data {}: {} is missing ({}); prepare the data set again", o.data, p,
                                            std::strerror(errno)));
    }
    if (static_cast<uint64_t>(st.st_size) != d->file_bytes) {
      return Status::Corruption(fmt::format("--data {}: {} has {} bytes, a metric file of this schema has {}; "
                                            "prepare the data set again",
                                            o.data, p, st.st_size, d->file_bytes));
    }
  }
  return d;
}

}  // namespace storebench::backend::wsp
