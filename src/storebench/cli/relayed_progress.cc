#include "storebench/cli/relayed_progress.h"

#include <fcntl.h>
#include <pty.h>
#include <termios.h>
#include <unistd.h>

namespace storebench::cli {
namespace {

constexpr std::string_view kErase = "\033[K";  // what report::ProgressDisplay draws after each "\r"

}  // namespace

RelayedProgress::~RelayedProgress() {
  if (master_ >= 0) close(master_);
  if (slave_ >= 0) close(slave_);
}

bool RelayedProgress::Open() {
  termios raw{};
  cfmakeraw(&raw);  // no "\n" -> "\r\n": the child's bytes arrive as written
  winsize ws{};
  ws.ws_col = 512;
  ws.ws_row = 24;
  if (openpty(&master_, &slave_, nullptr, &raw, &ws) != 0) {
    master_ = slave_ = -1;
    return false;
  }
  fcntl(master_, F_SETFD, FD_CLOEXEC);
  fcntl(slave_, F_SETFD, FD_CLOEXEC);  // the child gets it as stderr only (dup2 clears the flag)
  fcntl(master_, F_SETFL, fcntl(master_, F_GETFL) | O_NONBLOCK);
  return true;
}

std::string RelayedProgress::Drain() {
  char buf[4096];
  for (ssize_t n; master_ >= 0 && (n = read(master_, buf, sizeof buf)) > 0;)
    pending_.append(buf, static_cast<size_t>(n));
  // The child draws "\r\033[K" + line, erases with "\r\033[K" and prints
  // other text as whole lines ending in "\n".
  std::string printed;
  for (size_t end; (end = pending_.find_first_of("\r\n")) != std::string::npos;) {
    const std::string token = pending_.substr(0, end);
    const bool newline = pending_[end] == '\n';
    pending_.erase(0, end + 1);
    if (token.rfind(kErase, 0) == 0) {
      line_ = token.substr(kErase.size());
      if (newline) printed += line_ + "\n", line_.clear();
    } else if (newline) {
      printed += token + "\n";
    }
  }
  // The line being drawn now has no terminator until the next drawing.
  if (pending_.rfind(kErase, 0) == 0) line_ = pending_.substr(kErase.size());
  return printed;
}

}  // namespace storebench::cli
