// Option tables (base/option_table.h) on the command line: each option of a
// table becomes one CLI11 flag whose value is collected as text, so the
// table alone parses and checks it — one error line naming the flag and the
// accepted form, exit 2 — and --help shows the table's help, range and default.
// Thread-safety: used while the command line is set up, on one thread.
#pragma once

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

#include "storebench/base/option_table.h"

namespace storebench::cli {

// Registers one option of a table in `group`; what is given lands in `values`.
void AddTableOption(CLI::App* app, const OptionSpec& spec, const std::string& help, const std::string& default_value,
                    const std::string& group, OptionValues* values);

// Registers every option of `specs` with its own help and default.
void AddTableOptions(CLI::App* app, const std::vector<OptionSpec>& specs, OptionValues* values,
                     const std::string& group = "Options");

// Refuses an empty value ("") for every option of `app` and of its
// subcommands that takes one — table options with their form, the others
// generically — except where the table says "" is a choice and the operands
// after `--` that are handed to `storebench run` (which checks them itself).
// Called once, when the command line is complete: the one place the command
// line refuses "" (OptionTable::Apply is the one place for job files).
void RefuseEmptyValues(CLI::App* app);

}  // namespace storebench::cli
