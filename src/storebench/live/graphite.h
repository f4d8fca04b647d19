// `run --graphite HOST:PORT[/PREFIX]`: each interval's figures pushed to a
// Graphite server (carbon) in its plaintext protocol, "PATH VALUE TIMESTAMP\n".
//
// A server that is down or slow never blocks or slows the run: the reporter
// appends an interval's lines to a bounded buffer (kBufferBytes) under a
// mutex the sender thread holds only to take the buffer, never during I/O;
// what does not fit is dropped and counted. The sender ("sb:graphite")
// connects (at most kConnectTimeout per try, again after kRetryAfter;
// while it is not connected what it takes is dropped, counted), writes (a
// batch not taken within kSendTimeout is dropped, counted) and reconnects.
// At the end Finish() gives it a bounded time to send the rest; what is left
// is counted as dropped. The counts go into the result (live.graphite).
// Thread-safety: Push() from one thread (the reporter); Finish() from the owner.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

#include "storebench/base/status.h"
#include "storebench/driver/runner.h"

namespace storebench::live {

struct GraphiteTarget {
  std::string host;
  int port = 0;
  std::string prefix = "storebench";  // every path starts with it
};

// "HOST:PORT" or "HOST:PORT/PREFIX" (PREFIX of letters, digits, '_', '-' and
// dots between them); InvalidArgument naming `flag` and the form otherwise.
StatusOr<GraphiteTarget> ParseGraphiteTarget(std::string_view text, std::string_view flag = "--graphite");

// An interval's lines, stamped `epoch_s` (whole seconds): PREFIX.FIELD for the
// rates, backlog, start lag, errors and the response and service percentiles
// (in seconds), PREFIX.platform_speed with the meter. Also what the reference
// lists (GraphiteFields()).
std::string GraphiteLines(const std::string& prefix, const driver::IntervalStats& st, int64_t epoch_s);
// The fields GraphiteLines writes, with their meaning (docs/live-metrics.md).
const std::vector<std::pair<std::string, std::string>>& GraphiteFields();

class GraphitePusher {
 public:
  static constexpr size_t kBufferBytes = 1 << 20;
  static constexpr std::chrono::milliseconds kConnectTimeout{1000};
  static constexpr std::chrono::milliseconds kRetryAfter{1000};
  // A batch the server does not take within this is dropped and the connection closed.
  static constexpr std::chrono::milliseconds kSendTimeout{1000};

  struct Counts {
    uint64_t points_pushed = 0;   // lines given to Push()
    uint64_t points_sent = 0;     // written to the server's socket
    uint64_t points_dropped = 0;  // not sent: the buffer was full, a write failed, or time ran out at the end
    uint64_t connect_failures = 0;
  };

  explicit GraphitePusher(GraphiteTarget target);
  ~GraphitePusher();
  GraphitePusher(const GraphitePusher&) = delete;
  GraphitePusher& operator=(const GraphitePusher&) = delete;

  // Queues `lines` (whole lines); drops them, counted, when they do not fit.
  void Push(std::string_view lines);
  // Sends what is queued for at most `grace`, stops the sender, and returns the counts.
  Counts Finish(std::chrono::milliseconds grace);
  const GraphiteTarget& target() const { return target_; }

 private:
  void Loop();
  bool Connect();
  bool SendAll(const std::string& data, std::chrono::steady_clock::time_point deadline);

  const GraphiteTarget target_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::string queued_;              // guarded by mu_
  uint64_t queued_points_ = 0;      // guarded by mu_
  bool stopping_ = false;           // guarded by mu_
  std::chrono::steady_clock::time_point give_up_{};  // guarded by mu_: when stopping, the end of the grace
  Counts counts_;                   // pushed/dropped at Push under mu_; the rest by the sender under mu_
  int fd_ = -1;                     // the sender's
  std::thread thread_;
  bool finished_ = false;
};

}  // namespace storebench::live
