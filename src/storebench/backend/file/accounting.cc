#include "storebench/backend/file/accounting.h"

#include <fmt/format.h>

namespace storebench::backend::file {

using measure::MergeRule;
using measure::Unit;

void FileAccounting::Begin() {
  std::lock_guard<std::mutex> lock(mu_);
  io_ = {};
  harness_ = {};
  groups_.clear();
  first_error_ = Status::Ok();
  first_verify_error_ = Status::Ok();
}

Status FileAccounting::End() {
  std::lock_guard<std::mutex> lock(mu_);
  return first_verify_error_;
}

void FileAccounting::AddWorker(const FileWorkerTotals& t) {
  std::lock_guard<std::mutex> lock(mu_);
  io_ += t.io;
  harness_.samples += t.harness.samples;
  harness_.window_ns += t.harness.window_ns;
  harness_.method_ns += t.harness.method_ns;
  harness_.dropped += t.harness.dropped;
  Group& g = groups_[t.group];
  g.ops += t.ops;
  g.requested_bytes += t.io.bytes_requested;
  if (t.scans) {
    g.scans = true;
    if (t.first_pass_ns == 0) g.all_passed = false;
    g.first_pass_ns = std::max(g.first_pass_ns, t.first_pass_ns);
  }
  if (first_error_.ok() && !t.first_error.ok()) first_error_ = t.first_error;
  if (first_verify_error_.ok() && !t.first_verify_error.ok()) first_verify_error_ = t.first_verify_error;
}

uint64_t FileAccounting::Ops() const {
  uint64_t n = 0;
  for (const auto& [id, g] : groups_) n += g.ops;
  return n;
}

void FileAccounting::Figures(const Dataset& dataset, const FileOptions& o, measure::MetricSet* out) const {
  std::lock_guard<std::mutex> lock(mu_);
  out->Counter({"io", "ops"}, Ops(), Unit::kOps);
  out->Counter({"io", "reads"}, io_.requests, Unit::kCalls);
  out->Counter({"io", "requested_bytes"}, io_.bytes_requested, Unit::kBytes);
  out->Counter({"io", "returned_bytes"}, io_.bytes_returned, Unit::kBytes);
  out->Counter({"io", "transferred_bytes"}, io_.bytes_transferred, Unit::kBytes);
  out->Counter({"io", "syscalls"}, io_.DataSyscalls(), Unit::kCalls);
  out->Counter({"io", "syscalls_total"}, io_.TotalSyscalls(), Unit::kCalls);
  for (size_t k = 0; k < io::kSyscallKinds; ++k) {
    if (io_.syscalls[k] != 0)
      out->Counter({"io", "syscalls_by_kind", std::string(io::SyscallName(static_cast<io::Syscall>(k)))},
                   io_.syscalls[k], Unit::kCalls);
  }
  out->Ratio({"io", "syscalls_per_op"}, {"io", "syscalls"}, {"io", "ops"}, 1, Unit::kCount);
  out->Counter({"io", "inline_reads"}, io_.inline_reads, Unit::kCalls);
  out->Counter({"io", "pool_reads"}, io_.pool_reads, Unit::kCalls);
  out->Counter({"io", "resubmissions"}, io_.resubmissions, Unit::kCalls);
  out->Counter({"io", "errors"}, io_.errors);
  out->Ratio({"io", "syscall_amplification"}, {"io", "transferred_bytes"}, {"io", "requested_bytes"});

  out->Counter({"file", "harness", "samples"}, harness_.samples, Unit::kOps);
  out->Counter({"file", "harness", "window_ns"}, harness_.window_ns, Unit::kNanoseconds);
  out->Counter({"file", "harness", "method_ns"}, harness_.method_ns, Unit::kNanoseconds);
  out->Counter({"file", "harness", "outside_ns"}, harness_.window_ns - harness_.method_ns, Unit::kNanoseconds);
  out->Counter({"file", "harness", "dropped"}, harness_.dropped, Unit::kOps);
  out->Ratio({"file", "harness_ns_per_op"}, {"file", "harness", "outside_ns"}, {"file", "harness", "samples"}, 1,
             Unit::kNanoseconds)
      .summary = "harness ns/op";
  out->Ratio({"file", "method_ns_per_op"}, {"file", "harness", "method_ns"}, {"file", "harness", "samples"}, 1,
             Unit::kNanoseconds);

  out->Text({"file", "workload"}, std::string(WorkloadName(o.workload))).summary = "workload";
  out->Text({"file", "method"}, o.method).summary = "method";
  if (!first_error_.ok()) out->Text({"file", "first_error"}, first_error_.message());
  out->Gauge({"file", "block_size"}, static_cast<double>(o.block_size), Unit::kBytes, MergeRule::kSame).summary =
      "block";
  out->Flag({"file", "direct"}, o.direct).summary = "O_DIRECT";
  out->Flag({"file", "prefetch"}, o.prefetch).merge = MergeRule::kSame;
  out->Flag({"file", "verify"}, o.verify).merge = MergeRule::kSame;
  out->Gauge({"file", "files"}, static_cast<double>(dataset.files), Unit::kCount, MergeRule::kSame);
  out->Gauge({"file", "file_size"}, static_cast<double>(dataset.file_size), Unit::kBytes, MergeRule::kSame);
  for (const auto& [id, g] : groups_) {
    const std::string group = std::to_string(id);
    out->Counter({"file", "groups", group, "ops"}, g.ops, Unit::kOps);
    out->Counter({"file", "groups", group, "requested_bytes"}, g.requested_bytes, Unit::kBytes);
    if (g.scans) {
      if (g.all_passed) {
        out->Gauge({"file", "groups", group, "first_pass_s"}, static_cast<double>(g.first_pass_ns) / 1e9,
                   Unit::kSeconds, MergeRule::kMax)
            .summary = fmt::format("group {} first full scan", group);
      } else {
        out->Unknown({"file", "groups", group, "first_pass_s"}, "unfinished", Unit::kSeconds);
      }
    }
  }
  if (o.workload == Workload::kColumns) {
    out->Gauge({"file", "columns"}, static_cast<double>(std::min<uint64_t>(o.columns, dataset.files)), Unit::kCount,
               MergeRule::kSame);
    out->Flag({"file", "serial_columns"}, o.serial_columns).merge = MergeRule::kSame;
  }
  if (o.workload != Workload::kSeqRead) out->Text({"file", "offset_dist"}, o.offset_dist);
}

}  // namespace storebench::backend::file
