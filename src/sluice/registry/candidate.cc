// A request's schema, parsed once into what the registry stores, identifies and checks; and the
// parsed forms of stored schemas.
#include <algorithm>

#include "sluice/base/json.h"
#include "sluice/base/json_writer.h"
#include "sluice/dialects/avro/avro_schema.h"
#include "sluice/registry/schemas_internal.h"

namespace sluice::registry::internal {
namespace {

using evolution::ParsedSchema;
using evolution::ParsedSchemaPtr;

// The JSON parser's default depth limit, which the Avro parser's own JSON parse uses.
constexpr size_t kJsonParserDepth = 512;

bool IsBlank(std::string_view s) { return s.find_first_not_of(" \t\r\n") == std::string::npos; }

// Whether `text` opens fewer than `limit` arrays and objects at once (strings aside). A JSON
// parse with a depth limit of `limit` cannot fail on depth then, so the registry's limit needs
// no parse of its own before the Avro parser's.
bool NestsLessThan(std::string_view text, size_t limit) {
  if (limit == 0) return false;  // even a scalar is too deep
  size_t depth = 0;
  bool in_string = false;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (c == '\\') {
        ++i;
      } else if (c == '"') {
        in_string = false;
      }
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth >= limit) return false;
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
  }
  return true;
}

Error Invalid(SchemaType type, const Error& e) {
  return InvalidSchema("Invalid schema of type " + std::string(SchemaTypeName(type)) +
                       ", details: " + e.message());
}

}  // namespace

Result<Candidate> SchemaResolver::Resolve(Catalog& catalog, const SchemaRequest& request,
                                          const std::optional<SchemaRow>& fallback) {
  SLUICE_ASSIGN_OR_RETURN(std::vector<SchemaRef> refs, request.references);
  std::vector<RefText> texts;
  if (!refs.empty()) {
    // A type the registry does not store gets its error from Parse, references unread.
    if (!request.type.has_value()) return Parse(request, fallback, {}, {});
    SLUICE_TRY(CollectReferences(catalog, refs, 0, *request.type, texts));
  }
  return Parse(request, fallback, refs, texts);
}

Result<Candidate> SchemaResolver::ResolveOwn(const SchemaRequest& request) {
  return Parse(request, std::nullopt, {}, {});
}

Result<Candidate> SchemaResolver::Parse(const SchemaRequest& request,
                                        const std::optional<SchemaRow>& fallback,
                                        const std::vector<SchemaRef>& refs,
                                        const std::vector<RefText>& ref_texts) const {
  if (request.type_error) return Fail(*request.type_error);
  if (!request.schema.has_value()) return Fail(request.schema.error());
  std::string_view text = *request.schema;
  Candidate c;
  if (IsBlank(text)) {
    if (!fallback) return Fail(InvalidSchema("Empty schema"));
    text = fallback->text;
    c.type = fallback->type;
  } else {
    SLUICE_ASSIGN_OR_RETURN(c.type, request.type);
  }
  std::optional<std::string> standalone;  // what the compatibility engine checks, if not c.text
  switch (c.type) {
    case SchemaType::kAvro:
      SLUICE_TRY(ParseAvro(text, refs, ref_texts, c, standalone));
      break;
    case SchemaType::kJson:
      SLUICE_TRY(ParseJsonSchema(text, request.normalize, refs, ref_texts, c, standalone));
      break;
  }
  if (!c.parsed) {
    auto parsed = ParsedSchema::Parse(CheckedAs(c.type), standalone ? *standalone : c.text);
    if (!parsed.has_value()) return Fail(Invalid(c.type, parsed.error()));
    c.parsed = std::move(parsed).value();
  }
  if (!refs.empty()) c.refs = RefsJson(refs);
  c.fingerprint = Fingerprint(c.type, c.text, c.refs);
  return c;
}

