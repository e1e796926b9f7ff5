// What the UI's endpoint files share: the parsed request, JSON answers and errors, and the
// endpoint functions themselves (one file per concern).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sluice/base/result.h"
#include "sluice/schema/schema.h"
#include "sluice/ui/ui.h"

namespace sluice::ui::internal {

/// One API request: the path segments after /ui/api/ (each percent-decoded, so a subject
/// "a/b" sent as a%2Fb is one segment) and the query parameters.
struct ApiRequest {
  std::vector<std::string> segments;
  std::map<std::string, std::string> query;
  const registry::HttpRequest* http = nullptr;
  const registry::UserPolicy* user = nullptr;

  /// A query parameter as a positive count, `fallback` when absent, capped at `max`.
  std::optional<int64_t> Count(std::string_view name, int64_t fallback, int64_t max) const;
};

/// A JSON answer with the UI's headers.
registry::HttpResponse Json(int status, std::string body);
/// `{"error_code": code, "message": message}` with `status`.
registry::HttpResponse ApiError(int status, int code, std::string_view message);
/// 404 with 40401 (an unknown subject, version, table, checkpoint or outbox).
registry::HttpResponse NotFound(std::string_view message);
/// An Error as an answer: kNotFound 404/40401, kInvalidArgument 422/42201, else 500/50001.
registry::HttpResponse FromError(const Error& error);
/// Whether the caller may read what the UI shows beside the registry (tables, ingest,
/// alerts): without auth anyone; with auth, any user with a grant.
bool MayRead(const registry::UserPolicy* user);

/// A schema's fields as the tree's Node JSON array (docs/registry.md, "The UI's endpoints").
std::string FieldsJson(const schema::Schema& schema);
/// A schema text of the registry's `schemaType` ("AVRO", "JSON") in sluice's model.
Result<schema::SchemaPtr> ReadRegistrySchema(std::string_view schema_type, std::string_view text);

registry::HttpResponse Session(const UiOptions& options, const ApiRequest& request);
registry::HttpResponse SubjectList(const UiOptions& options, const ApiRequest& request);
registry::HttpResponse SubjectTree(const UiOptions& options, const ApiRequest& request);
registry::HttpResponse SubjectDiff(const UiOptions& options, const ApiRequest& request);
registry::HttpResponse SubjectVerdicts(const UiOptions& options, const ApiRequest& request);
registry::HttpResponse TableList(const UiOptions& options, const ApiRequest& request);
registry::HttpResponse TableHistory(const UiOptions& options, const ApiRequest& request);
registry::HttpResponse TableSchema(const UiOptions& options, const ApiRequest& request);
registry::HttpResponse IngestList(const UiOptions& options, const ApiRequest& request);
registry::HttpResponse IngestBatches(const UiOptions& options, const ApiRequest& request);
registry::HttpResponse IngestQuarantine(const UiOptions& options, const ApiRequest& request);
registry::HttpResponse AlertList(const UiOptions& options, const ApiRequest& request);

/// The entry of `list` named `name`, or nullptr.
const NamedPath* FindNamed(const std::vector<NamedPath>& list, std::string_view name);

}  // namespace sluice::ui::internal
