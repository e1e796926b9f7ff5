#include "sluice/registry/registry.h"

#include <algorithm>
#include <charconv>
#include <limits>
#include <optional>
#include <vector>

#include "sluice/base/hash.h"
#include "sluice/base/json.h"
#include "sluice/base/json_writer.h"
#include "sluice/base/strings.h"
#include "sluice/dialects/avro/avro_schema.h"

namespace sluice::registry {

using evolution::CompatibilityMode;
using evolution::ParsedSchema;
using evolution::ParsedSchemaPtr;
using evolution::SchemaType;

std::string_view PermissionName(Permission p) {
  switch (p) {
    case Permission::kRead:
      return "read";
    case Permission::kWrite:
      return "write";
    case Permission::kAdmin:
      return "admin";
  }
  return "read";
}

std::string PercentDecode(std::string_view s, bool plus_is_space) {
  std::string out;
  out.reserve(s.size());
  auto hex = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  };
  for (size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    if (c == '%' && i + 2 < s.size()) {
      int hi = hex(s[i + 1]);
      int lo = hex(s[i + 2]);
      if (hi >= 0 && lo >= 0) {
        out += static_cast<char>(hi * 16 + lo);
        i += 2;
        continue;
      }
    }
    out += (plus_is_space && c == '+') ? ' ' : c;
  }
  return out;
}

namespace {

constexpr const char* kModes[] = {"READWRITE", "READONLY", "READONLY_OVERRIDE", "IMPORT",
                                  "FORWARD"};

// Messages quote what the client sent (a subject, a version), which may be any bytes: each byte
// that is not part of valid UTF-8 becomes U+FFFD, so the answer is always valid JSON.
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

Response ErrorResponse(int status, int code, std::string_view message) {
  Response r;
  r.status = status;
  r.body = "{\"error_code\":" + std::to_string(code) + ",\"message\":";
  AppendJsonString(r.body, ValidUtf8(message));
  r.body += '}';
  return r;
}

Response JsonResponse(std::string body) {
  Response r;
  r.body = std::move(body);
  return r;
}

std::string Quoted(std::string_view s) {
  std::string out;
  AppendJsonString(out, s);
  return out;
}

// The query string, decoded.
struct Query {
  std::vector<std::pair<std::string, std::string>> items;

  explicit Query(std::string_view q) {
    while (!q.empty()) {
      size_t amp = q.find('&');
      std::string_view part = q.substr(0, amp);
      q = amp == std::string_view::npos ? std::string_view() : q.substr(amp + 1);
      if (part.empty()) continue;
      size_t eq = part.find('=');
      items.emplace_back(
          PercentDecode(part.substr(0, eq), true),
          eq == std::string_view::npos ? std::string() : PercentDecode(part.substr(eq + 1), true));
    }
  }
  const std::string* Get(std::string_view name) const {
    for (const auto& [k, v] : items) {
      if (k == name) return &v;
    }
    return nullptr;
  }
  // Booleans ignore case: Python's client sends `deleted=False`.
  bool Bool(std::string_view name) const {
    const std::string* v = Get(name);
    return v && EqualsIgnoreCase(*v, "true");
  }
};

// A version in a path: "latest" (any case) or -1, else 1 .. 2^31-1.
struct VersionId {
  bool latest = false;
  int64_t number = 0;
};
std::optional<VersionId> ParseVersion(std::string_view s) {
  if (EqualsIgnoreCase(s, "latest") || s == "-1") return VersionId{true, 0};
  int64_t v = 0;
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || ptr != s.data() + s.size() || v < 1 ||
      v > std::numeric_limits<int32_t>::max()) {
    return std::nullopt;
  }
  return VersionId{false, v};
}

Response InvalidVersion(std::string_view s) {
  return ErrorResponse(422, 42202,
                       "The specified version '" + std::string(s) +
                           "' is not a valid version id. Allowed values are between [1, "
                           "2^31-1] and the string \"latest\"");
}

std::optional<int64_t> ParseId(std::string_view s) {
  int64_t v = 0;
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || ptr != s.data() + s.size() || v < 0) return std::nullopt;
  return v;
}

int64_t ToInt(const std::optional<std::string>& s) {
  if (!s) return 0;
  int64_t v = 0;
  std::from_chars(s->data(), s->data() + s->size(), v);
  return v;
}

bool ValidSubject(std::string_view s) {
  if (s.empty() || !IsValidUtf8(s)) return false;
  for (unsigned char c : s) {
    if (c < 0x20 || c == 0x7f) return false;
  }
  return true;
}

// One subject version as stored.
struct VersionRow {
  int64_t version = 0;
  int64_t schema_id = 0;
  bool deleted = false;
  std::string fingerprint;
};

// One entry of a schema's `references`: the name it is used by, and the subject version that
// defines it.
struct SchemaRef {
  std::string name;
  std::string subject;
  int64_t version = 0;
};

// A referenced schema: the name the referring schema uses for it, and its stored text.
struct RefText {
  std::string name;
  std::string text;
};

// A JSON Schema with its references written in, for the compatibility engine: each referenced
// schema goes under `$defs/sluice-ref-N` of the root, and every `$ref` to a reference name
// ("address.json", "address.json#/definitions/x") points there instead. Inside a referenced
// schema without its own `$id`, `#...` references are moved along with it.
Result<std::string> BundleJsonSchema(std::string_view text, const std::vector<RefText>& refs) {
  SLUICE_ASSIGN_OR_RETURN(JsonValue root, ParseJson(text));
  if (!root.is_object()) {
    return InvalidArgument("a JSON Schema with references must be an object");
  }
  std::map<std::string, std::string, std::less<>> key_of;
  for (size_t i = 0; i < refs.size(); ++i) {
    key_of.emplace(refs[i].name, "sluice-ref-" + std::to_string(i + 1));
  }
  auto rewrite = [&](auto& self, JsonValue& v, const std::string* moved_to, int depth) -> void {
    if (depth > 256) return;
    if (v.is_array()) {
      for (JsonValue& item : v.mutable_items()) self(self, item, moved_to, depth + 1);
      return;
    }
    if (!v.is_object()) return;
    for (JsonMember& m : v.mutable_members()) {
      if (m.key == "$ref" && m.value.is_string()) {
        const std::string& r = m.value.as_string();
        const size_t hash = r.find('#');
        const std::string base = r.substr(0, hash);
        const std::string fragment = hash == std::string::npos ? "" : r.substr(hash + 1);
        if (base.empty() && moved_to != nullptr) {
          m.value = JsonValue::String("#/$defs/" + *moved_to + fragment);
        } else if (auto it = key_of.find(base); !base.empty() && it != key_of.end()) {
          m.value = JsonValue::String("#/$defs/" + it->second + fragment);
        }
      } else {
        self(self, m.value, moved_to, depth + 1);
      }
    }
  };
  rewrite(rewrite, root, nullptr, 0);
  JsonValue defs = root.Find("$defs") != nullptr ? *root.Find("$defs") : JsonValue::Object();
  if (!defs.is_object()) return InvalidArgument("$defs must be an object");
  for (size_t i = 0; i < refs.size(); ++i) {
    SLUICE_ASSIGN_OR_RETURN(JsonValue referenced, ParseJson(refs[i].text));
    const std::string key = "sluice-ref-" + std::to_string(i + 1);
    const bool own_base = referenced.is_object() && referenced.Find("$id") != nullptr;
    rewrite(rewrite, referenced, own_base ? nullptr : &key, 0);
    defs.Set(key, std::move(referenced));
  }
  root.Set("$defs", std::move(defs));
  return ToJson(root);
}

struct SchemaRow {
  int64_t id = 0;
  std::string type;  // AVRO, JSON
  std::string text;
  std::string refs;  // JSON array text
};

// A registration request's schema after parsing: its type, the text to store and its key.
struct Canonical {
  std::string type;
  std::string text;
  std::string refs = "[]";
  std::string fingerprint;
  ParsedSchemaPtr parsed;
};

}  // namespace

class Registry::Impl {
 public:
  Impl(Store& store, RegistryOptions options) : store_(store), options_(options) {}

  Response Handle(const Request& req, const AccessPolicy* policy);
  Result<Counts> CountObjects();

 private:
  // A request's failure: status, Confluent error code, message.
  struct ApiError {
    int status;
    int code;
    std::string message;
  };
  template <typename T>
  using Api = std::variant<T, ApiError>;

  static Response FromError(const ApiError& e) {
    return ErrorResponse(e.status, e.code, e.message);
  }
  static ApiError StoreError(const Error& e) {
    return {500, 50001, "Error in the backend data store: " + e.message()};
  }
  static ApiError SubjectNotFound(std::string_view s) {
    return {404, 40401, "Subject '" + std::string(s) + "' not found."};
  }
  static ApiError VersionNotFound(int64_t v) {
    return {404, 40402, "Version " + std::to_string(v) + " not found."};
  }
  static ApiError SchemaNotFound(std::string_view id) {
    return {404, 40403, "Schema " + std::string(id) + " not found"};
  }

  // A transaction that rolls back unless committed.
  class Tx {
   public:
    explicit Tx(Connection& c) : c_(c) {}
    ~Tx() {
      if (open_) c_.Rollback();
    }
    Status Begin(bool write) {
      Status s = write ? c_.BeginWrite() : c_.BeginRead();
      open_ = s.has_value();
      return s;
    }
    Status Commit() {
      open_ = false;
      return c_.Commit();
    }

