#include "storebench/measure/histogram.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fmt/format.h>

#include "storebench/measure/base64.h"

namespace storebench::measure {

__extension__ using u128 = unsigned __int128;  // -Wpedantic: a GCC/Clang extension

uint64_t PercentileRank(double p, uint64_t n) {
  if (n == 0) return 0;
  if (!(p > 0)) return 1;  // also NaN
  if (p >= 100) return n;
  // p = digits / 10^scale, from the shortest fixed-notation text that reads back as p.
  char text[400];
  auto [end, ec] = std::to_chars(text, text + sizeof text, p, std::chars_format::fixed);
  if (ec != std::errc()) return 1;  // cannot happen for 0 < p < 100: the buffer holds any such double
  u128 digits = 0;
  int scale = 0;
  bool fraction = false;
  for (const char* c = text; c != end; ++c) {
    if (*c == '.') {
      fraction = true;
      continue;
    }
    digits = digits * 10 + static_cast<unsigned>(*c - '0');  // at most 17 significant digits
    if (fraction) ++scale;
  }
  const u128 product = digits * n;  // < 10^17 * 2^64 < 10^37
  const int exponent = scale + 2;                // rank = ceil(product / 10^exponent)
  if (exponent > 37) return 1;                   // 0 < product < 10^exponent
  u128 divisor = 1;
  for (int i = 0; i < exponent; ++i) divisor *= 10;
  const u128 rank = (product + divisor - 1) / divisor;
  return std::clamp<uint64_t>(static_cast<uint64_t>(rank), 1, n);
}

Histogram::Histogram(HistogramOptions options) : options_(options) {
  options_.significant_digits = std::clamp(options_.significant_digits, 1, 5);
  if (options_.highest < 2) options_.highest = 2;
  uint64_t largest_single_unit = 2;
  for (int i = 0; i < options_.significant_digits; ++i) largest_single_unit *= 10;
  int sub_bucket_count_magnitude = static_cast<int>(std::ceil(std::log2(static_cast<double>(largest_single_unit))));
  sub_bucket_half_count_magnitude_ = sub_bucket_count_magnitude - 1;
  uint64_t sub_bucket_count = uint64_t{1} << sub_bucket_count_magnitude;
  sub_bucket_mask_ = sub_bucket_count - 1;

  uint64_t smallest_untrackable = sub_bucket_count;
  int buckets = 1;
  while (smallest_untrackable <= options_.highest) {
    if (smallest_untrackable > (uint64_t{1} << 62)) {
      smallest_untrackable = UINT64_MAX;
      ++buckets;
      break;
    }
    smallest_untrackable <<= 1;
    ++buckets;
  }
  highest_trackable_ = smallest_untrackable == UINT64_MAX ? UINT64_MAX : smallest_untrackable - 1;
  counts_.resize(static_cast<size_t>(buckets + 1) << sub_bucket_half_count_magnitude_);  // zero, untouched
  written_.assign(((counts_.size() >> kPageShift) + 64) / 64, 0);
}

uint64_t Histogram::ValueFromIndex(size_t index) const {
  int bucket = static_cast<int>(index >> sub_bucket_half_count_magnitude_) - 1;
  uint64_t half = uint64_t{1} << sub_bucket_half_count_magnitude_;
  uint64_t sub = (index & (half - 1)) + half;
  if (bucket < 0) {
    sub -= half;
    bucket = 0;
  }
  return sub << bucket;
}

uint64_t Histogram::LowestEquivalent(uint64_t value) const { return ValueFromIndex(IndexOf(value)); }

uint64_t Histogram::HighestEquivalent(uint64_t value) const {
  uint64_t v = value | sub_bucket_mask_;
  int bucket = 63 - __builtin_clzll(v) - sub_bucket_half_count_magnitude_;
  uint64_t lowest = LowestEquivalent(value);
  uint64_t width = uint64_t{1} << bucket;
  return lowest + (width - 1);
}

double Histogram::relative_precision() const { return 1.0 / static_cast<double>(uint64_t{1} << sub_bucket_half_count_magnitude_); }

Status Histogram::Merge(const Histogram& other) {
  if (other.counts_.size() != counts_.size() || other.options_.significant_digits != options_.significant_digits ||
      other.highest_trackable_ != highest_trackable_) {
    return Status::InvalidArgument(fmt::format(
        "histogram merge: layouts differ ({} digits up to {} vs {} digits up to {})", options_.significant_digits,
        highest_trackable_, other.options_.significant_digits, other.highest_trackable_));
  }
  if (other.total_ == 0) return Status::Ok();
  other.ForEachWrittenRange(other.IndexOf(other.min_), other.IndexOf(other.max_), [&](size_t begin, size_t end) {
    for (size_t i = begin; i < end; ++i) counts_[i] += other.counts_[i];
    return true;
  });
  for (size_t w = 0; w < written_.size(); ++w) written_[w] |= other.written_[w];
  total_ += other.total_;
  saturated_ += other.saturated_;
  sum_ += other.sum_;
  min_ = std::min(min_, other.min_);
  max_ = std::max(max_, other.max_);
  return Status::Ok();
}

void Histogram::Reset() {
  if (total_ == 0) return;
  ForEachWrittenRange(IndexOf(min_), IndexOf(max_), [&](size_t begin, size_t end) {
    std::fill(counts_.begin() + static_cast<ptrdiff_t>(begin), counts_.begin() + static_cast<ptrdiff_t>(end), 0);
    return true;
  });
  std::fill(written_.begin(), written_.end(), 0);
  total_ = 0;
  saturated_ = 0;
  sum_ = 0;
  min_ = UINT64_MAX;
  max_ = 0;
}

double Histogram::stddev() const {
  if (total_ < 2) return 0.0;
  double mean = this->mean();
  double acc = 0;
  ForEachBucket([&](uint64_t lo, uint64_t hi, uint64_t n) {
    double mid = (static_cast<double>(lo) + static_cast<double>(hi)) / 2.0;
    double d = mid - mean;
    acc += d * d * static_cast<double>(n);
  });
  return std::sqrt(acc / static_cast<double>(total_));
}

uint64_t Histogram::ValueAtPercentile(double p) const {
  if (total_ == 0) return 0;
  const uint64_t rank = PercentileRank(p, total_);
  uint64_t seen = 0;
  uint64_t found = max_;
  ForEachWrittenRange(IndexOf(min_), IndexOf(max_), [&](size_t begin, size_t end) {
    for (size_t i = begin; i < end; ++i) {
      seen += counts_[i];
      if (seen >= rank) {
        found = std::clamp(HighestEquivalent(ValueFromIndex(i)), min_, max_);
        return false;
      }
    }
    return true;
  });
  return found;
}

uint64_t Histogram::CountAtOrBelow(uint64_t value) const {
  if (total_ == 0) return 0;
  size_t last = std::min(IndexOf(std::min(value, highest_trackable_)), IndexOf(max_));
  uint64_t n = 0;
  if (last < IndexOf(min_)) return 0;
  ForEachWrittenRange(IndexOf(min_), last, [&](size_t begin, size_t end) {
    for (size_t i = begin; i < end; ++i) n += counts_[i];
    return true;
  });
  return n;
}

// Varint stream over the buckets from min's to max's: a positive zigzag value
// is a count, a negative one a run of that many empty buckets (HdrHistogram's
// idea). Only written pages are read: the rest are runs of zeros by construction.
void Histogram::AppendBucketRuns(std::string* out) const {
  if (total_ == 0) return;
  size_t zeros = 0;  // empty buckets not yet written out, ending at `next`
  size_t next = IndexOf(min_);
  ForEachWrittenRange(IndexOf(min_), IndexOf(max_), [&](size_t begin, size_t end) {
    zeros += begin - next;
    for (size_t i = begin; i < end; ++i) {
      if (counts_[i] == 0) {
        ++zeros;
      } else {
        if (zeros) AppendZigZagVarint(out, -static_cast<int64_t>(zeros));
        zeros = 0;
        AppendZigZagVarint(out, static_cast<int64_t>(counts_[i]));
      }
    }
    next = end;
    return true;
  });
}

std::string Histogram::Encode() const {
  // The bucket runs over the whole array: from bucket 0, to the last.
  std::string bytes;
  const size_t first = total_ ? IndexOf(min_) : counts_.size();
  if (first) AppendZigZagVarint(&bytes, -static_cast<int64_t>(first));
  AppendBucketRuns(&bytes);
  if (total_ && IndexOf(max_) + 1 < counts_.size())
    AppendZigZagVarint(&bytes, -static_cast<int64_t>(counts_.size() - IndexOf(max_) - 1));
  return fmt::format("hlog1:{}:{}:{}:{}:{:.17g}:{}:{}", options_.significant_digits, options_.highest, min(), max_,
                     sum_, saturated_, Base64Encode(bytes));
}

// Encode()'s form, split: the header's fields and the bucket stream (base64-decoded).
struct Histogram::Encoded {
  HistogramOptions options;
  uint64_t min = 0, max = 0, saturated = 0;
  double sum = 0;
  std::string bytes;
};

StatusOr<Histogram::Encoded> Histogram::ParseEncoded(std::string_view text) {
  auto bad = [&](std::string_view why) {
    return Status::Corruption(fmt::format("histogram decode: {} in '{}'", why, text.substr(0, 40)));
  };
  std::vector<std::string> parts;
  size_t start = 0;
  for (int f = 0; f < 7; ++f) {
    size_t pos = text.find(':', start);
    if (pos == std::string_view::npos) return bad("missing fields");
    parts.emplace_back(text.substr(start, pos - start));
    start = pos + 1;
  }
  std::string_view payload = text.substr(start);
  if (parts[0] != "hlog1") return bad("unknown format tag");
  char* end = nullptr;
  Encoded e;
  e.options.significant_digits = static_cast<int>(std::strtol(parts[1].c_str(), &end, 10));
  if (*end || e.options.significant_digits < 1 || e.options.significant_digits > 5) return bad("bad digits");
  e.options.highest = std::strtoull(parts[2].c_str(), &end, 10);
  if (*end || e.options.highest < 2) return bad("bad highest");
  e.min = std::strtoull(parts[3].c_str(), &end, 10);
  if (*end) return bad("bad min");
  e.max = std::strtoull(parts[4].c_str(), &end, 10);
  if (*end) return bad("bad max");
  e.sum = std::strtod(parts[5].c_str(), &end);
  if (*end) return bad("bad sum");
  e.saturated = std::strtoull(parts[6].c_str(), &end, 10);
  if (*end) return bad("bad saturated");
  if (!Base64Decode(payload, &e.bytes)) return bad("bad base64");
  return e;
}

// Checked whole before any count is added, so a bad stream changes nothing:
// it covers the bucket array exactly, and its counts lie between min's and
// max's buckets (the span every scan relies on).
Status Histogram::MergeParsed(const Encoded& e, std::string_view text) {
  auto bad = [&](std::string_view why) {
    return Status::Corruption(fmt::format("histogram decode: {} in '{}'", why, text.substr(0, 40)));
  };
  const std::string& bytes = e.bytes;
  uint64_t total = 0;
  size_t pos = 0, idx = 0;
  const size_t lo = IndexOf(std::min(e.min, highest_trackable_)), hi = IndexOf(std::min(e.max, highest_trackable_));
  bool outside = false;
  while (pos < bytes.size()) {
    int64_t v;
    if (!ReadZigZagVarint(bytes, &pos, &v)) return bad("truncated varint");
    if (v < 0) {
      uint64_t run = static_cast<uint64_t>(-v);
      if (run > counts_.size() - idx) return bad("zero run past the end");
      idx += run;
    } else {
      if (idx >= counts_.size()) return bad("count past the end");
      outside |= v > 0 && (idx < lo || idx > hi);
      total += static_cast<uint64_t>(v);
      ++idx;
    }
  }
  if (idx != counts_.size()) return bad("bucket count mismatch");
  if (total) {
    if (e.min > e.max || e.max > highest_trackable_) return bad("min/max out of range");
    if (outside) return bad("min/max disagree with the buckets");
  }
  pos = 0, idx = 0;
  while (pos < bytes.size()) {
    int64_t v;
    ReadZigZagVarint(bytes, &pos, &v);
    if (v < 0) {
      idx += static_cast<size_t>(-v);
    } else {
      if (v > 0) Touch(idx);
      counts_[idx++] += static_cast<uint64_t>(v);
    }
  }
  if (total) {
    min_ = std::min(min_, e.min);
    max_ = std::max(max_, e.max);
  }
  total_ += total;
  sum_ += e.sum;
  saturated_ += e.saturated;
  return Status::Ok();
}

StatusOr<Histogram> Histogram::Decode(std::string_view text) {
  auto e = ParseEncoded(text);
  if (!e.ok()) return e.status();
  Histogram h(e->options);
  if (Status s = h.MergeParsed(*e, text); !s.ok()) return s;
  return h;
}

Status Histogram::MergeEncoded(std::string_view text) {
  auto e = ParseEncoded(text);
  if (!e.ok()) return e.status();
  if (e->options.significant_digits != options_.significant_digits || e->options.highest != options_.highest)
    return Status::InvalidArgument(fmt::format("histogram decode: {} digits up to {}, this one {} digits up to {}",
                                               e->options.significant_digits, e->options.highest,
                                               options_.significant_digits, options_.highest));
  return MergeParsed(*e, text);
}

void Histogram::AppendBinary(std::string* out) const {
  std::string runs;
  AppendBucketRuns(&runs);
  for (uint64_t v : {static_cast<uint64_t>(options_.significant_digits), options_.highest, min(), max_, saturated_,
                     static_cast<uint64_t>(runs.size())})
    AppendVarint(out, v);
  char sum[sizeof sum_];
  std::memcpy(sum, &sum_, sizeof sum_);
  out->append(sum, sizeof sum);
  out->append(runs);
}

Status Histogram::MergeBinary(std::string_view in, size_t* pos) {
  auto bad = [](std::string_view why) { return Status::Corruption(fmt::format("binary histogram: {}", why)); };
  uint64_t digits = 0, highest = 0, mn = 0, mx = 0, saturated = 0, length = 0;
  for (uint64_t* field : {&digits, &highest, &mn, &mx, &saturated, &length})
    if (!ReadVarint(in, pos, field)) return bad("truncated header");
  if (digits != static_cast<uint64_t>(options_.significant_digits) || highest != options_.highest)
    return Status::InvalidArgument(fmt::format("binary histogram: {} digits up to {}, this one {} digits up to {}",
                                               digits, highest, options_.significant_digits, options_.highest));
  double sum = 0;
  if (in.size() - *pos < sizeof sum + length) return bad("truncated");
  std::memcpy(&sum, in.data() + *pos, sizeof sum);
  const std::string_view runs = in.substr(*pos + sizeof sum, length);
  if (runs.empty()) {
    if (mn || mx || saturated) return bad("empty with a min, max or saturated");
    *pos += sizeof sum;
    return Status::Ok();
  }
  if (mn > mx || mx > highest_trackable_) return bad("min/max out of range");
  // Checked whole before any count is added, so a bad message changes nothing:
  // a count at min's bucket first, one at max's bucket last, nothing outside.
  const size_t first = IndexOf(mn), last = IndexOf(mx);
  uint64_t total = 0;
  size_t index = first, at = 0;
  bool counted_last = false;
  while (at < runs.size()) {
    int64_t v = 0;
    if (!ReadZigZagVarint(runs, &at, &v) || v == 0) return bad("truncated or zero entry");
    const bool count = v > 0;
    const uint64_t n = count ? static_cast<uint64_t>(v) : static_cast<uint64_t>(-v);
    if (index > last || (!count && (n > last - index || !counted_last))) return bad("a run out of range");
    if (count) total += n, ++index;
    else index += n;
    counted_last = count;
  }
  if (index != last + 1 || !counted_last) return bad("min/max disagree with the buckets");
  index = first, at = 0;
  while (at < runs.size()) {
    int64_t v = 0;
    ReadZigZagVarint(runs, &at, &v);
    if (v > 0) {
      counts_[index] += static_cast<uint64_t>(v);
      Touch(index++);
    } else {
      index += static_cast<size_t>(-v);
    }
  }
  *pos += sizeof sum + length;
  total_ += total;
  saturated_ += saturated;
  sum_ += sum;
  min_ = std::min(min_, mn);
  max_ = std::max(max_, mx);
  return Status::Ok();
}

}  // namespace storebench::measure
