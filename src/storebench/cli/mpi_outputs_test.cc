// Under mpirun every output is the merged one: the .hlog, .hgrm, CSV and
// HTML of a run at 3 and 4 ranks each count every rank's ops, as the JSON's
// totals.ops does (issue 51 S2: the .hlog held rank 0's ops alone, 4,000 of
// 16,000). Needs mpirun (Debian openmpi-bin); skips visibly without it.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>
#include <string>

#include "storebench/report/hdr_log.h"
#include "storebench/report/html_report.h"
#include "storebench/testing/mpi_test_fixture.h"

namespace {

namespace fs = std::filesystem;
using storebench::testing::Outcome;
using storebench::testing::Slurp;

using MpiOutputs = storebench::testing::MpiTest;

// The .hlog's count per tag, summed over its interval lines, decoded by the project's own codec.
std::map<std::string, uint64_t> HlogCountsByTag(const fs::path& path) {
  auto log = storebench::report::ReadHistogramLogFile(path.string());
  EXPECT_TRUE(log.ok()) << log.status().message();
  std::map<std::string, uint64_t> counts;
  if (!log.ok()) return counts;
  for (const auto& line : log->intervals) counts[line.tag] += line.histogram.count();
  return counts;
}

// The "Total count" of an .hgrm's footer.
uint64_t HgrmTotalCount(const std::string& text) {
  std::smatch m;
  EXPECT_TRUE(std::regex_search(text, m, std::regex(R"(Total count\s*=\s*(\d+))"))) << text;
  return m.empty() ? 0 : std::stoull(m[1].str());
}

// The CSV timeline's ops column, summed.
uint64_t CsvOps(const std::string& text) {
  std::istringstream in(text);
  std::string header, line;
  std::getline(in, header);
  EXPECT_EQ(header.rfind("elapsed_s,length_s,ops,", 0), 0u) << header;
  uint64_t ops = 0;
  while (std::getline(in, line)) {
    std::istringstream cells(line);
    std::string cell;
    for (int column = 0; column < 3; ++column) std::getline(cells, cell, ',');
    ops += std::stoull(cell);
  }
  return ops;
}

// Every response spectrum's count in the page's embedded data.
void CollectResponseCounts(const nlohmann::json& node, std::vector<uint64_t>* counts) {
  if (node.is_object() && node.value("label", "") == "response" && node.contains("count"))
    counts->push_back(node["count"].get<uint64_t>());
  if (node.is_structured())
    for (const auto& child : node) CollectResponseCounts(child, counts);
}

std::vector<uint64_t> HtmlResponseCounts(const std::string& page) {
  const std::string open = "<script type=\"application/json\" id=\"sb-data\">";
  const size_t from = page.find(open);
  std::vector<uint64_t> counts;
  EXPECT_NE(from, std::string::npos) << "no embedded data in the page";
  if (from == std::string::npos) return counts;
  const size_t begin = from + open.size(), end = page.find("</script>", begin);
  CollectResponseCounts(nlohmann::json::parse(page.substr(begin, end - begin)), &counts);
  return counts;
}

TEST_F(MpiOutputs, EveryOutputCountsEveryRanksOps) {
  // --html needs Debian's Chart.js; without it the page is left out, and said so.
  const bool page = fs::exists(storebench::report::kChartJsPath);
  if (!page) std::cout << "[  SKIPPED ] the HTML part: " << storebench::report::kChartJsPackage << " is missing\n";
  for (int ranks : {3, 4}) {
    SCOPED_TRACE(std::to_string(ranks) + " ranks");
    const fs::path base = dir_ / ("r" + std::to_string(ranks));
    const std::string json = base.string() + ".json", csv = base.string() + ".csv", hlog = base.string() + ".hlog",
                      hgrm = base.string() + ".hgrm", html = base.string() + ".html";
    // Two worker groups: the .hlog has two op kinds, each tagged.
    Outcome o = Mpirun(ranks, "run --backend null --ops 24k --interval 100ms --class a:threads=1 --class b:threads=1 "
                              "--quiet --json " + json + " --csv " + csv + " --hlog " + hlog + " --hgrm " + hgrm +
                              (page ? " --html " + html : std::string()));
    ASSERT_EQ(o.code, 0) << o.err;
    const auto doc = nlohmann::json::parse(Slurp(json));
    ExpectExactMerge(doc, ranks);
    const uint64_t ops = doc["totals"]["ops"].get<uint64_t>();
    ASSERT_EQ(ops, 24000u);

    const auto tags = HlogCountsByTag(hlog);
    uint64_t untagged = 0, kinds = 0, service = 0;
    for (const auto& [tag, count] : tags) {
      if (tag.empty()) untagged += count;
      else if (storebench::report::IsServiceTag(tag)) service += count;
      else kinds += count;
    }
    EXPECT_EQ(untagged, ops) << ".hlog untagged lines";
    EXPECT_EQ(kinds, ops) << ".hlog op-kind tags";
    EXPECT_EQ(service, ops) << ".hlog .service tags";
    EXPECT_GE(tags.size(), 5u) << "untagged, and two kinds with their .service";

    EXPECT_EQ(HgrmTotalCount(Slurp(hgrm)), ops) << ".hgrm";
    EXPECT_EQ(CsvOps(Slurp(csv)), ops) << "CSV";
    if (page) {
      const auto counts = HtmlResponseCounts(Slurp(html));
      EXPECT_FALSE(counts.empty()) << "the page's response spectrum carries a count";
      for (uint64_t c : counts) EXPECT_EQ(c, ops) << "HTML response spectrum";
    }
  }
}

}  // namespace
