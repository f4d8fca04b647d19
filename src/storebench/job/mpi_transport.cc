#include "storebench/job/mpi_transport.h"

#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "storebench/measure/clock.h"

namespace storebench::job::mpi_internal {

// Broadcasts `text` from rank 0.
std::string Broadcast(const std::string& text, int rank) {
  uint64_t n = rank == 0 ? text.size() : 0;
  MPI_Bcast(&n, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD);
  std::string out = rank == 0 ? text : std::string(n, '\0');
  if (n) MPI_Bcast(out.data(), static_cast<int>(n), MPI_CHAR, 0, MPI_COMM_WORLD);
  return out;
}

// Gathers every rank's `text` at rank 0 (in rank order; empty elsewhere).
std::vector<std::string> Gather(const std::string& text, int rank, int size) {
  int n = static_cast<int>(text.size());
  std::vector<int> lengths(static_cast<size_t>(size)), offsets(static_cast<size_t>(size));
  MPI_Gather(&n, 1, MPI_INT, lengths.data(), 1, MPI_INT, 0, MPI_COMM_WORLD);
  std::string all;
  if (rank == 0) {
    int at = 0;
    for (int i = 0; i < size; ++i) offsets[i] = at, at += lengths[i];
    all.resize(static_cast<size_t>(at));
  }
  MPI_Gatherv(text.data(), n, MPI_CHAR, all.data(), lengths.data(), offsets.data(), MPI_CHAR, 0, MPI_COMM_WORLD);
  std::vector<std::string> out;
  if (rank == 0)
    for (int i = 0; i < size; ++i) out.push_back(all.substr(static_cast<size_t>(offsets[i]), static_cast<size_t>(lengths[i])));
  return out;
}

// Waits for a request without taking a CPU: Open MPI's blocking calls poll
// the network without sleeping, so a rank that finished before the others
// would take a core from a rank still measuring on the same host. A
// millisecond's sleep between tests costs at most that at the run's end.
void WaitPolitely(MPI_Request* request) {
  for (;;) {
    int done = 0;
    MPI_Test(request, &done, MPI_STATUS_IGNORE);
    if (done) return;
    usleep(1000);
  }
}


// Every rank's status: OK everywhere, or the first failure, named by rank and host.
Status AgreeOn(const Status& mine, int rank, int size, const std::string& host) {
  int bad = mine.ok() ? 0 : 1, any = 0;
  MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (!any) return Status::Ok();
  nlohmann::json j = {{"ok", mine.ok()}, {"message", mine.message()}, {"bad_input", mine.IsBadInput()}, {"host", host}};
  std::vector<std::string> all = Gather(j.dump(), rank, size);
  std::string first;
  bool bad_input = false;
  if (rank == 0) {
    for (int r = 0; r < size; ++r) {
      auto e = nlohmann::json::parse(all[r]);
      if (e["ok"].get<bool>()) continue;
      first = fmt::format("rank {} on {}: {}", r, e["host"].get<std::string>(), e["message"].get<std::string>());
      bad_input = e["bad_input"].get<bool>();
      break;
    }
  }
  nlohmann::json verdict = nlohmann::json::parse(Broadcast(nlohmann::json{{"m", first}, {"b", bad_input}}.dump(), rank));
  const std::string message = verdict["m"].get<std::string>();
  return verdict["b"].get<bool>() ? Status::InvalidArgument(message) : Status::IOError(message);
}

// Each rank's clock offset to rank 0 by ping-pong (the round with the
// shortest round trip, as NTP does), then one start instant in each rank's
// own clock. Returns the start for this rank; *skew_ns (rank 0) is the
// largest half round trip: how far apart the ranks' starts may be.
uint64_t CommonStart(int rank, int size, uint64_t lead_ns, uint64_t* skew_ns) {
  const measure::Clock& clock = measure::Clock::Default();
  constexpr int kRounds = 16;
  std::vector<int64_t> offset(static_cast<size_t>(size), 0);
  uint64_t worst = 0;
  for (int k = 1; k < size; ++k) {
    if (rank == 0) {
      uint64_t best_rtt = UINT64_MAX;
      for (int i = 0; i < kRounds; ++i) {
        uint64_t t0 = clock.NowNs(), tk = 0;
        MPI_Send(&t0, 1, MPI_UINT64_T, k, kTagClock, MPI_COMM_WORLD);
        MPI_Recv(&tk, 1, MPI_UINT64_T, k, kTagClock, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        uint64_t t1 = clock.NowNs();
        if (t1 - t0 < best_rtt) {
          best_rtt = t1 - t0;
          offset[k] = static_cast<int64_t>(tk) - static_cast<int64_t>(t0 + (t1 - t0) / 2);
        }
      }
      worst = std::max(worst, best_rtt / 2);
    } else if (rank == k) {
      for (int i = 0; i < kRounds; ++i) {
        uint64_t t0 = 0;
        MPI_Recv(&t0, 1, MPI_UINT64_T, 0, kTagClock, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        uint64_t tk = clock.NowNs();
        MPI_Send(&tk, 1, MPI_UINT64_T, 0, kTagClock, MPI_COMM_WORLD);
      }
    }
  }
  std::vector<uint64_t> starts(static_cast<size_t>(size));
  if (rank == 0) {
    const uint64_t start0 = clock.NowNs() + lead_ns;
    for (int k = 0; k < size; ++k) starts[k] = static_cast<uint64_t>(static_cast<int64_t>(start0) + offset[k]);
  }
  uint64_t mine = 0;
  MPI_Scatter(starts.data(), 1, MPI_UINT64_T, &mine, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD);
  if (skew_ns) *skew_ns = worst;
  return mine;
}

// The ranks that share this rank's host (and so its CPUs).
int RanksOnThisHost() {
  MPI_Comm local;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &local);
  int n = 1;
  MPI_Comm_size(local, &n);
  MPI_Comm_free(&local);
  return n;
}

// This thread's CPU time: what the live merge costs, whatever else the host runs.
uint64_t ThreadCpuNs() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1'000'000'000 + static_cast<uint64_t>(ts.tv_nsec);
}

}  // namespace storebench::job::mpi_internal
