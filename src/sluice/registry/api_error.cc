#include "sluice/base/json_writer.h"
#include "sluice/base/strings.h"
#include "sluice/registry/api_error_internal.h"

namespace sluice::registry::internal {
namespace {

std::string ValidUtf8(std::string_view s) {
  std::string out;
  for (size_t bad; (bad = FindInvalidUtf8(s)) != std::string_view::npos;) {
    out.append(s.substr(0, bad));
    out += "\xEF\xBF\xBD";
    s.remove_prefix(bad + 1);
  }
  out.append(s);
  return out;
}

}  // namespace

namespace {

ErrorCode CodeForStatus(int http_status) {
  switch (http_status) {
    case 403:
      return ErrorCode::kPermissionDenied;
    case 404:
      return ErrorCode::kNotFound;
    case 409:
      return ErrorCode::kIncompatible;
    case 400:
    case 405:
    case 422:
      return ErrorCode::kInvalidArgument;
    default:
      return ErrorCode::kInternal;
  }
}

}  // namespace

Error ApiError(int http_status, int error_code, std::string message) {
  return Error(CodeForStatus(http_status), std::move(message)).WithDetail(error_code);
}

int ConfluentCode(const Error& e) { return e.detail() != 0 ? e.detail() : 50001; }

int HttpStatus(const Error& e) {
  // Confluent's codes start with the HTTP status: 40401 is a 404, 42201 a 422; a bare status
  // (404, 409, 422) is its own.
  int code = ConfluentCode(e);
  return code >= 1000 ? code / 100 : code;
}

Error StoreFailed(const Error& e) {
  return ApiError(500, 50001, "Error in the backend data store: " + e.message());
}

Error StoreInconsistent(std::string message) { return ApiError(500, 50001, std::move(message)); }

Error SubjectNotFound(std::string_view subject) {
  return ApiError(404, 40401, "Subject '" + std::string(subject) + "' not found.");
}

Error VersionNotFound(int64_t version) {
  return ApiError(404, 40402, "Version " + std::to_string(version) + " not found.");
}

Error SchemaNotFound(std::string_view id) {
  return ApiError(404, 40403, "Schema " + std::string(id) + " not found");
}

Error InvalidVersion(std::string_view version) {
  return ApiError(422, 42202,
                  "The specified version '" + std::string(version) +
                      "' is not a valid version id. Allowed values are between [1, 2^31-1] and "
                      "the string \"latest\"");
}

Error WrongMember(std::string message) { return ApiError(422, 422, std::move(message)); }

Error InvalidSchema(std::string message) { return ApiError(422, 42201, std::move(message)); }

Error NotPermitted(std::string message) { return ApiError(422, 42205, std::move(message)); }

std::string ErrorBody(const Error& e) {
  JsonWriter w;
  w.BeginObject();
  w.Key("error_code").Int(ConfluentCode(e));
  w.Key("message").String(ValidUtf8(e.message()));
  w.EndObject();
  return w.Take();
}

}  // namespace sluice::registry::internal
