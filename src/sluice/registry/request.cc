#include <charconv>
#include <limits>
#include <utility>

#include "sluice/base/json_writer.h"
#include "sluice/base/strings.h"
#include "sluice/registry/request_internal.h"

namespace sluice::registry::internal {
namespace {

struct SchemaTypeEntry {
  SchemaType type;
  std::string_view name;
};
constexpr SchemaTypeEntry kSchemaTypes[] = {{SchemaType::kAvro, "AVRO"},
                                            {SchemaType::kJson, "JSON"}};

struct ModeEntry {
  Mode mode;
  std::string_view name;
};
constexpr ModeEntry kModes[] = {{Mode::kReadWrite, "READWRITE"},
                                {Mode::kReadOnly, "READONLY"},
                                {Mode::kReadOnlyOverride, "READONLY_OVERRIDE"},
                                {Mode::kImport, "IMPORT"},
                                {Mode::kForward, "FORWARD"}};

bool IsBlank(std::string_view s) { return s.find_first_not_of(" \t\r\n") == std::string::npos; }

// An integer member: nullopt when absent or null, 422 `message` when not an integer.
Result<std::optional<int64_t>> IntegerMember(const JsonValue& body, std::string_view key,
                                             std::string_view message) {
  const JsonValue* v = body.Find(key);
  if (v == nullptr || v->is_null()) return std::nullopt;
  std::optional<int64_t> n = v->is_number() ? v->as_int64() : std::nullopt;
  if (!n) return Fail(WrongMember(std::string(message)));
  return n;
}

// "schemaType" into `r`: see SchemaRequest.
void ReadSchemaType(const JsonValue& body, SchemaRequest& r) {
  const JsonValue* t = body.Find("schemaType");
  if (t == nullptr || t->is_null()) return;
  if (!t->is_string()) {
    r.type_error = WrongMember("schemaType must be a string");
    return;
  }
  const std::string name = AsciiUpper(t->as_string());
  if (std::optional<SchemaType> type = SchemaTypeFromName(name)) {
    r.type = *type;
  } else if (name == "PROTOBUF") {
    r.type =
        Fail(InvalidSchema("Invalid schema: PROTOBUF schemas are not supported yet by "
                           "sluice's registry (AVRO and JSON are)"));
  } else {
    r.type = Fail(InvalidSchema("Invalid schema type " + name + ": use AVRO or JSON"));
  }
}

}  // namespace

std::string_view SchemaTypeName(SchemaType type) {
  for (const SchemaTypeEntry& e : kSchemaTypes) {
    if (e.type == type) return e.name;
  }
  return kSchemaTypes[0].name;
}

std::optional<SchemaType> SchemaTypeFromName(std::string_view name) {
  for (const SchemaTypeEntry& e : kSchemaTypes) {
    if (EqualsIgnoreCase(e.name, name)) return e.type;
  }
  return std::nullopt;
}

evolution::SchemaType CheckedAs(SchemaType type) {
  switch (type) {
    case SchemaType::kAvro:
      return evolution::SchemaType::kAvro;
    case SchemaType::kJson:
      return evolution::SchemaType::kJsonSchema;
  }
  return evolution::SchemaType::kAvro;
}

std::string_view ModeName(Mode mode) {
  for (const ModeEntry& e : kModes) {
    if (e.mode == mode) return e.name;
  }
  return kModes[0].name;
}

std::optional<Mode> ModeFromName(std::string_view name) {
  for (const ModeEntry& e : kModes) {
    if (EqualsIgnoreCase(e.name, name)) return e.mode;
  }
  return std::nullopt;
}

Result<VersionId> ParseVersion(std::string_view s) {
  if (EqualsIgnoreCase(s, "latest") || s == "-1") return VersionId{true, 0};
  int64_t v = 0;
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || ptr != s.data() + s.size() || v < 1 ||
      v > std::numeric_limits<int32_t>::max()) {
    return Fail(InvalidVersion(s));
  }
  return VersionId{false, v};
}

std::optional<int64_t> ParseId(std::string_view s) {
  int64_t v = 0;
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || ptr != s.data() + s.size() || v < 0) return std::nullopt;
  return v;
}

bool ValidSubject(std::string_view s) {
  if (s.empty() || !IsValidUtf8(s)) return false;
  for (unsigned char c : s) {
    if (c < 0x20 || c == 0x7f) return false;
  }
  return true;
}

