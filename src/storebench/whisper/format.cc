#include "storebench/whisper/format.h"

#include <array>
#include <bit>
#include <cmath>
#include <cstring>

#include <fmt/format.h>

namespace storebench::whisper {
namespace {

constexpr std::array<std::string_view, 8> kNames = {"average", "sum", "last", "max",
                                                    "min", "avg_zero", "absmax", "absmin"};

uint64_t LoadU64(const uint8_t* p) {
  uint64_t v = 0;
  for (int i = 0; i < 8; ++i) v = (v << 8) | p[i];
  return v;
}

void StoreU64(uint64_t v, uint8_t* p) {
  for (int i = 7; i >= 0; --i, v >>= 8) p[i] = static_cast<uint8_t>(v);
}

Status Corrupt(std::string_view path, std::string_view problem) {
  return Status::Corruption(fmt::format("read whisper header {}: {}", path, problem));
}

}  // namespace

std::string_view AggregationName(AggregationMethod method) {
  return kNames[static_cast<uint32_t>(method) - 1];
}

std::optional<AggregationMethod> AggregationFromCode(uint32_t code) {
  if (code < 1 || code > kNames.size()) return std::nullopt;
  return static_cast<AggregationMethod>(code);
}

StatusOr<AggregationMethod> ParseAggregation(std::string_view name) {
  for (size_t i = 0; i < kNames.size(); ++i) {
    if (kNames[i] == name) return static_cast<AggregationMethod>(i + 1);
  }
  return Status::InvalidArgument(fmt::format("Unrecognized aggregation method: {}", name));
}

std::string AggregationNames() {
  std::string out;
  for (std::string_view n : kNames) out += out.empty() ? std::string(n) : fmt::format(", {}", n);
  return out;
}

uint32_t LoadU32(const uint8_t* p) {
  return (uint32_t{p[0]} << 24) | (uint32_t{p[1]} << 16) | (uint32_t{p[2]} << 8) | p[3];
}

void StoreU32(uint32_t v, uint8_t* p) {
  p[0] = static_cast<uint8_t>(v >> 24);
  p[1] = static_cast<uint8_t>(v >> 16);
  p[2] = static_cast<uint8_t>(v >> 8);
  p[3] = static_cast<uint8_t>(v);
}

void EncodePoint(const Point& point, uint8_t* out) {
  StoreU32(point.timestamp, out);
  StoreU64(std::bit_cast<uint64_t>(point.value), out + 4);
}

Point DecodePoint(const uint8_t* in) { return Point{LoadU32(in), std::bit_cast<double>(LoadU64(in + 4))}; }

std::string EncodeMetadata(AggregationMethod method, uint32_t max_retention, float xff, uint32_t archive_count) {
  std::string out(kMetadataSize, '\0');
  auto* p = reinterpret_cast<uint8_t*>(out.data());
  StoreU32(static_cast<uint32_t>(method), p);
  StoreU32(max_retention, p + 4);
  StoreU32(std::bit_cast<uint32_t>(xff), p + 8);
  StoreU32(archive_count, p + 12);
  return out;
}

std::string SerializeHeader(const Header& header) {
  std::string out = EncodeMetadata(header.aggregation, header.max_retention, header.x_files_factor,
                                   static_cast<uint32_t>(header.archives.size()));
  for (const ArchiveInfo& a : header.archives) {
    uint8_t buf[kArchiveInfoSize];
    StoreU32(a.offset, buf);
    StoreU32(a.seconds_per_point, buf + 4);
    StoreU32(a.points, buf + 8);
    out.append(reinterpret_cast<const char*>(buf), sizeof(buf));
  }
  return out;
}

StatusOr<Metadata> ParseMetadata(std::span<const uint8_t> bytes, std::string_view path) {
  if (bytes.size() < kMetadataSize) {
    return Corrupt(path, fmt::format("truncated metadata ({} of {} bytes)", bytes.size(), kMetadataSize));
  }
  Metadata m;
  m.aggregation_code = LoadU32(bytes.data());
  m.max_retention = LoadU32(bytes.data() + 4);
  m.x_files_factor = std::bit_cast<float>(LoadU32(bytes.data() + 8));
  m.archive_count = LoadU32(bytes.data() + 12);
  if (!AggregationFromCode(m.aggregation_code)) {
    return Corrupt(path, fmt::format("unknown aggregation type {}", m.aggregation_code));
  }
  // Written as a negated range test so that NaN is rejected too, as whisper.py does.
  if (!(m.x_files_factor >= 0.0f && m.x_files_factor <= 1.0f)) {
    return Corrupt(path, fmt::format("xFilesFactor {} not between 0 and 1", m.x_files_factor));
  }
  if (m.archive_count == 0) return Corrupt(path, "archive count is 0");
  if (m.archive_count > kMaxArchives) {
    return Corrupt(path, fmt::format("archive count {} exceeds {}", m.archive_count, kMaxArchives));
  }
  return m;
}

StatusOr<Header> ParseHeader(std::span<const uint8_t> bytes, std::string_view path,
                             std::optional<uint64_t> file_size) {
  StatusOr<Metadata> meta = ParseMetadata(bytes, path);
  if (!meta.ok()) return meta.status();
  Header h;
  h.aggregation = *AggregationFromCode(meta->aggregation_code);
  h.max_retention = meta->max_retention;
  h.x_files_factor = meta->x_files_factor;
  const uint64_t header_size = kMetadataSize + uint64_t{kArchiveInfoSize} * meta->archive_count;
  if (bytes.size() < header_size) {
    return Corrupt(path, fmt::format("truncated archive info: {} archives need {} header bytes, have {}",
                                     meta->archive_count, header_size, bytes.size()));
  }
  uint64_t previous_end = header_size;
  for (uint32_t i = 0; i < meta->archive_count; ++i) {
    const uint8_t* p = bytes.data() + kMetadataSize + kArchiveInfoSize * i;
    ArchiveInfo a{LoadU32(p), LoadU32(p + 4), LoadU32(p + 8)};
    if (a.seconds_per_point == 0) return Corrupt(path, fmt::format("archive {} has secondsPerPoint 0", i));
    if (a.points == 0) return Corrupt(path, fmt::format("archive {} has 0 points", i));
    if (a.offset < previous_end) {
      return Corrupt(path, fmt::format("archive {} at offset {} overlaps the {} ending at {}", i, a.offset,
                                       i == 0 ? "header" : "previous archive", previous_end));
    }
    if (file_size && a.end() > *file_size) {
      return Corrupt(path, fmt::format("archive {} ends at byte {} but the file has {} bytes", i, a.end(),
                                       *file_size));
    }
    previous_end = a.end();
    h.archives.push_back(a);
  }
  return h;
}

double Aggregate(AggregationMethod method, const std::vector<double>& known,
                 const std::vector<std::optional<double>>& neighbors) {
  // Python's sum() adds left to right from 0, and max()/min() keep the first
  // element unless a later one compares strictly greater/less; NaN handling
  // follows from the same comparisons.
  auto sum = [](auto first, auto last, auto get) {
    double s = 0;
    for (; first != last; ++first) s += get(*first);
    return s;
  };
  auto pick = [&known](auto better) {
    double best = known.front();
    for (size_t i = 1; i < known.size(); ++i) {
      if (better(known[i], best)) best = known[i];
    }
    return best;
  };
  switch (method) {
    case AggregationMethod::kAverage:
      return sum(known.begin(), known.end(), [](double v) { return v; }) / static_cast<double>(known.size());
    case AggregationMethod::kSum:
      return sum(known.begin(), known.end(), [](double v) { return v; });
    case AggregationMethod::kLast:
      return known.back();
    case AggregationMethod::kMax:
      return pick([](double a, double b) { return a > b; });
    case AggregationMethod::kMin:
      return pick([](double a, double b) { return a < b; });
    case AggregationMethod::kAvgZero:
      return sum(neighbors.begin(), neighbors.end(), [](const std::optional<double>& v) { return v.value_or(0); }) /
             static_cast<double>(neighbors.size());
    case AggregationMethod::kAbsMax:
      return pick([](double a, double b) { return std::fabs(a) > std::fabs(b); });
    case AggregationMethod::kAbsMin:
      return pick([](double a, double b) { return std::fabs(a) < std::fabs(b); });
  }
  return known.back();
}

}  // namespace storebench::whisper
