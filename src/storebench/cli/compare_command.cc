#include "storebench/base/atomic_file.h"
#include "storebench/cli/compare_command.h"

#include <cstdio>
#include <filesystem>
#include <fmt/format.h>

#include "storebench/base/file_identity.h"
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
  app->add_option("--json", f->json_path, "write the comparison (JSON) here");
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

namespace {

// The files the operands name: a directory's regular files, a comma list's
// members, or the operand itself.
std::vector<std::string> OperandFiles(const std::vector<std::string>& operands) {
  namespace fs = std::filesystem;
  std::vector<std::string> out;
  for (const std::string& operand : operands) {
    std::error_code ec;
    if (fs::is_directory(operand, ec)) {
      for (const auto& e : fs::directory_iterator(operand, ec))
        if (e.is_regular_file(ec)) out.push_back(e.path().string());
    } else if (!fs::exists(operand, ec) && operand.find(',') != std::string::npos) {
      for (std::string_view f : Split(operand, ','))
        if (!f.empty()) out.emplace_back(f);
    } else {
      out.push_back(operand);
    }
  }
  return out;
}

// A run given twice (one file under one or two spellings, a link, a
// directory named twice) would be compared with itself — every difference
// zero — or counted twice among a group's repeats. That is almost always a
// slip (a glob, a copy-paste), and a silent zero looks like a finding, so it
// is refused; an A/A check of the statistics takes two runs, or a copy.
Status RefuseARunGivenTwice(const std::vector<std::string>& operands) {
  std::vector<std::pair<std::string, FileIdentity>> seen;
  for (const std::string& path : OperandFiles(operands)) {
    const FileIdentity id = IdentifyFile(path);
    for (const auto& [earlier, earlier_id] : seen)
      if (id.exists && earlier_id.SameFileAs(id))
        return Status::InvalidArgument(fmt::format(
            "compare: {} and {} are the same file; every difference would be zero: give different runs", earlier,
            path));
    seen.emplace_back(path, id);
  }
  return Status::Ok();
}

}  // namespace

void AddOperandInputs(std::string_view what, const std::vector<std::string>& operands, CommandFiles* files) {
  for (const std::string& path : OperandFiles(operands)) files->Input(what, path);
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
  if (Status s = RefuseARunGivenTwice(f.operands); !s.ok()) return ReportError(s);
  auto input = report::LoadCompareInput(f.operands);
  if (!input.ok()) return ReportError(input.status());
  return PrintComparison(*input, f);
}

}  // namespace storebench::cli
