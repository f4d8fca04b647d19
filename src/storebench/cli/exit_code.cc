#include "storebench/cli/exit_code.h"

#include <cstdio>
#include <fmt/format.h>

namespace storebench::cli {

int ExitCodeOf(const Status& status) {
  if (status.ok()) return kExitOk;
  if (status.code() == Status::Code::kInterrupted) return kExitInterrupted;
  return status.IsBadInput() ? kExitBadInput : kExitRunFailed;
}

int ReportError(const Status& status) {
  std::fprintf(stderr, "storebench: %s\n", status.message().c_str());
  return ExitCodeOf(status);
}

Status ChildFailure(int exit_code, const std::string& what) {
  const std::string message = fmt::format("{} failed with exit code {}", what, exit_code);
  if (exit_code == kExitInterrupted) return Status::Interrupted(message);
  return exit_code == kExitBadInput ? Status::InvalidArgument(message) : Status::IOError(message);
}

}  // namespace storebench::cli
