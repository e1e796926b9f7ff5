#include "sluice/data/auto_loader.h"

#include <fmt/format.h>

#include <unordered_map>

#include "sluice/base/strings.h"
#include "sluice/dialects/spark/spark.h"

namespace sluice::data {

namespace {

using schema::Field;
using schema::FieldPath;
using schema::PathSegment;
using schema::Type;
using schema::TypePtr;

// Split at commas outside <>, () and backquotes.
std::vector<std::string_view> SplitHints(std::string_view text) {
  std::vector<std::string_view> parts;
  int depth = 0;
  bool quoted = false;
  size_t start = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '`') {
      quoted = !quoted;
    } else if (!quoted && (c == '<' || c == '(')) {
      ++depth;
    } else if (!quoted && (c == '>' || c == ')')) {
      --depth;
    } else if (!quoted && depth == 0 && c == ',') {
      parts.push_back(text.substr(start, i - start));
      start = i + 1;
    }
  }
  parts.push_back(text.substr(start));
  return parts;
}

bool IsSpace(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

// Databricks writes `arr.element`, `m.key`, `m.value`; resolve those against the actual type.
PathSegment Resolve(const PathSegment& seg, const Type& container) {
  if (seg.kind != PathSegment::Kind::kField) return seg;
  if (container.is_array() && seg.name == "element")
    return PathSegment{PathSegment::Kind::kElement, {}};
  if (container.is_map() && seg.name == "key") return PathSegment{PathSegment::Kind::kKey, {}};
  if (container.is_map() && seg.name == "value") return PathSegment{PathSegment::Kind::kValue, {}};
  return seg;
}

// Build the type a missing path describes: `rest` steps wrapped around `leaf`. With no type to
// resolve them against, Databricks' `element`, `key` and `value` steps are its reserved words,
// as `[]`, `{key}` and `{value}` are: `x.element` builds an array as `x[]` does.
Result<TypePtr> BuildMissing(const std::vector<PathSegment>& segs, size_t at, const TypePtr& leaf,
                             const std::string& where) {
  if (at == segs.size()) return leaf;
  SLUICE_ASSIGN_OR_RETURN(TypePtr inner, BuildMissing(segs, at + 1, leaf, where));
  PathSegment::Kind kind = segs[at].kind;
  if (kind == PathSegment::Kind::kField) {
    if (segs[at].name == "element") kind = PathSegment::Kind::kElement;
    if (segs[at].name == "key") kind = PathSegment::Kind::kKey;
    if (segs[at].name == "value") kind = PathSegment::Kind::kValue;
  }
  switch (kind) {
    case PathSegment::Kind::kField:
      return Type::Struct({Field(segs[at].name, std::move(inner), true)});
    case PathSegment::Kind::kElement:
      return Type::Array(std::move(inner), true);
    case PathSegment::Kind::kKey:
    case PathSegment::Kind::kValue:
      break;
  }
  return InvalidArgument(fmt::format(
      "schema hint {}: a hint cannot create a missing map from its key or value; give the whole "
      "map type instead (`m MAP<STRING, INT>`)",
      where));
}

// Return `type` with the hint at segs[at..] applied. `type` is the container the step is in.
Result<TypePtr> ApplyAt(const TypePtr& type, const std::vector<PathSegment>& segs, size_t at,
                        const TypePtr& leaf, const std::string& where) {
  const PathSegment seg = Resolve(segs[at], *type);
  const bool last = at + 1 == segs.size();
  switch (seg.kind) {
    case PathSegment::Kind::kField: {
      if (!type->is_struct()) {
        return InvalidArgument(fmt::format(
            "schema hint {}: the path goes through a {}, not a struct", where, type->ToString()));
      }
      std::vector<Field> fields = type->fields();
      size_t index = fields.size();
      for (size_t i = 0; i < fields.size(); ++i) {
        if (fields[i].name() == seg.name) index = i;
      }
      if (index == fields.size()) {
        const std::vector<size_t> ci = type->FindFieldsIgnoreCase(seg.name);
        if (ci.size() == 1) {
          index = ci[0];
          fields[index].set_name(seg.name);  // the hint pins the casing
        }
      }
      if (index == fields.size()) {
        SLUICE_ASSIGN_OR_RETURN(TypePtr added, BuildMissing(segs, at + 1, leaf, where));
        fields.emplace_back(seg.name, std::move(added), true);
      } else if (last) {
        fields[index].set_type(leaf);
      } else {
        SLUICE_ASSIGN_OR_RETURN(TypePtr inner,
                                ApplyAt(fields[index].type(), segs, at + 1, leaf, where));
        fields[index].set_type(std::move(inner));
      }
      return Type::Struct(std::move(fields));
    }
    case PathSegment::Kind::kElement: {
      if (!type->is_array()) {
        return InvalidArgument(
            fmt::format("schema hint {}: {} is not an array", where, type->ToString()));
      }
      TypePtr inner = leaf;
      if (!last) {
        SLUICE_ASSIGN_OR_RETURN(inner, ApplyAt(type->element_type(), segs, at + 1, leaf, where));
      }
      return Type::Array(std::move(inner), type->contains_null());
    }
    case PathSegment::Kind::kKey:
    case PathSegment::Kind::kValue: {
      if (!type->is_map()) {
        return InvalidArgument(
            fmt::format("schema hint {}: {} is not a map", where, type->ToString()));
      }
      const bool key = seg.kind == PathSegment::Kind::kKey;
      const TypePtr& target = key ? type->key_type() : type->value_type();
      TypePtr inner = leaf;
      if (!last) {
        SLUICE_ASSIGN_OR_RETURN(inner, ApplyAt(target, segs, at + 1, leaf, where));
      }
      return key ? Type::Map(std::move(inner), type->value_type(), type->value_contains_null())
                 : Type::Map(type->key_type(), std::move(inner), type->value_contains_null());
    }
  }
  return Internal("unknown path segment");
}

}  // namespace

