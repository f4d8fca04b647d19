#include "storebench/backend/file/accounting.h"

#include <fmt/format.h>

#include "storebench/backend/file/cache_state.h"
#include "storebench/base/units.h"

namespace storebench::backend::file {

void RunAccounting::Begin(const Dataset& dataset) {
  std::lock_guard<std::mutex> lock(mu_);
  io_ = {};
  groups_.clear();
  first_error_ = Status::Ok();
  window_.Begin(dataset.paths);
}

void RunAccounting::MeasureStarted() {
  std::lock_guard<std::mutex> lock(mu_);
  window_.MeasureStarted();
}

Status RunAccounting::End(const Dataset& dataset) {
  std::lock_guard<std::mutex> lock(mu_);
  window_.End(dataset.paths);
  return first_error_;
}

void RunAccounting::AddWorker(const WorkerTotals& t) {
  std::lock_guard<std::mutex> lock(mu_);
  io_ += t.io;
  Group& g = groups_[t.group];
  g.ops += t.ops;
  g.requested_bytes += t.io.bytes_requested;
  if (t.scans) {
    g.scans = true;
    if (t.first_pass_ns == 0) g.all_passed = false;
    g.first_pass_ns = std::max(g.first_pass_ns, t.first_pass_ns);
  }
  if (first_error_.ok() && !t.first_error.ok()) first_error_ = t.first_error;
}

uint64_t RunAccounting::Ops() const {
  uint64_t n = 0;
  for (const auto& [id, g] : groups_) n += g.ops;
  return n;
}

double RunAccounting::ReadAmplification() const {
  if (!window_.proc_delta().ok() || io_.bytes_requested == 0) return -1;
  return static_cast<double>(window_.proc_delta().value().read_bytes) / static_cast<double>(io_.bytes_requested);
}

nlohmann::json RunAccounting::Json(const Dataset& dataset, const FileOptions& o) const {
  std::lock_guard<std::mutex> lock(mu_);
  const uint64_t ops = Ops();
  nlohmann::json by_kind = nlohmann::json::object();
  for (size_t k = 0; k < io::kSyscallKinds; ++k) {
    if (io_.syscalls[k] != 0) by_kind[std::string(io::SyscallName(static_cast<io::Syscall>(k)))] = io_.syscalls[k];
  }
  nlohmann::json io = {
      {"scope", RunWindow::kScope},
      {"ops", ops},
      {"reads", io_.requests},
      {"requested_bytes", io_.bytes_requested},
      {"returned_bytes", io_.bytes_returned},
      {"transferred_bytes", io_.bytes_transferred},
      {"syscalls", io_.DataSyscalls()},
      {"syscalls_total", io_.TotalSyscalls()},
      {"syscalls_by_kind", by_kind},
      {"syscalls_per_op", Ratio(io_.DataSyscalls(), ops)},
      {"inline_reads", io_.inline_reads},
      {"pool_reads", io_.pool_reads},
      {"resubmissions", io_.resubmissions},
      {"errors", io_.errors},
      {"syscall_amplification", Ratio(io_.bytes_transferred, io_.bytes_requested)},
  };
  window_.AddProcIo(&io, io_.bytes_requested);
  nlohmann::json groups = nlohmann::json::array();
  for (const auto& [id, g] : groups_) {
    nlohmann::json gj = {{"group", id}, {"ops", g.ops}, {"requested_bytes", g.requested_bytes}};
    if (g.scans) {
      gj["first_pass_s"] = g.all_passed ? nlohmann::json(static_cast<double>(g.first_pass_ns) / 1e9)
                                        : nlohmann::json("unfinished");
    }
    groups.push_back(gj);
  }
  nlohmann::json file = {{"workload", WorkloadName(o.workload)},
                         {"method", o.method},
                         {"block_size", o.block_size},
                         {"direct", o.direct},
                         {"prefetch", o.prefetch},
                         {"verify", o.verify},
                         {"files", dataset.files},
                         {"file_size", dataset.file_size},
                         {"groups", groups}};
  if (o.workload == Workload::kColumns) {
    file["columns"] = std::min<uint64_t>(o.columns, dataset.files);
    file["serial_columns"] = o.serial_columns;
  }
  if (o.workload != Workload::kSeqRead) file["offset_dist"] = o.offset_dist;
  return {{"io", io},
          {"cache", window_.CacheJson(o.cache, dataset.total_bytes())},
          {"cpu", window_.CpuJson()},
          {"file", file}};
}

std::vector<std::string> RunAccounting::Lines(const FileOptions& o) const {
  std::lock_guard<std::mutex> lock(mu_);
  const uint64_t ops = Ops();
  std::vector<std::string> lines;
  lines.push_back(fmt::format("file: {} via {}{}{}, {} blocks, cache {}", WorkloadName(o.workload), o.method,
                              o.direct ? " O_DIRECT" : "", o.prefetch ? " +prefetch" : "",
                              FormatBytes(static_cast<double>(o.block_size)), CacheStateName(o.cache)));
  lines.push_back(fmt::format("  cache before: {}", ResidencyLine(window_.before())));
  lines.push_back(fmt::format("  cache after:  {}", ResidencyLine(window_.after())));
  const StatusOr<io::ProcIo>& proc = window_.proc_delta();
  std::string dev = proc.ok() ? FormatBytes(static_cast<double>(proc.value().read_bytes)) : "unknown";
  const io::ResourceUsage& ru = window_.rusage_delta();
  const double amp = ReadAmplification();
  lines.push_back(fmt::format("  requested {}, syscalls moved {}, device read {} (amplification {})",
                              FormatBytes(static_cast<double>(io_.bytes_requested)),
                              FormatBytes(static_cast<double>(io_.bytes_transferred)), dev,
                              amp < 0 ? std::string("unknown") : fmt::format("{:.3f}", amp)));
  lines.push_back(fmt::format("  syscalls {} ({:.2f}/op), inline {} / pool {}, cpu user {:.2f}s sys {:.2f}s, "
                              "ctx switches {} vol / {} invol",
                              io_.DataSyscalls(), ops ? static_cast<double>(io_.DataSyscalls()) / ops : 0.0,
                              io_.inline_reads, io_.pool_reads, static_cast<double>(ru.user_ns) / 1e9,
                              static_cast<double>(ru.system_ns) / 1e9, ru.voluntary_switches, ru.involuntary_switches));
  for (const auto& [id, g] : groups_) {
    if (g.scans && groups_.size() > 1) {
      lines.push_back(fmt::format("  group {}: first full scan {}", id,
                                  g.all_passed ? fmt::format("{:.3f}s", static_cast<double>(g.first_pass_ns) / 1e9)
                                               : std::string("unfinished")));
    }
  }
  return lines;
}

}  // namespace storebench::backend::file
