#include "storebench/measure/sample.h"

namespace storebench::measure {

Sample::Sample(const RecorderLayout& layout) : layout_(layout), start_lag_(layout.histogram) {
  kinds_.reserve(layout.kinds.size());
  for (size_t i = 0; i < layout.kinds.size(); ++i) kinds_.emplace_back(layout);
}

void Sample::Merge(const Sample& other) {
  for (size_t i = 0; i < kinds_.size(); ++i) {
    KindSample& a = kinds_[i];
    const KindSample& b = other.kinds_[i];
    // Same layout by construction, so Merge cannot fail here.
    (void)a.response.Merge(b.response);
    (void)a.service.Merge(b.service);
    for (size_t o = 0; o < a.outcomes.size(); ++o) a.outcomes[o] += b.outcomes[o];
    a.bytes += b.bytes;
  }
  (void)start_lag_.Merge(other.start_lag_);
}

void Sample::Reset() {
  for (KindSample& k : kinds_) {
    k.response.Reset();
    k.service.Reset();
    for (auto& o : k.outcomes) o = 0;
    k.bytes = 0;
  }
  start_lag_.Reset();
}

uint64_t Sample::ops() const {
  uint64_t n = 0;
  for (const KindSample& k : kinds_)
    for (uint64_t o : k.outcomes) n += o;
  return n;
}

uint64_t Sample::errors() const {
  uint64_t n = 0;
  for (const KindSample& k : kinds_)
    for (size_t o = 0; o < k.outcomes.size(); ++o)
      if (layout_.IsError(o)) n += k.outcomes[o];
  return n;
}

uint64_t Sample::bytes() const {
  uint64_t n = 0;
  for (const KindSample& k : kinds_) n += k.bytes;
  return n;
}

Histogram Sample::AllResponse() const {
  Histogram h(layout_.histogram);
  for (const KindSample& k : kinds_) (void)h.Merge(k.response);
  return h;
}

Histogram Sample::AllService() const {
  Histogram h(layout_.histogram);
  for (const KindSample& k : kinds_) (void)h.Merge(k.service);
  return h;
}

}  // namespace storebench::measure
