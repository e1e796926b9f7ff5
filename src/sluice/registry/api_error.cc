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

ApiError StoreFailed(const Error& e) {
  return {500, 50001, "Error in the backend data store: " + e.message()};
}

ApiError StoreInconsistent(std::string message) { return {500, 50001, std::move(message)}; }

ApiError SubjectNotFound(std::string_view subject) {
  return {404, 40401, "Subject '" + std::string(subject) + "' not found."};
}

ApiError VersionNotFound(int64_t version) {
  return {404, 40402, "Version " + std::to_string(version) + " not found."};
}

ApiError SchemaNotFound(std::string_view id) {
  return {404, 40403, "Schema " + std::string(id) + " not found"};
}

ApiError InvalidVersion(std::string_view version) {
  return {422, 42202,
          "The specified version '" + std::string(version) +
              "' is not a valid version id. Allowed values are between [1, 2^31-1] and the "
              "string \"latest\""};
}

ApiError WrongMember(std::string message) { return {422, 422, std::move(message)}; }

ApiError InvalidSchema(std::string message) { return {422, 42201, std::move(message)}; }

ApiError NotPermitted(std::string message) { return {422, 42205, std::move(message)}; }

std::string ErrorBody(const ApiError& e) {
  JsonWriter w;
  w.BeginObject();
  w.Key("error_code").Int(e.error_code());
  w.Key("message").String(ValidUtf8(e.message()));
  w.EndObject();
  return w.Take();
}

}  // namespace sluice::registry::internal
