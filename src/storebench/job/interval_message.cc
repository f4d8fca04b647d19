#include "storebench/job/interval_message.h"

#include <algorithm>
#include <cstring>
#include <fmt/format.h>

#include "storebench/measure/base64.h"

namespace storebench::job {
namespace {

// Doubles as their 8 bytes in host order: every rank runs the same binary.
void AppendDouble(std::string* out, double v) {
  char raw[sizeof v];
  std::memcpy(raw, &v, sizeof v);
  out->append(raw, sizeof raw);
}

bool ReadDouble(std::string_view in, size_t* pos, double* v) {
  if (in.size() - std::min(*pos, in.size()) < sizeof *v) return false;
  std::memcpy(v, in.data() + *pos, sizeof *v);
  *pos += sizeof *v;
  return true;
}

Status Malformed() { return Status::Corruption("MPI: a malformed interval message"); }

}  // namespace

int TreeParent(int rank) { return rank & (rank - 1); }

std::vector<int> TreeChildren(int rank, int size) {
  std::vector<int> out;
  const int low = rank == 0 ? size : (rank & -rank);  // every power of two for rank 0
  for (int step = 1; step < low && rank + step < size; step *= 2) out.push_back(rank + step);
  return out;
}

void IntervalPart::Reset() {
  index = ranks = ops = errors = bytes = lag_ns = max_lag_ns = 0;
  t_s = length_s = backlog = offered_ops_per_sec = 0;
  response.Reset();
  service.Reset();
}

Status IntervalPart::AddOwn(const driver::IntervalStats& st) {
  STOREBENCH_RETURN_IF_ERROR(response.MergeEncoded(st.response_histogram));
  STOREBENCH_RETURN_IF_ERROR(service.MergeEncoded(st.service_histogram));
  ++ranks;
  t_s = std::max(t_s, st.t_s);
  length_s = std::max(length_s, st.length_s);
  ops += st.ops, errors += st.errors, bytes += st.bytes;
  backlog += st.backlog;
  lag_ns = std::max(lag_ns, st.lag_ns);
  max_lag_ns = std::max(max_lag_ns, st.max_lag_ns);
  offered_ops_per_sec += st.offered_ops_per_sec;
  return Status::Ok();
}

void IntervalPart::AppendTo(std::string* out) const {
  for (uint64_t v : {index, ranks, ops, errors, bytes, lag_ns, max_lag_ns}) measure::AppendVarint(out, v);
  for (double v : {t_s, length_s, backlog, offered_ops_per_sec}) AppendDouble(out, v);
  response.AppendBinary(out);
  service.AppendBinary(out);
}

Status IntervalPart::MergeFrom(std::string_view in, size_t* pos) {
  uint64_t i = 0, n = 0, o = 0, e = 0, b = 0, lag = 0, max_lag = 0;
  for (uint64_t* field : {&i, &n, &o, &e, &b, &lag, &max_lag})
    if (!measure::ReadVarint(in, pos, field)) return Malformed();
  double t = 0, len = 0, back = 0, offered = 0;
  for (double* field : {&t, &len, &back, &offered})
    if (!ReadDouble(in, pos, field)) return Malformed();
  if (ranks && i != index) return Status::Corruption(fmt::format("MPI: interval {} merged into {}", i, index));
  STOREBENCH_RETURN_IF_ERROR(response.MergeBinary(in, pos));
  STOREBENCH_RETURN_IF_ERROR(service.MergeBinary(in, pos));
  index = i;
  ranks += n;
  ops += o, errors += e, bytes += b;
  lag_ns = std::max(lag_ns, lag);
  max_lag_ns = std::max(max_lag_ns, max_lag);
  t_s = std::max(t_s, t);
  length_s = std::max(length_s, len);
  backlog += back;
  offered_ops_per_sec += offered;
  return Status::Ok();
}

driver::IntervalStats IntervalPart::Stats() const {
  driver::IntervalStats st;
  st.t_s = t_s;
  st.length_s = length_s;
  st.ops = ops, st.errors = errors, st.bytes = bytes;
  st.ops_per_sec = length_s > 0 ? static_cast<double>(ops) / length_s : 0;
  st.backlog = backlog;
  st.lag_ns = lag_ns;
  st.max_lag_ns = max_lag_ns;
  st.offered_ops_per_sec = offered_ops_per_sec;
  st.response = driver::PercentilesOf(response);
  st.service = driver::PercentilesOf(service);
  st.response_histogram = response.Encode();
  st.service_histogram = service.Encode();
  return st;
}

StatusOr<uint64_t> PartIndex(std::string_view in, size_t pos) {
  uint64_t index = 0;
  if (!measure::ReadVarint(in, &pos, &index)) return Malformed();
  return index;
}

}  // namespace storebench::job
