#include "storebench/driver/accounting.h"

#include <sys/stat.h>

namespace storebench::driver {
namespace {

using measure::MergeRule;
using measure::MetricSet;
using measure::Unit;

void ResidencyFigures(const char* when, const StatusOr<io::Residency>& r, MetricSet* out) {
  const std::string w = when;
  if (!r.ok() || !r.value().known()) {
    const std::string why =
        !r.ok() ? r.status().message()
                : "mincore would report every page resident to a process that neither owns nor may write the file";
    out->Unknown({"cache", w, "resident_bytes"}, why, Unit::kBytes);
    out->Unknown({"cache", w, "fraction"}, why, Unit::kRatio);
    out->Text({"cache", w, "source"}, "unknown");
    if (!r.ok()) out->Text({"cache", w, "error"}, r.status().message());
    if (r.ok()) out->Counter({"cache", w, "unknown_files"}, r.value().unknown_files);
    return;
  }
  const io::Residency& v = r.value();
  out->Counter({"cache", w, "resident_bytes"}, v.resident_bytes, Unit::kBytes);
  out->Counter({"cache", w, "known_bytes"}, v.known_bytes, Unit::kBytes);
  out->Ratio({"cache", w, "fraction"}, {"cache", w, "resident_bytes"}, {"cache", w, "known_bytes"});
  out->Text({"cache", w, "source"}, std::string(io::ResidencySourceName(v.source)));
  if (v.source == io::ResidencySource::kCachestat)
    out->Counter({"cache", w, "dirty_bytes"}, v.dirty_bytes, Unit::kBytes);
  else
    out->Unknown({"cache", w, "dirty_bytes"}, "only cachestat(2) reports dirty pages", Unit::kBytes);
}

}  // namespace

void ProcessAccounting::Snapshot() {
  proc_before_ = io::ReadProcIo();
  StatusOr<io::ResourceUsage> ru = io::ReadResourceUsage();
  rusage_before_ = ru.ok() ? *ru : io::ResourceUsage{};
}

void ProcessAccounting::Begin(std::span<const std::string> paths) {
  has_data_ = !paths.empty();
  dataset_bytes_ = 0;
  for (const std::string& p : paths) {
    struct stat st {};
    if (::stat(p.c_str(), &st) == 0) dataset_bytes_ += static_cast<uint64_t>(st.st_size);
  }
  if (has_data_) before_ = io::MeasureResidency(paths);
  Snapshot();
}

void ProcessAccounting::MeasureStarted() { Snapshot(); }

void ProcessAccounting::End(std::span<const std::string> paths) {
  StatusOr<io::ResourceUsage> ru = io::ReadResourceUsage();
  rusage_delta_ = ru.ok() ? *ru - rusage_before_ : io::ResourceUsage{};
  StatusOr<io::ProcIo> proc = io::ReadProcIo();
  if (proc.ok() && proc_before_.ok()) {
    proc_delta_ = *proc - *proc_before_;
  } else {
    proc_delta_ = proc.ok() ? proc_before_.status() : proc.status();
  }
  if (has_data_) after_ = io::MeasureResidency(paths);
}

void ProcessAccounting::Figures(io::CacheState state, MetricSet* out) const {
  const io::ResourceUsage& ru = rusage_delta_;
  out->Gauge({"cpu", "user_s"}, static_cast<double>(ru.user_ns) / 1e9, Unit::kSeconds, MergeRule::kSum);
  out->Gauge({"cpu", "sys_s"}, static_cast<double>(ru.system_ns) / 1e9, Unit::kSeconds, MergeRule::kSum);
  out->Counter({"cpu", "voluntary_switches"}, ru.voluntary_switches);
  out->Counter({"cpu", "involuntary_switches"}, ru.involuntary_switches);
  out->Counter({"cpu", "major_faults"}, ru.major_faults);
  out->Counter({"cpu", "minor_faults"}, ru.minor_faults);

  out->Text({"io", "scope"}, kScope);
  if (proc_delta_.ok()) {
    const io::ProcIo& p = proc_delta_.value();
    out->Counter({"io", "rchar_bytes"}, p.rchar, Unit::kBytes);
    out->Counter({"io", "syscr"}, p.syscr, Unit::kCalls);
    out->Counter({"io", "device_read_bytes"}, p.read_bytes, Unit::kBytes);
    out->Counter({"io", "device_write_bytes"}, p.write_bytes, Unit::kBytes);
  } else {
    for (const char* k : {"rchar_bytes", "syscr", "device_read_bytes", "device_write_bytes"})
      out->Unknown({"io", k}, proc_delta_.status().message(), Unit::kBytes);
    out->Text({"io", "proc_io_error"}, proc_delta_.status().message());
  }
  // Relative to what the backend's read path asked for, when it says (io.requested_bytes).
  out->Ratio({"io", "read_amplification"}, {"io", "device_read_bytes"}, {"io", "requested_bytes"});
  out->Ratio({"io", "rchar_amplification"}, {"io", "rchar_bytes"}, {"io", "requested_bytes"});
  if (!has_data_) return;
  out->Text({"cache", "state"}, std::string(io::CacheStateName(state)));
  out->Counter({"cache", "dataset_bytes"}, dataset_bytes_, Unit::kBytes);
  ResidencyFigures("before", before_, out);
  ResidencyFigures("after", after_, out);
}

}  // namespace storebench::driver
