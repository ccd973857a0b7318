//===- Status.h - errors of the runtime and its readers ---------*- C++ -*-===//
//
// The runtime reports every failure as a Status carrying a code and a
// one-line message (which names the device, op and cause); it never aborts.
// StatusOr<T> carries a value or a Status. The codes are a subset of
// TensorFlow's (absl's) status codes, and the tools map them to exit codes
// (docs/gplace-run.md). Plain C++17, in Support so that the readers of
// files (the ONNX importer, the tensor readers) report as the runtime does
// without linking it; gplace::runtime names the same types.
//
//===----------------------------------------------------------------------===//

#ifndef GPLACE_SUPPORT_STATUS_H
#define GPLACE_SUPPORT_STATUS_H

#include <optional>
#include <string>
#include <utility>

namespace gplace {

/// What kind of failure a Status is.
enum class StatusCode {
  Ok,
  /// The input is wrong: a graph, a flag, an input tensor, integer division
  /// by zero (TensorFlow's InvalidArgument). The user must change it.
  InvalidArgument,
  /// A device, or the host, has not the memory asked for (TensorFlow's
  /// ResourceExhausted, "OOM when allocating").
  OutOfMemory,
  /// Something the run needs is missing: a device, a GPU, a library.
  Unavailable,
  /// A library call failed unexpectedly (CUDA, cuBLAS, NVRTC), or a bug.
  Internal,
};

/// "invalid argument", "out of memory", "unavailable", "internal error".
const char *statusCodeName(StatusCode code);

/// Success, or an error with a code and a message.
class [[nodiscard]] Status {
public:
  Status() = default;
  static Status ok() { return Status(); }
  static Status error(StatusCode code, std::string message) {
    Status status;
    status.message_ = std::move(message);
    status.code_ = code == StatusCode::Ok ? StatusCode::Internal : code;
    return status;
  }
  static Status invalidArgument(std::string message) {
    return error(StatusCode::InvalidArgument, std::move(message));
  }
  static Status outOfMemory(std::string message) {
    return error(StatusCode::OutOfMemory, std::move(message));
  }
  static Status unavailable(std::string message) {
    return error(StatusCode::Unavailable, std::move(message));
  }
  static Status internal(std::string message) {
    return error(StatusCode::Internal, std::move(message));
  }
  bool isOk() const { return code_ == StatusCode::Ok; }
  explicit operator bool() const { return isOk(); }
  StatusCode code() const { return code_; }
  const std::string &message() const { return message_; }
  /// The same failure with `context` before the message ("MatMul on GPU:0:
  /// ...").
  Status withContext(const std::string &context) const {
    return error(code_, context + message_);
  }

private:
  std::string message_;
  StatusCode code_ = StatusCode::Ok;
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

} // namespace gplace

/// Returns the Status of `expr` from the enclosing function if it failed.
#define GPLACE_RETURN_IF_ERROR(expr)                                           \
  do {                                                                         \
    ::gplace::Status _status = (expr);                                \
    if (!_status)                                                              \
      return _status;                                                          \
  } while (false)

#endif // GPLACE_SUPPORT_STATUS_H
