// The registry API's error: an HTTP status, Confluent's error_code and a message. Handlers return
// ApiResult<T>, an Expected<T, ApiError> that SLUICE_TRY and SLUICE_ASSIGN_OR_RETURN propagate as
// they do a Result<T>; only Registry::Handle turns an ApiError into an answer (ErrorBody). A
// sluice::Error cannot carry Confluent's error_code (40401 and 40402 are both "not found"), so
// failures from the store and the schema engines are mapped to an ApiError where they are called.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>

#include "sluice/base/result.h"

namespace sluice::registry::internal {

class ApiError {
 public:
  ApiError(int http_status, int error_code, std::string message)
      : http_status_(http_status), error_code_(error_code), message_(std::move(message)) {}

  int http_status() const { return http_status_; }
  /// Confluent's code: 40401, 42201, 50001, ...
  int error_code() const { return error_code_; }
  const std::string& message() const { return message_; }

 private:
  int http_status_;
  int error_code_;
  std::string message_;
};

template <class T>
using ApiResult = Expected<T, ApiError>;
using ApiStatus = ApiResult<void>;

/// 50001: the store failed with `e`.
ApiError StoreFailed(const Error& e);
/// 50001 with `message` as it is: the store holds something it should not.
ApiError StoreInconsistent(std::string message);
/// 40401.
ApiError SubjectNotFound(std::string_view subject);
/// 40402.
ApiError VersionNotFound(int64_t version);
/// 40403; `id` as the client wrote it.
ApiError SchemaNotFound(std::string_view id);
/// 42202; `version` as the client wrote it.
ApiError InvalidVersion(std::string_view version);
/// 422 with error_code 422: a body member of the wrong JSON type.
ApiError WrongMember(std::string message);
/// 42201: the schema (or a reference) is invalid.
ApiError InvalidSchema(std::string message);
/// 42205: the subject's mode forbids the operation.
ApiError NotPermitted(std::string message);

/// A store Result as an ApiResult: its value, or 50001.
template <class T>
ApiResult<T> FromStore(Result<T> r) {
  if (!r.has_value()) return Unexpected<ApiError>(StoreFailed(r.error()));
  if constexpr (std::is_void_v<T>) {
    return {};
  } else {
    return std::move(r).value();
  }
}

/// Confluent's error answer: {"error_code":N,"message":"..."}. The message quotes what the
/// client sent, which may be any bytes; invalid UTF-8 becomes U+FFFD so the answer is JSON.
std::string ErrorBody(const ApiError& e);

}  // namespace sluice::registry::internal

namespace sluice {

/// Lets SLUICE_TRY and SLUICE_ASSIGN_OR_RETURN propagate an ApiError.
inline Unexpected<registry::internal::ApiError> Fail(registry::internal::ApiError e) {
  return Unexpected<registry::internal::ApiError>(std::move(e));
}

}  // namespace sluice
