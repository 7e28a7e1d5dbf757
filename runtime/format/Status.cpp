#include "hrx/runtime/Status.h"

namespace hrx {

const char *statusCodeName(StatusCode code) {
  switch (code) {
  case StatusCode::Ok: return "OK";
  case StatusCode::InvalidArgument: return "INVALID_ARGUMENT";
  case StatusCode::NotFound: return "NOT_FOUND";
  case StatusCode::FailedPrecondition: return "FAILED_PRECONDITION";
  case StatusCode::Unavailable: return "UNAVAILABLE";
  case StatusCode::Busy: return "BUSY";
  case StatusCode::DeadlineExceeded: return "DEADLINE_EXCEEDED";
  case StatusCode::ResourceExhausted: return "RESOURCE_EXHAUSTED";
  case StatusCode::DeviceLost: return "DEVICE_LOST";
  case StatusCode::Cancelled: return "CANCELLED";
  case StatusCode::Unimplemented: return "UNIMPLEMENTED";
  case StatusCode::Internal: return "INTERNAL";
  }
  return "UNKNOWN";
}

std::string Status::toString() const {
  if (isOk()) return "OK";
  return std::string(statusCodeName(code_)) + ": " + message_;
}

}  // namespace hrx
