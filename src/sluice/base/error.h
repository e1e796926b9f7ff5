// Error values shared by every module: a small closed set of codes and a message that names the
// file, byte offset or field path the error is about.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace sluice {

/// The reason an operation could not run. Expected outcomes (an incompatible change, a record that
/// violates a schema) are reports, not errors; kIncompatible is for callers that turn a report into
/// a failure on purpose.
enum class ErrorCode : uint8_t {
  kInvalidArgument,
  kParseError,
  kNotFound,
  kAlreadyExists,
  kPermissionDenied,
  kConflict,
  kIncompatible,
  kIoError,
  kUnimplemented,
  kInternal,
};

/// Return the snake_case name of `code`, e.g. "parse_error".
std::string_view ErrorCodeName(ErrorCode code);

/// An error code with a human-readable message. Cheap to move; copy only when needed.
class Error {
 public:
  Error(ErrorCode code, std::string message) : code_(code), message_(std::move(message)) {}

  ErrorCode code() const { return code_; }
  const std::string& message() const { return message_; }

  /// The code the API sluice stands in for gives this error, where it has its own (Confluent
  /// Schema Registry's error_code 40401 "subject not found"); 0 when none. The code() stays the
  /// coarse kind; an edge that answers in that API's terms maps the detail.
  int32_t detail() const { return detail_; }
  /// Return a copy that carries `detail`.
  Error WithDetail(int32_t detail) const& {
    Error e = *this;
    e.detail_ = detail;
    return e;
  }
  Error WithDetail(int32_t detail) && {
    detail_ = detail;
    return std::move(*this);
  }

  /// Return "<code>: <message>".
  std::string ToString() const;

  /// Return a copy whose message is "<context>: <message>", e.g. the file name in front.
  Error WithContext(std::string_view context) const;

 private:
  ErrorCode code_;
  int32_t detail_ = 0;
  std::string message_;
};

}  // namespace sluice
