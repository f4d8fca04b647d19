#include "storebench/backend/whisper/accounting.h"

#include <algorithm>
#include <array>

#include <fmt/format.h>

#include "storebench/base/units.h"

namespace storebench::backend::wsp {
namespace {

using measure::MergeRule;
using measure::MetricSet;
using measure::Unit;

constexpr double kPageSize = 4096;

std::array<std::pair<const char*, uint64_t>, 10> Kinds(const whisper::SyscallCounters& c) {
  return {{{"open", c.open},
           {"close", c.close},
           {"pread", c.pread},
           {"pwrite", c.pwrite},
           {"read", c.read},
           {"write", c.write},
           {"lseek", c.lseek},
           {"flock", c.flock},
           {"fadvise", c.fadvise},
           {"fstat", c.fstat}}};
}

// whisper.<op>.*: counters, and the per-op ratios over them.
void OpFigures(const char* op, const OpTotals& t, MetricSet* out) {
  auto p = [&](std::initializer_list<const char*> rest) {
    measure::MetricPath path{"whisper", op};
    for (const char* r : rest) path.emplace_back(r);
    return path;
  };
  out->Counter(p({"ops"}), t.ops, Unit::kOps);
  out->Counter(p({"errors"}), t.errors);
  out->Counter(p({"syscalls"}), t.io.syscalls(), Unit::kCalls);
  out->Counter(p({"bytes_read"}), t.io.bytes_read, Unit::kBytes);
  out->Counter(p({"bytes_written"}), t.io.bytes_written, Unit::kBytes);
  out->Counter(p({"requested_bytes"}), t.requested_read_bytes, Unit::kBytes);
  out->Ratio(p({"syscalls_per_op"}), p({"syscalls"}), p({"ops"}), 1, Unit::kCount);
  for (const auto& [kind, count] : Kinds(t.io)) {
    if (count == 0) continue;
    out->Counter(p({"syscall_counts", kind}), count, Unit::kCalls);
    out->Ratio(p({"syscalls_per_op_by_kind", kind}), p({"syscall_counts", kind}), p({"ops"}), 1, Unit::kCount);
  }
  out->Ratio(p({"bytes_read_per_op"}), p({"bytes_read"}), p({"ops"}), 1, Unit::kBytes);
  out->Ratio(p({"bytes_written_per_op"}), p({"bytes_written"}), p({"ops"}), 1, Unit::kBytes);
  out->Ratio(p({"requested_bytes_per_op"}), p({"requested_bytes"}), p({"ops"}), 1, Unit::kBytes);
}

}  // namespace

OpTotals& OpTotals::operator+=(const OpTotals& o) {
  ops += o.ops, errors += o.errors, requested_read_bytes += o.requested_read_bytes, points += o.points;
  io += o.io;
  return *this;
}

OpTotals OpTotals::operator-(const OpTotals& o) const {
  OpTotals d;
  d.ops = ops - o.ops, d.errors = errors - o.errors, d.requested_read_bytes = requested_read_bytes - o.requested_read_bytes;
  d.points = points - o.points;
  d.io = io - o.io;
  return d;
}

void WhisperAccounting::Begin(const Dataset& dataset) {
  std::lock_guard<std::mutex> lock(mu_);
  update_ = {}, fetch_ = {};
  last_now_ = dataset.start;
  first_error_ = Status::Ok();
}

Status WhisperAccounting::End() {
  std::lock_guard<std::mutex> lock(mu_);
  return first_error_;
}

void WhisperAccounting::AddWorker(const WhisperWorkerTotals& t) {
  std::lock_guard<std::mutex> lock(mu_);
  update_ += t.update;
  fetch_ += t.fetch;
  last_now_ = std::max(last_now_, t.last_now);
  if (first_error_.ok() && !t.first_error.ok()) first_error_ = t.first_error;
}

OpTotals WhisperAccounting::All() const {
  OpTotals all = update_;
  all += fetch_;
  return all;
}

namespace {

// The page cache's hit ratios, by page lookup and by byte, from the syscalls' counts.
void AddCacheFigures(const whisper::SyscallCounters& c, MetricSet* out) {
  // Page-cache hit ratio as BCC's cachestat counts it (page insertions, readahead
  // included, are misses), estimated: 1 - pages read from the device / pages the
  // data syscalls looked up (one per syscall + bytes moved / 4 KiB).
  const uint64_t lookup_bytes = (c.read + c.pread + c.write + c.pwrite) * static_cast<uint64_t>(kPageSize) +
                                c.bytes_read + c.bytes_written;
  out->Counter({"whisper", "page_lookup_bytes"}, lookup_bytes, Unit::kBytes);
  measure::Metric& hit = out->Ratio({"cache", "hit_ratio"}, {"io", "device_read_bytes"}, {"whisper", "page_lookup_bytes"});
  hit.complement = true;
  hit.summary = "hit ratio by page lookup";
  out->Text({"cache", "hit_ratio_basis"},
            "1 - pages read from the device (/proc/self/io read_bytes / 4 KiB, readahead included) / "
            "pages the data syscalls looked up (one per syscall + bytes moved / 4 KiB)");
  // The lookup ratio counts a page per syscall, so small reads keep it near 1
  // on a cold start (0.994 beside 5.8 MiB read from the device); weighted by
  // bytes, it says which share of what the reads returned the device supplied.
  // Both counters add when results merge, so the merged ratio is exact.
  measure::Metric& byte_hit =
      out->Ratio({"cache", "byte_hit_ratio"}, {"io", "device_read_bytes"}, {"io", "transferred_bytes"});
  byte_hit.complement = true;
  byte_hit.summary = "hit ratio by byte";
  out->Text({"cache", "byte_hit_ratio_basis"},
            "1 - bytes read from the device (/proc/self/io read_bytes, readahead included) / bytes the read "
            "syscalls returned (io.transferred_bytes); 0 when readahead brought in more than they returned");
}

// The run's settings and data set, each as the merge of two ranks keeps it.
void AddSettingFigures(const Dataset& dataset, const WhisperOptions& o, MetricSet* out) {
  out->Text({"whisper", "workload"}, std::string(WorkloadName(o.workload))).summary = "workload";
  out->Text({"whisper", "io_mode"}, std::string(whisper::IoModeName(o.io.mode))).summary = "io";
  out->Gauge({"whisper", "buffer_bytes"},
             static_cast<double>(o.io.mode == whisper::IoMode::kBuffered ? o.io.buffer_size : 0), Unit::kBytes,
             MergeRule::kSame);
  out->Flag({"whisper", "fadvise_random"}, o.io.fadvise_random).merge = MergeRule::kSame;
  out->Flag({"whisper", "header_cache"}, o.header_cache).merge = MergeRule::kSame;
  out->Flag({"whisper", "lock"}, o.io.lock).merge = MergeRule::kSame;
  out->Gauge({"whisper", "points_per_update"}, o.points_per_update, Unit::kCount, MergeRule::kSame).summary = "K";
  out->Text({"whisper", "metric_dist"}, o.metric_dist);
  out->Gauge({"whisper", "metrics"}, static_cast<double>(dataset.metrics), Unit::kCount, MergeRule::kSame).summary =
      "metrics";
  out->Text({"whisper", "retention"}, dataset.Retention());
  out->Gauge({"whisper", "file_bytes"}, static_cast<double>(dataset.file_bytes), Unit::kBytes, MergeRule::kSame);
  out->Gauge({"whisper", "simulated_time", "start"}, static_cast<double>(dataset.start), Unit::kCount,
             MergeRule::kMin);
}

}  // namespace

void WhisperAccounting::Figures(const Dataset& dataset, const WhisperOptions& o, MetricSet* out) const {
  std::lock_guard<std::mutex> lock(mu_);
  const OpTotals all = All();
  if (!first_error_.ok()) out->Text({"first_error"}, first_error_.message());
  out->Counter({"io", "ops"}, all.ops, Unit::kOps);
  out->Counter({"io", "requested_bytes"}, all.requested_read_bytes, Unit::kBytes);
  out->Counter({"io", "transferred_bytes"}, all.io.bytes_read, Unit::kBytes);
  out->Counter({"io", "written_bytes"}, all.io.bytes_written, Unit::kBytes);
  out->Counter({"io", "syscalls"}, all.io.syscalls(), Unit::kCalls);
  for (const auto& [kind, count] : Kinds(all.io))
    if (count) out->Counter({"io", "syscalls_by_kind", kind}, count, Unit::kCalls);
  out->Ratio({"io", "syscalls_per_op"}, {"io", "syscalls"}, {"io", "ops"}, 1, Unit::kCount);
  out->Counter({"io", "errors"}, all.errors);
  out->Ratio({"io", "syscall_amplification"}, {"io", "transferred_bytes"}, {"io", "requested_bytes"});

  AddCacheFigures(all.io, out);
  AddSettingFigures(dataset, o, out);
  out->Gauge({"whisper", "simulated_time", "end"}, static_cast<double>(last_now_), Unit::kCount, MergeRule::kMax);
  out->Counter({"whisper", "updates"}, update_.ops, Unit::kOps);
  out->Counter({"whisper", "fetches"}, fetch_.ops, Unit::kOps);
  out->Counter({"whisper", "points_written"}, update_.points);
  OpFigures("update", update_, out);
  OpFigures("fetch", fetch_, out);
  out->Ratio({"whisper", "syscalls_per_update"}, {"whisper", "update", "syscalls"}, {"whisper", "update", "ops"}, 1,
             Unit::kCount)
      .summary = "syscalls/update";
  out->Ratio({"whisper", "bytes_read_per_update"}, {"whisper", "update", "bytes_read"}, {"whisper", "update", "ops"}, 1,
             Unit::kBytes)
      .summary = "read/update";
  out->Ratio({"whisper", "bytes_written_per_update"}, {"whisper", "update", "bytes_written"},
             {"whisper", "update", "ops"}, 1, Unit::kBytes)
      .summary = "written/update";
  out->Ratio({"whisper", "requested_bytes_per_update"}, {"whisper", "update", "requested_bytes"},
             {"whisper", "update", "ops"}, 1, Unit::kBytes);
  if (o.workload != Workload::kUpdate) {
    out->Gauge({"whisper", "fetch_range_s"}, static_cast<double>(o.fetch_range_s), Unit::kSeconds, MergeRule::kSame);
    out->Ratio({"whisper", "syscalls_per_fetch"}, {"whisper", "fetch", "syscalls"}, {"whisper", "fetch", "ops"}, 1,
               Unit::kCount)
        .summary = "syscalls/fetch";
  }
  if (o.workload == Workload::kMixed)
    out->Gauge({"whisper", "mix_update_ratio"}, o.update_ratio, Unit::kRatio, MergeRule::kSame);
}

}  // namespace storebench::backend::wsp
