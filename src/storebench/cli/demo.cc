#include "storebench/cli/demo.h"

#include <cstdio>

#include "storebench/cli/run_command.h"

namespace storebench::cli {

int RunDemo(const std::atomic<bool>* stop) {
  std::printf(
      "storebench demo: a null backend whose ops take 20 us, with every worker paused for 100 ms once a second\n"
      "(a device that hiccups). First a closed loop, then an open loop at a fixed arrival rate.\n\n");
  job::Job closed;
  closed.backend = "null";
  closed.options = {{"threads", "2"}, {"duration", "3s"}, {"warmup", "0"}};
  closed.backend_options = {{"service-time", "spin:20us"}, {"stall", "100ms/1s"}};
  closed.outputs.title = "closed loop: 2 workers back to back";
  int rc = ExecuteRun(closed, {"storebench", "demo"}, stop);
  if (rc != kExitOk) return rc;
  std::printf("\n");
  job::Job open = closed;
  open.options["schedule"] = "constant:20k/s";
  open.outputs.title = "open loop: 20,000 arrivals/s, latency from the intended start";
  rc = ExecuteRun(open, {"storebench", "demo"}, stop);
  if (rc != kExitOk) return rc;
  std::printf(
      "\nThe closed loop records only the few ops that waited out each stall, so its p99 looks harmless;\n"
      "the open loop keeps the arrivals coming and times them from when they should have started:\n"
      "its response-time p99 shows the stall, while service time stays near 20 us. The 'split' line\n"
      "shows where the response time went (start lag vs service), and the 'platform' line how long the\n"
      "workers waited for a CPU and how late a sleeping thread woke: here the stall is the device's,\n"
      "not the platform's.\n");
  return kExitOk;
}

}  // namespace storebench::cli
