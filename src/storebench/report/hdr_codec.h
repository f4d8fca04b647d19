// HdrHistogram's bucket layout and its V2 binary encoding, for measure::Histogram.
//
// Debian ships no C or C++ HdrHistogram (only the Java library), so the
// encoder and decoder are storebench's own, written from the published
// format: a 40-byte big-endian header (cookie 0x1c849313, payload length,
// normalizing index offset, significant digits, lowest discernible value,
// highest trackable value, integer-to-double ratio) and a payload of ZigZag
// LEB128 counts where a negative number is a run of that many empty buckets;
// the compressed form (cookie 0x1c849314, compressed length) wraps header and
// payload in one zlib stream. The low nibble 0x10 of each cookie is the word
// size HdrHistogram's V2 writers put there.
//
// Layout: measure::Histogram indexes values exactly as HdrHistogram does with
// unit magnitude 0 (sub-bucket count 2^ceil(log2(2*10^digits)), the same
// bucket count for the same highest value), so a storebench histogram maps
// onto HdrHistogram's counts array index by index, losslessly. Foreign
// histograms with a lowest discernible value above 1 (unit magnitude > 0) are
// re-binned by value: each bucket's count lands at its median value, which is
// within the foreign bucket, so percentiles stay within its stated precision.
// Min, max and sum are not part of the format: a decoded histogram knows them
// to bucket resolution (HdrHistogram's own readers do the same).
// Thread-safety: pure functions over values.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "storebench/base/status.h"
#include "storebench/measure/histogram.h"

namespace storebench::report {

// HdrHistogram's AbstractHistogram index arithmetic for (digits, lowest, highest).
struct HdrLayout {
  int digits = 3;
  int unit_magnitude = 0;
  int sub_bucket_half_count_magnitude = 0;
  uint64_t sub_bucket_count = 0;
  uint64_t sub_bucket_mask = 0;  // (sub_bucket_count - 1) << unit_magnitude
  int bucket_count = 0;
  size_t counts_length = 0;

  // InvalidArgument unless 0 <= digits <= 5, lowest >= 1 and highest >= 2 * lowest.
  static StatusOr<HdrLayout> For(int digits, uint64_t lowest, uint64_t highest);
  // The layout HdrHistogram would use for `h` (lowest discernible value 1).
  static HdrLayout Of(const measure::Histogram& h);

  size_t IndexOf(uint64_t value) const;
  uint64_t ValueFromIndex(size_t index) const;
  uint64_t LowestEquivalent(uint64_t value) const;
  uint64_t SizeOfEquivalentRange(uint64_t value) const;
  uint64_t HighestEquivalent(uint64_t value) const { return LowestEquivalent(value) + SizeOfEquivalentRange(value) - 1; }
  uint64_t MedianEquivalent(uint64_t value) const {
    return LowestEquivalent(value) + (SizeOfEquivalentRange(value) >> 1);
  }
};

inline constexpr uint32_t kHdrV2EncodingCookie = 0x1c849303 | 0x10;
inline constexpr uint32_t kHdrV2CompressedCookie = 0x1c849304 | 0x10;

// The uncompressed V2 encoding of `h` (header and payload).
std::string EncodeHdrV2(const measure::Histogram& h);
// The compressed V2 encoding (what interval logs carry, base64'd); IOError if zlib fails.
StatusOr<std::string> EncodeHdrV2Compressed(const measure::Histogram& h);
// Decodes either form (told apart by the cookie). Corruption on a bad cookie,
// truncated or inconsistent data; NotSupported for V0/V1 encodings and
// normalized (DoubleHistogram) payloads.
StatusOr<measure::Histogram> DecodeHdr(std::string_view bytes);

}  // namespace storebench::report
