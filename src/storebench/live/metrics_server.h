// `run --metrics-listen [HOST:]PORT`: serves LiveMetrics' page (exposition.h)
// at GET /metrics over HTTP, from one thread of its own. The HTTP server is
// cpp-httplib (Debian's libcpp-httplib-dev), with a pool of one thread: a
// scrape copies the page the reporter last rendered and writes it, so it
// neither waits for the reporter nor touches a worker's path.
// Thread-safety: Start and the destructor from one thread.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <thread>

#include "storebench/base/status.h"
#include "storebench/live/exposition.h"

namespace httplib {
class Server;
}

namespace storebench::live {

struct ListenAddress {
  std::string host = "127.0.0.1";  // localhost unless an address is given
  int port = 0;                    // 0: any free port (tests)
};

// "PORT", ":PORT" (localhost), "HOST:PORT", "[IPV6]:PORT"; HOST an IP address
// or a name; PORT 0..65535. InvalidArgument (naming `flag` and the accepted
// form) otherwise.
StatusOr<ListenAddress> ParseListenAddress(std::string_view text, std::string_view flag = "--metrics-listen");

class MetricsServer {
 public:
  // Binds `at` and starts serving `metrics` (which must outlive the server).
  // InvalidArgument naming `flag` when the address cannot be bound (taken,
  // not an address of this machine, a name that does not resolve).
  static StatusOr<std::unique_ptr<MetricsServer>> Start(const ListenAddress& at, const LiveMetrics* metrics,
                                                        std::string_view flag = "--metrics-listen");
  ~MetricsServer();
  MetricsServer(const MetricsServer&) = delete;
  MetricsServer& operator=(const MetricsServer&) = delete;

  int port() const { return port_; }
  std::string url() const;  // http://HOST:PORT/metrics

 private:
  MetricsServer() = default;
  std::unique_ptr<httplib::Server> server_;
  std::thread thread_;
  std::string host_;
  int port_ = 0;
};

}  // namespace storebench::live
