// What a request says, typed: schema types and modes as enums with one name mapping each, path
// parameters (versions, ids, subjects) and request bodies, each body parsed once.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sluice/base/json.h"
#include "sluice/evolution/compatibility.h"
#include "sluice/registry/api_error_internal.h"

namespace sluice::registry::internal {

/// The schema languages the registry stores.
enum class SchemaType : uint8_t { kAvro, kJson };
/// Confluent's name: "AVRO", "JSON".
std::string_view SchemaTypeName(SchemaType type);
/// The type a name stands for, ignoring case; nullopt for any other name.
std::optional<SchemaType> SchemaTypeFromName(std::string_view name);
/// The form the compatibility engine checks a schema of `type` in.
evolution::SchemaType CheckedAs(SchemaType type);

/// A subject's or the registry's mode.
enum class Mode : uint8_t { kReadWrite, kReadOnly, kReadOnlyOverride, kImport, kForward };
/// "READWRITE", "READONLY", "READONLY_OVERRIDE", "IMPORT", "FORWARD".
std::string_view ModeName(Mode mode);
/// The mode a name stands for, ignoring case; nullopt for any other name.
std::optional<Mode> ModeFromName(std::string_view name);

/// A version in a path: "latest" (any case) or -1, else 1 .. 2^31-1.
struct VersionId {
  bool latest = false;
  int64_t number = 0;
};
/// 42202 for anything else.
Result<VersionId> ParseVersion(std::string_view text);
/// A schema id in a path: a non-negative integer.
std::optional<int64_t> ParseId(std::string_view text);
/// A subject name: non-empty UTF-8 without control characters.
bool ValidSubject(std::string_view subject);

/// One entry of a schema's `references`: the name it is used by, and the subject version that
/// defines it (-1 for the latest until it is resolved).
struct SchemaRef {
  std::string name;
  std::string subject;
  int64_t version = 0;
};
/// A `references` array (null is none): 422 if it is not an array, 42201 for a bad entry.
Result<std::vector<SchemaRef>> ParseRefList(const JsonValue& refs);
/// The references a stored schema names (its `refs` column), or nullopt if they do not parse.
std::optional<std::vector<SchemaRef>> StoredRefs(std::string_view json);
/// The `refs` column for `refs`: "[]" for none.
std::string RefsJson(const std::vector<SchemaRef>& refs);

/// A request body that must be a JSON object: 400 when empty or not JSON, 422 when not an
/// object.
Result<JsonValue> ParseBodyObject(std::string_view body);

/// The body of a registration, lookup or compatibility request, parsed once. A member's problem
/// stays with it until the handler uses the member, so that errors come in Confluent's order
/// (a registration in a read-only subject is refused as such, whatever its schema).
struct SchemaRequest {
  /// "schema"; empty when absent or null, which means the subject's latest schema. 422 when it
  /// is not a string.
  Result<std::string> schema = std::string();
  /// "schemaType" when it is not a string: 422, raised before the schema is read.
  std::optional<Error> type_error;
  /// "schemaType": AVRO when absent, null or not a string. PROTOBUF and unknown names are 42201,
  /// raised only when the request's own schema is used.
  Result<SchemaType> type = SchemaType::kAvro;
  /// "references": none when absent or null.
  Result<std::vector<SchemaRef>> references = std::vector<SchemaRef>();
  /// "id" and "version" (registrations in IMPORT mode): 422 when not integers; a negative id
  /// and a version below 1 are ignored.
  Result<std::optional<int64_t>> id = std::nullopt;
  Result<std::optional<int64_t>> version = std::nullopt;
  /// `?normalize=true`: JSON Schema object keys are sorted before the schema is stored.
  bool normalize = false;

  /// Whether "references" names any (or is malformed, which resolving reports).
  bool HasReferences() const { return !references.has_value() || !references->empty(); }
  /// Whether "schema" is a string with more than whitespace.
  bool HasOwnSchema() const;

  /// 400 or 422 for a body that is not a JSON object; member problems are kept (above).
  static Result<SchemaRequest> Parse(std::string_view body, bool normalize);
};

/// The level a `PUT /config` body sets ("compatibility", else "compatibilityLevel"): 42203
/// unless it is a level's name.
Result<evolution::CompatibilityMode> ParseConfigBody(std::string_view body);
/// The mode a `PUT /mode` body sets: 42204 unless it is a mode's name (FORWARD only for the
/// registry as a whole).
Result<Mode> ParseModeBody(std::string_view body, bool whole_registry);

}  // namespace sluice::registry::internal
