#include "storebench/cli/default_job.h"

#include <cstdio>

#include "storebench/backend/backend.h"
#include "storebench/cli/run_command.h"

namespace storebench::cli {

job::Job DefaultRocksdbJob() {
  job::Job j;
  j.backend = "rocksdb";
  j.options = {{"threads", "2"}, {"duration", "8s"}, {"warmup", "1s"}, {"two-phase", "0.8"}};
  j.backend_options = {{"data", kDefaultRocksdbDir}, {"num", "200000"},     {"key-size", "20"},
                       {"value-size", "400"},         {"fill", "random"},    {"workload", "readrandom"},
                       {"cache-size", "8M"}};
  return j;
}

int RunDefaultJob(const job::Job& j, const std::vector<std::string>& argv, const std::atomic<bool>* stop,
                  bool print_job) {
  if (!backend::FindBackend("rocksdb"))
    return ReportError(Status::InvalidArgument(
        "the default job needs the rocksdb backend, which this binary lacks: apt-get install librocksdb-dev and "
        "rebuild"));
  if (print_job) return ExecuteRun(j, argv, stop, true);
  const job::Job defaults = DefaultRocksdbJob();
  const bool unchanged = j.backend == defaults.backend && j.options == defaults.options &&
                         j.backend_options == defaults.backend_options && j.classes.empty();
  // The description is of the default itself; a changed job is described by its summary's title.
  if (!j.outputs.quiet && unchanged) {
    std::printf(
        "storebench default job: RocksDB readrandom, 200,000 keys of 20 B with 400 B values (db_bench's encoding,\n"
        "fillrandom: ~63%% of the keys exist), 8 MiB block cache, 2 threads, in %s.\n"
        "Two phases (Luo & Carey): a closed loop measures capacity, then an open loop runs at 80%% of it,\n"
        "latency timed from each arrival's intended start. In phase 2 the two workers take arrivals from one\n"
        "queue (--dispatch shared); before each arrival they sleep only while it is further away than this host's\n"
        "wake-up latency tail and stay awake, yielding the CPU, for the rest (--wait adaptive). The summary sets\n"
        "the response time beside an ideal client's (the same arrivals and service times through two FIFO\n"
        "servers): the difference is the client's and the platform's share, the rest is queueing behind RocksDB.\n"
        "(storebench run --default-job --print-job prints this job; run --default-job FLAGS changes it.)\n\n",
        kDefaultRocksdbDir);
    std::fflush(stdout);
  }
  int rc = ExecutePrepare(j, stop);
  if (rc != kExitOk) return rc;
  if (!j.outputs.quiet) {
    std::printf("\n");
    std::fflush(stdout);
  }
  return ExecuteRun(j, argv, stop);
}

}  // namespace storebench::cli
