// The whisper file format as whisper.py 1.1.x writes it: big-endian metadata
// (`!2LfL`), one archive info per archive (`!3L`), then the archives' points
// (`!Ld`). This header holds the plain data types, their byte codecs, the
// validating header parser and whisper.py's slot arithmetic and aggregation.
// Everything here is pure (no I/O, no globals) and thread-safe.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "storebench/base/status.h"

namespace storebench::whisper {

inline constexpr size_t kMetadataSize = 16;
inline constexpr size_t kArchiveInfoSize = 12;
inline constexpr size_t kPointSize = 12;
// No real schema comes close; the bound keeps a corrupt count from driving a
// multi-gigabyte allocation or read.
inline constexpr uint32_t kMaxArchives = 4096;

// The codes whisper.py stores in the file (aggregationTypeToMethod).
enum class AggregationMethod : uint32_t {
  kAverage = 1, kSum = 2, kLast = 3, kMax = 4, kMin = 5, kAvgZero = 6, kAbsMax = 7, kAbsMin = 8,
};

// "average", "sum", ... exactly as whisper.py names them.
std::string_view AggregationName(AggregationMethod method);
// The method for a code in the file, or nullopt for an unknown code.
std::optional<AggregationMethod> AggregationFromCode(uint32_t code);
// The method named `name`; InvalidArgument "Unrecognized aggregation method: NAME" otherwise.
StatusOr<AggregationMethod> ParseAggregation(std::string_view name);
// All method names in code order, comma-separated ("average, sum, ...").
std::string AggregationNames();

struct ArchiveInfo {
  uint32_t offset = 0;
  uint32_t seconds_per_point = 0;
  uint32_t points = 0;
  uint64_t retention() const { return uint64_t{seconds_per_point} * points; }
  uint64_t size_bytes() const { return uint64_t{points} * kPointSize; }
  uint64_t end() const { return offset + size_bytes(); }
  bool operator==(const ArchiveInfo&) const = default;
};

struct Header {
  AggregationMethod aggregation = AggregationMethod::kAverage;
  uint32_t max_retention = 0;
  float x_files_factor = 0.5f;
  std::vector<ArchiveInfo> archives;
  size_t header_size() const { return kMetadataSize + kArchiveInfoSize * archives.size(); }
  bool operator==(const Header&) const = default;
};

// A stored point: interval start in seconds since the epoch, and its value.
struct Point {
  uint32_t timestamp = 0;
  double value = 0;
};

uint32_t LoadU32(const uint8_t* p);
void StoreU32(uint32_t v, uint8_t* p);
void EncodePoint(const Point& point, uint8_t* out);
Point DecodePoint(const uint8_t* in);
// The 16-byte metadata block.
std::string EncodeMetadata(AggregationMethod method, uint32_t max_retention, float xff, uint32_t archive_count);
// Metadata followed by every archive info, as create() writes them.
std::string SerializeHeader(const Header& header);

// What the first 16 bytes say; used to size the rest of the header read.
struct Metadata {
  uint32_t aggregation_code = 0;
  uint32_t max_retention = 0;
  float x_files_factor = 0;
  uint32_t archive_count = 0;
};
// Decodes and checks the metadata (method known, 0 <= xff <= 1, 1 <= count <= kMaxArchives);
// Corruption "<path>: <problem>" otherwise. `bytes` must hold at least kMetadataSize bytes.
StatusOr<Metadata> ParseMetadata(std::span<const uint8_t> bytes, std::string_view path);
// Decodes a whole header from `bytes` and validates it: everything ParseMetadata checks,
// plus nonzero secondsPerPoint and points, archives starting after the header, in file
// order without overlap, and (when `file_size` is given) ending inside the file. Every
// failure is Corruption naming `path` and the problem; never reads past `bytes`.
StatusOr<Header> ParseHeader(std::span<const uint8_t> bytes, std::string_view path,
                             std::optional<uint64_t> file_size = std::nullopt);

// Python's floor division and modulo, which whisper.py's slot arithmetic relies on.
inline int64_t FloorDiv(int64_t a, int64_t b) {
  int64_t q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}
inline int64_t FloorMod(int64_t a, int64_t b) { return a - FloorDiv(a, b) * b; }

// Start of the interval of `archive` that holds timestamp `t` (t - t % step).
inline int64_t AlignDown(int64_t t, uint32_t step) { return t - FloorMod(t, step); }
// File offset of `interval` in `archive` whose first slot holds `base_interval`.
inline uint64_t SlotOffset(const ArchiveInfo& archive, int64_t base_interval, int64_t interval) {
  int64_t points = FloorDiv(interval - base_interval, archive.seconds_per_point);
  int64_t bytes = FloorMod(points * static_cast<int64_t>(kPointSize), static_cast<int64_t>(archive.size_bytes()));
  return archive.offset + static_cast<uint64_t>(bytes);
}

// whisper.py's aggregate(): `known` are the non-null values of `neighbors`, in order.
// Precondition: `known` is not empty.
double Aggregate(AggregationMethod method, const std::vector<double>& known,
                 const std::vector<std::optional<double>>& neighbors);

}  // namespace storebench::whisper