   private:
    Connection& c_;
    bool open_ = false;
  };

  // ---- reads ----
  Result<std::vector<VersionRow>> Versions(Connection& c, std::string_view subject) {
    SLUICE_ASSIGN_OR_RETURN(
        auto rows,
        c.Query("SELECT v.version, v.schema_id, v.deleted, s.fingerprint FROM versions v JOIN "
                "schemas s ON s.id = v.schema_id WHERE v.subject = ? ORDER BY v.version",
                {subject}));
    std::vector<VersionRow> out;
    out.reserve(rows.size());
    for (auto& r : rows) {
      out.push_back({ToInt(r[0]), ToInt(r[1]), ToInt(r[2]) != 0, r[3].value_or("")});
    }
    return out;
  }

  Result<std::optional<SchemaRow>> SchemaById(Connection& c, int64_t id) {
    SLUICE_ASSIGN_OR_RETURN(
        auto rows,
        c.Query("SELECT id, schema_type, schema_text, refs FROM schemas WHERE id = ?", {id}));
    if (rows.empty()) return std::optional<SchemaRow>();
    return std::optional<SchemaRow>(SchemaRow{ToInt(rows[0][0]), rows[0][1].value_or("AVRO"),
                                              rows[0][2].value_or(""), rows[0][3].value_or("[]")});
  }

  Result<std::optional<std::string>> ScopeValue(Connection& c, std::string_view table,
                                                std::string_view column, std::string_view scope) {
    std::string sql =
        "SELECT " + std::string(column) + " FROM " + std::string(table) + " WHERE scope = ?";
    SLUICE_ASSIGN_OR_RETURN(auto rows, c.Query(sql, {scope}));
    if (rows.empty()) return std::optional<std::string>();
    return rows[0][0];
  }

  Result<std::string> EffectiveMode(Connection& c, std::string_view subject) {
    SLUICE_ASSIGN_OR_RETURN(auto own, ScopeValue(c, "modes", "mode", subject));
    if (own) return *own;
    SLUICE_ASSIGN_OR_RETURN(auto global, ScopeValue(c, "modes", "mode", ""));
    return global.value_or("READWRITE");
  }

  Result<CompatibilityMode> EffectiveCompatibility(Connection& c, std::string_view subject) {
    SLUICE_ASSIGN_OR_RETURN(auto own, ScopeValue(c, "configs", "compatibility", subject));
    if (!own) {
      SLUICE_ASSIGN_OR_RETURN(own, ScopeValue(c, "configs", "compatibility", ""));
    }
    if (!own) return options_.default_compatibility;
    auto m = evolution::ParseCompatibilityMode(*own);
    return m.has_value() ? *m : options_.default_compatibility;
  }

  // The parsed form of a stored schema, cached by id (a stored schema never changes). A schema
  // with references is parsed with the schemas they name and checked in its standalone form.
  Result<ParsedSchemaPtr> Parsed(Connection& c, const SchemaRow& row) {
    {
      std::lock_guard<std::mutex> lock(cache_mu_);
      auto it = parsed_.find(row.id);
      if (it != parsed_.end()) return it->second;
    }
    SchemaType type = row.type == "JSON" ? SchemaType::kJsonSchema : SchemaType::kAvro;
    std::string text = row.text;
    if (row.refs != "[]") {
      std::optional<std::vector<SchemaRef>> refs = StoredRefs(row.refs);
      if (!refs)
        return Internal("schema " + std::to_string(row.id) + ": stored references do not parse");
      std::vector<RefText> texts;
      if (auto e = CollectReferences(c, *refs, 0, row.type, texts)) return Internal(e->message);
      SLUICE_ASSIGN_OR_RETURN(text, Standalone(row.type, row.text, texts));
    }
    SLUICE_ASSIGN_OR_RETURN(ParsedSchemaPtr p, ParsedSchema::Parse(type, text));
    std::lock_guard<std::mutex> lock(cache_mu_);
    if (parsed_.size() > 100000) parsed_.clear();
    parsed_.emplace(row.id, p);
    return p;
  }

  // ---- request bodies ----
  static Api<JsonValue> BodyObject(std::string_view body) {
    if (body.find_first_not_of(" \t\r\n") == std::string_view::npos) {
      return ApiError{400, 400, "The request body is empty; a JSON object is expected"};
    }
    auto v = ParseJson(body, {.max_depth = 512});
    if (!v.has_value()) {
      return ApiError{400, 400, "The request body is not valid JSON: " + v.error().message()};
    }
    if (!v->is_object()) return ApiError{422, 422, "The request body must be a JSON object"};
    return std::move(*v);
  }

  // ---- schema references ----
  // A `references` array: [{"name", "subject", "version"}, ...].
  static Api<std::vector<SchemaRef>> ParseRefList(const JsonValue& refs) {
    std::vector<SchemaRef> out;
    if (refs.is_null()) return out;
    if (!refs.is_array()) return ApiError{422, 422, "references must be an array"};
    for (const JsonValue& r : refs.items()) {
      const JsonValue* name = r.is_object() ? r.Find("name") : nullptr;
      const JsonValue* subject = r.is_object() ? r.Find("subject") : nullptr;
      const JsonValue* version = r.is_object() ? r.Find("version") : nullptr;
      int64_t v = 0;
      if (version && version->is_number()) v = version->as_int64().value_or(0);
      if (!name || !name->is_string() || name->as_string().empty() || !subject ||
          !subject->is_string() || subject->as_string().empty() || (v < 1 && v != -1)) {
        return ApiError{422, 42201,
                        "Invalid schema: each reference needs a name, a subject and a version "
                        "(a positive integer, or -1 for the latest)"};
      }
      out.push_back({name->as_string(), subject->as_string(), v});
    }
    return out;
  }

  // The references a stored schema names (its `refs` column), or nullopt if they do not parse.
  static std::optional<std::vector<SchemaRef>> StoredRefs(std::string_view text) {
    auto json = ParseJson(text);
    if (!json.has_value()) return std::nullopt;
    auto list = ParseRefList(*json);
    if (std::holds_alternative<ApiError>(list)) return std::nullopt;
    return std::get<std::vector<SchemaRef>>(std::move(list));
  }

  static std::string RefsJson(const std::vector<SchemaRef>& refs) {
    std::string b = "[";
    for (const SchemaRef& r : refs) {
      if (b.size() > 1) b += ',';
      b += "{\"name\":" + Quoted(r.name) + ",\"subject\":" + Quoted(r.subject) +
           ",\"version\":" + std::to_string(r.version) + "}";
    }
    return b + "]";
  }

  // A schema with references as one standalone schema.
  static Result<std::string> Standalone(std::string_view type, std::string_view text,
                                        const std::vector<RefText>& refs) {
    if (type == "JSON") return BundleJsonSchema(text, refs);
    std::vector<std::string_view> views;
    for (const RefText& r : refs) views.push_back(r.text);
    SLUICE_ASSIGN_OR_RETURN(auto avro, dialects::avro::Parse(text, views));
    return dialects::avro::WriteJson(avro);
  }

  // Appends the schemas `refs` name to `texts`, each after the ones it references in turn
  // (depth first), as the Avro parser needs them. They must be of `type` (the referring
  // schema's). -1 is resolved to the latest version in `refs`, so what is stored names a fixed
  // version.
  std::optional<ApiError> CollectReferences(Connection& c, std::vector<SchemaRef>& refs, int depth,
                                            std::string_view type, std::vector<RefText>& texts) {
    if (depth > 32) return ApiError{422, 42201, "Invalid schema: references nest too deeply"};
    for (SchemaRef& ref : refs) {
      auto versions = Versions(c, ref.subject);
      if (!versions.has_value()) return StoreError(versions.error());
      const VersionRow* found = nullptr;
      for (const VersionRow& v : *versions) {
        if (v.deleted) continue;
        if (ref.version == -1 || v.version == ref.version) found = &v;
      }
      if (!found) {
        return ApiError{422, 42201,
                        "Invalid schema: reference '" + ref.name + "' names version " +
                            std::to_string(ref.version) + " of subject '" + ref.subject +
                            "', which does not exist"};
      }
      ref.version = found->version;
      auto row = SchemaById(c, found->schema_id);
      if (!row.has_value()) return StoreError(row.error());
      if (!*row) return ApiError{500, 50001, "a stored version names a missing schema"};
      if ((*row)->type != type) {
        return ApiError{422, 42201,
                        "Invalid schema: reference '" + ref.name + "' names a " + (*row)->type +
                            " schema, not " + std::string(type)};
      }
      if ((*row)->refs != "[]") {
        std::optional<std::vector<SchemaRef>> inner = StoredRefs((*row)->refs);
        if (!inner) return ApiError{500, 50001, "stored references do not parse"};
        if (auto e = CollectReferences(c, *inner, depth + 1, type, texts)) return e;
      }
      // Avro types are known by their own names, so a schema reached twice is parsed once; a
      // JSON Schema is known by the reference's name.
      const bool seen = std::any_of(texts.begin(), texts.end(), [&](const RefText& t) {
        return type == "AVRO" ? t.text == (*row)->text : t.name == ref.name;
      });
      if (!seen) texts.push_back({ref.name, (*row)->text});
    }
    return std::nullopt;
  }

