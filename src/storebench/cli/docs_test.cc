// The documentation against the code: every repository path that README.md or
// docs/*.md names exists, every test they cite exists, every flag they name
// is one that storebench's help prints (or is listed below as another
// program's), and every commit they cite is in the history. Each failure
// names the document and line. (docs/architecture.md lists what these hold.)
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <functional>
#include <map>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "storebench/testing/binary_test_fixture.h"
#include "storebench/report/result_keys.h"
#include "storebench/report/summary_lines.h"

namespace storebench::testing {
namespace {

namespace fs = std::filesystem;

fs::path SourceDir() {
  const char* s = std::getenv("STOREBENCH_SOURCE_DIR");
  return s ? fs::path(s) : fs::path();
}

struct Doc {
  std::string name;  // relative to the source directory
  std::vector<std::string> lines;
};

std::vector<Doc> Documents() {
  std::vector<Doc> docs;
  const fs::path root = SourceDir();
  std::vector<fs::path> files{root / "README.md"};
  for (const auto& e : fs::directory_iterator(root / "docs"))
    if (e.path().extension() == ".md") files.push_back(e.path());
  std::sort(files.begin() + 1, files.end());
  for (const fs::path& f : files) {
    Doc d{fs::relative(f, root).string(), {}};
    std::istringstream in(Slurp(f));
    for (std::string line; std::getline(in, line);) d.lines.push_back(line);
    docs.push_back(std::move(d));
  }
  return docs;
}

// Calls fn(document, line number, line, match) for every match of `re` in
// every document, line by line.
void ForEachMatch(const std::regex& re,
                  const std::function<void(const Doc&, size_t, const std::string&, const std::smatch&)>& fn) {
  for (const Doc& d : Documents()) {
    for (size_t i = 0; i < d.lines.size(); ++i) {
      const std::string& line = d.lines[i];
      for (std::sregex_iterator it(line.begin(), line.end(), re), end; it != end; ++it) fn(d, i + 1, line, *it);
    }
  }
}

// Flags of other programs that the documents name, with the program: a flag
// of storebench's own that disappears from its help cannot hide here.
const std::map<std::string, std::string>& OtherProgramsFlags() {
  static const std::map<std::string, std::string> flags{
      // db_bench (RocksDB's benchmark), in its command lines beside storebench's
      {"--benchmarks", "db_bench"}, {"--bloom_bits", "db_bench"}, {"--compression_ratio", "db_bench"},
      {"--db", "db_bench"}, {"--histogram", "db_bench"}, {"--key_size", "db_bench"},
      {"--perf_level", "db_bench"}, {"--report_file", "db_bench"}, {"--report_interval_seconds", "db_bench"},
      {"--use_existing_db", "db_bench"}, {"--value_size", "db_bench"}, {"--compression_type", "db_bench"},
      // fio
      {"--norandommap", "fio"}, {"--randrepeat", "fio"},
      // mpirun
      {"--hostfile", "mpirun"}, {"--mca", "mpirun"}, {"--oversubscribe", "mpirun"},
      // util-linux: the test across network namespaces gives each host its own hostname
      {"--uts", "unshare"},
      // build and test tools
      {"--build", "cmake"}, {"--preset", "cmake, ctest"}, {"--target", "cmake"},
      {"--gtest_filter", "GoogleTest"}, {"--tool", "valgrind"}, {"--toggle-collect", "valgrind"},
      {"--separate-threads", "valgrind"},
      // the repository's scripts and bench/ programs
      {"--quick", "scripts/test.sh"}, {"--reps", "bench/record_cost, bench/driver_bench"},
      {"--seconds", "bench/driver_bench, bench/file_floor, bench/open_loop_capacity.py"},
      {"--timed", "bench/file_floor"}, {"--rounds", "bench/open_loop_capacity.py"},
      {"--block", "bench/search_coverage"}, {"--remove-packages", "bench/fresh_clone_first_result.sh"},
  };
  return flags;
}

// Output of `sh -c cmd`, stdout only, and whether it exited 0.
std::pair<std::string, bool> Capture(const std::string& cmd) {
  std::string text;
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) return {"", false};
  char buf[4096];
  for (size_t n; (n = fread(buf, 1, sizeof buf, p)) > 0;) text.append(buf, n);
  return {text, pclose(p) == 0};
}

std::set<std::string> HelpFlags() {
  std::set<std::string> flags;
  const std::vector<std::string> helps{
      "--help",          "run --help",           "prepare --help",        "demo --help",
      "compare --help",  "matrix --help",        "search --help",         "report --help",
      "whisper create --help", "whisper update --help", "whisper fetch --help", "whisper info --help",
      "whisper dump --help", "help --help"};
  const std::regex flag(R"(--[A-Za-z][A-Za-z0-9_-]*)");
  for (const std::string& h : helps) {
    const std::string text = Capture(StorebenchBinary() + " " + h + " 2>&1").first;
    EXPECT_FALSE(text.empty()) << "storebench " << h << " printed nothing";
    for (std::sregex_iterator it(text.begin(), text.end(), flag), end; it != end; ++it) flags.insert(it->str());
  }
  return flags;
}

TEST(Docs, EveryPathTheyNameExists) {
  if (SourceDir().empty()) GTEST_SKIP() << "STOREBENCH_SOURCE_DIR is not set (ctest sets it)";
  const fs::path root = SourceDir();
  const std::regex path(R"(\b(?:docs|src/storebench|bench|scripts|cmake|\.ci)/[A-Za-z0-9_./{}*-]*[A-Za-z0-9_])");
  size_t named = 0;
  ForEachMatch(path, [&](const Doc& d, size_t n, const std::string& line, const std::smatch& m) {
    const std::string p = m.str();
    if (m.position() > 0 && line[m.position() - 1] == '/') return;  // inside build/…: made by a build
    ++named;
    // A pattern or a placeholder (backend/NAME/) names no one file.
    if (p.find_first_of("*{}") != std::string::npos || std::regex_search(p, std::regex("/[A-Z]+([./]|$)"))) return;
    bool found = fs::exists(root / p);
    // A bench/ program is named as it is built (bench/record_cost is bench/record_cost.cc).
    for (const char* ext : {".cc", ".sh", ".py"}) found = found || fs::exists(root / (p + ext));
    EXPECT_TRUE(found) << d.name << ":" << n << " names " << p << ", which is not in the repository";
  });
  EXPECT_GT(named, 50u) << "the documents name hardly any path: is the pattern wrong?";
}

// Suite.Case of every test in the tree (TEST, TEST_F, TEST_P).
std::set<std::string> TestNames() {
  std::set<std::string> names;
  const std::regex test(R"(\bTEST(?:_F|_P)?\(\s*([A-Za-z0-9_]+),\s*([A-Za-z0-9_]+)\s*\))");
  for (const auto& e : fs::recursive_directory_iterator(SourceDir() / "src")) {
    const std::string name = e.path().filename().string();
    if (name.size() < 8 || name.compare(name.size() - 8, 8, "_test.cc") != 0) continue;
    const std::string text = Slurp(e.path());
    for (std::sregex_iterator it(text.begin(), text.end(), test), end; it != end; ++it)
      names.insert((*it)[1].str() + "." + (*it)[2].str());
  }
  return names;
}

// docs/architecture.md's "where do I change X" table: each cell lists
// `path`: `symbol`, `symbol`; … Every file must exist and hold each symbol
// named with it (as a word; `A::B` and `F()` are looked up by their last name).
TEST(Docs, TheWhereToChangeTableNamesRealFilesAndSymbols) {
  if (SourceDir().empty()) GTEST_SKIP() << "STOREBENCH_SOURCE_DIR is not set (ctest sets it)";
  const std::string doc = Slurp(SourceDir() / "docs/architecture.md");
  const size_t begin = doc.find("<!-- where-to-change: begin -->"), end = doc.find("<!-- where-to-change: end -->");
  ASSERT_NE(begin, std::string::npos);
  ASSERT_NE(end, std::string::npos);
  const std::string table = doc.substr(begin, end - begin);
  // A file, then the symbols after its colon up to the next file or the end of the cell.
  const std::regex entry(R"(`((?:src|docs)/[^`]+)`(?::((?: ?`[A-Za-z_:()]+`,?)+))?)");
  const std::regex symbol(R"(`([A-Za-z_:()]+)`)");
  size_t files = 0, symbols = 0;
  for (std::sregex_iterator it(table.begin(), table.end(), entry), stop; it != stop; ++it) {
    const fs::path path = SourceDir() / (*it)[1].str();
    ++files;
    ASSERT_TRUE(fs::exists(path)) << (*it)[1] << " is named in the table and is not in the repository";
    const std::string text = Slurp(path), list = (*it)[2].str();
    for (std::sregex_iterator s(list.begin(), list.end(), symbol); s != stop; ++s) {
      std::string name = (*s)[1].str();
      if (const size_t colons = name.rfind("::"); colons != std::string::npos) name = name.substr(colons + 2);
      if (const size_t paren = name.find('('); paren != std::string::npos) name = name.substr(0, paren);
      ++symbols;
      EXPECT_TRUE(std::regex_search(text, std::regex("\\b" + name + "\\b")))
          << (*it)[1] << " does not hold " << name << ", which the table names with it";
    }
  }
  EXPECT_GE(files, 20u) << "the table names few files: is the pattern wrong?";
  EXPECT_GE(symbols, 25u) << "the table names few symbols: is the pattern wrong?";
}

TEST(Docs, EveryTestTheyCiteExists) {
  if (SourceDir().empty()) GTEST_SKIP() << "STOREBENCH_SOURCE_DIR is not set (ctest sets it)";
  const std::set<std::string> tests = TestNames();
  ASSERT_GT(tests.size(), 300u) << "few tests found: is the pattern wrong?";
  // A test is cited as `Suite.Case` (CamelCase both); `Suite.*` names a whole suite.
  const std::regex cited(R"(`([A-Z][A-Za-z0-9]*)\.([A-Z][A-Za-z0-9]*|\*)`)");
  size_t citations = 0;
  ForEachMatch(cited, [&](const Doc& d, size_t n, const std::string&, const std::smatch& m) {
    const std::string suite = m[1].str(), test = m[2].str();
    if (suite == "Suite") return;  // the placeholder of "how to cite"
    ++citations;
    const auto first = tests.lower_bound(suite + ".");
    const bool found = test == "*" ? first != tests.end() && first->rfind(suite + ".", 0) == 0
                                   : tests.count(suite + "." + test) > 0;
    EXPECT_TRUE(found) << d.name << ":" << n << " cites " << suite << "." << test << ", which is no test in src/";
  });
  EXPECT_GT(citations, 20u);
}

TEST(Docs, EveryFlagTheyNameIsInTheHelpOrAnotherProgramsFlag) {
  if (SourceDir().empty()) GTEST_SKIP() << "STOREBENCH_SOURCE_DIR is not set (ctest sets it)";
  const std::set<std::string> help = HelpFlags();
  ASSERT_GT(help.size(), 100u) << "the help printed few flags: is the binary right?";
  const std::regex flag(R"((^|[^A-Za-z0-9_-])(--[A-Za-z][A-Za-z0-9_-]*))");
  std::set<std::string> others_used;
  ForEachMatch(flag, [&](const Doc& d, size_t n, const std::string&, const std::smatch& m) {
    const std::string f = m[2].str();
    if (help.count(f) || std::regex_match(f, std::regex("--[A-Z]+"))) return;  // --KEY: a placeholder
    if (OtherProgramsFlags().count(f)) {
      others_used.insert(f);
      return;
    }
    ADD_FAILURE() << d.name << ":" << n << " names " << f
                  << ", which no storebench help prints (nor is it listed as another program's flag)";
  });
  // The list holds only flags the documents use and storebench's help does not print.
  for (const auto& [f, program] : OtherProgramsFlags()) {
    EXPECT_FALSE(help.count(f)) << f << " is listed as " << program << "'s, but storebench's help prints it";
    EXPECT_TRUE(others_used.count(f)) << f << " is listed as " << program << "'s, but no document names it";
  }
}

// A figure says the commit it was measured at; a mistyped or invented hash
// makes it unverifiable. Every hash the documents cite (7 to 40 hex digits,
// at least one letter and one digit, standing alone) must be a commit that
// HEAD reaches.
TEST(Docs, EveryCommitTheyCiteExists) {
  if (SourceDir().empty()) GTEST_SKIP() << "STOREBENCH_SOURCE_DIR is not set (ctest sets it)";
  const std::string git = "git -C '" + SourceDir().string() + "' ";
  if (!Capture(git + "rev-parse --git-dir >/dev/null 2>&1").second)
    GTEST_SKIP() << "the source directory is not a git checkout (or git is missing): commits cannot be looked up";
  if (Capture(git + "rev-parse --is-shallow-repository 2>/dev/null").first.rfind("true", 0) == 0)
    GTEST_SKIP() << "a shallow clone lacks the history the documents cite (git fetch --unshallow)";
  const std::regex hash(R"((^|[^A-Za-z0-9_/.#-])([0-9a-f]{7,40})(?=$|[^A-Za-z0-9_/-]))");
  std::map<std::string, std::string> cited;  // hash -> first place it is cited
  ForEachMatch(hash, [&](const Doc& d, size_t n, const std::string&, const std::smatch& m) {
    const std::string h = m[2].str();
    if (h.find_first_of("abcdef") == std::string::npos || h.find_first_of("0123456789") == std::string::npos) return;
    cited.emplace(h, d.name + ":" + std::to_string(n));
  });
  ASSERT_GT(cited.size(), 30u) << "the documents cite hardly any commit: is the pattern wrong?";
  // Reachable from HEAD, not merely present: a fresh clone has only what main reaches.
  auto [history, ok] = Capture(git + "rev-list HEAD");
  ASSERT_TRUE(ok) << "git rev-list HEAD failed";
  std::set<std::string> commits;
  std::istringstream in(history);
  for (std::string c; std::getline(in, c);) commits.insert(c);
  for (const auto& [h, where] : cited) {
    auto it = commits.lower_bound(h);
    EXPECT_TRUE(it != commits.end() && it->rfind(h, 0) == 0)
        << where << " cites commit " << h << ", which is not in the history of HEAD";
    if (it != commits.end() && it->rfind(h, 0) == 0 && std::next(it) != commits.end()) {
      EXPECT_NE(std::next(it)->rfind(h, 0), 0u) << where << " cites " << h << ", which names more than one commit";
    }
  }
}

// docs/architecture.md's diagram lists the folders top to bottom; a source
// file (tests aside) includes only folders below its own.
TEST(Docs, TheLayerDiagramIsTheIncludeGraph) {
  if (SourceDir().empty()) GTEST_SKIP() << "STOREBENCH_SOURCE_DIR is not set (ctest sets it)";
  const std::string doc = Slurp(SourceDir() / "docs" / "architecture.md");
  const size_t begin = doc.find("```\n"), end = doc.find("```", begin + 4);
  ASSERT_NE(end, std::string::npos) << "docs/architecture.md has no diagram";
  std::vector<std::string> order;
  std::istringstream diagram(doc.substr(begin + 4, end - begin - 4));
  const std::regex layer(R"(^([a-z_]+)/\s)");
  for (std::string line; std::getline(diagram, line);)
    if (std::smatch m; std::regex_search(line, m, layer)) order.push_back(m[1].str());
  ASSERT_GE(order.size(), 8u);
  auto floor = [&](const std::string& name) {
    return static_cast<int>(std::find(order.begin(), order.end(), name) - order.begin());
  };
  const fs::path src = SourceDir() / "src" / "storebench";
  const std::regex include(R"(#include "storebench/([a-z_]+)/)");
  size_t includes = 0;
  for (const auto& e : fs::recursive_directory_iterator(src)) {
    const std::string name = e.path().filename().string();
    if (!e.is_regular_file() || name.find("_test") != std::string::npos) continue;
    if (e.path().extension() != ".h" && e.path().extension() != ".cc") continue;
    const std::string own = fs::relative(e.path(), src).begin()->string();
    if (own == "testing") continue;  // test-only, outside the layers
    EXPECT_LT(floor(own), static_cast<int>(order.size())) << own << "/ is not in docs/architecture.md's diagram";
    const std::string text = Slurp(e.path());
    for (std::sregex_iterator it(text.begin(), text.end(), include), stop; it != stop; ++it) {
      const std::string to = (*it)[1].str();
      if (to == own) continue;
      ++includes;
      EXPECT_GT(floor(to), floor(own)) << fs::relative(e.path(), src).string() << " includes " << to
                                       << "/, which docs/architecture.md's diagram puts at or above " << own << "/";
    }
  }
  EXPECT_GT(includes, 100u);
}

// Every key path of a document: objects' keys joined by dots, an array's
// elements as `name[]`.
void KeyPaths(const nlohmann::json& j, const std::string& at, std::set<std::string>* out) {
  if (j.is_object()) {
    if (j.empty() && !at.empty()) out->insert(at);
    for (const auto& [k, v] : j.items()) KeyPaths(v, at.empty() ? k : at + "." + k, out);
  } else if (j.is_array()) {
    if (j.empty()) out->insert(at + "[]");
    for (const auto& v : j) KeyPaths(v, at + "[]", out);
  } else {
    out->insert(at);
  }
}

// The text between a document's BEGIN and END generated markers.
std::string GeneratedBlock(const std::string& doc) {
  const size_t begin = doc.find("<!-- BEGIN generated");
  const size_t from = doc.find("-->\n", begin);
  const size_t end = doc.find("<!-- END generated -->", from);
  if (begin == std::string::npos || from == std::string::npos || end == std::string::npos) return "";
  return doc.substr(from + 4, end - from - 4);
}

// Whether a summary line (as printed: two spaces, a word, …) is in the
// reference; kinds are the run's op kinds, backends the backends' names.
bool SummaryLineDescribed(const std::string& line, const std::set<std::string>& kinds) {
  std::istringstream in(line);
  std::string word;
  in >> word;
  for (const report::SummaryLine& l : report::SummaryLines()) {
    using enum report::SummaryLineKind;
    switch (l.kind) {
      case kNamed:
      case kNotSustained:
        if (word == l.name) return true;
        break;
      case kTotals:
        if (!word.empty() && std::all_of(word.begin(), word.end(), ::isdigit)) return true;
        break;
      case kBackend:
        if (word == "null" || word == "file" || word == "whisper" || word == "rocksdb") return true;
        break;
      case kKind:
        if (kinds.count(word)) return true;
        break;
    }
  }
  return false;
}

class DocsReference : public BinaryTest {};

// docs/json.md, docs/flags.md, README.md's flag tables and the summary section
// of docs/reading-results.md are what `storebench help --markdown` prints, and every key the result writer emits and every summary line
// printed, in runs of each shape (closed, open, overloaded, groups,
// two-phase, errors, the file and whisper backends), is in the tables.
TEST_F(DocsReference, EveryKeyAndSummaryLineARunWritesIsDescribed) {
  if (SourceDir().empty()) GTEST_SKIP() << "STOREBENCH_SOURCE_DIR is not set (ctest sets it)";
  const fs::path root = SourceDir();
  EXPECT_EQ(Slurp(root / "docs" / "json.md"), Run("help --markdown keys").out)
      << "docs/json.md differs from the table: storebench help --markdown keys > docs/json.md";
  EXPECT_EQ(GeneratedBlock(Slurp(root / "docs" / "reading-results.md")), Run("help --markdown summary").out)
      << "docs/reading-results.md's summary section differs from the table: storebench help --markdown summary";
  EXPECT_EQ(Slurp(root / "docs" / "flags.md"), Run("help --markdown flags").out)
      << "docs/flags.md differs from the option tables: storebench help --markdown flags > docs/flags.md";
  EXPECT_EQ(GeneratedBlock(Slurp(root / "README.md")), Run("help --markdown run-flags").out)
      << "README.md's flag tables differ from the option tables: storebench help --markdown run-flags";
  EXPECT_EQ(GeneratedBlock(Slurp(root / "docs" / "live-metrics.md")), Run("help --markdown metrics").out)
      << "docs/live-metrics.md's metric reference differs from the code: storebench help --markdown metrics";
  const std::string file_data = (dir_ / "file").string(), whisper_data = (dir_ / "whisper").string();
  ASSERT_EQ(Run("prepare --backend file --data " + file_data + " --files 2 --file-size 1M").code, 0);
  ASSERT_EQ(Run("prepare --backend whisper --data " + whisper_data + " --metrics 8").code, 0);
  const std::vector<std::string> runs{
      "run --backend null --threads 1 --duration 300ms",
      "run --backend null --schedule constant:2000 --duration 300ms --stall 20ms/100ms",
      "run --backend null --schedule constant:20000 --service-time sleep:1ms --duration 300ms",
      "run --backend null --class a:threads=1,schedule=constant:1000 --class b:threads=1 --duration 300ms",
      "run --backend null --two-phase 0.5 --duration 300ms --interval 100ms",
      "run --backend null --threads 1 --ops 1000 --fail-every 10 --max-errors 5",
      "run --backend file --data " + file_data + " --workload randread --duration 300ms",
      "run --backend whisper --data " + whisper_data + " --duration 300ms",
  };
  std::set<std::string> paths;
  size_t lines = 0;
  for (size_t i = 0; i < runs.size(); ++i) {
    const auto json = dir_ / ("r" + std::to_string(i) + ".json");
    Outcome o = Run(runs[i] + " --progress never --json " + json.string());
    ASSERT_LE(o.code, 1) << runs[i] << ": " << o.err;
    const nlohmann::json doc = nlohmann::json::parse(Slurp(json));
    KeyPaths(doc, "", &paths);
    std::set<std::string> kinds;
    for (const auto& [k, v] : doc["kinds"].items()) kinds.insert(k);
    std::istringstream out(o.out);
    bool in_summary = false;
    for (std::string line; std::getline(out, line);) {
      if (line.rfind("== ", 0) == 0) in_summary = true;
      if (!in_summary || line.rfind("  ", 0) != 0) continue;
      ++lines;
      EXPECT_TRUE(SummaryLineDescribed(line, kinds))
          << runs[i] << " prints a summary line not in src/storebench/report/summary_lines.cc: " << line;
    }
  }
  ASSERT_GT(paths.size(), 200u);
  EXPECT_GT(lines, 50u);
  for (const std::string& p : paths)
    EXPECT_NE(report::DescribingKey(p), nullptr) << p << " is written by a run but not in src/storebench/report/result_keys.cc";
}

}  // namespace
}  // namespace storebench::testing
