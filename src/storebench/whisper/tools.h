// `storebench whisper create|update|fetch|info|dump`: drop-in replacements for
// whisper-create, whisper-update, whisper-fetch, whisper-info and whisper-dump
// (python3-whisper 1.1.4), with their arguments, options and output formats.
// create, update and fetch also take --io exact|minimal|python (default
// minimal: the fewest syscalls); the files and output are the same with each.
//
// Exit codes are the scripts': 0 ok; 1 for a failed operation or missing
// arguments (the help text goes to `out`, as optparse prints it); 2 for a bad
// option or value, reported on `err` in one line naming the flag and the
// accepted form. Thread-safety: reentrant; uses the wall clock for "now" as the
// scripts do.
#pragma once

#include <ostream>
#include <string>
#include <vector>

namespace storebench::whisper {

// Runs one tool; `args` are the words after `storebench whisper`, e.g. {"info", "x.wsp"}.
int RunWhisperTool(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

}  // namespace storebench::whisper
