// The registry API's errors are sluice Errors: the coarse ErrorCode, Confluent's error_code as
// the Error's detail (40401 and 40402 are both kNotFound), and the message. Handlers return
// Result<T> like the rest of the library; only Registry::Handle turns an Error into an answer
// (HttpStatus, ErrorBody). Failures from the store and the schema engines are mapped to an
// API error where they are called.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>

#include "sluice/base/result.h"

namespace sluice::registry::internal {

/// An API error answered with HTTP `http_status` and Confluent's `error_code`.
Error ApiError(int http_status, int error_code, std::string message);

/// The HTTP status of an API error (from its error_code: 40401 -> 404, 409 -> 409); 500 for an
/// Error that carries no error_code.
int HttpStatus(const Error& e);
/// Confluent's error_code of an API error; 50001 for an Error that carries none.
int ConfluentCode(const Error& e);

/// 50001: the store failed with `e`.
Error StoreFailed(const Error& e);
/// 50001 with `message` as it is: the store holds something it should not.
Error StoreInconsistent(std::string message);
/// 40401.
Error SubjectNotFound(std::string_view subject);
/// 40402.
Error VersionNotFound(int64_t version);
/// 40403; `id` as the client wrote it.
Error SchemaNotFound(std::string_view id);
/// 42202; `version` as the client wrote it.
Error InvalidVersion(std::string_view version);
/// 422 with error_code 422: a body member of the wrong JSON type.
Error WrongMember(std::string message);
/// 42201: the schema (or a reference) is invalid.
Error InvalidSchema(std::string message);
/// 42205: the subject's mode forbids the operation.
Error NotPermitted(std::string message);

/// A store Result with its failure as 50001.
template <class T>
Result<T> FromStore(Result<T> r) {
  if (!r.has_value()) return Fail(StoreFailed(r.error()));
  return r;
}

/// Confluent's error answer: {"error_code":N,"message":"..."}. The message quotes what the
/// client sent, which may be any bytes; invalid UTF-8 becomes U+FFFD so the answer is JSON.
std::string ErrorBody(const Error& e);

}  // namespace sluice::registry::internal