Result<std::vector<SchemaRef>> ParseRefList(const JsonValue& refs) {
  std::vector<SchemaRef> out;
  if (refs.is_null()) return out;
  if (!refs.is_array()) return Fail(WrongMember("references must be an array"));
  for (const JsonValue& r : refs.items()) {
    const JsonValue* name = r.is_object() ? r.Find("name") : nullptr;
    const JsonValue* subject = r.is_object() ? r.Find("subject") : nullptr;
    const JsonValue* version = r.is_object() ? r.Find("version") : nullptr;
    int64_t v = 0;
    if (version && version->is_number()) v = version->as_int64().value_or(0);
    if (!name || !name->is_string() || name->as_string().empty() || !subject ||
        !subject->is_string() || subject->as_string().empty() || (v < 1 && v != -1)) {
      return Fail(InvalidSchema(
          "Invalid schema: each reference needs a name, a subject and a version (a positive "
          "integer, or -1 for the latest)"));
    }
    out.push_back({name->as_string(), subject->as_string(), v});
  }
  return out;
}

std::optional<std::vector<SchemaRef>> StoredRefs(std::string_view text) {
  auto json = ParseJson(text);
  if (!json.has_value()) return std::nullopt;
  auto list = ParseRefList(*json);
  if (!list.has_value()) return std::nullopt;
  return std::move(list).value();
}

std::string RefsJson(const std::vector<SchemaRef>& refs) {
  JsonWriter w;
  w.BeginArray();
  for (const SchemaRef& r : refs) {
    w.BeginObject();
    w.Key("name").String(r.name);
    w.Key("subject").String(r.subject);
    w.Key("version").Int(r.version);
    w.EndObject();
  }
  w.EndArray();
  return w.Take();
}

Result<JsonValue> ParseBodyObject(std::string_view body) {
  if (IsBlank(body)) {
    return Fail(ApiError(400, 400, "The request body is empty; a JSON object is expected"));
  }
  auto v = ParseJson(body, {.max_depth = 512});
  if (!v.has_value()) {
    return Fail(ApiError(400, 400, "The request body is not valid JSON: " + v.error().message()));
  }
  if (!v->is_object()) return Fail(ApiError(422, 422, "The request body must be a JSON object"));
  return std::move(v).value();
}

bool SchemaRequest::HasOwnSchema() const { return schema.has_value() && !IsBlank(*schema); }

Result<SchemaRequest> SchemaRequest::Parse(std::string_view body_text, bool normalize) {
  SLUICE_ASSIGN_OR_RETURN(JsonValue body, ParseBodyObject(body_text));
  SchemaRequest r;
  r.normalize = normalize;
  if (const JsonValue* s = body.Find("schema"); s && !s->is_null()) {
    if (s->is_string()) {
      r.schema = s->as_string();
    } else {
      r.schema = Fail(WrongMember("schema must be a string"));
    }
  }
  ReadSchemaType(body, r);
  if (const JsonValue* refs = body.Find("references")) r.references = ParseRefList(*refs);
  r.id = IntegerMember(body, "id", "id must be an integer");
  if (r.id.has_value() && r.id->has_value() && **r.id < 0) r.id = std::nullopt;
  r.version = IntegerMember(body, "version", "version must be an integer");
  if (r.version.has_value() && r.version->has_value() && **r.version < 1) r.version = std::nullopt;
  return r;
}

Result<evolution::CompatibilityMode> ParseConfigBody(std::string_view body_text) {
  SLUICE_ASSIGN_OR_RETURN(JsonValue body, ParseBodyObject(body_text));
  const JsonValue* level = body.Find("compatibility");
  if (!level || level->is_null()) level = body.Find("compatibilityLevel");
  if (level && level->is_string()) {
    auto mode = evolution::ParseCompatibilityMode(level->as_string());
    if (mode.has_value()) return *mode;
  }
  return Fail(ApiError(422, 42203,
                       "Invalid compatibility level. Valid values are none, backward, forward, "
                       "full, backward_transitive, forward_transitive, and full_transitive"));
}

Result<Mode> ParseModeBody(std::string_view body_text, bool whole_registry) {
  SLUICE_ASSIGN_OR_RETURN(JsonValue body, ParseBodyObject(body_text));
  const JsonValue* m = body.Find("mode");
  std::optional<Mode> mode = m && m->is_string() ? ModeFromName(m->as_string()) : std::nullopt;
  if (!mode || (*mode == Mode::kForward && !whole_registry)) {
    return Fail(ApiError(422, 42204,
                         "Invalid mode. Valid values are READWRITE, READONLY, IMPORT and "
                         "FORWARD."));
  }
  return *mode;
}

}  // namespace sluice::registry::internal