Result<std::vector<SchemaHint>> ParseSchemaHints(std::string_view text) {
  std::vector<SchemaHint> hints;
  if (TrimWhitespace(text).empty()) return hints;
  for (std::string_view part : SplitHints(text)) {
    const std::string_view hint = TrimWhitespace(part);
    if (hint.empty()) {
      return ParseError(fmt::format("schema hints \"{}\": empty hint", EscapeForMessage(text)));
    }
    // The path ends at the first whitespace outside backquotes.
    size_t i = 0;
    bool quoted = false;
    while (i < hint.size() && (quoted || !IsSpace(hint[i]))) {
      if (hint[i] == '`') quoted = !quoted;
      ++i;
    }
    const std::string_view path_text = hint.substr(0, i);
    const std::string_view type_text = TrimWhitespace(hint.substr(i));
    if (type_text.empty()) {
      return ParseError(
          fmt::format("schema hint \"{}\": expected `<column> <type>`", EscapeForMessage(hint)));
    }
    auto path = FieldPath::Parse(path_text);
    if (!path.has_value()) {
      return ParseError(
          fmt::format("schema hint \"{}\": {}", EscapeForMessage(hint), path.error().message()));
    }
    if (path->empty() || path->segments().front().kind != PathSegment::Kind::kField) {
      return ParseError(fmt::format("schema hint \"{}\": the path must start with a column",
                                    EscapeForMessage(hint)));
    }
    auto type = dialects::spark::ParseDataType(type_text);
    if (!type.has_value()) {
      return ParseError(
          fmt::format("schema hint \"{}\": {}", EscapeForMessage(hint), type.error().message()));
    }
    hints.push_back(SchemaHint{std::move(*path), std::move(*type)});
  }
  return hints;
}

Result<schema::SchemaPtr> ApplySchemaHints(const schema::Schema& schema,
                                           const std::vector<SchemaHint>& hints) {
  TypePtr root = schema.struct_type();
  for (const SchemaHint& hint : hints) {
    SLUICE_ASSIGN_OR_RETURN(
        root, ApplyAt(root, hint.path.segments(), 0, hint.type, hint.path.ToString()));
  }
  return schema::Schema::FromStruct(std::move(root), schema.info());
}

void MergeCaseVariants(InferredType* type) {
  if (type->is_array()) {
    MergeCaseVariants(&type->mutable_element());
    return;
  }
  if (!type->is_struct()) return;
  std::vector<InferredField>& fields = type->mutable_fields();
  std::vector<InferredField> kept;
  std::unordered_map<std::string, size_t> by_lower;
  for (InferredField& f : fields) {
    auto [it, inserted] = by_lower.emplace(AsciiLower(f.name), kept.size());
    if (inserted) {
      kept.push_back(std::move(f));
    } else {
      MergeInto(&kept[it->second].type, f.type);
    }
  }
  for (InferredField& f : kept) MergeCaseVariants(&f.type);
  fields = std::move(kept);
}

Result<schema::SchemaPtr> FinishAutoLoaderSchema(InferredType inferred,
                                                 const AutoLoaderOptions& options) {
  if (!options.case_sensitive) MergeCaseVariants(&inferred);
  SLUICE_ASSIGN_OR_RETURN(TypePtr t, ToSchemaType(inferred));
  SLUICE_ASSIGN_OR_RETURN(schema::SchemaPtr s, schema::Schema::FromStruct(std::move(t)));
  SLUICE_ASSIGN_OR_RETURN(std::vector<SchemaHint> hints, ParseSchemaHints(options.schema_hints));
  SLUICE_ASSIGN_OR_RETURN(s, ApplySchemaHints(*s, hints));
  if (!options.rescued_data_column.empty() &&
      s->struct_type()->FindField(options.rescued_data_column) == nullptr) {
    std::vector<Field> fields = s->fields();
    fields.emplace_back(options.rescued_data_column, Type::String(), true);
    SLUICE_ASSIGN_OR_RETURN(s, schema::Schema::Make(std::move(fields)));
  }
  return s;
}

}  // namespace sluice::data
