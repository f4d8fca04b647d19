#include "storebench/live/graphite.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <map>
#include <sstream>
#include <string>
#include <thread>

namespace storebench::live {
namespace {

TEST(GraphiteTarget, AcceptsHostPortAndAPrefix) {
  auto t = ParseGraphiteTarget("localhost:2003");
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(t->host, "localhost");
  EXPECT_EQ(t->port, 2003);
  EXPECT_EQ(t->prefix, "storebench");
  t = ParseGraphiteTarget("10.0.0.5:2003/bench.rocksdb-7_8");
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(t->prefix, "bench.rocksdb-7_8");
  for (const char* bad : {"", "host", ":2003", "host:", "host:0", "host:70000", "host:20x3", "host:2003/",
                          "host:2003/a..b", "host:2003/.a", "host:2003/a b", "host:2003/a/b"}) {
    auto b = ParseGraphiteTarget(bad);
    ASSERT_FALSE(b.ok()) << bad;
    EXPECT_EQ(b.status().message().rfind("--graphite: '", 0), 0u) << b.status().message();
    EXPECT_NE(b.status().message().find("accepted: HOST:PORT"), std::string::npos) << b.status().message();
  }
}

// The lines as carbon reads them: path, value, timestamp.
std::map<std::string, std::pair<double, int64_t>> ParseLines(const std::string& text) {
  std::map<std::string, std::pair<double, int64_t>> out;
  std::istringstream in(text);
  std::string path;
  double value = 0;
  int64_t ts = 0;
  while (in >> path >> value >> ts) out[path] = {value, ts};
  return out;
}

TEST(GraphiteLines, OneLinePerFieldStampedWithTheIntervalsSecond) {
  driver::IntervalStats st;
  st.ops_per_sec = 1234.5, st.offered_ops_per_sec = 1300, st.errors = 2, st.backlog = 7, st.lag_ns = 1'500'000;
  st.max_lag_ns = 2'000'000;
  st.response = {10'000, 20'000, 30'000, 40'000, 50'000, 60'000};
  st.service = {1'000, 2'000, 3'000, 4'000, 5'000, 6'000};
  const std::string text = GraphiteLines("p.q", st, 1'700'000'000);
  const auto lines = ParseLines(text);
  EXPECT_EQ(lines.size(), static_cast<size_t>(std::count(text.begin(), text.end(), '\n')));
  EXPECT_EQ(lines.at("p.q.ops_per_sec"), std::make_pair(1234.5, int64_t{1'700'000'000}));
  EXPECT_EQ(lines.at("p.q.offered_ops_per_sec").first, 1300);
  EXPECT_EQ(lines.at("p.q.errors").first, 2);
  EXPECT_EQ(lines.at("p.q.backlog").first, 7);
  EXPECT_EQ(lines.at("p.q.start_lag_seconds").first, 0.0015);
  EXPECT_EQ(lines.at("p.q.max_start_lag_seconds").first, 0.002);
  EXPECT_EQ(lines.at("p.q.response.p99").first, 30e-6);
  EXPECT_EQ(lines.at("p.q.response.max").first, 60e-6);
  EXPECT_EQ(lines.at("p.q.service.p99").first, 3e-6);
  EXPECT_FALSE(lines.count("p.q.platform_speed")) << "no meter, no speed";
  // Every field written is in the reference.
  for (const auto& [path, v] : lines) {
    bool known = false;
    for (const auto& [field, help] : GraphiteFields()) {
      const std::string stem = field.substr(0, field.find('.'));
      known |= path.rfind("p.q." + stem, 0) == 0;
    }
    EXPECT_TRUE(known) << path;
  }
}

// A TCP listener on a free localhost port; reads what it is sent unless told not to.
class Listener {
 public:
  explicit Listener(bool read) {
    fd_ = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof a;
    if (bind(fd_, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0 || listen(fd_, 4) != 0 ||
        getsockname(fd_, reinterpret_cast<sockaddr*>(&a), &len) != 0)
      return;
    port_ = ntohs(a.sin_port);
    if (!read) return;  // connections wait in the backlog, and what they send stays in their buffers
    thread_ = std::thread([this] {
      const int c = accept(fd_, nullptr, nullptr);
      if (c < 0) return;
      char buf[65536];
      for (ssize_t n; (n = ::read(c, buf, sizeof buf)) > 0;) received_.append(buf, static_cast<size_t>(n));
      close(c);
    });
  }
  ~Listener() {
    shutdown(fd_, SHUT_RDWR);
    close(fd_);
    if (thread_.joinable()) thread_.join();
  }
  int port() const { return port_; }
  // After the sender closed: what arrived.
  const std::string& Received() {
    if (thread_.joinable()) thread_.join();
    return received_;
  }

 private:
  int fd_ = -1, port_ = 0;
  std::thread thread_;
  std::string received_;
};

TEST(GraphitePusher, SendsEveryPointToAServerThatReads) {
  Listener server(true);
  ASSERT_GT(server.port(), 0);
  std::string all;
  GraphitePusher::Counts c;
  {
    GraphitePusher p({"127.0.0.1", server.port(), "t"});
    driver::IntervalStats st;
    for (int i = 0; i < 50; ++i) {
      st.ops_per_sec = i;
      const std::string lines = GraphiteLines("t", st, 1'700'000'000 + i);
      all += lines;
      p.Push(lines);
    }
    c = p.Finish(std::chrono::seconds(30));
  }  // the pusher closes its connection: the listener's read ends
  const uint64_t points = static_cast<uint64_t>(std::count(all.begin(), all.end(), '\n'));
  EXPECT_EQ(c.points_pushed, points);
  EXPECT_EQ(c.points_sent, points);
  EXPECT_EQ(c.points_dropped, 0u);
  EXPECT_EQ(server.Received(), all);
}

TEST(GraphitePusher, AServerThatIsDownDropsEveryPointCounted) {
  int port = 0;
  {
    Listener gone(false);  // a port that was free a moment ago, closed again
    port = gone.port();
  }
  GraphitePusher p({"127.0.0.1", port, "t"});
  driver::IntervalStats st;
  const std::string lines = GraphiteLines("t", st, 1'700'000'000);
  for (int i = 0; i < 20; ++i) p.Push(lines);
  const GraphitePusher::Counts c = p.Finish(std::chrono::milliseconds(100));
  EXPECT_EQ(c.points_sent, 0u);
  EXPECT_EQ(c.points_dropped, c.points_pushed);
  EXPECT_GT(c.points_pushed, 0u);
  EXPECT_GE(c.connect_failures, 1u);
}

TEST(GraphitePusher, AServerThatNeverReadsFillsTheBufferAndPointsAreDroppedNotWaitedFor) {
  Listener stuck(false);
  ASSERT_GT(stuck.port(), 0);
  GraphitePusher p({"127.0.0.1", stuck.port(), "t"});
  driver::IntervalStats st;
  const std::string lines = GraphiteLines("t", st, 1'700'000'000);
  // Far more than the buffer and the sockets' buffers hold.
  const size_t pushes = 16 * GraphitePusher::kBufferBytes / lines.size();
  for (size_t i = 0; i < pushes; ++i) p.Push(lines);
  const GraphitePusher::Counts c = p.Finish(std::chrono::milliseconds(100));
  EXPECT_EQ(c.points_pushed, pushes * static_cast<uint64_t>(std::count(lines.begin(), lines.end(), '\n')));
  EXPECT_EQ(c.points_sent + c.points_dropped, c.points_pushed);
  EXPECT_GT(c.points_dropped, 0u);
}

}  // namespace
}  // namespace storebench::live
