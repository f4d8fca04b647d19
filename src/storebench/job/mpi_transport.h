// The MPI mode's transport (job/mpi.cc, job/mpi_live_merge.cc): the message
// tags, collectives over strings, a non-blocking sender, and the start instant
// every rank agrees on. Internal to job/; built only with Open MPI.
#pragma once

#include <cstdint>
#include <deque>
#include <string>
#include <vector>

#define OMPI_SKIP_MPICXX 1
#define MPICH_SKIP_MPICXX 1
#include <mpi.h>

#include "storebench/base/status.h"

namespace storebench::job::mpi_internal {

constexpr int kTagUp = 11;        // child to parent in the tree: an interval part ('I') or "done" ('D')
constexpr int kTagFinished = 12;  // stonewall: a rank finished its run (to rank 0)
constexpr int kTagClock = 13;     // clock ping-pong
constexpr int kTagStop = 14;      // stonewall: rank 0 tells every rank to stop

// Broadcasts `text` from rank 0.
std::string Broadcast(const std::string& text, int rank);
// Gathers every rank's `text` at rank 0 (in rank order; empty elsewhere).
std::vector<std::string> Gather(const std::string& text, int rank, int size);
// Waits for a request without taking a CPU: Open MPI's blocking calls poll
// the network without sleeping, so a rank that finished before the others
// would take a core from a rank still measuring on the same host. A
// millisecond's sleep between tests costs at most that at the run's end.
void WaitPolitely(MPI_Request* request);
// Every rank's status: OK everywhere, or the first failure, named by rank and host.
Status AgreeOn(const Status& mine, int rank, int size, const std::string& host);
// Each rank's clock offset to rank 0 by ping-pong (the round with the
// shortest round trip, as NTP does), then one start instant in each rank's
// own clock. Returns the start for this rank; *skew_ns (rank 0) is the
// largest half round trip: how far apart the ranks' starts may be.
uint64_t CommonStart(int rank, int size, uint64_t lead_ns, uint64_t* skew_ns);
// The ranks that share this rank's host (and so its CPUs).
int RanksOnThisHost();
// This thread's CPU time: what the live merge costs, whatever else the host runs.
uint64_t ThreadCpuNs();

// Sends without waiting for the receiver (it takes messages between its own
// intervals); each buffer lives until its send completed.
class Sender {
 public:
  void Send(std::string text, int to, int tag) {
    Reap();
    bytes_ += text.size();
    ++messages_;
    buffers_.push_back(std::move(text));
    requests_.emplace_back();
    MPI_Isend(buffers_.back().data(), static_cast<int>(buffers_.back().size()), MPI_CHAR, to, tag, MPI_COMM_WORLD,
              &requests_.back());
  }
  void Finish() {
    for (MPI_Request& r : requests_) WaitPolitely(&r);
    requests_.clear();
    buffers_.clear();
  }
  uint64_t bytes() const { return bytes_; }
  uint64_t messages() const { return messages_; }

 private:
  // Frees the buffers of the oldest sends that completed.
  void Reap() {
    while (!requests_.empty()) {
      int done = 0;
      MPI_Test(&requests_.front(), &done, MPI_STATUS_IGNORE);
      if (!done) break;
      requests_.pop_front();
      buffers_.pop_front();
    }
  }

  std::deque<std::string> buffers_;
  std::deque<MPI_Request> requests_;
  uint64_t bytes_ = 0, messages_ = 0;
};

}  // namespace storebench::job::mpi_internal
