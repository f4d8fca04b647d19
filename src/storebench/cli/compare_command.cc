#include "storebench/base/atomic_file.h"
#include "storebench/cli/compare_command.h"

#include <cstdio>
#include <filesystem>
#include <fmt/format.h>

#include "storebench/base/units.h"

#include "storebench/cli/run_command.h"
#include "storebench/cli/table_flags.h"
#include "storebench/report/result.h"

namespace storebench::cli {

StatusOr<double> ParseConfidence(const std::string& text) {
  static const std::pair<const char*, double> kLevels[] = {{"95", 0.95}, {"99", 0.99}, {"99.5", 0.995}, {"99.9", 0.999}};
  for (const auto& [level, fraction] : kLevels)
    if (text == level || text == std::string(level) + "%") return fraction;
  return Status::InvalidArgument(fmt::format("--confidence: expected 95, 99, 99.5 or 99.9 (percent); got '{}'", text));
}

const OptionTable<report::CompareOptions>& ComparisonOptionTable() {
  using O = report::CompareOptions;
  static const OptionTable<O> table = [] {
    OptionTable<O> t("compare");
    t.Text("baseline", &O::baseline, "group name or run file to compare the others against (default: the first)", "",
           "")
        .Parsed("confidence", &O::confidence, "confidence level in percent", "99.5", "95, 99, 99.5 or 99.9",
                &ParseConfidence)
        .Enum("latency", &O::latency,
              std::vector<std::pair<std::string, std::string>>{{"response", "response"}, {"service", "service"}},
              "latency to compare: response (from intended start) or service", "response")
        .Integer("bootstrap-seed", &O::seed, "seed of the bootstrap resampling (results are reproducible)", "1", 0,
                 INT64_MAX)
        .Flag("paired", &O::paired,
              "throughput as the median of paired ratios (the i-th runs of two groups are a pair, e.g. adjacent "
              "runs of one round) with a distribution-free CI, instead of Welch's t-test");
    return t;
  }();
  return table;
}

void AddComparisonFlags(CLI::App* app, CompareFlags* f) {
  AddTableOptions(app, ComparisonOptionTable().Specs(), &f->comparison);
}

void AddCompareFlags(CLI::App* app, CompareFlags* f) {
  app->add_option("runs", f->operands,
                  "RUN.json, a group of repeats RUN1.json,RUN2.json,…, or a matrix directory (two or more)")
      ->required();
  app->add_option("--json", f->json_path, "write the comparison (JSON) here")->check(NonEmptyPath());
  AddComparisonFlags(app, f);
}

StatusOr<report::CompareOptions> BuildCompareOptions(const CompareFlags& f) {
  return ComparisonOptionTable().Parse(f.comparison);
}

int PrintComparison(const report::CompareInput& input, const CompareFlags& f) {
  auto options = BuildCompareOptions(f);
  if (!options.ok()) return ReportError(options.status());
  auto result = report::Compare(input, *options);
  if (!result.ok()) return ReportError(result.status());
  std::fputs(result->text.c_str(), stdout);
  std::fflush(stdout);
  if (!f.json_path.empty()) {
    Status s = WriteFileAtomically(f.json_path, result->json.dump(1) + "\n");
    if (!s.ok()) return ReportError(s);
  }
  return kExitOk;
}

void AddOperandInputs(std::string_view what, const std::vector<std::string>& operands, CommandFiles* files) {
  namespace fs = std::filesystem;
  for (const std::string& operand : operands) {
    std::error_code ec;
    if (fs::is_directory(operand, ec)) {
      for (const auto& e : fs::directory_iterator(operand, ec))
        if (e.is_regular_file(ec)) files->Input(what, e.path().string());
    } else if (!fs::exists(operand, ec) && operand.find(',') != std::string::npos) {
      for (std::string_view f : Split(operand, ','))
        if (!f.empty()) files->Input(what, std::string(f));
    } else {
      files->Input(what, operand);
    }
  }
}

int ExecuteCompare(const CompareFlags& f) {
  // Check the flags before loading possibly many files.
  if (auto o = BuildCompareOptions(f); !o.ok()) return ReportError(o.status());
  if (!f.json_path.empty()) {
    CommandFiles files;
    AddOperandInputs("RUN", f.operands, &files);
    files.Output("--json", f.json_path);
    if (Status s = files.Check(); !s.ok()) return ReportError(s);
  }
  auto input = report::LoadCompareInput(f.operands);
  if (!input.ok()) return ReportError(input.status());
  return PrintComparison(*input, f);
}

}  // namespace storebench::cli
