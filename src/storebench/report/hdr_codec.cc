#include "storebench/report/hdr_codec.h"

#include <zlib.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <fmt/format.h>
#include <utility>
#include <vector>

namespace storebench::report {
namespace {

constexpr uint32_t kCookieBaseMask = ~uint32_t{0xf0};
constexpr size_t kHeaderSize = 40;

void PutBig(std::string* out, uint64_t v, int bytes) {
  for (int i = bytes - 1; i >= 0; --i) out->push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}

uint64_t GetBig(std::string_view in, size_t pos, int bytes) {
  uint64_t v = 0;
  for (int i = 0; i < bytes; ++i) v = (v << 8) | static_cast<uint8_t>(in[pos + static_cast<size_t>(i)]);
  return v;
}

// HdrHistogram's "LEB128-64b9B" ZigZag varint: up to 8 bytes of 7 bits, and a
// 9th byte that holds the last 8 bits whole (so any 64-bit value fits in 9
// bytes). measure/base64.h's varint is plain LEB128, which differs from this
// one for values of 2^63 and above, hence this pair.
void PutVarint(std::string* out, int64_t signed_value) {
  uint64_t v = (static_cast<uint64_t>(signed_value) << 1) ^ static_cast<uint64_t>(signed_value >> 63);
  for (int i = 0; i < 8; ++i) {
    if ((v >> 7) == 0) {
      out->push_back(static_cast<char>(v));
      return;
    }
    out->push_back(static_cast<char>((v & 0x7f) | 0x80));
    v >>= 7;
  }
  out->push_back(static_cast<char>(v));
}

bool GetVarint(std::string_view in, size_t* pos, int64_t* value) {
  uint64_t v = 0;
  for (int i = 0; i < 9; ++i) {
    if (*pos >= in.size()) return false;
    uint8_t b = static_cast<uint8_t>(in[(*pos)++]);
    if (i == 8) {
      v |= uint64_t{b} << 56;
      break;
    }
    v |= uint64_t(b & 0x7f) << (7 * i);
    if (!(b & 0x80)) break;
  }
  *value = static_cast<int64_t>((v >> 1) ^ (~(v & 1) + 1));
  return true;
}

StatusOr<std::string> Inflate(std::string_view in, size_t limit) {
  z_stream zs{};
  if (inflateInit(&zs) != Z_OK) return Status::IOError("hdr decode: zlib inflateInit failed");
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));
  zs.avail_in = static_cast<uInt>(in.size());
  std::string out;
  char buf[16384];
  int rc = Z_OK;
  while (rc != Z_STREAM_END) {
    zs.next_out = reinterpret_cast<Bytef*>(buf);
    zs.avail_out = sizeof buf;
    rc = inflate(&zs, Z_NO_FLUSH);
    if (rc != Z_OK && rc != Z_STREAM_END) {
      inflateEnd(&zs);
      return Status::Corruption(fmt::format("hdr decode: the zlib stream is damaged ({})", zs.msg ? zs.msg : "no detail"));
    }
    out.append(buf, sizeof buf - zs.avail_out);
    if (out.size() > limit) {
      inflateEnd(&zs);
      return Status::Corruption("hdr decode: the compressed histogram inflates past any valid size");
    }
    if (rc == Z_OK && zs.avail_in == 0 && zs.avail_out != 0) break;  // truncated input
  }
  inflateEnd(&zs);
  if (rc != Z_STREAM_END) return Status::Corruption("hdr decode: the zlib stream is truncated");
  return out;
}

}  // namespace