  // The request's schema with its references resolved against the store.
  Api<Canonical> SchemaOfRequest(Connection& c, const JsonValue& body, bool normalize,
                                 const std::optional<SchemaRow>& fallback) {
    const JsonValue* given = body.Find("references");
    auto refs = ParseRefList(given ? *given : JsonValue());
    if (auto* e = std::get_if<ApiError>(&refs)) return *e;
    auto& list = std::get<std::vector<SchemaRef>>(refs);
    std::vector<RefText> texts;
    if (!list.empty()) {
      std::string type = "AVRO";
      if (const JsonValue* t = body.Find("schemaType"); t && t->is_string()) {
        type = AsciiUpper(t->as_string());
      }
      if (type != "AVRO" && type != "JSON") return ParseRequestSchema(body, normalize, fallback);
      if (auto e = CollectReferences(c, list, 0, type, texts)) return *e;
    }
    return ParseRequestSchema(body, normalize, fallback, list, texts);
  }

  // Ids of the schemas whose references name `subject` version `version`; with `live_only`,
  // only those that are still a live version somewhere.
  Result<std::vector<int64_t>> Referrers(Connection& c, std::string_view subject, int64_t version,
                                         bool live_only) {
    SLUICE_ASSIGN_OR_RETURN(
        auto rows, c.Query("SELECT id, refs FROM schemas WHERE refs <> '[]' ORDER BY id", {}));
    std::vector<int64_t> out;
    for (auto& r : rows) {
      std::optional<std::vector<SchemaRef>> refs = StoredRefs(r[1].value_or("[]"));
      if (!refs || std::none_of(refs->begin(), refs->end(), [&](const SchemaRef& ref) {
            return ref.subject == subject && ref.version == version;
          })) {
        continue;
      }
      const int64_t id = ToInt(r[0]);
      if (live_only) {
        SLUICE_ASSIGN_OR_RETURN(auto live, c.Query("SELECT 1 FROM versions WHERE schema_id = ? "
                                                   "AND deleted = 0 LIMIT 1",
                                                   {id}));
        if (live.empty()) continue;
      }
      out.push_back(id);
    }
    return out;
  }

  // 42206 when another schema still refers to the version (a permanent delete counts
  // soft-deleted referrers too: their ids still resolve, and need what they refer to).
  std::optional<Response> RefusedByReferences(Connection& c, std::string_view subject,
                                              int64_t version, bool permanent) {
    auto referrers = Referrers(c, subject, version, !permanent);
    if (!referrers.has_value()) return FromError(StoreError(referrers.error()));
    if (referrers->empty()) return std::nullopt;
    return ErrorResponse(422, 42206,
                         "One or more references exist to the schema {magic=1,keytype=SCHEMA,"
                         "subject=" +
                             std::string(subject) + ",version=" + std::to_string(version) + "}.");
  }

  static bool HasReferences(const JsonValue& body) {
    const JsonValue* refs = body.Find("references");
    return refs && !(refs->is_null() || (refs->is_array() && refs->items().empty()));
  }

  // The schema of a register/lookup/compatibility request. `fallback` is the latest version's
  // schema, used when the request's schema is empty (Confluent re-uses it). `refs` are the
  // request's references, resolved, and `ref_texts` the schemas they name.
  Api<Canonical> ParseRequestSchema(const JsonValue& body, bool normalize,
                                    const std::optional<SchemaRow>& fallback,
                                    const std::vector<SchemaRef>& refs = {},
                                    const std::vector<RefText>& ref_texts = {}) {
    std::string type = "AVRO";
    if (const JsonValue* t = body.Find("schemaType"); t && !t->is_null()) {
      if (!t->is_string()) return ApiError{422, 422, "schemaType must be a string"};
      type = AsciiUpper(t->as_string());
    }
    if (const JsonValue* r = body.Find("references"); r && !r->is_null() && !r->is_array()) {
      return ApiError{422, 422, "references must be an array"};
    }
    const JsonValue* s = body.Find("schema");
    std::string text;
    if (s && !s->is_null()) {
      if (!s->is_string()) return ApiError{422, 422, "schema must be a string"};
      text = s->as_string();
    }
    if (text.find_first_not_of(" \t\r\n") == std::string::npos) {
      if (!fallback) return ApiError{422, 42201, "Empty schema"};
      text = fallback->text;
      type = fallback->type;
    }
    if (type == "PROTOBUF") {
      return ApiError{422, 42201,
                      "Invalid schema: PROTOBUF schemas are not supported yet by sluice's "
                      "registry (AVRO and JSON are)"};
    }
    if (type != "AVRO" && type != "JSON") {
      return ApiError{422, 42201, "Invalid schema type " + type + ": use AVRO or JSON"};
    }
    auto json = ParseJson(text, {.max_depth = options_.max_schema_depth});
    if (!json.has_value()) {
      return ApiError{422, 42201,
                      "Invalid schema of type " + type + ", details: " + json.error().message()};
    }
    Canonical c;
    c.type = type;
    std::string standalone;  // what the compatibility engine checks
    if (type == "AVRO") {
      std::vector<std::string_view> views;
      for (const RefText& r : ref_texts) views.push_back(r.text);
      auto avro = dialects::avro::Parse(text, views);
      if (!avro.has_value()) {
        return ApiError{422, 42201,
                        "Invalid schema of type AVRO, details: " + avro.error().message()};
      }
      if (refs.empty()) {
        // Avro's compact form, every attribute kept: `{"type":"string"}` is stored as "string".
        c.text = dialects::avro::WriteJson(*avro);
        standalone = c.text;
      } else {
        // With references the stored text stays the request's own (compact): written out, the
        // referenced types would be copied in.
        c.text = ToJson(*json);
        standalone = dialects::avro::WriteJson(*avro);
        c.refs = RefsJson(refs);
      }
    } else {
      c.text = ToJson(*json, {.sort_keys = normalize});
      standalone = c.text;
      if (!refs.empty()) {
        auto bundled = BundleJsonSchema(c.text, ref_texts);
        if (!bundled.has_value()) {
          return ApiError{422, 42201,
                          "Invalid schema of type JSON, details: " + bundled.error().message()};
        }
        standalone = *bundled;
        c.refs = RefsJson(refs);
      }
    }
    auto parsed = ParsedSchema::Parse(type == "AVRO" ? SchemaType::kAvro : SchemaType::kJsonSchema,
                                      standalone);
    if (!parsed.has_value()) {
      return ApiError{422, 42201,
                      "Invalid schema of type " + type + ", details: " + parsed.error().message()};
    }
    c.parsed = *parsed;
    c.fingerprint = Sha256Hex(c.type + "\n" + c.text + "\n" + c.refs);
    return c;
  }

  // Confluent's message list for an incompatible result.
  std::vector<std::string> Messages(const evolution::CompatibilityReport& report,
                                    const std::vector<VersionRow>& live,
                                    const std::vector<SchemaRow>& texts) {
    std::vector<std::string> out;
    for (const evolution::Incompatibility& inc : report.incompatibilities) {
      std::string m = "{errorType:'" + inc.kind + "', description:'" + inc.message + "'";
      if (!inc.location.empty()) m += ", additionalInfo:'" + inc.location + "'";
      m += "}";
      out.push_back(std::move(m));
    }
    if (!report.incompatibilities.empty()) {
      size_t idx = report.incompatibilities.front().version_index;
      if (idx < live.size()) {
        out.push_back("{oldSchemaVersion: " + std::to_string(live[idx].version) + "}");
        std::string old = texts[idx].text.substr(0, 10240);
        out.push_back("{oldSchema: '" + old + "'}");
      }
    }
    out.push_back("{validateFields: 'false', compatibility: '" +
                  std::string(evolution::CompatibilityModeName(report.mode)) + "'}");
    return out;
  }

  // Check `candidate` against `live` (oldest first) in `mode`.
  Api<evolution::CompatibilityReport> Check(Connection& c, CompatibilityMode mode,
                                            const std::vector<VersionRow>& live,
                                            const Canonical& candidate,
                                            std::vector<SchemaRow>* texts) {
    std::vector<ParsedSchemaPtr> history;
    for (const VersionRow& v : live) {
      auto row = SchemaById(c, v.schema_id);
      if (!row.has_value()) return StoreError(row.error());
      if (!*row) return ApiError{500, 50001, "a stored version names a missing schema"};
      texts->push_back(**row);
    }
    evolution::CompatibilityReport report;
    report.mode = mode;
    report.compatible = true;
    if (mode == CompatibilityMode::kNone || live.empty()) return report;
    // A schema of another type than the versions it is checked against is never compatible.
    const bool transitive = mode == CompatibilityMode::kBackwardTransitive ||
                            mode == CompatibilityMode::kForwardTransitive ||
                            mode == CompatibilityMode::kFullTransitive;
    for (size_t i = transitive ? 0 : live.size() - 1; i < live.size(); ++i) {
      if ((*texts)[i].type != candidate.type) {
        report.compatible = false;
        report.incompatibilities.push_back({"TYPE_MISMATCH", "",
                                            "Incompatible because of different schema type", "",
                                            evolution::CheckDirection::kBackward, i});
        return report;
      }
    }
    for (const SchemaRow& t : *texts) {
      auto p = Parsed(c, t);
      if (!p.has_value()) {
        return ApiError{500, 50001, "a stored schema no longer parses: " + p.error().message()};
      }
      history.push_back(*p);
    }
    evolution::CompatibilityOptions opts;
    opts.stop_at_first_failure = true;
    return evolution::CheckCompatibility(mode, history, *candidate.parsed, opts);
  }

