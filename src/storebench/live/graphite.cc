#include "storebench/live/graphite.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <netdb.h>
#include <poll.h>
#include <pthread.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <utility>
#include <vector>

namespace storebench::live {
namespace {

Status BadTarget(std::string_view flag, std::string_view text, std::string_view why) {
  return Status::InvalidArgument(fmt::format(
      "{}: '{}' {}; accepted: HOST:PORT or HOST:PORT/PREFIX (PREFIX of letters, digits, _ and - between dots)", flag,
      text, why));
}

bool GoodPrefix(std::string_view p) {
  if (p.empty() || p.front() == '.' || p.back() == '.' || p.find("..") != std::string_view::npos) return false;
  return std::all_of(p.begin(), p.end(),
                     [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.'; });
}

size_t Lines(std::string_view text) { return static_cast<size_t>(std::count(text.begin(), text.end(), '\n')); }

}  // namespace

StatusOr<GraphiteTarget> ParseGraphiteTarget(std::string_view text, std::string_view flag) {
  GraphiteTarget t;
  std::string_view address = text;
  if (const size_t slash = text.find('/'); slash != std::string_view::npos) {
    address = text.substr(0, slash);
    t.prefix = std::string(text.substr(slash + 1));
    if (!GoodPrefix(t.prefix)) return BadTarget(flag, text, "has a prefix that is not a Graphite path");
  }
  const size_t colon = address.rfind(':');
  if (colon == std::string_view::npos || colon == 0) return BadTarget(flag, text, "has no HOST:PORT");
  t.host = std::string(address.substr(0, colon));
  const std::string_view port = address.substr(colon + 1);
  const auto [end, ec] = std::from_chars(port.data(), port.data() + port.size(), t.port);
  if (port.empty() || ec != std::errc() || end != port.data() + port.size() || t.port < 1 || t.port > 65535)
    return BadTarget(flag, text, "has no port number (1-65535)");
  return t;
}

const std::vector<std::pair<std::string, std::string>>& GraphiteFields() {
  static const std::vector<std::pair<std::string, std::string>> kFields = {
      {"ops_per_sec", "ops completed per second in the interval"},
      {"offered_ops_per_sec", "open loop: the arrivals the schedule asked for, per second (0 in a closed loop)"},
      {"errors", "ops that failed in the interval"},
      {"backlog", "open loop: arrivals due and not started at the interval's end"},
      {"start_lag_seconds", "open loop: how far the most-behind worker was behind schedule at the interval's end"},
      {"max_start_lag_seconds", "open loop: the largest start lag within the interval"},
      {"response.p50", "response time (from the intended start), seconds; also p90, p99, p999, max"},
      {"service.p50", "service time (from the actual start), seconds; also p99, max"},
      {"platform_speed", "the platform meter's speed (1 = as calibrated); absent without the meter"},
  };
  return kFields;
}

std::string GraphiteLines(const std::string& prefix, const driver::IntervalStats& st, int64_t epoch_s) {
  std::string out;
  auto line = [&](std::string_view field, double value) {
    out += fmt::format("{}.{} {} {}\n", prefix, field, value, epoch_s);
  };
  line("ops_per_sec", st.ops_per_sec);
  line("offered_ops_per_sec", st.offered_ops_per_sec);
  line("errors", static_cast<double>(st.errors));
  line("backlog", st.backlog);
  line("start_lag_seconds", static_cast<double>(st.lag_ns) / 1e9);
  line("max_start_lag_seconds", static_cast<double>(st.max_lag_ns) / 1e9);
  for (auto [name, ns] : {std::pair{"response.p50", st.response.p50}, std::pair{"response.p90", st.response.p90},
                          std::pair{"response.p99", st.response.p99}, std::pair{"response.p999", st.response.p999},
                          std::pair{"response.max", st.response.max}, std::pair{"service.p50", st.service.p50},
                          std::pair{"service.p99", st.service.p99}, std::pair{"service.max", st.service.max}})
    line(name, static_cast<double>(ns) / 1e9);
  if (!st.platform.empty()) line("platform_speed", st.platform.speed());
  return out;
}

GraphitePusher::GraphitePusher(GraphiteTarget target) : target_(std::move(target)) {
  thread_ = std::thread([this] { Loop(); });
}

GraphitePusher::~GraphitePusher() { Finish(std::chrono::milliseconds(0)); }

void GraphitePusher::Push(std::string_view lines) {
  const uint64_t n = Lines(lines);
  {
    std::lock_guard<std::mutex> lock(mu_);
    counts_.points_pushed += n;
    if (stopping_ || queued_.size() + lines.size() > kBufferBytes) {
      counts_.points_dropped += n;
      return;
    }
    queued_.append(lines);
    queued_points_ += n;
  }
  cv_.notify_one();
}

GraphitePusher::Counts GraphitePusher::Finish(std::chrono::milliseconds grace) {
  if (!finished_) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      stopping_ = true;
      give_up_ = std::chrono::steady_clock::now() + grace;
    }
    cv_.notify_one();
    thread_.join();
    finished_ = true;
  }
  std::lock_guard<std::mutex> lock(mu_);
  return counts_;
}

bool GraphitePusher::Connect() {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  if (getaddrinfo(target_.host.c_str(), std::to_string(target_.port).c_str(), &hints, &found) != 0) return false;
  for (addrinfo* a = found; a && fd_ < 0; a = a->ai_next) {
    const int fd = socket(a->ai_family, a->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, a->ai_protocol);
    if (fd < 0) continue;
    if (connect(fd, a->ai_addr, a->ai_addrlen) == 0) {
      fd_ = fd;
    } else if (errno == EINPROGRESS) {
      pollfd p{fd, POLLOUT, 0};
      int err = 0;
      socklen_t len = sizeof err;
      if (poll(&p, 1, static_cast<int>(kConnectTimeout.count())) == 1 &&
          getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len) == 0 && err == 0)
        fd_ = fd;
    }
    if (fd_ < 0) close(fd);
  }
  freeaddrinfo(found);
  return fd_ >= 0;
}