StatusOr<HdrLayout> HdrLayout::For(int digits, uint64_t lowest, uint64_t highest) {
  if (digits < 0 || digits > 5)
    return Status::InvalidArgument(fmt::format("hdr layout: significant digits must be 0..5, got {}", digits));
  if (lowest < 1 || highest / 2 < lowest)
    return Status::InvalidArgument(
        fmt::format("hdr layout: need lowest >= 1 and highest >= 2*lowest, got {} and {}", lowest, highest));
  HdrLayout l;
  l.digits = digits;
  l.unit_magnitude = 63 - __builtin_clzll(lowest);  // floor(log2(lowest))
  uint64_t largest_single_unit = 2;
  for (int i = 0; i < digits; ++i) largest_single_unit *= 10;
  int sub_bucket_count_magnitude = static_cast<int>(std::ceil(std::log2(static_cast<double>(largest_single_unit))));
  l.sub_bucket_half_count_magnitude = std::max(sub_bucket_count_magnitude, 1) - 1;
  l.sub_bucket_count = uint64_t{1} << (l.sub_bucket_half_count_magnitude + 1);
  if (l.unit_magnitude + l.sub_bucket_half_count_magnitude + 1 > 62)
    return Status::InvalidArgument("hdr layout: lowest value too large for the digits");
  l.sub_bucket_mask = (l.sub_bucket_count - 1) << l.unit_magnitude;
  uint64_t smallest_untrackable = l.sub_bucket_count << l.unit_magnitude;
  int buckets = 1;
  while (smallest_untrackable <= highest) {
    if (smallest_untrackable > (uint64_t{INT64_MAX} / 2)) {
      ++buckets;
      break;
    }
    smallest_untrackable <<= 1;
    ++buckets;
  }
  l.bucket_count = buckets;
  l.counts_length = static_cast<size_t>(buckets + 1) * (l.sub_bucket_count / 2);
  return l;
}

HdrLayout HdrLayout::Of(const measure::Histogram& h) {
  return *For(h.options().significant_digits, 1, std::max<uint64_t>(h.options().highest, 2));
}

size_t HdrLayout::IndexOf(uint64_t value) const {
  int leading_zero_count_base = 64 - unit_magnitude - sub_bucket_half_count_magnitude - 1;
  int bucket = leading_zero_count_base - __builtin_clzll(value | sub_bucket_mask);
  uint64_t sub = value >> (bucket + unit_magnitude);
  return (static_cast<size_t>(bucket + 1) << sub_bucket_half_count_magnitude) + sub - (sub_bucket_count / 2);
}

uint64_t HdrLayout::ValueFromIndex(size_t index) const {
  int bucket = static_cast<int>(index >> sub_bucket_half_count_magnitude) - 1;
  uint64_t half = sub_bucket_count / 2;
  uint64_t sub = (index & (half - 1)) + half;
  if (bucket < 0) {
    sub -= half;
    bucket = 0;
  }
  return sub << (bucket + unit_magnitude);
}

uint64_t HdrLayout::LowestEquivalent(uint64_t value) const { return ValueFromIndex(IndexOf(value)); }

uint64_t HdrLayout::SizeOfEquivalentRange(uint64_t value) const {
  int leading_zero_count_base = 64 - unit_magnitude - sub_bucket_half_count_magnitude - 1;
  int bucket = leading_zero_count_base - __builtin_clzll(value | sub_bucket_mask);
  uint64_t sub = value >> (bucket + unit_magnitude);
  return uint64_t{1} << (unit_magnitude + (sub >= sub_bucket_count ? bucket + 1 : bucket));
}

std::string EncodeHdrV2(const measure::Histogram& h) {
  HdrLayout layout = HdrLayout::Of(h);
  std::string payload;
  size_t next = 0;  // first counts-array index not yet written
  h.ForEachBucket([&](uint64_t lo, uint64_t, uint64_t count) {
    size_t index = layout.IndexOf(lo);
    if (index > next + 1) PutVarint(&payload, -static_cast<int64_t>(index - next));
    else if (index == next + 1) PutVarint(&payload, 0);  // HdrHistogram writes a single empty bucket as 0
    PutVarint(&payload, static_cast<int64_t>(std::min<uint64_t>(count, INT64_MAX)));
    next = index + 1;
  });
  std::string out;
  out.reserve(kHeaderSize + payload.size());
  PutBig(&out, kHdrV2EncodingCookie, 4);
  PutBig(&out, payload.size(), 4);
  PutBig(&out, 0, 4);  // normalizing index offset
  PutBig(&out, static_cast<uint64_t>(layout.digits), 4);
  PutBig(&out, 1, 8);  // lowest discernible value
  PutBig(&out, std::max<uint64_t>(h.options().highest, 2), 8);
  double ratio = 1.0;
  uint64_t ratio_bits;
  std::memcpy(&ratio_bits, &ratio, sizeof ratio);
  PutBig(&out, ratio_bits, 8);
  out += payload;
  return out;
}