  // ---- handlers ----
  Response RootGet() { return JsonResponse("{}"); }

  Response SchemaTypes() { return JsonResponse("[\"JSON\",\"AVRO\"]"); }

  Response GetSchemaById(Connection& c, std::string_view id_text, const Query& q, bool raw,
                         const AccessPolicy* policy);
  Response IdSubjects(Connection& c, std::string_view id_text, const Query& q, bool versions,
                      const AccessPolicy* policy);
  Response ListSubjects(Connection& c, const Query& q, const AccessPolicy* policy);
  Response ListSchemas(Connection& c, const Query& q, const AccessPolicy* policy);
  Response ListVersions(Connection& c, std::string_view subject, const Query& q);
  Response GetVersion(Connection& c, std::string_view subject, std::string_view version,
                      const Query& q, bool raw);
  Response RegisterSchema(Connection& c, std::string_view subject, std::string_view body,
                          const Query& q);
  Response LookupSchema(Connection& c, std::string_view subject, std::string_view body,
                        const Query& q);
  Response DeleteSubject(Connection& c, std::string_view subject, const Query& q);
  Response ReferencedBy(Connection& c, std::string_view subject, std::string_view version,
                        const Query& q);
  Response DeleteVersion(Connection& c, std::string_view subject, std::string_view version,
                         const Query& q);
  Response Compatibility(Connection& c, std::string_view subject,
                         std::optional<std::string_view> version, std::string_view body,
                         const Query& q);
  Response GetConfig(Connection& c, std::string_view subject, const Query& q);
  Response PutConfig(Connection& c, std::string_view subject, std::string_view body);
  Response DeleteConfig(Connection& c, std::string_view subject);
  Response GetMode(Connection& c, std::string_view subject, const Query& q);
  Response PutMode(Connection& c, std::string_view subject, std::string_view body, const Query& q);
  Response DeleteMode(Connection& c, std::string_view subject);

  std::string SchemaJson(std::string_view subject, int64_t version, const SchemaRow& row) {
    std::string b = "{\"subject\":" + Quoted(subject) + ",\"version\":" + std::to_string(version) +
                    ",\"id\":" + std::to_string(row.id);
    if (row.type != "AVRO") b += ",\"schemaType\":" + Quoted(row.type);
    b += ",\"schema\":" + Quoted(row.text);
    if (row.refs != "[]") b += ",\"references\":" + row.refs;
    return b + "}";
  }

  Store& store_;
  RegistryOptions options_;
  std::mutex cache_mu_;
  std::map<int64_t, ParsedSchemaPtr> parsed_;
};

#define SLUICE_API_TRY(lhs, expr)                                         \
  auto SLUICE_CONCAT_(api_, __LINE__) = (expr);                           \
  if (!SLUICE_CONCAT_(api_, __LINE__).has_value()) {                      \
    return FromError(StoreError(SLUICE_CONCAT_(api_, __LINE__).error())); \
  }                                                                       \
  lhs = std::move(*SLUICE_CONCAT_(api_, __LINE__))

#define SLUICE_STATUS_TRY(expr) \
  if (Status st_ = (expr); !st_.has_value()) return FromError(StoreError(st_.error()))

Response Registry::Impl::GetSchemaById(Connection& c, std::string_view id_text, const Query& q,
                                       bool raw, const AccessPolicy* policy) {
  std::optional<int64_t> id = ParseId(id_text);
  if (!id) return FromError(SchemaNotFound(id_text));
  // A single statement is its own snapshot; a read transaction only when more statements
  // follow (it costs a lock round trip on every request, the hottest path of all).
  Tx tx(c);
  if (policy != nullptr || q.Bool("fetchMaxId")) SLUICE_STATUS_TRY(tx.Begin(false));
  SLUICE_API_TRY(auto row, SchemaById(c, *id));
  if (!row) return FromError(SchemaNotFound(id_text));
  if (policy) {
    SLUICE_API_TRY(auto subjects,
                   c.Query("SELECT DISTINCT subject FROM versions WHERE schema_id = ?", {*id}));
    bool allowed = false;
    for (auto& s : subjects) allowed = allowed || policy->Allows(Permission::kRead, *s[0]);
    if (!allowed) {
      return ErrorResponse(403, 40301,
                           "User is denied read access to schema " + std::string(id_text));
    }
  }
  if (raw) return JsonResponse(row->text);
  std::string b = "{";
  if (row->type != "AVRO") b += "\"schemaType\":" + Quoted(row->type) + ",";
  b += "\"schema\":" + Quoted(row->text);
  if (row->refs != "[]") b += ",\"references\":" + row->refs;
  if (q.Bool("fetchMaxId")) {
    SLUICE_API_TRY(auto max, c.Query("SELECT value FROM id_counter WHERE name = 'schema'"));
    b += ",\"maxId\":" + std::to_string(max.empty() ? 0 : ToInt(max[0][0]));
  }
  b += "}";
  return JsonResponse(std::move(b));
}

Response Registry::Impl::IdSubjects(Connection& c, std::string_view id_text, const Query& q,
                                    bool versions, const AccessPolicy* policy) {
  std::optional<int64_t> id = ParseId(id_text);
  if (!id) return FromError(SchemaNotFound(id_text));
  const bool deleted = q.Bool("deleted");
  SLUICE_API_TRY(auto rows, c.Query("SELECT subject, version, deleted FROM versions WHERE "
                                    "schema_id = ? ORDER BY subject, version",
                                    {*id}));
  if (rows.empty()) return FromError(SchemaNotFound(id_text));
  std::string b = "[";
  std::string last;
  bool first = true;
  for (auto& r : rows) {
    if (ToInt(r[2]) != 0 && !deleted) continue;
    const std::string& subject = *r[0];
    if (policy && !policy->Allows(Permission::kRead, subject)) continue;
    if (!versions && !first && subject == last) continue;
    if (!first) b += ',';
    first = false;
    last = subject;
    if (versions) {
      b += "{\"subject\":" + Quoted(subject) + ",\"version\":" + *r[1] + "}";
    } else {
      b += Quoted(subject);
    }
  }
  b += "]";
  return JsonResponse(std::move(b));
}

Response Registry::Impl::ListSubjects(Connection& c, const Query& q, const AccessPolicy* policy) {
  const bool deleted = q.Bool("deleted");
  const bool deleted_only = q.Bool("deletedOnly");
  std::string prefix;
  if (const std::string* p = q.Get("subjectPrefix"); p && *p != ":*:") prefix = *p;
  SLUICE_API_TRY(auto rows, c.Query("SELECT subject, MIN(deleted), MAX(deleted) FROM versions "
                                    "GROUP BY subject ORDER BY subject"));
  std::string b = "[";
  bool first = true;
  for (auto& r : rows) {
    const std::string& s = *r[0];
    const bool any_live = ToInt(r[1]) == 0;
    const bool any_deleted = ToInt(r[2]) != 0;
    bool include = deleted_only ? any_deleted : (any_live || (deleted && any_deleted));
    if (!include || !s.starts_with(prefix)) continue;
    if (policy && !policy->Allows(Permission::kRead, s)) continue;
    if (!first) b += ',';
    first = false;
    b += Quoted(s);
  }
  b += "]";
  return JsonResponse(std::move(b));
}

Response Registry::Impl::ListSchemas(Connection& c, const Query& q, const AccessPolicy* policy) {
  const bool deleted = q.Bool("deleted");
  const bool latest_only = q.Bool("latestOnly");
  std::string prefix;
  if (const std::string* p = q.Get("subjectPrefix"); p && *p != ":*:") prefix = *p;
  SLUICE_API_TRY(auto rows,
                 c.Query("SELECT v.subject, v.version, v.deleted, s.id, s.schema_type, "
                         "s.schema_text, s.refs FROM versions v JOIN schemas s ON s.id = "
                         "v.schema_id ORDER BY v.subject, v.version"));
  std::vector<std::string> items;
  std::string current;
  for (size_t i = 0; i < rows.size(); ++i) {
    auto& r = rows[i];
    const std::string& subject = *r[0];
    if (ToInt(r[2]) != 0 && !deleted) continue;
    if (!subject.starts_with(prefix)) continue;
    if (policy && !policy->Allows(Permission::kRead, subject)) continue;
    SchemaRow row{ToInt(r[3]), r[4].value_or("AVRO"), r[5].value_or(""), r[6].value_or("[]")};
    std::string item = SchemaJson(subject, ToInt(r[1]), row);
    if (latest_only && !items.empty() && subject == current) {
      items.back() = std::move(item);
    } else {
      items.push_back(std::move(item));
    }
    current = subject;
  }
  std::string b = "[";
  for (size_t i = 0; i < items.size(); ++i) {
    if (i) b += ',';
    b += items[i];
  }
  b += "]";
  return JsonResponse(std::move(b));
}

Response Registry::Impl::ListVersions(Connection& c, std::string_view subject, const Query& q) {
  const bool deleted = q.Bool("deleted");
  const bool deleted_only = q.Bool("deletedOnly");
  SLUICE_API_TRY(auto versions, Versions(c, subject));
  std::string b = "[";
  bool first = true;
  bool any_live = false;
  for (const VersionRow& v : versions) {
    any_live = any_live || !v.deleted;
    bool include = deleted_only ? v.deleted : (!v.deleted || deleted);
    if (!include) continue;
    if (!first) b += ',';
    first = false;
    b += std::to_string(v.version);
  }
  b += "]";
  if (versions.empty() || (!any_live && !deleted && !deleted_only)) {
    return FromError(SubjectNotFound(subject));
  }
  return JsonResponse(std::move(b));
}

