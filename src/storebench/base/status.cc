#include "storebench/base/status.h"

#include <cerrno>
#include <cstring>

namespace storebench {

std::string Status::ToString() const {
  if (ok()) return "OK";
  return message_;
}

Status ErrnoStatus(std::string_view op, std::string_view path, int err) {
  std::string msg(op);
  if (!path.empty()) {
    msg += ' ';
    msg += path;
  }
  msg += ": ";
  msg += std::strerror(err);
  switch (err) {
    case ENOENT:
      return Status::NotFound(std::move(msg));
    case ENOTSUP:
      return Status::NotSupported(std::move(msg));
    default:
      return Status::IOError(std::move(msg));
  }
}

}  // namespace storebench