StatusOr<std::string> EncodeHdrV2Compressed(const measure::Histogram& h) {
  std::string raw = EncodeHdrV2(h);
  uLongf len = compressBound(static_cast<uLong>(raw.size()));
  std::string z(len, '\0');
  int rc = compress2(reinterpret_cast<Bytef*>(z.data()), &len, reinterpret_cast<const Bytef*>(raw.data()),
                     static_cast<uLong>(raw.size()), Z_DEFAULT_COMPRESSION);
  if (rc != Z_OK) return Status::IOError(fmt::format("hdr encode: zlib compress2 failed ({})", rc));
  std::string out;
  PutBig(&out, kHdrV2CompressedCookie, 4);
  PutBig(&out, len, 4);
  out.append(z.data(), len);
  return out;
}

StatusOr<measure::Histogram> DecodeHdr(std::string_view bytes) {
  if (bytes.size() < 8) return Status::Corruption("hdr decode: shorter than a histogram header");
  uint32_t cookie = static_cast<uint32_t>(GetBig(bytes, 0, 4));
  std::string inflated;
  if ((cookie & kCookieBaseMask) == (kHdrV2CompressedCookie & kCookieBaseMask)) {
    uint64_t len = GetBig(bytes, 4, 4);
    if (len > bytes.size() - 8) return Status::Corruption("hdr decode: compressed length runs past the data");
    auto raw = Inflate(bytes.substr(8, len), size_t{1} << 28);
    if (!raw.ok()) return raw.status();
    inflated = std::move(*raw);
    bytes = inflated;
    if (bytes.size() < 4) return Status::Corruption("hdr decode: empty compressed histogram");
    cookie = static_cast<uint32_t>(GetBig(bytes, 0, 4));
  }
  if ((cookie & kCookieBaseMask) != (kHdrV2EncodingCookie & kCookieBaseMask)) {
    uint32_t base = cookie & kCookieBaseMask;
    if (base == 0x1c849301 || base == 0x1c849302 || base == 0x1c849308 || base == 0x1c849309)
      return Status::NotSupported(fmt::format("hdr decode: V0/V1 encoding (cookie {:#x}); only V2 is read", cookie));
    return Status::Corruption(fmt::format("hdr decode: not an HdrHistogram encoding (cookie {:#x})", cookie));
  }
  if (bytes.size() < kHeaderSize) return Status::Corruption("hdr decode: truncated header");
  uint64_t payload_len = GetBig(bytes, 4, 4);
  uint64_t normalizing = GetBig(bytes, 8, 4);
  int digits = static_cast<int>(GetBig(bytes, 12, 4));
  uint64_t lowest = GetBig(bytes, 16, 8);
  uint64_t highest = GetBig(bytes, 24, 8);
  if (normalizing != 0) return Status::NotSupported("hdr decode: normalized (DoubleHistogram) payloads are not read");
  if (payload_len > bytes.size() - kHeaderSize) return Status::Corruption("hdr decode: payload runs past the data");
  auto layout = HdrLayout::For(digits, lowest, highest);
  if (!layout.ok()) return Status::Corruption(fmt::format("hdr decode: bad header: {}", layout.status().message()));
  std::string_view payload = bytes.substr(kHeaderSize, payload_len);

  std::vector<std::pair<size_t, uint64_t>> counts;
  size_t pos = 0, index = 0;
  while (pos < payload.size()) {
    int64_t v;
    if (!GetVarint(payload, &pos, &v)) return Status::Corruption("hdr decode: truncated count");
    if (v < 0) {
      if (v < -static_cast<int64_t>(layout->counts_length))
        return Status::Corruption("hdr decode: a run of empty buckets longer than the histogram");
      index += static_cast<size_t>(-v);
    } else {
      if (v > 0) counts.emplace_back(index, static_cast<uint64_t>(v));
      ++index;
    }
    if (index > layout->counts_length) return Status::Corruption("hdr decode: counts run past the histogram's range");
  }
  measure::HistogramOptions opt;
  opt.significant_digits = std::clamp(digits, 1, 5);
  opt.highest = std::max<uint64_t>(highest, 2);
  if (!counts.empty())
    opt.highest = std::max(opt.highest, layout->HighestEquivalent(layout->ValueFromIndex(counts.back().first)));
  measure::Histogram h(opt);
  for (const auto& [i, n] : counts) {
    // Same layout: the median lands in the same index (lossless). Otherwise
    // it is the foreign bucket's value re-binned into storebench's layout.
    h.Record(layout->MedianEquivalent(layout->ValueFromIndex(i)), n);
  }
  return h;
}

}  // namespace storebench::report
