//===- Status.h - errors of the runtime -------------------------*- C++ -*-===//
//
// The runtime reports every failure as a Status carrying a one-line message
// (which names the device, op and cause); it never aborts. StatusOr<T>
// carries a value or a Status. Plain C++17.
//
//===----------------------------------------------------------------------===//

#ifndef GPLACE_RUNTIME_STATUS_H
#define GPLACE_RUNTIME_STATUS_H

#include <optional>
#include <string>
#include <utility>

namespace gplace::runtime {

/// Success, or an error with a message.
class [[nodiscard]] Status {
public:
  Status() = default;
  static Status ok() { return Status(); }
  static Status error(std::string message) {
    Status status;
    status.message_ = std::move(message);
    status.failed_ = true;
    return status;
  }
  bool isOk() const { return !failed_; }
  explicit operator bool() const { return !failed_; }
  const std::string &message() const { return message_; }

private:
  std::string message_;
  bool failed_ = false;
};

/// A value of type T, or the Status saying why there is none.
template <typename T> class [[nodiscard]] StatusOr {
public:
  StatusOr(T value) : value_(std::move(value)) {}
  StatusOr(Status status) : status_(std::move(status)) {}
  bool isOk() const { return value_.has_value(); }
  explicit operator bool() const { return isOk(); }
  const Status &status() const { return status_; }
  T &operator*() { return *value_; }
  const T &operator*() const { return *value_; }
  T *operator->() { return &*value_; }
  const T *operator->() const { return &*value_; }

private:
  std::optional<T> value_;
  Status status_;
};

} // namespace gplace::runtime

/// Returns the Status of `expr` from the enclosing function if it failed.
#define GPLACE_RETURN_IF_ERROR(expr)                                           \
  do {                                                                         \
    ::gplace::runtime::Status _status = (expr);                                \
    if (!_status)                                                              \
      return _status;                                                          \
  } while (false)

#endif // GPLACE_RUNTIME_STATUS_H
