#include "storebench/workload/ycsb_properties.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace storebench::workload {
namespace {

YcsbProperties Parse(std::string_view text) {
  YcsbProperties p;
  const Status st = ParseYcsbProperties(text, "t", &p);
  EXPECT_TRUE(st.ok()) << st.ToString();
  return p;
}

// java.util.Properties' forms: `=`, `:` or whitespace between key and value,
// comments from # or !, blank lines, continuations whose next line's leading
// whitespace is dropped, escapes; a later setting replaces an earlier one.
TEST(YcsbProperties, ParsesTheJavaPropertiesForms) {
  const YcsbProperties p = Parse(
      "# a comment\n"
      "  ! another\n"
      "\n"
      "a=1\n"
      "b : two words \n"
      "c\t3\n"
      "d = x\\\n"
      "     y\\\\\n"
      "e=\\u0041\\tZ\n"
      "a=4\r\n"
      "f=\n");
  EXPECT_EQ(p.values.at("a"), "4");
  EXPECT_EQ(p.origin.at("a"), "t:10");
  EXPECT_EQ(p.values.at("b"), "two words ");
  EXPECT_EQ(p.values.at("c"), "3");
  EXPECT_EQ(p.values.at("d"), "xy\\");
  EXPECT_EQ(p.values.at("e"), "A\tZ");
  EXPECT_EQ(p.values.at("f"), "");
  EXPECT_EQ(p.values.size(), 6u);
  YcsbProperties bad;
  EXPECT_FALSE(ParseYcsbProperties("x=\\u00G1\n", "t", &bad).ok());
}

// -p NAME=VALUE overrides the files; a malformed one names -p and the form.
TEST(YcsbProperties, MinusPOverridesAndNamesItsForm) {
  YcsbProperties p = Parse("recordcount=1000\n");
  ASSERT_TRUE(SetYcsbProperty("recordcount=5", &p).ok());
  EXPECT_EQ(p.values.at("recordcount"), "5");
  EXPECT_EQ(p.origin.at("recordcount"), "-p");
  ASSERT_TRUE(SetYcsbProperty("table=a=b", &p).ok());
  EXPECT_EQ(p.values.at("table"), "a=b");
  const Status st = SetYcsbProperty("recordcount", &p);
  EXPECT_FALSE(st.ok());
  EXPECT_NE(st.message().find("-p: expected NAME=VALUE"), std::string::npos) << st.message();
}

// Absent properties take CoreWorkload's defaults.
TEST(YcsbProperties, AbsentPropertiesTakeYcsbsDefaults) {
  auto w = YcsbWorkloadOf(Parse("recordcount=10\n"));
  ASSERT_TRUE(w.ok()) << w.status().ToString();
  EXPECT_EQ(w->fieldcount, 10u);
  EXPECT_EQ(w->fieldlength, 100u);
  EXPECT_TRUE(w->readallfields);
  EXPECT_FALSE(w->writeallfields);
  EXPECT_DOUBLE_EQ(w->readproportion, 0.95);
  EXPECT_DOUBLE_EQ(w->updateproportion, 0.05);
  EXPECT_EQ(w->requestdistribution, YcsbRequestDistribution::kUniform);
  EXPECT_EQ(w->maxscanlength, 1000u);
  EXPECT_FALSE(w->orderedinserts);
  EXPECT_EQ(w->zeropadding, 1u);
  EXPECT_EQ(w->table, "usertable");
  EXPECT_DOUBLE_EQ(w->hotspotdatafraction, 0.2);
  EXPECT_DOUBLE_EQ(w->hotspotopnfraction, 0.8);
  EXPECT_EQ(w->insertcount, 10u) << "recordcount − insertstart";
}

// An unknown property (YCSB would ignore a typo and run its default), a value
// of the wrong form and a property storebench does not implement are errors
// naming the property and where it was set.
TEST(YcsbProperties, UnknownPropertiesWrongFormsAndUnimplementedOnesAreRefused) {
  struct Case {
    const char* text;
    const char* says;
  };
  for (const Case& c : {Case{"readproprtion=0.5\n", "unknown YCSB property readproprtion (t:1)"},
                        Case{"recordcount=1e6\n", "recordcount (t:1): expected a whole number"},
                        Case{"recordcount=-5\n", "recordcount (t:1): expected a whole number"},
                        Case{"readproportion=1.5\n", "readproportion (t:1): expected a number from 0 to 1"},
                        Case{"readallfields=yes\n", "readallfields (t:1): expected true or false"},
                        Case{"requestdistribution=pareto\n", "one of uniform, zipfian, latest, hotspot"},
                        Case{"fieldlengthdistribution=histogram\n", "one of constant, uniform, zipfian"},
                        Case{"dataintegrity=true\n", "dataintegrity (t:1): expected one of false"},
                        Case{"workload=site.ycsb.workloads.TimeSeriesWorkload\n", "workload (t:1)"},
                        Case{"core_workload_insertion_retry_limit=3\n", "expected one of 0"},
                        Case{"minscanlength=10\nmaxscanlength=5\n", "minscanlength (10) > maxscanlength (5)"},
                        Case{"readproportion=0\nupdateproportion=0\n", "every operation proportion is 0"},
                        Case{"recordcount=10\ninsertstart=5\ninsertcount=6\n", "recordcount (10) must be at least"},
                        Case{"recordcount=10\ninsertstart=11\n", "recordcount (10) must be at least insertstart (11)"}}) {
    const auto w = YcsbWorkloadOf(Parse(c.text));
    ASSERT_FALSE(w.ok()) << c.text;
    EXPECT_TRUE(w.status().IsBadInput());
    EXPECT_NE(w.status().message().find(c.says), std::string::npos) << c.text << " -> " << w.status().message();
  }
  // YCSB's own client and measurement properties are known: accepted, with no effect here.
  EXPECT_TRUE(YcsbWorkloadOf(Parse("db=site.ycsb.BasicDB\nmeasurementtype=hdrhistogram\n")).ok());
}

std::string Slurp(const std::filesystem::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// The six core workloads shipped under workloads/ read as YCSB defines them.
TEST(YcsbProperties, TheShippedCoreWorkloadsAreYcsbs) {
  const char* source = std::getenv("STOREBENCH_SOURCE_DIR");
  if (!source) GTEST_SKIP() << "STOREBENCH_SOURCE_DIR is not set (ctest sets it)";
  const std::filesystem::path dir = std::filesystem::path(source) / "workloads";
  auto load = [&](const char* name) {
    YcsbProperties p;
    const Status st = ParseYcsbProperties(Slurp(dir / name), name, &p);
    EXPECT_TRUE(st.ok()) << st.ToString();
    auto w = YcsbWorkloadOf(p);
    EXPECT_TRUE(w.ok()) << name << ": " << w.status().ToString();
    return *w;
  };
  using R = YcsbRequestDistribution;
  const YcsbWorkload a = load("workloada"), b = load("workloadb"), c = load("workloadc");
  const YcsbWorkload d = load("workloadd"), e = load("workloade"), f = load("workloadf");
  for (const YcsbWorkload* w : {&a, &b, &c, &d, &e, &f}) {
    EXPECT_EQ(w->recordcount, 1000u);
    EXPECT_EQ(w->operationcount, 1000u);
    EXPECT_TRUE(w->readallfields);
  }
  EXPECT_DOUBLE_EQ(a.readproportion, 0.5);
  EXPECT_DOUBLE_EQ(a.updateproportion, 0.5);
  EXPECT_EQ(a.requestdistribution, R::kZipfian);
  EXPECT_DOUBLE_EQ(b.readproportion, 0.95);
  EXPECT_DOUBLE_EQ(b.updateproportion, 0.05);
  EXPECT_DOUBLE_EQ(c.readproportion, 1);
  EXPECT_DOUBLE_EQ(c.updateproportion, 0);
  EXPECT_DOUBLE_EQ(d.insertproportion, 0.05);
  EXPECT_EQ(d.requestdistribution, R::kLatest);
  EXPECT_DOUBLE_EQ(e.scanproportion, 0.95);
  EXPECT_DOUBLE_EQ(e.insertproportion, 0.05);
  EXPECT_EQ(e.maxscanlength, 100u);
  EXPECT_EQ(e.scanlengthdistribution, YcsbLengthDistribution::kUniform);
  EXPECT_DOUBLE_EQ(f.readmodifywriteproportion, 0.5);
  EXPECT_DOUBLE_EQ(f.readproportion, 0.5);
}

}  // namespace
}  // namespace storebench::workload