Response Registry::Impl::GetVersion(Connection& c, std::string_view subject,
                                    std::string_view version, const Query& q, bool raw) {
  std::optional<VersionId> v = ParseVersion(version);
  if (!v) return InvalidVersion(version);
  const bool deleted = q.Bool("deleted");
  Tx tx(c);
  SLUICE_STATUS_TRY(tx.Begin(false));
  SLUICE_API_TRY(auto versions, Versions(c, subject));
  const VersionRow* found = nullptr;
  bool any_visible = false;
  for (const VersionRow& r : versions) {
    if (r.deleted && !deleted) continue;
    any_visible = true;
    if (v->latest || r.version == v->number) found = &r;
  }
  if (!any_visible) return FromError(SubjectNotFound(subject));
  if (!found) return FromError(VersionNotFound(v->number));
  SLUICE_API_TRY(auto row, SchemaById(c, found->schema_id));
  if (!row) return FromError(SchemaNotFound(std::to_string(found->schema_id)));
  if (raw) return JsonResponse(row->text);
  return JsonResponse(SchemaJson(subject, found->version, *row));
}

Response Registry::Impl::RegisterSchema(Connection& c, std::string_view subject,
                                        std::string_view body_text, const Query& q) {
  auto body_or = BodyObject(body_text);
  if (auto* e = std::get_if<ApiError>(&body_or)) return FromError(*e);
  const JsonValue& body = std::get<JsonValue>(body_or);
  std::optional<int64_t> req_id;
  std::optional<int64_t> req_version;
  if (const JsonValue* id = body.Find("id"); id && !id->is_null()) {
    auto v = id->is_number() ? id->as_int64() : std::nullopt;
    if (!v) return ErrorResponse(422, 422, "id must be an integer");
    if (*v >= 0) req_id = *v;
  }
  if (const JsonValue* ver = body.Find("version"); ver && !ver->is_null()) {
    auto v = ver->is_number() ? ver->as_int64() : std::nullopt;
    if (!v) return ErrorResponse(422, 422, "version must be an integer");
    if (*v > 0) req_version = *v;
  }
  const bool normalize = q.Bool("normalize");
  // Parse the schema before the write transaction, so writers hold the lock only for the
  // store's work. An empty schema means the subject's latest one, which needs the store.
  std::optional<Api<Canonical>> parsed;
  if (const JsonValue* s = body.Find("schema");
      s && s->is_string() && s->as_string().find_first_not_of(" \t\r\n") != std::string::npos &&
      !HasReferences(body)) {
    parsed = ParseRequestSchema(body, normalize, std::nullopt);
  }

  Tx tx(c);
  SLUICE_STATUS_TRY(tx.Begin(true));
  SLUICE_API_TRY(std::string mode, EffectiveMode(c, subject));
  if (mode == "READONLY" || mode == "READONLY_OVERRIDE") {
    return ErrorResponse(422, 42205, "Subject " + std::string(subject) + " is in read-only mode");
  }
  const bool importing = mode == "IMPORT" || mode == "FORWARD";
  if (req_id && !importing) {
    return ErrorResponse(422, 42205, "Subject " + std::string(subject) + " is not in import mode");
  }
  if (!req_id && mode != "READWRITE") {
    return ErrorResponse(422, 42205,
                         "Subject " + std::string(subject) + " is not in read-write mode");
  }
  SLUICE_API_TRY(auto versions, Versions(c, subject));
  std::vector<VersionRow> live;
  for (const VersionRow& v : versions) {
    if (!v.deleted) live.push_back(v);
  }
  if (!parsed) {
    std::optional<SchemaRow> latest;
    if (!live.empty()) {
      SLUICE_API_TRY(latest, SchemaById(c, live.back().schema_id));
    }
    parsed = SchemaOfRequest(c, body, normalize, latest);
  }
  if (auto* e = std::get_if<ApiError>(&*parsed)) return FromError(*e);
  Canonical& canon = std::get<Canonical>(*parsed);

  // The same schema already a live version of this subject: registration is idempotent.
  for (const VersionRow& v : live) {
    if (v.fingerprint == canon.fingerprint && (!req_version || *req_version == v.version) &&
        (!req_id || *req_id == v.schema_id)) {
      return JsonResponse("{\"id\":" + std::to_string(v.schema_id) + "}");
    }
  }
  const int64_t next_version = versions.empty() ? 1 : versions.back().version + 1;
  int64_t version = next_version;
  if (req_version) {
    if (importing) {
      for (const VersionRow& v : versions) {
        if (v.version == *req_version) {
          return ErrorResponse(422, 42205,
                               "Version " + std::to_string(*req_version) + " of subject " +
                                   std::string(subject) + " already exists");
        }
      }
      version = *req_version;
    } else if (*req_version != next_version) {
      return ErrorResponse(422, 42201, "Version is not one more than previous version");
    }
  }

  if (!importing) {
    SLUICE_API_TRY(CompatibilityMode level, EffectiveCompatibility(c, subject));
    std::vector<SchemaRow> texts;
    auto report_or = Check(c, level, live, canon, &texts);
    if (auto* e = std::get_if<ApiError>(&report_or)) return FromError(*e);
    const auto& report = std::get<evolution::CompatibilityReport>(report_or);
    if (!report.compatible) {
      std::string details;
      for (const std::string& m : Messages(report, live, texts)) {
        if (!details.empty()) details += ", ";
        details += m;
      }
      return ErrorResponse(409, options_.incompatible_error_code,
                           "Schema being registered is incompatible with an earlier schema for "
                           "subject \"" +
                               std::string(subject) + "\", details: [" + details + "]");
    }
  }

  int64_t id = 0;
  if (req_id) {
    SLUICE_API_TRY(auto existing, SchemaById(c, *req_id));
    if (existing) {
      if (Sha256Hex(existing->type + "\n" + existing->text + "\n" + existing->refs) !=
          canon.fingerprint) {
        return ErrorResponse(
            422, 42205,
            "Overwrite new schema with id " + std::to_string(*req_id) + " is not permitted.");
      }
    } else {
      SLUICE_API_TRY(auto ins,
                     c.Query("INSERT INTO schemas (id, schema_type, schema_text, refs, "
                             "fingerprint) VALUES (?, ?, ?, ?, ?)",
                             {*req_id, canon.type, canon.text, canon.refs, canon.fingerprint}));
      (void)ins;
      // Imported ids raise the counter, so later registrations never take them.
      SLUICE_API_TRY(auto up, c.Query("UPDATE id_counter SET value = ? WHERE name = 'schema' "
                                      "AND value < ?",
                                      {*req_id, *req_id}));
      (void)up;
    }
    id = *req_id;
  } else {
    // Not `SELECT MIN(id) ... WHERE fingerprint = ?`: PostgreSQL plans that as a walk of the
    // primary key in id order, filtering on the fingerprint, which reads every row for a new
    // schema. A fingerprint has one row (or a few after an IMPORT), so the minimum is taken
    // here.
    SLUICE_API_TRY(auto same,
                   c.Query("SELECT id FROM schemas WHERE fingerprint = ?", {canon.fingerprint}));
    std::optional<int64_t> existing;
    for (const auto& row : same) {
      if (row[0] && (!existing || ToInt(row[0]) < *existing)) existing = ToInt(row[0]);
    }
    if (existing) {
      id = *existing;  // the same schema in another subject: the same id
    } else {
      SLUICE_API_TRY(auto next, c.Query("UPDATE id_counter SET value = value + 1 WHERE name = "
                                        "'schema' RETURNING value"));
      if (next.empty()) return FromError({500, 50001, "the id counter is missing"});
      id = ToInt(next[0][0]);
      SLUICE_API_TRY(auto ins,
                     c.Query("INSERT INTO schemas (id, schema_type, schema_text, refs, "
                             "fingerprint) VALUES (?, ?, ?, ?, ?)",
                             {id, canon.type, canon.text, canon.refs, canon.fingerprint}));
      (void)ins;
    }
  }
  SLUICE_API_TRY(auto insv, c.Query("INSERT INTO versions (subject, version, schema_id, deleted) "
                                    "VALUES (?, ?, ?, 0)",
                                    {subject, version, id}));
  (void)insv;
  SLUICE_STATUS_TRY(tx.Commit());
  return JsonResponse("{\"id\":" + std::to_string(id) + "}");
}

Response Registry::Impl::LookupSchema(Connection& c, std::string_view subject,
                                      std::string_view body_text, const Query& q) {
  auto body_or = BodyObject(body_text);
  if (auto* e = std::get_if<ApiError>(&body_or)) return FromError(*e);
  const JsonValue& body = std::get<JsonValue>(body_or);
  const bool deleted = q.Bool("deleted");
  Tx tx(c);
  SLUICE_STATUS_TRY(tx.Begin(false));
  SLUICE_API_TRY(auto versions, Versions(c, subject));
  bool any = false;
  for (const VersionRow& v : versions) any = any || !v.deleted || deleted;
  if (!any) return FromError(SubjectNotFound(subject));
  auto canon_or = SchemaOfRequest(c, body, q.Bool("normalize"), std::nullopt);
  if (auto* e = std::get_if<ApiError>(&canon_or)) return FromError(*e);
  const Canonical& canon = std::get<Canonical>(canon_or);
  const VersionRow* found = nullptr;
  for (const VersionRow& v : versions) {
    if (v.deleted && !deleted) continue;
    if (v.fingerprint == canon.fingerprint) found = &v;
  }
  if (!found) return FromError({404, 40403, "Schema not found"});
  SLUICE_API_TRY(auto row, SchemaById(c, found->schema_id));
  if (!row) return FromError({404, 40403, "Schema not found"});
  return JsonResponse(SchemaJson(subject, found->version, *row));
}

