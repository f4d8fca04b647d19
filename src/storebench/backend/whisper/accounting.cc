#include "storebench/backend/whisper/accounting.h"

#include <algorithm>

#include <fmt/format.h>

#include "storebench/backend/file/cache_state.h"
#include "storebench/base/units.h"

namespace storebench::backend::wsp {
namespace {

constexpr double kPageSize = 4096;

// {"pread": 1.0, "pwrite": 3.0, ...} per op, the kinds that occurred.
nlohmann::json ByKind(const whisper::IoCounters& c, uint64_t ops) {
  const std::pair<const char*, uint64_t> kinds[] = {
      {"open", c.open},   {"close", c.close},   {"pread", c.pread}, {"pwrite", c.pwrite},   {"read", c.read},
      {"write", c.write}, {"lseek", c.lseek},   {"flock", c.flock}, {"fadvise", c.fadvise}, {"fstat", c.fstat}};
  nlohmann::json j = nlohmann::json::object();
  for (const auto& [name, n] : kinds)
    if (n != 0) j[name] = ops ? nlohmann::json(static_cast<double>(n) / static_cast<double>(ops)) : nlohmann::json(n);
  return j;
}

nlohmann::json OpJson(const OpTotals& t) {
  return {{"ops", t.ops},
          {"errors", t.errors},
          {"syscalls_per_op", file::Ratio(t.io.syscalls(), t.ops)},
          {"syscalls_per_op_by_kind", ByKind(t.io, t.ops)},
          {"bytes_read_per_op", file::Ratio(t.io.bytes_read, t.ops)},
          {"bytes_written_per_op", file::Ratio(t.io.bytes_written, t.ops)},
          {"requested_bytes_per_op", file::Ratio(t.requested_read_bytes, t.ops)}};
}

std::string Fixed(const nlohmann::json& v, const char* fmt_spec) {
  return v.is_number() ? fmt::format(fmt::runtime(fmt_spec), v.get<double>()) : std::string("unknown");
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

void RunAccounting::MeasureStarted() {
  std::lock_guard<std::mutex> lock(mu_);
  window_.MeasureStarted();
}

void RunAccounting::Begin(const Dataset& dataset) {
  std::lock_guard<std::mutex> lock(mu_);
  update_ = {}, fetch_ = {};
  last_now_ = dataset.start;
  first_error_ = Status::Ok();
  window_.Begin(dataset.paths);
}

Status RunAccounting::End(const Dataset& dataset) {
  std::lock_guard<std::mutex> lock(mu_);
  window_.End(dataset.paths);
  return first_error_;
}

void RunAccounting::AddWorker(const WorkerTotals& t) {
  std::lock_guard<std::mutex> lock(mu_);
  update_ += t.update;
  fetch_ += t.fetch;
  last_now_ = std::max(last_now_, t.last_now);
  if (first_error_.ok() && !t.first_error.ok()) first_error_ = t.first_error;
}

OpTotals RunAccounting::All() const {
  OpTotals all = update_;
  all += fetch_;
  return all;
}

nlohmann::json RunAccounting::HitRatio() const {
  const OpTotals all = All();
  const whisper::IoCounters& c = all.io;
  const double lookups = static_cast<double>(c.read + c.pread + c.write + c.pwrite) +
                         static_cast<double>(c.bytes_read + c.bytes_written) / kPageSize;
  if (!window_.proc_delta().ok() || lookups == 0) return nullptr;
  const double misses = static_cast<double>(window_.proc_delta().value().read_bytes) / kPageSize;
  return std::max(0.0, 1.0 - misses / lookups);
}

nlohmann::json RunAccounting::Json(const Dataset& dataset, const WhisperOptions& o) const {
  std::lock_guard<std::mutex> lock(mu_);
  const OpTotals all = All();
  nlohmann::json io = {
      {"scope", file::RunWindow::kScope},
      {"ops", all.ops},
      {"requested_bytes", all.requested_read_bytes},
      {"transferred_bytes", all.io.bytes_read},
      {"written_bytes", all.io.bytes_written},
      {"syscalls", all.io.syscalls()},
      {"syscalls_by_kind", ByKind(all.io, 0)},
      {"syscalls_per_op", file::Ratio(all.io.syscalls(), all.ops)},
      {"errors", all.errors},
      {"syscall_amplification", file::Ratio(all.io.bytes_read, all.requested_read_bytes)},
  };
  window_.AddProcIo(&io, all.requested_read_bytes);
  if (window_.proc_delta().ok()) io["device_write_bytes"] = window_.proc_delta().value().write_bytes;
  nlohmann::json cache = window_.CacheJson(o.cache, dataset.total_bytes());
  cache["hit_ratio"] = HitRatio();
  cache["hit_ratio_basis"] =
      "1 - pages read from the device (/proc/self/io read_bytes / 4 KiB, readahead included) / "
      "pages the data syscalls looked up (one per syscall + bytes moved / 4 KiB)";
  nlohmann::json w = {
      {"workload", WorkloadName(o.workload)},
      {"io_mode", whisper::IoModeName(o.io.mode)},
      {"buffer_bytes", o.io.mode == whisper::IoMode::kBuffered ? o.io.buffer_size : 0},
      {"fadvise_random", o.io.fadvise_random},
      {"header_cache", o.header_cache},
      {"lock", o.io.lock},
      {"points_per_update", o.points_per_update},
      {"metric_dist", o.metric_dist},
      {"metrics", dataset.metrics},
      {"retention", dataset.Retention()},
      {"file_bytes", dataset.file_bytes},
      {"simulated_time", {{"start", dataset.start}, {"end", last_now_}}},
      {"updates", update_.ops},
      {"fetches", fetch_.ops},
      {"points_written", update_.points},
      {"syscalls_per_update", file::Ratio(update_.io.syscalls(), update_.ops)},
      {"bytes_read_per_update", file::Ratio(update_.io.bytes_read, update_.ops)},
      {"bytes_written_per_update", file::Ratio(update_.io.bytes_written, update_.ops)},
      {"requested_bytes_per_update", file::Ratio(update_.requested_read_bytes, update_.ops)},
      {"update", OpJson(update_)},
      {"fetch", OpJson(fetch_)},
  };
  if (o.workload != Workload::kUpdate) w["fetch_range_s"] = o.fetch_range_s;
  if (o.workload == Workload::kMixed) w["mix_update_ratio"] = o.update_ratio;
  return {{"io", io}, {"cache", cache}, {"whisper", w}};
}

std::vector<std::string> RunAccounting::Lines(const Dataset& dataset, const WhisperOptions& o) const {
  const nlohmann::json j = Json(dataset, o);
  const nlohmann::json& w = j["whisper"];
  const nlohmann::json& io = j["io"];
  std::vector<std::string> lines;
  lines.push_back(fmt::format("whisper: {} of {} metrics, io {}, K={} points/update, cache {}",
                              WorkloadName(o.workload),
                              dataset.metrics, IoModeName(o.io), o.points_per_update, file::CacheStateName(o.cache)));
  auto op_line = [&](const char* name, const nlohmann::json& op) {
    std::string kinds;
    for (const auto& [k, v] : op["syscalls_per_op_by_kind"].items())
      kinds += fmt::format("{}{} {:.2f}", kinds.empty() ? "" : ", ", k, v.get<double>());
    lines.push_back(fmt::format("  per {}: {} syscalls ({}), read {} B (asked {} B), wrote {} B", name,
                                Fixed(op["syscalls_per_op"], "{:.2f}"), kinds, Fixed(op["bytes_read_per_op"], "{:.0f}"),
                                Fixed(op["requested_bytes_per_op"], "{:.0f}"),
                                Fixed(op["bytes_written_per_op"], "{:.0f}")));
  };
  if (update_.ops) op_line("update", w["update"]);
  if (fetch_.ops) op_line("fetch", w["fetch"]);
  lines.push_back(fmt::format("  cache before: {}", file::ResidencyLine(window_.before())));
  lines.push_back(fmt::format("  cache after:  {}", file::ResidencyLine(window_.after())));
  const std::string dev = io["device_read_bytes"].is_number()
                              ? FormatBytes(io["device_read_bytes"].get<double>())
                              : std::string("unknown");
  lines.push_back(fmt::format("  asked {}, syscalls read {}, device read {} (read amplification {}), page-cache hit "
                              "ratio {}",
                              FormatBytes(static_cast<double>(All().requested_read_bytes)),
                              FormatBytes(static_cast<double>(All().io.bytes_read)), dev,
                              Fixed(io["read_amplification"], "{:.3f}"), Fixed(j["cache"]["hit_ratio"], "{:.3f}")));
  return lines;
}

}  // namespace storebench::backend::wsp
