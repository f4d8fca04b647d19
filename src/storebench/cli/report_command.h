// The `report` subcommand:
//   storebench report INPUT... [-o report.html] [--title T]
//   storebench report --hlog FILE [--hgrm FILE] [--hgrm-unit us] RUN.json|FILE.hlog
// INPUT is a run result, several (overlaid), a matrix directory or an
// HdrHistogram .hlog; the HTML file has everything inlined (html_report.h).
// --hlog and --hgrm write HdrHistogram's interval log and percentile
// distribution of one run (run_histograms.h); the HTML page is then written
// only when -o is given too.
#pragma once

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

#include "storebench/cli/compare_command.h"

namespace storebench::cli {

struct ReportFlags {
  std::vector<std::string> operands;
  std::string output;
  std::string hlog_path, hgrm_path;
  std::string hgrm_unit = "us";
  std::string title;
  std::string chart_js = "/usr/share/javascript/chart.js/chart.min.js";
  CompareFlags compare;  // --baseline, --confidence, --latency, --bootstrap-seed
};

void AddReportFlags(CLI::App* app, ReportFlags* flags);

// Runs a parsed `report`; returns the exit code.
int ExecuteReport(const ReportFlags& flags);

}  // namespace storebench::cli
