#include "storebench/live/metrics_server.h"

#include <gtest/gtest.h>
#include <httplib.h>

namespace storebench::live {
namespace {

TEST(ListenAddress, AcceptsPortHostPortAndBracketedIpv6) {
  auto a = ParseListenAddress("9100");
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(a->host, "127.0.0.1");
  EXPECT_EQ(a->port, 9100);
  a = ParseListenAddress(":9101");
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(a->host, "127.0.0.1");
  EXPECT_EQ(a->port, 9101);
  a = ParseListenAddress("0.0.0.0:80");
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(a->host, "0.0.0.0");
  a = ParseListenAddress("[::1]:0");
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(a->host, "::1");
  EXPECT_EQ(a->port, 0);
  for (const char* bad : {"", ":", "host:", "host:x", "65536", "-1", "::1:80", "[::1]", "[]:80", "[::1]80", "9100 "}) {
    auto b = ParseListenAddress(bad);
    ASSERT_FALSE(b.ok()) << bad;
    EXPECT_EQ(b.status().message().rfind("--metrics-listen: '", 0), 0u) << b.status().message();
    EXPECT_NE(b.status().message().find("accepted: PORT"), std::string::npos) << b.status().message();
  }
}

TEST(MetricsServer, ServesThePageAndRefusesAPortInUse) {
  LiveMetrics m("null", "t", measure::HistogramOptions{3, 1'000'000'000});
  ListenAddress at;  // localhost, any free port
  auto s = MetricsServer::Start(at, &m);
  ASSERT_TRUE(s.ok()) << s.status().message();
  ASSERT_GT((*s)->port(), 0);
  EXPECT_EQ((*s)->url(), "http://127.0.0.1:" + std::to_string((*s)->port()) + "/metrics");
  httplib::Client client("127.0.0.1", (*s)->port());
  auto res = client.Get("/metrics");
  ASSERT_TRUE(res) << httplib::to_string(res.error());
  EXPECT_EQ(res->status, 200);
  EXPECT_EQ(res->body, *m.Page());
  EXPECT_EQ(res->get_header_value("Content-Type"), "text/plain; version=0.0.4; charset=utf-8");
  // The page follows the reporter's updates.
  driver::IntervalStats st;
  st.ops_per_sec = 1234;
  m.OnInterval(st);
  res = client.Get("/metrics");
  ASSERT_TRUE(res);
  EXPECT_NE(res->body.find("storebench_achieved_ops_per_second 1234\n"), std::string::npos) << res->body;
  // A second server on the same port is refused, naming the flag.
  at.port = (*s)->port();
  auto second = MetricsServer::Start(at, &m);
  ASSERT_FALSE(second.ok());
  EXPECT_EQ(second.status().message().rfind("--metrics-listen: cannot listen on 127.0.0.1:", 0), 0u)
      << second.status().message();
  // An address that is not this machine's.
  auto foreign = MetricsServer::Start(ListenAddress{"192.0.2.1", 0}, &m);
  EXPECT_FALSE(foreign.ok());
}

TEST(MetricsServer, StopsAtOnceEvenWhenNothingWasScraped) {
  LiveMetrics m("null", "t", measure::HistogramOptions{3, 1'000'000'000});
  for (int i = 0; i < 20; ++i) {
    auto s = MetricsServer::Start(ListenAddress{}, &m);
    ASSERT_TRUE(s.ok()) << s.status().message();
  }  // each destructor stops and joins its thread
}

}  // namespace
}  // namespace storebench::live
