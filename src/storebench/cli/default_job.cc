#include "storebench/cli/default_job.h"

#include <cstdio>

#include "storebench/backend/backend.h"
#include "storebench/cli/run_command.h"

namespace storebench::cli {

job::Job DefaultRocksdbJob() {
  job::Job j;
  j.backend = "rocksdb";
  // One worker (on a 2-CPU host a second worker has no CPU of its own: the
  // reporter, the meters and the kernel preempt it) at 95% of its capacity, as
  // Luo & Carey's running phase. This host's capacity swings by ±20% from one
  // second to the next, so at 0.95 a queue builds behind the engine in slow
  // seconds: the summary's ideal client, `engine` and `speed` lines say whose
  // it is (docs/platform.md, "The default job at 0.95").
  j.options = {{"threads", "1"}, {"duration", "8s"}, {"warmup", "1s"}, {"two-phase", "0.95"}};
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
        "fillrandom: ~63%% of the keys exist), 8 MiB block cache, 1 worker thread, in %s.\n"
        "Two phases (Luo & Carey): a closed loop measures capacity (the median of its 1 s intervals), then an\n"
        "open loop runs at 95%% of it, latency timed from each arrival's intended start. Before each arrival\n"
        "the worker sleeps only while it is further away than this host's wake-up latency tail and stays awake\n"
        "for the rest (--wait adaptive); the other CPU is left to the reporter, the hiccup meter and the kernel\n"
        "(the platform meter wakes on both CPUs every 40 ms and times a fixed unit of work: the `speed` line).\n"
        "The summary sets the response time beside an ideal client's (the same arrivals and service times\n"
        "through one FIFO server): the difference is the client's and the platform's share, the rest is\n"
        "queueing behind RocksDB; the `engine` line says whether RocksDB served slower than when its\n"
        "capacity was measured.\n"
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
