#include "storebench/whisper/python_helper.h"

#include <nlohmann/json.hpp>
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>

namespace storebench::whisper::testing {
namespace {

std::string ReadAll(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace

std::string MakeTempDir() {
  std::string tmpl = ::testing::TempDir() + "sbwhisperXXXXXX";
  if (::mkdtemp(tmpl.data()) == nullptr) ADD_FAILURE() << "mkdtemp " << tmpl;
  return tmpl;
}

CommandResult RunCommand(const std::vector<std::string>& argv, const std::string& input) {
  static int counter = 0;
  std::string base = ::testing::TempDir() + "sbcmd." + std::to_string(::getpid()) + "." + std::to_string(counter++);
  std::string in_path = base + ".in", out_path = base + ".out", err_path = base + ".err";
  std::ofstream(in_path, std::ios::binary) << input;
  CommandResult r;
  pid_t pid = ::fork();
  if (pid == 0) {
    int in = ::open(in_path.c_str(), O_RDONLY);
    int out = ::open(out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    int err = ::open(err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    ::dup2(in, 0), ::dup2(out, 1), ::dup2(err, 2);
    std::vector<char*> args;
    for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    ::execv(args[0], args.data());
    ::_exit(127);
  }
  int status = 0;
  ::waitpid(pid, &status, 0);
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  r.out = ReadAll(out_path), r.err = ReadAll(err_path);
  ::unlink(in_path.c_str()), ::unlink(out_path.c_str()), ::unlink(err_path.c_str());
  return r;
}

std::string TestdataPath(const std::string& name) { return std::string(WHISPER_TESTDATA_DIR) + "/" + name; }

bool PythonWhisperAvailable() {
  static const bool available =
      ::access("/usr/bin/python3", X_OK) == 0 &&
      RunCommand({"/usr/bin/python3", "-c", "import whisper"}).exit_code == 0;
  return available;
}

nlohmann::json RunWhisperPy(const nlohmann::json& ops) {
  CommandResult r = RunCommand({"/usr/bin/python3", TestdataPath("wsp_helper.py")}, ops.dump());
  EXPECT_EQ(r.exit_code, 0) << r.err;
  if (r.exit_code != 0) return nlohmann::json::array();
  return nlohmann::json::parse(r.out);
}

}  // namespace storebench::whisper::testing