// Writes `data` whole before `deadline`; false (the connection closed) on an error or when time runs out.
bool GraphitePusher::SendAll(const std::string& data, std::chrono::steady_clock::time_point deadline) {
  size_t at = 0;
  while (at < data.size()) {
    const ssize_t n = send(fd_, data.data() + at, data.size() - at, MSG_NOSIGNAL);
    if (n > 0) {
      at += static_cast<size_t>(n);
      continue;
    }
    if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) break;
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    pollfd p{fd_, POLLOUT, 0};
    if (left.count() <= 0 || poll(&p, 1, static_cast<int>(std::min<int64_t>(left.count(), 100))) < 0) break;
  }
  if (at == data.size()) return true;
  close(fd_);
  fd_ = -1;
  return false;
}

void GraphitePusher::Loop() {
  pthread_setname_np(pthread_self(), "sb:graphite");
  std::chrono::steady_clock::time_point retry_at{};
  std::unique_lock<std::mutex> lock(mu_);
  for (;;) {
    cv_.wait(lock, [&] { return stopping_ || !queued_.empty(); });
    if (queued_.empty() && stopping_) break;
    const auto now = std::chrono::steady_clock::now();
    if (stopping_ && now >= give_up_) break;
    const std::string data = std::move(queued_);
    const uint64_t points = queued_points_;
    queued_.clear();
    queued_points_ = 0;
    const auto deadline = stopping_ ? std::min(give_up_, now + kSendTimeout) : now + kSendTimeout;
    lock.unlock();
    bool sent = false;
    if (fd_ < 0 && now >= retry_at && !Connect()) {
      retry_at = now + kRetryAfter;
      lock.lock();
      ++counts_.connect_failures;
      lock.unlock();
    }
    if (fd_ >= 0) sent = SendAll(data, deadline);
    lock.lock();
    (sent ? counts_.points_sent : counts_.points_dropped) += points;
    // Not connected and not yet time to try again: wait for that time, or the end.
    if (fd_ < 0 && !stopping_) cv_.wait_until(lock, retry_at, [&] { return stopping_; });
  }
  counts_.points_dropped += queued_points_;
  queued_.clear();
  queued_points_ = 0;
  lock.unlock();
  if (fd_ >= 0) close(fd_);
  fd_ = -1;
}

}  // namespace storebench::live
