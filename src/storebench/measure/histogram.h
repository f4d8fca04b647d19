// Histogram: a log-linear latency histogram in the manner of HdrHistogram.
//
// Values (nanoseconds, or any unsigned integer) from 1 to `highest` are kept
// with `significant_digits` decimal digits of relative precision: every
// bucket's width is at most 10^-digits of its lowest value, so any reported
// percentile lies within that relative error of an exact value of the data.
// Values above `highest` are clamped to it and counted in saturated(), never
// dropped. Record() is O(1) and never allocates; all memory is allocated by the
// constructor, as zero pages: only the buckets written cost memory.
// Thread-safety: none. One writer at a time; the per-thread recorder
// (recorder.h) is the way to record from many threads.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "storebench/base/status.h"
#include "storebench/measure/zeroed_allocator.h"

namespace storebench::measure {

struct HistogramOptions {
  int significant_digits = 3;           // 1..5
  uint64_t highest = 3'600'000'000'000;  // 1 hour in ns; the range actually covered is >= this
};

// The rank (1-based, in ascending order) of the p-th percentile of n
// observations: the smallest r with r >= p/100 * n, i.e. ceil(p * n / 100),
// kept within [1, n] (0 when n is 0; p below 0 counts as 0, above 100 as 100).
// p is read as the shortest decimal that converts to the given double (99.9
// is 999/10, not the binary 99.90000000000000568…), and the product is formed
// exactly in 128-bit integers, so wherever p * n / 100 is a whole number k the
// rank is k: the 99.9th percentile of 1000 observations is the 999th, never
// the maximum. Every percentile storebench reports (runs, intervals, merged
// ranks, bootstrap replicates, SLO checks) is ranked by this one function.
uint64_t PercentileRank(double p, uint64_t n);

class Histogram {
 public:
  explicit Histogram(HistogramOptions options = {});

  // Adds one observation of `value`. O(1), allocation-free.
  void Record(uint64_t value) {
    if (value > highest_trackable_) [[unlikely]] {
      ++saturated_;
      value = highest_trackable_;
    }
    const size_t i = IndexOf(value);
    ++counts_[i];
    Touch(i);
    ++total_;
    sum_ += static_cast<double>(value);
    min_ = value < min_ ? value : min_;
    max_ = value > max_ ? value : max_;
  }

  // Adds `count` observations of `value`. O(1), allocation-free.
  void Record(uint64_t value, uint64_t count) {
    if (value > highest_trackable_) [[unlikely]] {
      saturated_ += count;
      value = highest_trackable_;
    }
    const size_t i = IndexOf(value);
    counts_[i] += count;
    Touch(i);
    total_ += count;
    sum_ += static_cast<double>(value) * static_cast<double>(count);
    if (value < min_) min_ = value;
    if (value > max_) max_ = value;
  }

  // Adds values[0..n) one by one, as n calls of Record(value) would, to the
  // same state (the sum in the same order). The closed loop's staged records
  // come here: the histogram's fields stay in registers for the batch rather
  // than being stored and reloaded around every count.
  void RecordBatch(const uint64_t* values, size_t n) {
    const uint64_t highest = highest_trackable_, mask = sub_bucket_mask_;
    const int magnitude = sub_bucket_half_count_magnitude_;
    uint64_t* const counts = counts_.data();
    uint64_t* const written = written_.data();
    uint64_t lo = min_, hi = max_, saturated = 0;
    double sum = sum_;
    size_t marked = SIZE_MAX;  // the page last marked written: a batch's values mostly share one
    for (size_t k = 0; k < n; ++k) {
      uint64_t value = values[k];
      if (value > highest) [[unlikely]] {
        ++saturated;
        value = highest;
      }
      const size_t i = IndexOf(value, mask, magnitude);
      ++counts[i];
      if (const size_t page = i >> kPageShift; page != marked) {
        written[page >> 6] |= uint64_t{1} << (page & 63);
        marked = page;
      }
      sum += static_cast<double>(value);
      lo = value < lo ? value : lo;
      hi = value > hi ? value : hi;
    }
    saturated_ += saturated;
    total_ += n;
    sum_ = sum;
    min_ = lo;
    max_ = hi;
  }

  // Adds every observation of `other`, which must have the same options (else InvalidArgument).
  Status Merge(const Histogram& other);
  // Forgets all observations; keeps the allocation.
  void Reset();

  uint64_t count() const { return total_; }
  uint64_t saturated() const { return saturated_; }
  // Exact smallest / largest recorded value (0 when empty).
  uint64_t min() const { return total_ ? min_ : 0; }
  uint64_t max() const { return max_; }
  double mean() const { return total_ ? sum_ / static_cast<double>(total_) : 0.0; }
  // Standard deviation computed from bucket midpoints (within the stated precision).
  double stddev() const;
  // Value at percentile p in [0,100]: the highest value equivalent to the bucket
  // holding the PercentileRank(p, count())-th observation, clamped to [min, max].
  // 0 when empty. HdrHistogram's getValueAtPercentile answers the same on the
  // same histogram (percentile_interop_test), up to the clamp.
  uint64_t ValueAtPercentile(double p) const;
  // Count of observations <= value (bucket resolution).
  uint64_t CountAtOrBelow(uint64_t value) const;

  const HistogramOptions& options() const { return options_; }
  uint64_t highest_trackable() const { return highest_trackable_; }
  // Largest relative width of a bucket: percentile answers are within this of exact.
  double relative_precision() const;

