// Explicit status values, in the manner of IREE's runtime: every fallible call returns one.
#pragma once

#include "hrx/runtime/Export.h"
#include <string>
#include <utility>
#include <variant>

namespace hrx {

enum class StatusCode {
  Ok,
  InvalidArgument,  // malformed input (artifact, flag, buffer)
  NotFound,
  FailedPrecondition,
  Unavailable,        // device or native library not present
  Busy,               // capacity exhausted or a conflicting guard is held
  DeadlineExceeded,   // a wait timed out; the work was not cancelled
  ResourceExhausted,  // memory budget
  DeviceLost,         // poisoned / quarantined
  Cancelled,
  Unimplemented,
  Internal,
};

HRX_RUNTIME_API const char *statusCodeName(StatusCode code);

class [[nodiscard]] HRX_RUNTIME_API Status {
public:
  Status() = default;
  Status(StatusCode code, std::string message) : code_(code), message_(std::move(message)) {}
  static Status ok() { return {}; }

  bool isOk() const { return code_ == StatusCode::Ok; }
  explicit operator bool() const { return isOk(); }
  StatusCode code() const { return code_; }
  const std::string &message() const { return message_; }
  // "INVALID_ARGUMENT: message"
  std::string toString() const;

private:
  StatusCode code_ = StatusCode::Ok;
  std::string message_;
};

// A value or a non-ok Status.
template <typename T> class [[nodiscard]] StatusOr {
public:
  StatusOr(T value) : v_(std::move(value)) {}
  StatusOr(Status status) : v_(std::move(status)) {}
  bool isOk() const { return std::holds_alternative<T>(v_); }
  explicit operator bool() const { return isOk(); }
  const Status &status() const {
    static const Status kOk;
    return isOk() ? kOk : std::get<Status>(v_);
  }
  T &value() & { return std::get<T>(v_); }
  const T &value() const & { return std::get<T>(v_); }
  T &&value() && { return std::get<T>(std::move(v_)); }
  T *operator->() { return &value(); }
  const T *operator->() const { return &value(); }
  T &operator*() { return value(); }

private:
  std::variant<T, Status> v_;
};

}  // namespace hrx