Response Registry::Impl::ReferencedBy(Connection& c, std::string_view subject,
                                      std::string_view version, const Query& q) {
  Response got = GetVersion(c, subject, version, q, false);
  if (got.status != 200) return got;
  auto v = ParseJson(got.body);
  const JsonValue* number = v.has_value() ? v->Find("version") : nullptr;
  if (!number || !number->as_int64()) return FromError({500, 50001, "version lookup failed"});
  SLUICE_API_TRY(auto ids, Referrers(c, subject, *number->as_int64(), true));
  std::string b = "[";
  for (int64_t id : ids) {
    if (b.size() > 1) b += ',';
    b += std::to_string(id);
  }
  return JsonResponse(b + "]");
}

Response Registry::Impl::DeleteSubject(Connection& c, std::string_view subject, const Query& q) {
  const bool permanent = q.Bool("permanent");
  Tx tx(c);
  SLUICE_STATUS_TRY(tx.Begin(true));
  SLUICE_API_TRY(std::string mode, EffectiveMode(c, subject));
  if (mode == "READONLY" || mode == "READONLY_OVERRIDE") {
    return ErrorResponse(422, 42205, "Subject " + std::string(subject) + " is in read-only mode");
  }
  SLUICE_API_TRY(auto versions, Versions(c, subject));
  if (versions.empty()) return FromError(SubjectNotFound(subject));
  std::string list = "[";
  bool first = true;
  auto add = [&](int64_t v) {
    if (!first) list += ',';
    first = false;
    list += std::to_string(v);
  };
  if (!permanent) {
    bool any_live = false;
    for (const VersionRow& v : versions) any_live = any_live || !v.deleted;
    if (!any_live) {
      return ErrorResponse(404, 40404,
                           "Subject '" + std::string(subject) +
                               "' was soft deleted.Set permanent=true to delete "
                               "permanently");
    }
    for (const VersionRow& v : versions) {
      if (v.deleted) continue;
      if (auto refused = RefusedByReferences(c, subject, v.version, false)) return *refused;
      add(v.version);
    }
    SLUICE_API_TRY(auto up,
                   c.Query("UPDATE versions SET deleted = 1 WHERE subject = ?", {subject}));
    (void)up;
  } else {
    for (const VersionRow& v : versions) {
      if (!v.deleted) {
        return ErrorResponse(404, 40405,
                             "Subject '" + std::string(subject) +
                                 "' was not deleted first before being permanently "
                                 "deleted");
      }
    }
    for (const VersionRow& v : versions) {
      if (auto refused = RefusedByReferences(c, subject, v.version, true)) return *refused;
      add(v.version);
    }
    SLUICE_API_TRY(auto del, c.Query("DELETE FROM versions WHERE subject = ?", {subject}));
    (void)del;
    for (const VersionRow& v : versions) {
      SLUICE_API_TRY(auto orphan, c.Query("DELETE FROM schemas WHERE id = ? AND NOT EXISTS "
                                          "(SELECT 1 FROM versions WHERE schema_id = ?)",
                                          {v.schema_id, v.schema_id}));
      (void)orphan;
    }
    SLUICE_API_TRY(auto dc, c.Query("DELETE FROM configs WHERE scope = ?", {subject}));
    SLUICE_API_TRY(auto dm, c.Query("DELETE FROM modes WHERE scope = ?", {subject}));
    (void)dc;
    (void)dm;
  }
  list += "]";
  SLUICE_STATUS_TRY(tx.Commit());
  return JsonResponse(std::move(list));
}

Response Registry::Impl::DeleteVersion(Connection& c, std::string_view subject,
                                       std::string_view version, const Query& q) {
  std::optional<VersionId> vid = ParseVersion(version);
  if (!vid) return InvalidVersion(version);
  const bool permanent = q.Bool("permanent");
  Tx tx(c);
  SLUICE_STATUS_TRY(tx.Begin(true));
  SLUICE_API_TRY(std::string mode, EffectiveMode(c, subject));
  if (mode == "READONLY" || mode == "READONLY_OVERRIDE") {
    return ErrorResponse(422, 42205, "Subject " + std::string(subject) + " is in read-only mode");
  }
  SLUICE_API_TRY(auto versions, Versions(c, subject));
  if (versions.empty()) return FromError(SubjectNotFound(subject));
  const VersionRow* found = nullptr;
  for (const VersionRow& v : versions) {
    if (vid->latest) {
      // "latest" is the newest live version; for a permanent delete, the newest at all.
      if (!v.deleted || permanent) found = &v;
    } else if (v.version == vid->number) {
      found = &v;
    }
  }
  if (!found) return FromError(VersionNotFound(vid->number));
  const std::string v = std::to_string(found->version);
  if (!permanent) {
    if (found->deleted) {
      return ErrorResponse(404, 40406,
                           "Subject '" + std::string(subject) + "' Version " + v +
                               " was soft deleted.Set permanent=true to delete "
                               "permanently");
    }
    if (auto refused = RefusedByReferences(c, subject, found->version, false)) return *refused;
    SLUICE_API_TRY(auto up, c.Query("UPDATE versions SET deleted = 1 WHERE subject = ? AND "
                                    "version = ?",
                                    {subject, found->version}));
    (void)up;
  } else {
    if (!found->deleted) {
      return ErrorResponse(404, 40407,
                           "Subject '" + std::string(subject) + "' Version " + v +
                               " was not deleted first before being permanently "
                               "deleted");
    }
    if (auto refused = RefusedByReferences(c, subject, found->version, true)) return *refused;
    SLUICE_API_TRY(auto del, c.Query("DELETE FROM versions WHERE subject = ? AND version = ?",
                                     {subject, found->version}));
    (void)del;
    SLUICE_API_TRY(auto orphan, c.Query("DELETE FROM schemas WHERE id = ? AND NOT EXISTS "
                                        "(SELECT 1 FROM versions WHERE schema_id = ?)",
                                        {found->schema_id, found->schema_id}));
    (void)orphan;
    if (versions.size() == 1) {
      SLUICE_API_TRY(auto dc, c.Query("DELETE FROM configs WHERE scope = ?", {subject}));
      SLUICE_API_TRY(auto dm, c.Query("DELETE FROM modes WHERE scope = ?", {subject}));
      (void)dc;
      (void)dm;
    }
  }
  SLUICE_STATUS_TRY(tx.Commit());
  return JsonResponse(v);
}

Response Registry::Impl::Compatibility(Connection& c, std::string_view subject,
                                       std::optional<std::string_view> version,
                                       std::string_view body_text, const Query& q) {
  std::optional<VersionId> vid;
  if (version) {
    vid = ParseVersion(*version);
    if (!vid) return InvalidVersion(*version);
  }
  auto body_or = BodyObject(body_text);
  if (auto* e = std::get_if<ApiError>(&body_or)) return FromError(*e);
  const JsonValue& body = std::get<JsonValue>(body_or);
  const bool verbose = q.Bool("verbose");
  Tx tx(c);
  SLUICE_STATUS_TRY(tx.Begin(false));
  SLUICE_API_TRY(auto versions, Versions(c, subject));
  std::vector<VersionRow> live;
  for (const VersionRow& v : versions) {
    if (!v.deleted) live.push_back(v);
  }
  if (vid && !vid->latest) {
    std::vector<VersionRow> one;
    for (const VersionRow& v : live) {
      if (v.version == vid->number) one.push_back(v);
    }
    if (one.empty()) return FromError(VersionNotFound(vid->number));
    live = std::move(one);
  }
  std::optional<SchemaRow> latest;
  if (!live.empty()) {
    SLUICE_API_TRY(latest, SchemaById(c, live.back().schema_id));
  }
  auto canon_or = SchemaOfRequest(c, body, q.Bool("normalize"), latest);
  if (auto* e = std::get_if<ApiError>(&canon_or)) {
    if (verbose && e->code == 42201) {
      return JsonResponse("{\"is_compatible\":false,\"messages\":[" + Quoted(e->message) + "]}");
    }
    return FromError(*e);
  }
  const Canonical& canon = std::get<Canonical>(canon_or);
  SLUICE_API_TRY(CompatibilityMode level, EffectiveCompatibility(c, subject));
  if (vid) {
    // One version: checked in the level's direction(s), never transitively.
    if (vid->latest && !live.empty()) live = {live.back()};
    switch (level) {
      case CompatibilityMode::kBackwardTransitive:
        level = CompatibilityMode::kBackward;
        break;
      case CompatibilityMode::kForwardTransitive:
        level = CompatibilityMode::kForward;
        break;
      case CompatibilityMode::kFullTransitive:
        level = CompatibilityMode::kFull;
        break;
      case CompatibilityMode::kNone:
      case CompatibilityMode::kBackward:
      case CompatibilityMode::kForward:
      case CompatibilityMode::kFull:
        break;
    }
  }
  std::vector<SchemaRow> texts;
  auto report_or = Check(c, level, live, canon, &texts);
  if (auto* e = std::get_if<ApiError>(&report_or)) return FromError(*e);
  const auto& report = std::get<evolution::CompatibilityReport>(report_or);
  std::string b = std::string("{\"is_compatible\":") + (report.compatible ? "true" : "false");
  if (verbose) {
    b += ",\"messages\":[";
    if (!report.compatible) {
      bool first = true;
      for (const std::string& m : Messages(report, live, texts)) {
        if (!first) b += ',';
        first = false;
        b += Quoted(m);
      }
    }
    b += "]";
  }
  b += "}";
  return JsonResponse(std::move(b));
}

