#include "storebench/driver/dispatch.h"

#include <cmath>

namespace storebench::driver {

uint64_t ArrivalSource::CountUntaken(uint64_t from_ns, uint64_t until_ns, uint64_t exact_limit) {
  uint64_t t = Peek();
  if (t == UINT64_MAX || t >= until_ns) return 0;
  const double expected = ExpectedBefore(until_ns) - ExpectedBefore(std::max(t, from_ns));
  if (expected > static_cast<double>(exact_limit)) return static_cast<uint64_t>(std::llround(expected));
  uint64_t n = 0, index = 0;
  while (t != UINT64_MAX && t < until_ns) {
    if (!Claim(t, false, &index)) break;
    if (t >= from_ns) ++n;
    t = Peek();
  }
  return n;
}

OwnArrivals::OwnArrivals(std::unique_ptr<Arrivals> stream, uint64_t measured_limit)
    : stream_(std::move(stream)), next_(stream_->Next()), limit_(measured_limit) {}

bool OwnArrivals::Claim(uint64_t t, bool measured, uint64_t* index) {
  if (t != next_) return false;
  *index = claimed_++;
  if (measured) ++measured_;
  next_ = limit_ && measured_ >= limit_ ? UINT64_MAX : stream_->Next();
  return true;
}

SharedArrivals::SharedArrivals(std::unique_ptr<Arrivals> stream, uint64_t measured_limit)
    : stream_(std::move(stream)), next_(stream_->Next()), limit_(measured_limit) {}

bool SharedArrivals::Claim(uint64_t t, bool measured, uint64_t* index) {
  if (next_.load(std::memory_order_acquire) != t) return false;
  if (busy_.test_and_set(std::memory_order_acquire)) return false;  // another worker is claiming: look again
  bool taken = false;
  if (next_.load(std::memory_order_relaxed) == t) {
    *index = claimed_++;
    if (measured) ++measured_;
    next_.store(limit_ && measured_ >= limit_ ? UINT64_MAX : stream_->Next(), std::memory_order_release);
    taken = true;
  }
  busy_.clear(std::memory_order_release);
  return taken;
}

}  // namespace storebench::driver
