#include "sluice/base/error.h"

namespace sluice {

std::string_view ErrorCodeName(ErrorCode code) {
  switch (code) {
    case ErrorCode::kInvalidArgument:
      return "invalid_argument";
    case ErrorCode::kParseError:
      return "parse_error";
    case ErrorCode::kNotFound:
      return "not_found";
    case ErrorCode::kAlreadyExists:
      return "already_exists";
    case ErrorCode::kPermissionDenied:
      return "permission_denied";
    case ErrorCode::kConflict:
      return "conflict";
    case ErrorCode::kIncompatible:
      return "incompatible";
    case ErrorCode::kIoError:
      return "io_error";
    case ErrorCode::kUnimplemented:
      return "unimplemented";
    case ErrorCode::kInternal:
      return "internal";
  }
  return "unknown";
}

std::string Error::ToString() const {
  std::string out(ErrorCodeName(code_));
  out += ": ";
  out += message_;
  return out;
}

Error Error::WithContext(std::string_view context) const {
  std::string msg(context);
  msg += ": ";
  msg += message_;
  return Error(code_, std::move(msg)).WithDetail(detail_);
}

}  // namespace sluice
