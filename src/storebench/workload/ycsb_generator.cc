#include "storebench/workload/ycsb_generator.h"

#include <algorithm>
#include <cmath>

namespace storebench::workload {

const char* YcsbOpName(YcsbOp op) {
  switch (op) {
    case YcsbOp::kRead: return "READ";
    case YcsbOp::kUpdate: return "UPDATE";
    case YcsbOp::kInsert: return "INSERT";
    case YcsbOp::kScan: return "SCAN";
    case YcsbOp::kReadModifyWrite: return "READ-MODIFY-WRITE";
  }
  return "?";
}

// YCSB keeps a window of 2^20 acknowledgements above the limit; inserts
// further ahead of the slowest one than that wait in YCSB. Here the window
// grows instead (one byte per insert in flight).
YcsbInsertCounter::YcsbInsertCounter(uint64_t start)
    : next_(start), last_(static_cast<int64_t>(start) - 1) {}

void YcsbInsertCounter::Acknowledge(uint64_t keynum) {
  std::lock_guard<std::mutex> lock(mu_);
  const int64_t last = last_.load(std::memory_order_relaxed);
  if (static_cast<int64_t>(keynum) <= last) return;  // twice: once is enough
  const uint64_t slot = keynum - static_cast<uint64_t>(last + 1);
  if (slot >= done_.size()) done_.resize(slot + 1, 0);
  done_[slot] = 1;
  size_t advance = 0;
  while (advance < done_.size() && done_[advance]) ++advance;
  if (advance == 0) return;
  done_.erase(done_.begin(), done_.begin() + static_cast<long>(advance));
  last_.store(last + static_cast<int64_t>(advance), std::memory_order_release);
}

YcsbGenerator::YcsbGenerator(const YcsbWorkload& w, YcsbInsertCounter* inserts, uint64_t seed)
    : w_(w),
      inserts_(inserts),
      rng_(seed),
      weights_{w.readproportion, w.updateproportion, w.insertproportion, w.scanproportion,
               w.readmodifywriteproportion},
      shares_{},
      insertcount_(w.insertcount.value_or(w.recordcount - w.insertstart)) {
  double sum = 0;
  for (double x : weights_) sum += x;
  for (int i = 0; i < 5; ++i) shares_[i] = weights_[i] / sum;
  switch (w.requestdistribution) {
    case YcsbRequestDistribution::kZipfian: {
      // YCSB's (int) cast of operationcount × insertproportion × 2.0.
      const auto expected = static_cast<uint64_t>(static_cast<double>(w.operationcount) * w.insertproportion * 2.0);
      scrambled_ = std::make_unique<ScrambledZipfianDistribution>(insertcount_ + expected + 1,
                                                                  ZipfianGenerator::kDefaultTheta);
      break;
    }
    case YcsbRequestDistribution::kLatest:
      ranks_ = std::make_unique<ZipfianGenerator>(std::max<int64_t>(1, inserts->Last()),
                                                  ZipfianGenerator::kDefaultTheta);
      break;
    case YcsbRequestDistribution::kExponential:
      exp_gamma_ = -std::log(1.0 - w.exponential_percentile / 100.0) /
                   (static_cast<double>(w.recordcount) * w.exponential_frac);
      break;
    default:
      break;
  }
  if (w.scanlengthdistribution == YcsbLengthDistribution::kZipfian)
    scan_zipf_ = std::make_unique<ZipfianGenerator>(w.maxscanlength - w.minscanlength + 1,
                                                    ZipfianGenerator::kDefaultTheta);
}

// YCSB's DiscreteGenerator: one uniform double against the normalized weights in order.
YcsbOp YcsbGenerator::NextOp() {
  double u = rng_.NextDouble();
  for (int i = 0; i < 5; ++i) {
    if (u < shares_[i]) return static_cast<YcsbOp>(i);
    u -= shares_[i];
  }
  for (int i = 4; i >= 0; --i)  // rounding left u at the top: the last operation with a weight
    if (weights_[i] > 0) return static_cast<YcsbOp>(i);
  return YcsbOp::kRead;
}

uint64_t YcsbGenerator::DrawKey() {
  const uint64_t lo = w_.insertstart;
  switch (w_.requestdistribution) {
    case YcsbRequestDistribution::kUniform:
      return lo + rng_.Uniform(insertcount_);
    case YcsbRequestDistribution::kZipfian:
      return lo + scrambled_->Next(rng_);
    case YcsbRequestDistribution::kHotspot: {
      const auto hot = static_cast<uint64_t>(static_cast<double>(insertcount_) * w_.hotspotdatafraction);
      const uint64_t cold = insertcount_ - hot;
      if ((rng_.NextDouble() < w_.hotspotopnfraction && hot > 0) || cold == 0) return lo + rng_.Uniform(hot);
      return lo + hot + rng_.Uniform(cold);
    }
    case YcsbRequestDistribution::kSequential:
      return lo + (sequence_++ % insertcount_);
    case YcsbRequestDistribution::kLatest:
    case YcsbRequestDistribution::kExponential:
      break;  // drawn from the last acknowledged insert in NextKeynum
  }
  return lo;
}

uint64_t YcsbGenerator::NextKeynum() {
  if (w_.requestdistribution == YcsbRequestDistribution::kLatest) {
    // SkewedLatestGenerator: max − rank over max items, max the last acknowledged insert.
    const int64_t max = inserts_->Last();
    if (max < 1) return 0;
    ranks_->SetItemCount(static_cast<uint64_t>(max));
    return static_cast<uint64_t>(max) - ranks_->Next(rng_);
  }
  if (w_.requestdistribution == YcsbRequestDistribution::kExponential) {
    for (;;) {
      const auto x = static_cast<int64_t>(-std::log(1.0 - rng_.NextDouble()) / exp_gamma_);
      const int64_t k = inserts_->Last() - x;
      if (k >= 0) return static_cast<uint64_t>(k);
    }
  }
  for (;;) {
    const uint64_t k = DrawKey();
    if (static_cast<int64_t>(k) <= inserts_->Last()) return k;
  }
}

uint32_t YcsbGenerator::NextScanLength() {
  const uint32_t span = w_.maxscanlength - w_.minscanlength + 1;
  if (scan_zipf_) return w_.minscanlength + static_cast<uint32_t>(scan_zipf_->Next(rng_));
  return w_.minscanlength + static_cast<uint32_t>(rng_.Uniform(span));
}

YcsbDraw YcsbGenerator::Next() {
  YcsbDraw d;
  d.op = NextOp();
  if (d.op == YcsbOp::kInsert) {
    d.keynum = inserts_->Next();
    return d;
  }
  d.keynum = NextKeynum();
  if (d.op == YcsbOp::kScan) d.scan_length = NextScanLength();
  return d;
}

}  // namespace storebench::workload