Response Registry::Impl::GetConfig(Connection& c, std::string_view subject, const Query& q) {
  SLUICE_API_TRY(auto own, ScopeValue(c, "configs", "compatibility", subject));
  if (!own && !subject.empty() && !q.Bool("defaultToGlobal")) {
    return ErrorResponse(404, 40408,
                         "Subject '" + std::string(subject) +
                             "' does not have subject-level compatibility "
                             "configured");
  }
  if (!own) {
    SLUICE_API_TRY(own, ScopeValue(c, "configs", "compatibility", ""));
  }
  std::string level =
      own.value_or(std::string(evolution::CompatibilityModeName(options_.default_compatibility)));
  return JsonResponse("{\"compatibilityLevel\":" + Quoted(level) + "}");
}

Response Registry::Impl::PutConfig(Connection& c, std::string_view subject,
                                   std::string_view body_text) {
  auto body_or = BodyObject(body_text);
  if (auto* e = std::get_if<ApiError>(&body_or)) return FromError(*e);
  const JsonValue& body = std::get<JsonValue>(body_or);
  const JsonValue* level = body.Find("compatibility");
  if (!level || level->is_null()) level = body.Find("compatibilityLevel");
  std::optional<CompatibilityMode> mode;
  if (level && level->is_string()) {
    auto m = evolution::ParseCompatibilityMode(level->as_string());
    if (m.has_value()) mode = *m;
  }
  if (!mode) {
    return ErrorResponse(422, 42203,
                         "Invalid compatibility level. Valid values are none, "
                         "backward, forward, full, backward_transitive, "
                         "forward_transitive, and full_transitive");
  }
  const std::string name(evolution::CompatibilityModeName(*mode));
  Tx tx(c);
  SLUICE_STATUS_TRY(tx.Begin(true));
  SLUICE_API_TRY(auto up, c.Query("INSERT INTO configs (scope, compatibility) VALUES (?, ?) ON "
                                  "CONFLICT (scope) DO UPDATE SET compatibility = "
                                  "excluded.compatibility",
                                  {subject, name}));
  (void)up;
  SLUICE_STATUS_TRY(tx.Commit());
  return JsonResponse("{\"compatibility\":" + Quoted(name) + "}");
}

Response Registry::Impl::DeleteConfig(Connection& c, std::string_view subject) {
  Tx tx(c);
  SLUICE_STATUS_TRY(tx.Begin(true));
  SLUICE_API_TRY(auto own, ScopeValue(c, "configs", "compatibility", subject));
  if (!subject.empty() && !own) {
    SLUICE_API_TRY(auto versions, Versions(c, subject));
    if (versions.empty()) return FromError(SubjectNotFound(subject));
    return ErrorResponse(404, 40408,
                         "Subject '" + std::string(subject) +
                             "' does not have subject-level compatibility "
                             "configured");
  }
  SLUICE_API_TRY(auto del, c.Query("DELETE FROM configs WHERE scope = ?", {subject}));
  (void)del;
  SLUICE_STATUS_TRY(tx.Commit());
  std::string level =
      own.value_or(std::string(evolution::CompatibilityModeName(options_.default_compatibility)));
  return JsonResponse("{\"compatibilityLevel\":" + Quoted(level) + "}");
}

Response Registry::Impl::GetMode(Connection& c, std::string_view subject, const Query& q) {
  SLUICE_API_TRY(auto own, ScopeValue(c, "modes", "mode", subject));
  if (!own && !subject.empty() && !q.Bool("defaultToGlobal")) {
    return ErrorResponse(
        404, 40409,
        "Subject '" + std::string(subject) + "' does not have subject-level mode configured");
  }
  if (!own) {
    SLUICE_API_TRY(own, ScopeValue(c, "modes", "mode", ""));
  }
  return JsonResponse("{\"mode\":" + Quoted(own.value_or("READWRITE")) + "}");
}

Response Registry::Impl::PutMode(Connection& c, std::string_view subject,
                                 std::string_view body_text, const Query& q) {
  auto body_or = BodyObject(body_text);
  if (auto* e = std::get_if<ApiError>(&body_or)) return FromError(*e);
  const JsonValue& body = std::get<JsonValue>(body_or);
  const JsonValue* m = body.Find("mode");
  std::string mode = m && m->is_string() ? AsciiUpper(m->as_string()) : "";
  bool valid = std::find_if(std::begin(kModes), std::end(kModes),
                            [&](const char* k) { return mode == k; }) != std::end(kModes);
  if (!valid || (mode == "FORWARD" && !subject.empty())) {
    return ErrorResponse(422, 42204,
                         "Invalid mode. Valid values are READWRITE, READONLY, IMPORT "
                         "and FORWARD.");
  }
  Tx tx(c);
  SLUICE_STATUS_TRY(tx.Begin(true));
  if (mode == "IMPORT" && !q.Bool("force")) {
    // Importing is for an empty registry (or subject): ids come from the import.
    SLUICE_API_TRY(auto rows,
                   subject.empty()
                       ? c.Query("SELECT COUNT(*) FROM versions")
                       : c.Query("SELECT COUNT(*) FROM versions WHERE subject = ?", {subject}));
    if (!rows.empty() && ToInt(rows[0][0]) > 0) {
      return ErrorResponse(422, 42205, "Cannot import since found existing subjects");
    }
  }
  SLUICE_API_TRY(auto up, c.Query("INSERT INTO modes (scope, mode) VALUES (?, ?) ON CONFLICT "
                                  "(scope) DO UPDATE SET mode = excluded.mode",
                                  {subject, mode}));
  (void)up;
  SLUICE_STATUS_TRY(tx.Commit());
  return JsonResponse("{\"mode\":" + Quoted(mode) + "}");
}

Response Registry::Impl::DeleteMode(Connection& c, std::string_view subject) {
  Tx tx(c);
  SLUICE_STATUS_TRY(tx.Begin(true));
  SLUICE_API_TRY(auto own, ScopeValue(c, "modes", "mode", subject));
  if (!subject.empty() && !own) {
    return ErrorResponse(
        404, 40409,
        "Subject '" + std::string(subject) + "' does not have subject-level mode configured");
  }
  SLUICE_API_TRY(auto del, c.Query("DELETE FROM modes WHERE scope = ?", {subject}));
  (void)del;
  SLUICE_STATUS_TRY(tx.Commit());
  return JsonResponse("{\"mode\":" + Quoted(own.value_or("READWRITE")) + "}");
}