  // Lowest and highest values that land in the same bucket as `value`.
  uint64_t LowestEquivalent(uint64_t value) const;
  uint64_t HighestEquivalent(uint64_t value) const;

  // Lossless compact text form: "hlog1:<digits>:<highest>:<min>:<max>:<sum>:<saturated>:<base64 varints>"
  // where the varints are (zero-run or count) pairs over the bucket array.
  std::string Encode() const;
  // Inverse of Encode(); Corruption on malformed input.
  static StatusOr<Histogram> Decode(std::string_view text);
  // Adds the observations of a histogram in Encode()'s form without building
  // it (no allocation beyond the decoded bytes): InvalidArgument when its
  // options differ from this one's, Corruption when malformed (then nothing is
  // added). Decode() is this on an empty histogram of the text's options.
  Status MergeEncoded(std::string_view text);

  // Lossless binary form for messages between processes (a scale-out run's
  // intervals), appended to *out: varints of the digits, the highest value,
  // min, max, saturated and the length of the bucket runs, the sum's 8 bytes
  // (host order: every rank runs on the same architecture), then the bucket
  // runs from min's bucket to max's (Encode()'s stream without its leading and
  // trailing runs and without base64): a byte or two per used bucket.
  void AppendBinary(std::string* out) const;
  // Adds the observations of a histogram in AppendBinary's form read from
  // in[*pos...], advancing *pos, without building it: InvalidArgument when its
  // options differ from this one's, Corruption when malformed (then nothing
  // is added).
  Status MergeBinary(std::string_view in, size_t* pos);

  // Calls fn(bucket_lowest_value, bucket_highest_value, count) for every non-empty bucket, ascending.
  template <typename Fn>
  void ForEachBucket(Fn&& fn) const {
    ForEachBucketIndex([&](size_t i, uint64_t count) {
      const uint64_t lo = ValueFromIndex(i);
      fn(lo, HighestEquivalent(lo), count);
    });
  }

 private:
  struct Encoded;
  static StatusOr<Encoded> ParseEncoded(std::string_view text);
  Status MergeParsed(const Encoded& e, std::string_view text);
  // Encode()'s stream of counts and runs of empty buckets, from min's bucket to max's.
  void AppendBucketRuns(std::string* out) const;
  // Calls fn(index, count) for every non-empty bucket, ascending.
  template <typename Fn>
  void ForEachBucketIndex(Fn&& fn) const {
    if (total_ == 0) return;
    ForEachWrittenRange(IndexOf(min_), IndexOf(max_), [&](size_t begin, size_t end) {
      for (size_t i = begin; i < end; ++i)
        if (counts_[i] != 0) fn(i, counts_[i]);
      return true;
    });
  }

  // Every non-empty bucket lies between IndexOf(min_) and IndexOf(max_) (both
  // clamped to the trackable range, as Record() clamps), and on a page of the
  // bucket array marked in written_: merging, resetting and querying visit only
  // the written pages of that span. A latency histogram's span can cover 10 ns
  // to seconds (a preempted op) while its counts sit on a few pages; reading
  // the rest would fault in zero pages and resetting them would make each one
  // real memory (with 4096 workers, a second and more of a stop).
  static constexpr int kPageShift = 9;  // 512 counts: one 4 KiB page of the array
  void Touch(size_t index) {
    written_[index >> (kPageShift + 6)] |= uint64_t{1} << ((index >> kPageShift) & 63);
  }
  // Calls fn(begin, end) for the part of each written page within indices
  // [first, last], ascending, until fn returns false.
  template <typename Fn>
  void ForEachWrittenRange(size_t first, size_t last, Fn&& fn) const {
    for (size_t page = first >> kPageShift, last_page = last >> kPageShift; page <= last_page; ++page) {
      uint64_t word = written_[page >> 6] >> (page & 63);
      if (word == 0) {  // no written page from here to the end of this word
        page |= 63;
        continue;
      }
      page += static_cast<size_t>(__builtin_ctzll(word));
      if (page > last_page) return;
      size_t begin = std::max(first, page << kPageShift);
      size_t end = std::min(last + 1, (page + 1) << kPageShift);
      if (!fn(begin, end)) return;
    }
  }
  size_t IndexOf(uint64_t value) const { return IndexOf(value, sub_bucket_mask_, sub_bucket_half_count_magnitude_); }
  static size_t IndexOf(uint64_t value, uint64_t sub_bucket_mask, int sub_bucket_half_count_magnitude) {
    // Bucket = position of the highest set bit above the sub-bucket range;
    // values below sub_bucket_count_ fall in bucket 0 at full resolution.
    uint64_t v = value | sub_bucket_mask;
    int bucket = 63 - __builtin_clzll(v) - sub_bucket_half_count_magnitude;
    size_t sub = static_cast<size_t>(value >> bucket);
    return (static_cast<size_t>(bucket) << sub_bucket_half_count_magnitude) + sub;
  }
  uint64_t ValueFromIndex(size_t index) const;

  HistogramOptions options_;
  int sub_bucket_half_count_magnitude_ = 0;
  uint64_t sub_bucket_mask_ = 0;  // sub_bucket_count - 1
  uint64_t highest_trackable_ = 0;
  std::vector<uint64_t, ZeroedAllocator<uint64_t>> counts_;  // untouched buckets cost no memory
  std::vector<uint64_t> written_;  // one bit per page of counts_: set once a count on it was written
  uint64_t total_ = 0;
  uint64_t saturated_ = 0;
  uint64_t min_ = UINT64_MAX;
  uint64_t max_ = 0;
  double sum_ = 0;
};

}  // namespace storebench::measure
