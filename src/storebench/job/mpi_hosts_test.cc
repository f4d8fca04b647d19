// One job on three "hosts" made of Linux network namespaces: each host has a
// network stack of its own (eth0, a veth pair to a bridge in a namespace of
// its own) and a hostname of its own, and Open MPI starts its daemons there
// through a remote agent script, as it would over ssh. So mpirun, its daemons
// and the ranks talk TCP between network stacks, as between machines; the
// file system and the binary are shared, as a cluster's would be by NFS.
// Needs root, iproute2, unshare, bash and mpirun; skips visibly without them,
// and where `ip netns add` is refused (a container without CAP_SYS_ADMIN).
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "storebench/testing/mpi_test_fixture.h"

namespace {

namespace fs = std::filesystem;
using storebench::testing::NoMpiLeakCheck;
using storebench::testing::Outcome;
using storebench::testing::Slurp;
using storebench::testing::StorebenchBinary;

// A private /24 that only this test's namespaces carry: host i is kSubnet + i.
constexpr const char* kSubnet = "10.213.47.";
constexpr int kHosts = 3;

std::string HostName(int i) { return "h" + std::to_string(i); }
std::string Address(int i) { return kSubnet + std::to_string(i); }

// Runs a shell command line; returns its exit code (-1 when it did not exit),
// with its stdout and stderr together in *output.
int Shell(const std::string& command_line, std::string* output = nullptr) {
  FILE* p = popen((command_line + " 2>&1").c_str(), "r");
  if (!p) return -1;
  std::string text;
  char buf[4096];
  for (size_t n; (n = fread(buf, 1, sizeof buf, p)) > 0;) text.append(buf, n);
  const int rc = pclose(p);
  if (output) *output = text;
  return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

// Kills whatever still runs in a namespace (a daemon mpirun left when it was
// killed), then deletes it; its interfaces go with it.
void DeleteNamespace(const std::string& ns) {
  Shell("ip netns pids " + ns + " | xargs -r kill -9");
  Shell("ip netns del " + ns);
}

// Namespaces sbh-OWNER-* whose OWNER is no running process (or no number):
// left by a run of this test that was killed before its cleanup.
void RemoveStaleNamespaces() {
  std::string list;
  if (Shell("ip netns list", &list) != 0) return;
  std::istringstream lines(list);
  for (std::string line; std::getline(lines, line);) {
    const std::string ns = line.substr(0, line.find(' '));  // "NAME (id: 3)"
    const size_t dash = ns.find('-', 4);
    if (ns.rfind("sbh-", 0) != 0 || dash == std::string::npos) continue;
    const std::string owner = ns.substr(4, dash - 4);
    const bool numeric = !owner.empty() && owner.size() < 10 && owner.find_first_not_of("0123456789") == std::string::npos;
    if (numeric && (kill(static_cast<pid_t>(std::strtol(owner.c_str(), nullptr, 10)), 0) == 0 || errno == EPERM))
      continue;
    DeleteNamespace(ns);
  }
}

// Hosts h1..h3: namespace PREFIX-hI with eth0 at Address(I)/24, its veth peer
// vI attached to br0 in namespace PREFIX-br. Every namespace created is
// deleted at destruction, with whatever still runs in it.
class NetnsHosts {
 public:
  explicit NetnsHosts(std::string prefix) : prefix_(std::move(prefix)) {}
  ~NetnsHosts() {
    for (auto it = created_.rbegin(); it != created_.rend(); ++it) DeleteNamespace(*it);
  }
  NetnsHosts(const NetnsHosts&) = delete;
  NetnsHosts& operator=(const NetnsHosts&) = delete;

  std::string Ns(const std::string& suffix) const { return prefix_ + suffix; }

  // Builds the namespaces and the bridge; "" when done, else the command
  // that failed and what it said.
  std::string Build() {
    const std::string br = Ns("br");
    if (std::string why = Add(br); !why.empty()) return why;
    std::vector<std::string> steps{"ip netns exec " + br + " ip link set lo up",
                                   "ip netns exec " + br + " ip link add br0 type bridge",
                                   "ip netns exec " + br + " ip link set br0 up"};
    for (int i = 1; i <= kHosts; ++i) {
      const std::string h = Ns(HostName(i)), v = "v" + std::to_string(i);
      if (std::string why = Add(h); !why.empty()) return why;
      // Both ends made in their namespaces: nothing appears in the caller's.
      steps.push_back("ip link add eth0 netns " + h + " type veth peer name " + v + " netns " + br);
      steps.push_back("ip netns exec " + br + " ip link set " + v + " master br0 up");
      steps.push_back("ip netns exec " + h + " ip addr add " + Address(i) + "/24 dev eth0");
      steps.push_back("ip netns exec " + h + " ip link set lo up");
      steps.push_back("ip netns exec " + h + " ip link set eth0 up");
    }
    for (const std::string& step : steps)
      if (std::string out; Shell(step, &out) != 0) return "`" + step + "`: " + out;
    return "";
  }

  // Every host reaches every other over TCP: a connection to port 9 (nothing
  // listens) is refused by the other stack, where an unreachable one says "No
  // route to host". "" when so, else the pair that is not connected.
  std::string CheckConnected() const {
    for (int a = 1; a <= kHosts; ++a)
      for (int b = 1; b <= kHosts; ++b) {
        if (a == b) continue;
        std::string out;
        bool reached = false;
        for (int attempt = 0; attempt < 5 && !reached; ++attempt) {
          if (attempt > 0) std::this_thread::sleep_for(std::chrono::milliseconds(200));
          const int rc = Shell("LC_ALL=C timeout 5 ip netns exec " + Ns(HostName(a)) + " bash -c 'echo > /dev/tcp/" +
                                   Address(b) + "/9'",
                               &out);
          reached = rc == 0 || out.find("Connection refused") != std::string::npos;
        }
        if (!reached) return HostName(a) + " does not reach " + HostName(b) + " at " + Address(b) + ": " + out;
      }
    return "";
  }

  // Bytes host i has sent onto the bridge (received by its port vI).
  uint64_t SentBytes(int i) const {
    std::string out;
    Shell("ip netns exec " + Ns("br") + " cat /sys/class/net/v" + std::to_string(i) + "/statistics/rx_bytes", &out);
    return std::strtoull(out.c_str(), nullptr, 10);
  }

 private:
  std::string Add(const std::string& ns) {
    std::string out;
    if (Shell("ip netns add " + ns, &out) != 0) return "`ip netns add " + ns + "`: " + out;
    created_.push_back(ns);
    return "";
  }

  std::string prefix_;
  std::vector<std::string> created_;
};

class MpiHosts : public storebench::testing::MpiTest {
 protected:
  void SetUp() override {
    MpiTest::SetUp();
    if (IsSkipped()) return;
    if (geteuid() != 0) GTEST_SKIP() << "needs root: network namespaces (ip netns add) and a hostname per host";
    for (const std::string tool : {"ip", "unshare", "bash", "timeout"})
      if (Shell("command -v " + tool) != 0) GTEST_SKIP() << tool << " is missing (iproute2, util-linux, coreutils)";
    RemoveStaleNamespaces();
    hosts_ = std::make_unique<NetnsHosts>("sbh-" + std::to_string(getpid()) + "-");
    if (std::string why = hosts_->Build(); !why.empty()) GTEST_SKIP() << "no network namespaces here: " << why;
    if (std::string why = hosts_->CheckConnected(); !why.empty()) GTEST_SKIP() << "the namespaces are not connected: " << why;
    WriteAgentAndHostfile();
  }
  void TearDown() override {
    hosts_.reset();
    MpiTest::TearDown();
  }

  // Open MPI calls `agent.sh HOST COMMAND...` as it would `ssh HOST
  // COMMAND...`: COMMAND is a line for the remote shell (its arguments carry
  // shell quotes), so the agent hands it to sh whole, as sshd would, in
  // HOST's namespace with HOST's hostname (a UTS namespace of its own).
  void WriteAgentAndHostfile() {
    agent_ = dir_ / "agent.sh";
    hostfile_ = dir_ / "hosts";
    std::ofstream agent(agent_), hosts(hostfile_);
    agent << "#!/bin/sh\n"
             "# agent.sh HOST COMMAND...: COMMAND in HOST's network namespace, with its hostname.\n"
             "case \"$1\" in\n";
    for (int i = 1; i <= kHosts; ++i) {
      agent << "  " << Address(i) << ") h=" << HostName(i) << " ;;\n";
      hosts << Address(i) << " slots=1\n";
    }
    agent << "  *) echo \"agent.sh: unknown host $1\" >&2; exit 255 ;;\n"
             "esac\n"
             "shift\n"
             "exec ip netns exec " << hosts_->Ns("") << "$h unshare --uts sh -c \"hostname $h; $*\"\n";
    agent.close();
    fs::permissions(agent_, fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec);
  }

  // mpirun -n 3 storebench ARGS, launched in h1 (hostname h1), one rank per host.
  Outcome MpirunOnHosts(const std::string& args) {
    return RunShell("OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 " + NoMpiLeakCheck() +
                    "timeout -s KILL 120 ip netns exec " + hosts_->Ns("h1") +
                    " unshare --uts sh -c 'hostname h1; exec \"$@\"' sh mpirun --hostfile " + hostfile_.string() +
                    " -n 3 --mca plm_rsh_agent " + agent_.string() +
                    " --mca plm_rsh_no_tree_spawn 1 --mca btl tcp,self --mca btl_tcp_if_include eth0"
                    " --mca oob_tcp_if_include eth0 " + StorebenchBinary() + " " + args);
  }

  // DIR/h1, DIR/h2, DIR/h3 prepared, each by the rank on that host.
  void PrepareEveryHost(const std::string& data) {
    fs::create_directories(dir_ / "data");
    Outcome o = MpirunOnHosts("prepare --backend file --data '" + data + "' --files 1 --file-size 4M");
    ASSERT_EQ(o.code, 0) << o.out << o.err;
    for (int i = 1; i <= kHosts; ++i) {
      EXPECT_NE(o.out.find("on " + HostName(i) + ": file:"), std::string::npos) << o.out;
      EXPECT_TRUE(fs::exists(dir_ / "data" / HostName(i) / "storebench-file.json")) << HostName(i);
    }
  }

  std::unique_ptr<NetnsHosts> hosts_;
  fs::path agent_, hostfile_;
};

TEST_F(MpiHosts, OneJobOnThreeNetworkStacksMergesExactly) {
  const std::string data = (dir_ / "data" / "{host}").string();
  ASSERT_NO_FATAL_FAILURE(PrepareEveryHost(data));

  uint64_t sent_before[kHosts + 1];
  for (int i = 1; i <= kHosts; ++i) sent_before[i] = hosts_->SentBytes(i);
  const fs::path json = dir_ / "hosts.json";
  Outcome o = MpirunOnHosts("run --backend file --data '" + data + "' --duration 1s --interval 250ms --quiet --json " +
                            json.string());
  ASSERT_EQ(o.code, 0) << o.err;
  // The job's messages crossed the bridge: every host sent far more than the
  // few hundred bytes of IPv6 neighbour discovery a quiet link carries.
  for (int i = 1; i <= kHosts; ++i) EXPECT_GT(hosts_->SentBytes(i) - sent_before[i], 10000u) << HostName(i);

  const auto doc = nlohmann::json::parse(Slurp(json));
  const std::set<std::string> expected{"h1", "h2", "h3"};
  EXPECT_EQ(doc["mpi"]["hosts"].get<std::set<std::string>>(), expected) << doc["mpi"].dump();
  // One rank per host, in the hostfile's order.
  ASSERT_EQ(doc["ranks"].size(), 3u);
  for (int k = 0; k < kHosts; ++k) {
    EXPECT_EQ(doc["ranks"][k]["rank"], k);
    EXPECT_EQ(doc["ranks"][k]["host"], HostName(k + 1));
  }
  // The clock offsets were measured over TCP between stacks: a bound above
  // zero (a round trip takes time) and below the one second start lead.
  const uint64_t skew = doc["mpi"]["start_skew_ns"].get<uint64_t>();
  EXPECT_GT(skew, 0u);
  EXPECT_LT(skew, 1'000'000'000u);
  std::cout << "start skew bound over TCP between the namespaces: " << skew << " ns\n";  // docs/scale-out.md quotes it
  ExpectExactMerge(doc, 3);
}

TEST_F(MpiHosts, AHostWithoutItsDataSetStopsEveryRankWithOneLine) {
  const std::string data = (dir_ / "data" / "{host}").string();
  ASSERT_NO_FATAL_FAILURE(PrepareEveryHost(data));
  fs::remove_all(dir_ / "data" / "h3");

  const fs::path json = dir_ / "never.json";
  Outcome o = MpirunOnHosts("run --backend file --data '" + data + "' --duration 1s --quiet --json " + json.string());
  EXPECT_NE(o.code, 0) << o.err;
  // storebench's own lines (mpirun adds its banner about the exit code).
  std::vector<std::string> ours;
  std::istringstream lines(o.err);
  for (std::string line; std::getline(lines, line);)
    if (line.rfind("storebench:", 0) == 0) ours.push_back(line);
  ASSERT_EQ(ours.size(), 1u) << o.err;
  EXPECT_TRUE(std::regex_search(ours[0], std::regex("^storebench: rank 2 on h3: --data [^ ]*/data/h3: ")))
      << ours[0];
  EXPECT_EQ(o.err.find("rank 0 on"), std::string::npos) << o.err;
  EXPECT_EQ(o.err.find("rank 1 on"), std::string::npos) << o.err;
  EXPECT_FALSE(fs::exists(json));
}

}  // namespace