Response Registry::Impl::Handle(const Request& req, const AccessPolicy* policy) {
  std::string_view target = req.target;
  std::string_view query_text;
  if (size_t qm = target.find('?'); qm != std::string_view::npos) {
    query_text = target.substr(qm + 1);
    target = target.substr(0, qm);
  }
  const Query q(query_text);
  // Segments, each percent-decoded after splitting (so a subject may hold an encoded '/').
  std::vector<std::string> seg;
  {
    std::string_view p = target;
    while (!p.empty() && p.front() == '/') p.remove_prefix(1);
    while (!p.empty() && p.back() == '/') p.remove_suffix(1);
    while (!p.empty()) {
      size_t slash = p.find('/');
      seg.push_back(PercentDecode(p.substr(0, slash)));
      p = slash == std::string_view::npos ? std::string_view() : p.substr(slash + 1);
    }
  }
  const std::string_view m = req.method;
  const size_t n = seg.size();
  auto is = [&](size_t i, std::string_view s) { return i < n && seg[i] == s; };

  // Route: the handler, the permission it needs, and on which subject.
  enum class Op {
    kNone,
    kRoot,
    kTypes,
    kSchemaById,
    kSchemaRaw,
    kIdSubjects,
    kIdVersions,
    kSchemas,
    kSubjects,
    kLookup,
    kDeleteSubject,
    kVersions,
    kRegister,
    kGetVersion,
    kGetVersionRaw,
    kDeleteVersion,
    kReferencedBy,
    kCompat,
    kCompatVersion,
    kGetConfig,
    kPutConfig,
    kDeleteConfig,
    kGetMode,
    kPutMode,
    kDeleteMode,
    kMetadataId,
    kMetadataVersion,
    kContexts,
  };
  Op op = Op::kNone;
  std::string route;
  std::string subject;
  Permission perm = Permission::kRead;
  bool path_known = false;  // the path exists for some method (405 rather than 404)
  auto pick = [&](std::string_view method, Op o, std::string_view name, Permission p) {
    path_known = true;
    if (op == Op::kNone && m == method) {
      op = o;
      route = std::string(method) + " " + std::string(name);
      perm = p;
    }
  };
  const Permission R = Permission::kRead;
  const Permission W = Permission::kWrite;
  const Permission A = Permission::kAdmin;
  if (n == 0) {
    pick("GET", Op::kRoot, "/", R);
    pick("POST", Op::kRoot, "/", R);
  } else if (is(0, "schemas")) {
    if (n == 1) pick("GET", Op::kSchemas, "/schemas", R);
    if (n == 2 && is(1, "types")) pick("GET", Op::kTypes, "/schemas/types", R);
    if (is(1, "ids") && n == 3) pick("GET", Op::kSchemaById, "/schemas/ids/{id}", R);
    if (is(1, "ids") && n == 4 && is(3, "schema")) {
      pick("GET", Op::kSchemaRaw, "/schemas/ids/{id}/schema", R);
    }
    if (is(1, "ids") && n == 4 && is(3, "subjects")) {
      pick("GET", Op::kIdSubjects, "/schemas/ids/{id}/subjects", R);
    }
    if (is(1, "ids") && n == 4 && is(3, "versions")) {
      pick("GET", Op::kIdVersions, "/schemas/ids/{id}/versions", R);
    }
  } else if (is(0, "subjects")) {
    if (n == 1) pick("GET", Op::kSubjects, "/subjects", R);
    if (n >= 2) subject = seg[1];
    if (n == 2) {
      pick("POST", Op::kLookup, "/subjects/{subject}", R);
      pick("DELETE", Op::kDeleteSubject, "/subjects/{subject}", A);
    }
    if (n == 3 && is(2, "versions")) {
      pick("GET", Op::kVersions, "/subjects/{subject}/versions", R);
      pick("POST", Op::kRegister, "/subjects/{subject}/versions", W);
    }
    if (n == 4 && is(2, "versions")) {
      pick("GET", Op::kGetVersion, "/subjects/{subject}/versions/{version}", R);
      pick("DELETE", Op::kDeleteVersion, "/subjects/{subject}/versions/{version}", A);
    }
    if (n == 5 && is(2, "versions") && is(4, "schema")) {
      pick("GET", Op::kGetVersionRaw, "/subjects/{subject}/versions/{version}/schema", R);
    }
    if (n == 5 && is(2, "versions") && is(4, "referencedby")) {
      pick("GET", Op::kReferencedBy, "/subjects/{subject}/versions/{version}/referencedby", R);
    }
  } else if (is(0, "compatibility") && is(1, "subjects") && n >= 4 && is(3, "versions")) {
    subject = seg[2];
    if (n == 4) pick("POST", Op::kCompat, "/compatibility/subjects/{subject}/versions", R);
    if (n == 5) {
      pick("POST", Op::kCompatVersion, "/compatibility/subjects/{subject}/versions/{version}", R);
    }
  } else if (is(0, "config") && n <= 2) {
    if (n == 2) subject = seg[1];
    std::string_view name = n == 2 ? "/config/{subject}" : "/config";
    pick("GET", Op::kGetConfig, name, R);
    pick("PUT", Op::kPutConfig, name, A);
    pick("DELETE", Op::kDeleteConfig, name, A);
  } else if (is(0, "mode") && n <= 2) {
    if (n == 2) subject = seg[1];
    std::string_view name = n == 2 ? "/mode/{subject}" : "/mode";
    pick("GET", Op::kGetMode, name, R);
    pick("PUT", Op::kPutMode, name, A);
    pick("DELETE", Op::kDeleteMode, name, A);
  } else if (is(0, "v1") && is(1, "metadata") && n == 3) {
    if (is(2, "id")) pick("GET", Op::kMetadataId, "/v1/metadata/id", R);
    if (is(2, "version")) pick("GET", Op::kMetadataVersion, "/v1/metadata/version", R);
  } else if (is(0, "contexts") && n == 1) {
    pick("GET", Op::kContexts, "/contexts", R);
  }

  Response r;
  if (op == Op::kNone) {
    r = path_known ? ErrorResponse(405, 405, "HTTP 405 Method Not Allowed")
                   : ErrorResponse(404, 404, "HTTP 404 Not Found");
    r.route = "unmatched";
    return r;
  }
  const bool has_subject =
      !subject.empty() || (n >= 2 && (is(0, "subjects") || is(0, "compatibility")));
  if (has_subject && !ValidSubject(subject)) {
    r = ErrorResponse(422, 42208, "The specified subject '" + subject + "' is not a valid.");
    r.route = route;
    return r;
  }
  // Listings and id lookups filter by subject themselves; everything else needs the
  // permission on its subject (the registry as a whole for global config and mode).
  const bool filters_itself =
      op == Op::kSubjects || op == Op::kSchemas || op == Op::kSchemaById || op == Op::kSchemaRaw ||
      op == Op::kIdSubjects || op == Op::kIdVersions || op == Op::kRoot || op == Op::kTypes ||
      op == Op::kMetadataId || op == Op::kMetadataVersion || op == Op::kContexts;
  if (policy && !filters_itself && !policy->Allows(perm, subject)) {
    r = ErrorResponse(
        403, 40301,
        "User is denied " + std::string(PermissionName(perm)) + " access to " +
            (subject.empty() ? std::string("the registry") : "subject '" + subject + "'"));
    r.route = route;
    return r;
  }
  if (op == Op::kRoot || op == Op::kTypes || op == Op::kMetadataId || op == Op::kMetadataVersion ||
      op == Op::kContexts) {
    if (op == Op::kRoot) {
      r = RootGet();
    } else if (op == Op::kTypes) {
      r = SchemaTypes();
    } else if (op == Op::kMetadataId) {
      r = JsonResponse("{\"id\":\"sluice\",\"scope\":{\"path\":[],\"clusters\":{}}}");
    } else if (op == Op::kMetadataVersion) {
      r = JsonResponse("{\"version\":\"7.5.0\",\"commitId\":\"sluice\"}");
    } else {
      r = JsonResponse("[\".\"]");
    }
    r.route = route;
    return r;
  }

  auto lease = store_.Acquire();
  if (!lease.has_value()) {
    r = FromError(StoreError(lease.error()));
    r.route = route;
    return r;
  }
  Connection& c = **lease;
  const std::string version = n >= 4 ? seg[3] : std::string();
  switch (op) {
    case Op::kSchemaById:
      r = GetSchemaById(c, seg[2], q, false, policy);
      break;
    case Op::kSchemaRaw:
      r = GetSchemaById(c, seg[2], q, true, policy);
      break;
    case Op::kIdSubjects:
      r = IdSubjects(c, seg[2], q, false, policy);
      break;
    case Op::kIdVersions:
      r = IdSubjects(c, seg[2], q, true, policy);
      break;
    case Op::kSchemas:
      r = ListSchemas(c, q, policy);
      break;
    case Op::kSubjects:
      r = ListSubjects(c, q, policy);
      break;
    case Op::kLookup:
      r = LookupSchema(c, subject, req.body, q);
      break;
    case Op::kDeleteSubject:
      r = DeleteSubject(c, subject, q);
      break;
    case Op::kVersions:
      r = ListVersions(c, subject, q);
      break;
    case Op::kRegister:
      r = RegisterSchema(c, subject, req.body, q);
      break;
    case Op::kGetVersion:
      r = GetVersion(c, subject, version, q, false);
      break;
    case Op::kGetVersionRaw:
      r = GetVersion(c, subject, version, q, true);
      break;
    case Op::kDeleteVersion:
      r = DeleteVersion(c, subject, version, q);
      break;
    case Op::kReferencedBy:
      r = ReferencedBy(c, subject, version, q);
      break;
    case Op::kCompat:
      r = Compatibility(c, subject, std::nullopt, req.body, q);
      break;
    case Op::kCompatVersion:
      r = Compatibility(c, subject, std::string_view(seg[4]), req.body, q);
      break;
    case Op::kGetConfig:
      r = GetConfig(c, subject, q);
      break;
    case Op::kPutConfig:
      r = PutConfig(c, subject, req.body);
      break;
    case Op::kDeleteConfig:
      r = DeleteConfig(c, subject);
      break;
    case Op::kGetMode:
      r = GetMode(c, subject, q);
      break;
    case Op::kPutMode:
      r = PutMode(c, subject, req.body, q);
      break;
    case Op::kDeleteMode:
      r = DeleteMode(c, subject);
      break;
    case Op::kNone:
    case Op::kRoot:
    case Op::kTypes:
    case Op::kMetadataId:
    case Op::kMetadataVersion:
    case Op::kContexts:
      break;
  }
  r.route = route;
  return r;
}

Result<Registry::Counts> Registry::Impl::CountObjects() {
  SLUICE_ASSIGN_OR_RETURN(auto c, store_.Acquire());
  SLUICE_ASSIGN_OR_RETURN(auto s, c->Query("SELECT COUNT(DISTINCT subject) FROM versions WHERE "
                                           "deleted = 0"));
  SLUICE_ASSIGN_OR_RETURN(auto i, c->Query("SELECT COUNT(DISTINCT schema_id) FROM versions"));
  return Counts{s.empty() ? 0 : ToInt(s[0][0]), i.empty() ? 0 : ToInt(i[0][0])};
}

Registry::Registry(std::unique_ptr<Store> store, RegistryOptions options)
    : store_(std::move(store)), impl_(std::make_unique<Impl>(*store_, options)) {}
Registry::~Registry() = default;

Response Registry::Handle(const Request& request, const AccessPolicy* policy) {
  return impl_->Handle(request, policy);
}

Result<Registry::Counts> Registry::CountObjects() { return impl_->CountObjects(); }

}  // namespace sluice::registry
