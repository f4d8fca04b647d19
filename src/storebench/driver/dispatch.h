// Dispatch: where a worker takes its next open-loop arrival from.
//
// Partitioned (OwnArrivals): each worker owns 1/N of the group's arrivals, as
// N connections would; a worker that loses its CPU delays its own arrivals
// while the others idle. Shared (SharedArrivals): one arrival sequence per
// group and any free worker takes the next due arrival, as a server's threads
// take requests from one queue; arrival i has the same intended time
// whichever worker takes it (one stream, claimed in order, so Poisson draws
// are the same for the same seed).
//
// Thread-safety: an OwnArrivals is used by its worker only. SharedArrivals:
// Peek(), Claim() and ExpectedBefore() may be called by any worker at once;
// a claim is one compare-and-set on a flag held for the length of one
// Arrivals::Next() — never a sleep, never a wait on another worker.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>

#include "storebench/driver/schedule.h"

namespace storebench::driver {

class ArrivalSource {
 public:
  virtual ~ArrivalSource() = default;
  // The next arrival's intended time (ns since the start of arrivals) without
  // taking it; UINT64_MAX when there is none (exhausted, or the op limit reached).
  virtual uint64_t Peek() const = 0;
  // Takes the arrival at `t` if it is still the next one; *index is its place
  // in the source's sequence (0, 1, …). False: another worker took it.
  // `measured`: the arrival falls in the measured window (counts against the limit).
  virtual bool Claim(uint64_t t, bool measured, uint64_t* index) = 0;
  // Expected arrivals of this source in [0, t_ns).
  virtual double ExpectedBefore(uint64_t t_ns) const = 0;
  // Arrivals not taken whose time lies in [from_ns, until_ns): exact while
  // that is at most `exact_limit` arrivals, else the expected count. Consumes
  // them; call once, when no worker takes arrivals any more.
  uint64_t CountUntaken(uint64_t from_ns, uint64_t until_ns, uint64_t exact_limit = 10'000'000);
};

// A worker's own stream (partitioned dispatch).
class OwnArrivals final : public ArrivalSource {
 public:
  OwnArrivals(std::unique_ptr<Arrivals> stream, uint64_t measured_limit);
  uint64_t Peek() const override { return next_; }
  bool Claim(uint64_t t, bool measured, uint64_t* index) override;
  double ExpectedBefore(uint64_t t_ns) const override { return stream_->ExpectedBefore(t_ns); }

 private:
  std::unique_ptr<Arrivals> stream_;
  uint64_t next_;
  uint64_t claimed_ = 0, measured_ = 0, limit_;
};

// A group's one stream, shared by its workers (shared dispatch).
class SharedArrivals final : public ArrivalSource {
 public:
  // `measured_limit`: measured arrivals the group may take (its --ops share); 0 = no limit.
  SharedArrivals(std::unique_ptr<Arrivals> stream, uint64_t measured_limit);
  uint64_t Peek() const override { return next_.load(std::memory_order_acquire); }
  bool Claim(uint64_t t, bool measured, uint64_t* index) override;
  double ExpectedBefore(uint64_t t_ns) const override { return stream_->ExpectedBefore(t_ns); }

 private:
  std::unique_ptr<Arrivals> stream_;
  alignas(64) std::atomic<uint64_t> next_;
  std::atomic_flag busy_ = ATOMIC_FLAG_INIT;
  uint64_t claimed_ = 0, measured_ = 0, limit_;  // guarded by busy_
};

}  // namespace storebench::driver