Status SchemaResolver::ParseAvro(std::string_view text, const std::vector<SchemaRef>& refs,
                                 const std::vector<RefText>& ref_texts, Candidate& c,
                                 std::optional<std::string>& standalone) const {
  // The registry's depth limit is checked by a JSON parse only when the text comes near it;
  // otherwise the Avro parser's own JSON parse is the one parse, with the same errors.
  std::optional<JsonValue> json;
  if (!refs.empty() || !NestsLessThan(text, std::min(max_depth_, kJsonParserDepth))) {
    auto parsed = ParseJson(text, {.max_depth = max_depth_});
    if (!parsed.has_value()) return Fail(Invalid(SchemaType::kAvro, parsed.error()));
    json = std::move(parsed).value();
  }
  std::vector<std::string_view> views;
  for (const RefText& r : ref_texts) views.push_back(r.text);
  auto avro = dialects::avro::Parse(text, views);
  if (!avro.has_value()) return Fail(Invalid(SchemaType::kAvro, avro.error()));
  if (refs.empty()) {
    // Avro's compact form, every attribute kept: `{"type":"string"}` is stored as "string".
    c.text = dialects::avro::WriteJson(*avro);
  } else {
    // With references the stored text stays the request's own (compact): written out, the
    // referenced types would be copied in.
    c.text = ToJson(*json);
    standalone = dialects::avro::WriteJson(*avro);
  }
  // The compatibility engine checks this parsed form; its text (c.text or the standalone form)
  // is what it would parse to.
  c.parsed = ParsedSchema::FromAvro(std::move(avro).value());
  return {};
}

Status SchemaResolver::ParseJsonSchema(std::string_view text, bool normalize,
                                       const std::vector<SchemaRef>& refs,
                                       const std::vector<RefText>& ref_texts, Candidate& c,
                                       std::optional<std::string>& standalone) const {
  auto json = ParseJson(text, {.max_depth = max_depth_});
  if (!json.has_value()) return Fail(Invalid(SchemaType::kJson, json.error()));
  c.text = ToJson(*json, {.sort_keys = normalize});
  if (!refs.empty()) {
    auto bundled = BundleJsonSchema(c.text, ref_texts);
    if (!bundled.has_value()) return Fail(Invalid(SchemaType::kJson, bundled.error()));
    standalone = std::move(bundled).value();
  }
  return {};
}

Result<ParsedSchemaPtr> SchemaResolver::Parsed(Catalog& catalog, const SchemaRow& row) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = parsed_.find(row.id);
    if (it != parsed_.end()) return it->second;
  }
  auto parsed = ParseStored(catalog, row);
  if (!parsed.has_value()) {
    return Fail(StoreInconsistent("a stored schema no longer parses: " + parsed.error().message()));
  }
  Remember(row.id, *parsed);
  return std::move(parsed).value();
}

void SchemaResolver::Remember(int64_t id, ParsedSchemaPtr parsed) {
  std::lock_guard<std::mutex> lock(mu_);
  if (parsed_.size() > 100000) parsed_.clear();
  parsed_.insert_or_assign(id, std::move(parsed));
}

// A schema with references is parsed with the schemas they name and checked in its standalone
// form.
Result<ParsedSchemaPtr> SchemaResolver::ParseStored(Catalog& catalog, const SchemaRow& row) {
  if (row.refs == "[]") return ParsedSchema::Parse(CheckedAs(row.type), row.text);
  std::optional<std::vector<SchemaRef>> refs = StoredRefs(row.refs);
  if (!refs) {
    return Internal("schema " + std::to_string(row.id) + ": stored references do not parse");
  }
  std::vector<RefText> texts;
  if (auto collected = CollectReferences(catalog, *refs, 0, row.type, texts);
      !collected.has_value()) {
    return Internal(collected.error().message());
  }
  SLUICE_ASSIGN_OR_RETURN(std::string text, Standalone(row.type, row.text, texts));
  return ParsedSchema::Parse(CheckedAs(row.type), text);
}

}  // namespace sluice::registry::internal
