// No function in src/ (tests aside) is longer than 80 lines: a function that
// long holds several steps that want names of their own. Lengths come from
// universal-ctags (`--fields=+ne`: the first and last line of every function,
// lambdas included, so a function's lambdas count in its length); the test
// skips visibly where ctags is not installed (scripts/setup.sh --test installs it).
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

namespace {

constexpr int kMaxLines = 80;

struct Function {
  std::string name, where;
  int lines = 0;
};

// Every function ctags finds under `dir`, with its length; false when ctags
// could not run.
bool ListFunctions(const std::string& dir, std::vector<Function>* out) {
  const std::string cmd = "ctags -R --languages=C++ --kinds-C++=f --fields=+ne -x "
                          "--_xformat='%{line} %{end} %F %N' '" + dir + "' 2>/dev/null";
  std::unique_ptr<FILE, int (*)(FILE*)> pipe(popen(cmd.c_str(), "r"), pclose);
  if (!pipe) return false;
  char buf[4096];
  bool any = false;
  while (fgets(buf, sizeof buf, pipe.get())) {
    any = true;
    std::istringstream line(buf);
    std::string first, last;
    Function f;
    std::string file;
    if (!(line >> first >> last >> file) || last == "-" || file.size() <= dir.size()) continue;
    std::getline(line >> std::ws, f.name);  // the name last: an operator's has spaces
    if (file.size() > 8 && file.compare(file.size() - 8, 8, "_test.cc") == 0) continue;
    f.lines = std::atoi(last.c_str()) - std::atoi(first.c_str()) + 1;
    f.where = file.substr(dir.size() + 1) + ":" + first;
    out->push_back(f);
  }
  return any;
}

TEST(Source, NoFunctionIsLongerThan80Lines) {
  const char* source = std::getenv("STOREBENCH_SOURCE_DIR");
  if (!source) GTEST_SKIP() << "STOREBENCH_SOURCE_DIR is not set (ctest sets it)";
  if (std::system("ctags --version 2>/dev/null | grep -q 'Universal Ctags'") != 0)
    GTEST_SKIP() << "universal-ctags is not installed (scripts/setup.sh --test installs it)";
  std::vector<Function> functions;
  ASSERT_TRUE(ListFunctions(std::string(source) + "/src", &functions)) << "ctags listed no function";
  // The tree has hundreds of functions; a handful would mean ctags parsed nothing.
  ASSERT_GT(functions.size(), 500u);
  for (const Function& f : functions)
    EXPECT_LE(f.lines, kMaxLines) << f.name << " at " << f.where << " is " << f.lines << " lines";
}

}  // namespace
