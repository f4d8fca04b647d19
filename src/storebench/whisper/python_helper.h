// Test support: runs /usr/bin/python3 helper scripts from whisper/testdata.
// Not thread-safe (uses temporary files named after the process id).
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

namespace storebench::whisper::testing {

struct CommandResult {
  int exit_code = -1;  // 3: the helper could not import whisper (skip)
  std::string out, err;
};

// Runs `argv` (no shell) with `input` on stdin and captures stdout and stderr.
CommandResult RunCommand(const std::vector<std::string>& argv, const std::string& input = "");
// Path of a script in whisper/testdata.
std::string TestdataPath(const std::string& name);
// True when /usr/bin/python3 can import whisper.
bool PythonWhisperAvailable();
// Runs wsp_helper.py over `ops`; the results, one per op. Fails the test on error.
nlohmann::json RunWhisperPy(const nlohmann::json& ops);
// A fresh empty directory for one test.
std::string MakeTempDir();

}  // namespace storebench::whisper::testing
