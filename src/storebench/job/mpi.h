// Scale-out over MPI: one job run by every rank of an `mpirun`, as IOR does,
// merged exactly into one result by rank 0.
//
// Rank 0 parses and plans the job and sends it to every rank, so all ranks run
// the same job (a bad job is refused once, by rank 0). Each rank replaces
// {rank} and {host} in its backend options (e.g. --data /var/tmp/sb/{rank}),
// takes its share of an open-loop rate and of --ops (--threads is per rank),
// and starts at one instant: rank 0 estimates every rank's clock offset by
// ping-pong (the round trip with the smallest delay, as NTP does) and sends
// each rank the common start in its own clock. Intervals are sent to rank 0 as
// they end, so it prints one merged progress line; at the end rank 0 gathers
// every rank's typed result and merges them (counters add, histograms merge).
// With --stonewall, the first rank to finish its --ops stops the others (at
// their next interval). A rank that cannot open its data set stops every rank
// before the start with one line naming the rank and the host.
//
// Without Open MPI at build time the binary has no MPI mode and says so.
// Thread-safety: MPI calls are made from the main thread only (MPI_THREAD_FUNNELED).
#pragma once

#include <atomic>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "storebench/base/status.h"
#include "storebench/job/job.h"
#include "storebench/job/run.h"

namespace storebench::job {

// True when mpirun started this process (OMPI_COMM_WORLD_SIZE is set).
bool LaunchedByMpi();

class MpiSession {
 public:
  // MPI_Init_thread; IOError when MPI cannot start, NotSupported without MPI.
  static StatusOr<std::unique_ptr<MpiSession>> Init(int* argc, char*** argv);
  ~MpiSession();  // MPI_Finalize
  int rank() const { return rank_; }
  int size() const { return size_; }
  const std::string& host() const { return host_; }

  // Rank 0's `job` (or its error) reaches every rank. Rank 0 passes its planned
  // job and Status; the others' arguments are ignored. A bad job returns the
  // error on every rank (only rank 0 prints it).
  StatusOr<Job> ShareJob(const StatusOr<Job>& job);

 private:
  MpiSession() = default;
  int rank_ = 0, size_ = 1;
  std::string host_;
};

struct MpiRunOptions {
  bool stonewall = false;
  // This rank's own job (Job::ToJson of its own command line), when it has
  // one: a rank started with other flags than rank 0's is refused on every
  // rank rather than silently running rank 0's job.
  nlohmann::json own_job;
};

// What rank 0 gets back: the merged result and the MPI facts for the document.
struct MpiRunResult {
  JobResult merged;           // rank 0 only
  nlohmann::json mpi;         // ranks, hosts, start_skew_ns, stonewall, finish spread
  nlohmann::json ranks;       // per rank: host, ops, ops_per_sec, p50/p99, finish, environment
};

// Runs `job` on every rank (collective). Rank 0 returns the merged result;
// other ranks return an empty one. Errors: this rank's or another's (named).
StatusOr<MpiRunResult> RunJobMpi(MpiSession& session, const Job& job, const MpiRunOptions& options,
                                 const RunHooks& hooks);

// `prepare` on every rank (collective): each rank makes its part; rank 0 gets
// one report line per rank.
StatusOr<std::vector<std::string>> PrepareJobMpi(MpiSession& session, const Job& job);

// {rank} and {host} replaced in every backend option value.
Job ForRank(const Job& job, int rank, const std::string& host);

// The rank's share of the job's load: --ops and open-loop rates divided over
// `size` ranks (a trace dealt out by index).
void ShareLoad(driver::RunConfig* config, int rank, int size);

}  // namespace storebench::job
