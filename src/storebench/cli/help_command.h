// storebench help --markdown flags|run-flags|keys|summary: the references the
// documentation holds, printed from the code they describe (the command
// line's options as CLI11 holds them, the result keys' and summary lines'
// tables), so that a test can fail when the committed text differs
// (cli/docs_test.cc).
#pragma once

#include <string>

#include <CLI/CLI.hpp>

namespace storebench::cli {

struct HelpFlags {
  std::string markdown;
};

void AddHelpFlags(CLI::App* help, HelpFlags* flags);

// Prints the asked reference of `root` (the whole command line) to stdout.
int ExecuteHelp(const HelpFlags& flags, const CLI::App& root);

// docs/flags.md: every subcommand's flags, group by group.
std::string FlagsMarkdown(const CLI::App& root);
// README.md's table: run's own flags (the backends' groups aside).
std::string RunFlagsMarkdown(const CLI::App& root);

}  // namespace storebench::cli
