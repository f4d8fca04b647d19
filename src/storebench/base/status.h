// Status: the result of an operation that can fail, carried as a value.
//
// A Status is either ok or holds a code and a one-line message that names the
// operation, the object (path, flag) and the cause. Only cli/ turns a Status
// into an exit code: kInvalidArgument and kNotFound/kCorruption of input data
// mean "bad usage or bad input" (exit 2), everything else "run failed" (1).
// Both are [[nodiscard]]: a dropped Status is a dropped failure; where a
// caller means to ignore one, it says so with (void) and a reason.
// Thread-safety: a value type; distinct objects may be used concurrently.
#pragma once

#include <string>
#include <string_view>
#include <utility>

namespace storebench {

class [[nodiscard]] Status {
 public:
  enum class Code { kOk, kInvalidArgument, kNotFound, kCorruption, kNotSupported, kIOError, kInterrupted };

  Status() = default;
  static Status Ok() { return Status(); }
  static Status InvalidArgument(std::string msg) { return Status(Code::kInvalidArgument, std::move(msg)); }
  static Status NotFound(std::string msg) { return Status(Code::kNotFound, std::move(msg)); }
  static Status Corruption(std::string msg) { return Status(Code::kCorruption, std::move(msg)); }
  static Status NotSupported(std::string msg) { return Status(Code::kNotSupported, std::move(msg)); }
  static Status IOError(std::string msg) { return Status(Code::kIOError, std::move(msg)); }
  static Status Interrupted(std::string msg) { return Status(Code::kInterrupted, std::move(msg)); }

  bool ok() const { return code_ == Code::kOk; }
  Code code() const { return code_; }
  const std::string& message() const { return message_; }
  // True when the failure is the user's input (flags, values, data set), not the run.
  bool IsBadInput() const {
    return code_ == Code::kInvalidArgument || code_ == Code::kNotFound || code_ == Code::kCorruption ||
           code_ == Code::kNotSupported;
  }
  std::string ToString() const;

 private:
  Status(Code code, std::string msg) : code_(code), message_(std::move(msg)) {}
  Code code_ = Code::kOk;
  std::string message_;
};

// Turns an errno value into a Status: "<op> <path>: <strerror>". ENOENT becomes
// kNotFound, EINVAL/ENOTSUP/EOPNOTSUPP kNotSupported only when the caller says so
// through the returned code mapping; everything else kIOError.
Status ErrnoStatus(std::string_view op, std::string_view path, int err);

// Value-or-Status, for functions that return something on success.
template <typename T>
class [[nodiscard]] StatusOr {
 public:
  StatusOr(T value) : value_(std::move(value)) {}  // NOLINT: implicit by design
  StatusOr(Status status) : status_(std::move(status)) {}  // NOLINT
  bool ok() const { return status_.ok(); }
  const Status& status() const { return status_; }
  T& value() { return value_; }
  const T& value() const { return value_; }
  T& operator*() { return value_; }
  T* operator->() { return &value_; }

 private:
  Status status_;
  T value_{};
};

}  // namespace storebench

#define STOREBENCH_RETURN_IF_ERROR(expr)      \
  do {                                        \
    ::storebench::Status _st = (expr);        \
    if (!_st.ok()) return _st;                \
  } while (0)
