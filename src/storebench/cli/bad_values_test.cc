// Bad values, as a class rather than one spelling each (issue 51): an empty
// value, a hexadecimal or overflowing number, across every option table and
// every flag of every subcommand, taken programmatically from the tables and
// from `storebench help --markdown flags`; rates too small for the run; a
// schedule with no arrival in the run; --two-phase's wording.
#include <signal.h>

#include <gtest/gtest.h>

#include <functional>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "storebench/backend/backend.h"
#include "storebench/cli/compare_command.h"
#include "storebench/cli/matrix_command.h"
#include "storebench/cli/search_command.h"
#include "storebench/job/job.h"
#include "storebench/job/plan.h"
#include "storebench/testing/binary_test_fixture.h"

namespace storebench::cli {
namespace {

using nlohmann::json;
using storebench::testing::LineCount;
using storebench::testing::Outcome;
using storebench::testing::Slurp;

class BadValues : public storebench::testing::BinaryTest {
 protected:
  // Exit 2 with one line on stderr that starts with `prefix`.
  void ExpectRefused(const std::string& args, const std::string& prefix, const std::string& also = "") {
    Outcome o = Run(args);
    EXPECT_EQ(o.code, 2) << args << "\n" << o.err;
    EXPECT_EQ(LineCount(o.err), 1u) << args << "\n" << o.err;
    EXPECT_EQ(o.err.rfind(prefix, 0), 0u) << args << "\n" << o.err;
    if (!also.empty()) {
      EXPECT_NE(o.err.find(also), std::string::npos) << args << "\n" << o.err;
    }
  }
};

// One option table: its specs, and how a set of values is applied to it.
struct Table {
  std::string owner;
  std::vector<OptionSpec> specs;
  std::function<Status(const OptionValues&)> apply;
};

std::vector<Table> EveryTable() {
  std::vector<Table> t;
  t.push_back({"run", job::CoreOptionTable().Specs(),
               [](const OptionValues& v) { return job::CoreOptionTable().Parse(v).status(); }});
  t.push_back({"--class", job::ClassOptionSpecs(), [](const OptionValues& v) {
                 job::Job j;
                 j.backend = "null";
                 j.options["duration"] = "1s";
                 j.classes = {"c:" + v.begin()->first + "=" + v.begin()->second};
                 return job::MakePlan(j).status();
               }});
  for (const backend::BackendInfo& b : backend::Backends())
    t.push_back({b.name, b.options, [&b](const OptionValues& v) { return b.create(v, backend::CommonOptions{}).status(); }});
  t.push_back({"search", SearchOptionTable().Specs(),
               [](const OptionValues& v) { return SearchOptionTable().Parse(v).status(); }});
  t.push_back({"matrix", MatrixOptionTable().Specs(),
               [](const OptionValues& v) { return MatrixOptionTable().Parse(v).status(); }});
  t.push_back({"compare", ComparisonOptionTable().Specs(),
               [](const OptionValues& v) { return ComparisonOptionTable().Parse(v).status(); }});
  return t;
}

bool IsNumeric(OptionType t) {
  return t == OptionType::kInteger || t == OptionType::kCount || t == OptionType::kSize ||
         t == OptionType::kDuration || t == OptionType::kRate || t == OptionType::kNumber;
}

// M1 and the minor items, over every option of every table: "" is refused
// (not read as "absent"), a hexadecimal number is refused (decimal only), and
// an overflowing one is "too large".
TEST_F(BadValues, EveryOptionTableRefusesEmptyHexAndOverflowingValues) {
  size_t numeric = 0;
  for (const Table& table : EveryTable()) {
    for (const OptionSpec& spec : table.specs) {
      const std::string where = table.owner + " --" + spec.name;
      Status empty = table.apply({{spec.name, ""}});
      if (spec.empty_ok()) {
        EXPECT_TRUE(empty.ok()) << where << ": " << empty.message();
      } else {
        EXPECT_FALSE(empty.ok()) << where;
        EXPECT_NE(empty.message().find("--" + spec.name + ": an empty value"), std::string::npos)
            << where << ": " << empty.message();
      }
      if (!IsNumeric(spec.type)) continue;
      ++numeric;
      Status hex = table.apply({{spec.name, "0x10"}});
      EXPECT_FALSE(hex.ok()) << where << " took 0x10";
      EXPECT_NE(hex.message().find("--" + spec.name), std::string::npos) << where << ": " << hex.message();
      Status big = table.apply({{spec.name, spec.type == OptionType::kInteger ? "99999999999999999999" : "1e309"}});
      EXPECT_FALSE(big.ok()) << where;
      EXPECT_NE(big.message().find("too large"), std::string::npos) << where << ": " << big.message();
    }
  }
  EXPECT_GT(numeric, 20u);  // the tables were really iterated
}

// Every flag of every subcommand that takes a value, as `help --markdown
// flags` lists them, refuses "" on the command line: exit 2, one line naming
// the flag. (Table options, and those CLI11 declares outside the tables.)
TEST_F(BadValues, EveryValueFlagOfEverySubcommandRefusesAnEmptyValue) {
  Outcome help = Run("help --markdown flags");
  ASSERT_EQ(help.code, 0) << help.err;
  std::istringstream in(help.out);
  std::string line, sub;
  std::set<std::pair<std::string, std::string>> tried;
  // Switches take no value (the markdown writes VALUE after them too): the
  // tables' flags, and the few the command line declares itself.
  std::set<std::string> switches = {"--version", "--quiet", "--print-job", "--default-job"};
  for (const Table& table : EveryTable())
    for (const OptionSpec& spec : table.specs)
      if (spec.is_flag()) switches.insert("--" + spec.name);
  const std::regex heading(R"(^## storebench ?(\w*))"), row(R"(^\| `(--[a-z0-9_-]+)[^`]* VALUE(?:…)?` \|)");
  std::smatch m;
  while (std::getline(in, line)) {
    if (std::regex_search(line, m, heading)) sub = m[1];
    if (!std::regex_search(line, m, row) || !tried.insert({sub, m[1]}).second) continue;
    const std::string flag = m[1];
    if (switches.count(flag)) continue;
    Outcome o = Run(sub + " " + flag + " ''");
    EXPECT_EQ(o.code, 2) << sub << " " << flag << "\n" << o.err;
    EXPECT_EQ(LineCount(o.err), 1u) << sub << " " << flag << "\n" << o.err;
    EXPECT_NE(o.err.find(flag + ": an empty value"), std::string::npos) << sub << " " << flag << "\n" << o.err;
  }
  EXPECT_GT(tried.size(), 100u);  // the whole command line was walked
  // The two the campaign found, by name.
  ExpectRefused("search --confirm '' -- --backend null", "storebench search: --confirm: an empty value");
  ExpectRefused("run --backend null --duration 1s --schedule ''", "storebench run: --schedule: an empty value");
}

// S1: a positive rate that cannot give the run one arrival is refused before
// the run, naming where it came from; it used to spin a CPU and ignore SIGINT.
TEST_F(BadValues, ARateTooSmallForTheRunIsRefusedNamingTheFlag) {
  const std::string run = "run --backend null --quiet ";
  ExpectRefused(run + "--schedule constant:1e-9 --duration 1s", "storebench: --schedule: ", "fewer than one");
  ExpectRefused(run + "--schedule poisson:1e-12 --duration 1s", "storebench: --schedule: ", "fewer than one");
  ExpectRefused(run + "--schedule steps:1s@1e-6 --duration 1s", "storebench: --schedule: ", "fewer than one");
  ExpectRefused(run + "--schedule constant:1e-9 --ops 10", "storebench: --schedule: ", "--ops");
  ExpectRefused(run + "--duration 1s --class a:schedule=constant:1e-9", "storebench: --class a: schedule: ");
  ExpectRefused(run + "--two-phase 1e-20 --duration 1s", "storebench: --two-phase: '1e-20' is too small",
                "40000/s");
  ExpectRefused(run + "--two-phase 1e-9/s --duration 1s", "storebench: --two-phase: ", "too small");
}

// S1: a schedule with no arrival before the end of the run (a sine below zero
// all run long, steps at zero) ends on time with 0 ops and says why. The
// run's budget is the fixture's (SIGKILL after 60 s fails the test, it does not hang it).
TEST_F(BadValues, AScheduleWithNoArrivalEndsOnTimeWithZeroOps) {
  const std::string path = (dir_ / "r.json").string();
  for (const char* schedule : {"sine:-1,0,0,0", "steps:10s@0", "sine:-1,1e-9,0,0"}) {
    std::filesystem::remove(path);
    Outcome o = RunSignalledWhen({"run", "--backend", "null", "--schedule", schedule, "--duration", "300ms", "--json",
                                  path},
                                 [] { return false; }, SIGKILL);
    ASSERT_EQ(o.code, 0) << schedule << "\n" << o.err;
    EXPECT_NE(o.out.find("no arrivals were due in the measured window"), std::string::npos) << o.out;
    json j = json::parse(Slurp(path));
    EXPECT_EQ(j["totals"]["ops"], 0) << schedule;
    EXPECT_EQ(j["schedule"]["no_arrivals_due"], true) << schedule;
    EXPECT_NEAR(j["totals"]["elapsed_s"].get<double>(), 0.3, 0.01) << schedule;  // on time: its length
  }
  // A run with arrivals does not say so.
  Outcome o = Run("run --backend null --schedule constant:100 --duration 300ms --json " + path);
  ASSERT_EQ(o.code, 0) << o.err;
  EXPECT_EQ(json::parse(Slurp(path))["schedule"]["no_arrivals_due"], false);
  EXPECT_EQ(o.out.find("no arrivals were due"), std::string::npos);
}

// S1: SIGINT during a run that has no arrival is a stop like any other: exit
// 130 with a valid result (it used to be ignored, the generator looping on
// the main thread).
TEST_F(BadValues, SigintDuringARunWithNoArrivalsExits130WithResults) {
  const std::string path = (dir_ / "r.json").string();
  Outcome o = RunSignalledWhen(
      {"run", "--backend", "null", "--schedule", "sine:-1,0,0,0", "--duration", "60s", "--progress", "always", "--json",
       path},
      [this] { return Slurp(dir_ / "err").find("ops/s") != std::string::npos; }, SIGINT);
  EXPECT_EQ(o.code, 130) << o.err;
  json j = json::parse(Slurp(path));
  EXPECT_EQ(j["totals"]["interrupted"], true);
  EXPECT_EQ(j["totals"]["ops"], 0);
}

// Each wrong --two-phase says what is wrong with it in one line, naming the
// flag and both accepted forms; the right ones are taken.
TEST_F(BadValues, TwoPhaseSaysWhatIsWrongInOneLine) {
  const std::string run = "run --backend null --quiet --duration 1s --two-phase ";
  const std::pair<const char*, const char*> cases[] = {
      {"40k", "a rate without /s"},     {"0", "outside (0, 2]"},      {"-1", "outside (0, 2]"},
      {"3", "outside (0, 2]"},          {"abc", "neither a fraction nor a rate"}, {"1e309", "too large"},
      {"1e309/s", "too large"},         {"0/s", "not a positive rate"}, {"1e-20", "too small"}};
  for (const auto& [value, why] : cases) {
    const std::string prefix = std::string("storebench: --two-phase: '") + value + "'";
    ExpectRefused(run + value, prefix, why);
    ExpectRefused(run + value, prefix, "a fraction of the measured capacity in (0, 2] such as 0.8, or a rate such as 40000/s");
  }
  for (const char* ok : {"40k/s", "40000/s", "0.8", "2"}) {
    Outcome o = Run(run + ok + " --print-job");
    EXPECT_EQ(o.code, 0) << ok << "\n" << o.err;
  }
}

}  // namespace
}  // namespace storebench::cli
