#include "storebench/live/metrics_server.h"

#include <fmt/format.h>
#include <httplib.h>
#include <sys/socket.h>

#include <charconv>
#include <chrono>

namespace storebench::live {
namespace {

Status BadAddress(std::string_view flag, std::string_view text, std::string_view why) {
  return Status::InvalidArgument(
      fmt::format("{}: '{}' {}; accepted: PORT, :PORT (localhost), HOST:PORT or [IPV6]:PORT, PORT 0-65535", flag,
                  text, why));
}

}  // namespace

StatusOr<ListenAddress> ParseListenAddress(std::string_view text, std::string_view flag) {
  ListenAddress a;
  std::string_view port = text;
  if (!text.empty() && text.front() == '[') {
    const size_t close = text.find(']');
    if (close == std::string_view::npos || close + 1 >= text.size() || text[close + 1] != ':')
      return BadAddress(flag, text, "is not [IPV6]:PORT");
    a.host = std::string(text.substr(1, close - 1));
    port = text.substr(close + 2);
    if (a.host.empty()) return BadAddress(flag, text, "has an empty address");
  } else if (const size_t colon = text.rfind(':'); colon != std::string_view::npos) {
    if (text.substr(0, colon).find(':') != std::string_view::npos)
      return BadAddress(flag, text, "has an IPv6 address without brackets");
    if (colon > 0) a.host = std::string(text.substr(0, colon));
    port = text.substr(colon + 1);
  }
  int value = -1;
  const auto [end, ec] = std::from_chars(port.data(), port.data() + port.size(), value);
  if (port.empty() || ec != std::errc() || end != port.data() + port.size() || value < 0 || value > 65535)
    return BadAddress(flag, text, "has no port number");
  a.port = value;
  return a;
}

StatusOr<std::unique_ptr<MetricsServer>> MetricsServer::Start(const ListenAddress& at, const LiveMetrics* metrics,
                                                               std::string_view flag) {
  std::unique_ptr<MetricsServer> s(new MetricsServer());
  s->server_ = std::make_unique<httplib::Server>();
  httplib::Server& server = *s->server_;
  // One thread answers: scrapes come seconds apart, and each is a copy.
  server.new_task_queue = [] { return new httplib::ThreadPool(1); };
  // SO_REUSEADDR only: httplib's default SO_REUSEPORT would let a second
  // process bind a port that is in use and take half of its scrapes.
  // The headers and the page go out in two writes: without TCP_NODELAY the
  // second waits for the scraper's delayed ACK (~40 ms a scrape here).
  server.set_tcp_nodelay(true);
  server.set_socket_options([](socket_t sock) {
    int yes = 1;
    setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof(yes));
  });
  server.Get("/metrics", [metrics](const httplib::Request&, httplib::Response& res) {
    const std::shared_ptr<const std::string> page = metrics->Page();
    res.set_content(*page, "text/plain; version=0.0.4; charset=utf-8");
  });
  server.Get("/", [](const httplib::Request&, httplib::Response& res) {
    res.set_content("storebench: the run's metrics are at /metrics\n", "text/plain; charset=utf-8");
  });
  if (at.port == 0) {
    s->port_ = server.bind_to_any_port(at.host);
    if (s->port_ < 0) s->port_ = 0;
  } else if (server.bind_to_port(at.host, at.port)) {
    s->port_ = at.port;
  }
  if (s->port_ == 0) {
    const std::string where = at.host.find(':') != std::string::npos ? fmt::format("[{}]:{}", at.host, at.port)
                                                                       : fmt::format("{}:{}", at.host, at.port);
    return Status::InvalidArgument(fmt::format(
        "{}: cannot listen on {} (the port is in use, or the address is not one of this machine's)", flag, where));
  }
  s->host_ = at.host;
  s->thread_ = std::thread([&server] { server.listen_after_bind(); });
  // Stop() closes the socket only once the server runs: a run that ends at
  // once must not leave the thread listening (bounded: the thread starts in
  // microseconds; this is not the run's clock).
  for (int i = 0; i < 5000 && !server.is_running(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  return s;
}

MetricsServer::~MetricsServer() {
  if (server_) server_->stop();
  if (thread_.joinable()) thread_.join();
}

std::string MetricsServer::url() const {
  return host_.find(':') != std::string::npos ? fmt::format("http://[{}]:{}/metrics", host_, port_)
                                               : fmt::format("http://{}:{}/metrics", host_, port_);
}

}  // namespace storebench::live
