// Column selection for scans: logical paths resolved against the table's schema, and the
// schema pruned to them.
#include <fmt/format.h>

#include <string>
#include <vector>

#include "sluice/base/strings.h"
#include "sluice/schema/field_path.h"
#include "sluice/table/scan_internal.h"

namespace sluice::table::internal {

using schema::Field;
using schema::Type;
using schema::TypePtr;

std::optional<size_t> FindFieldIndex(const Type& struct_type, std::string_view name) {
  const std::vector<Field>& fields = struct_type.fields();
  for (size_t i = 0; i < fields.size(); ++i) {
    if (fields[i].name() == name) return i;
  }
  std::vector<size_t> matches = struct_type.FindFieldsIgnoreCase(name);
  if (matches.size() == 1) return matches.front();
  return std::nullopt;
}

void SelectPath(ColumnSelection& selection, const std::vector<size_t>& indexes) {
  ColumnSelection* at = &selection;
  for (size_t index : indexes) {
    if (at->whole) return;
    at = &at->fields[index];
  }
  at->whole = true;
  at->fields.clear();
}

namespace {

std::string FieldList(const Type& struct_type) {
  std::string out;
  for (const Field& f : struct_type.fields()) {
    if (!out.empty()) out += ", ";
    out += schema::QuoteFieldName(f.name());
  }
  return out;
}

}  // namespace

Result<ColumnSelection> SelectColumns(const schema::Schema& schema,
                                      const std::vector<std::string>& paths) {
  ColumnSelection selection;
  if (paths.empty()) {
    selection.whole = true;
    return selection;
  }
  for (const std::string& text : paths) {
    auto path = schema::FieldPath::Parse(text);
    if (!path.has_value()) {
      return InvalidArgument(
          fmt::format("column '{}': {}", EscapeForMessage(text), path.error().message()));
    }
    if (path->empty()) return InvalidArgument("an empty column path");
    const Type* at = schema.struct_type().get();
    std::vector<size_t> indexes;
    std::string walked;
    for (const schema::PathSegment& segment : path->segments()) {
      // A name after an array names a field of its elements, as Spark's `items.sku` does.
      while (at->is_array()) at = at->element_type().get();
      if (segment.kind != schema::PathSegment::Kind::kField || !at->is_struct()) {
        return InvalidArgument(fmt::format(
            "column '{}': {} is not a struct; a column path steps only into struct fields "
            "(of arrays too)",
            EscapeForMessage(text), walked.empty() ? std::string("the row") : walked));
      }
      std::optional<size_t> index = FindFieldIndex(*at, segment.name);
      if (!index) {
        const bool ambiguous = at->FindFieldsIgnoreCase(segment.name).size() > 1;
        return InvalidArgument(
            fmt::format("column '{}': {} '{}'{}; the fields there are {}", EscapeForMessage(text),
                        ambiguous ? "ambiguous name" : "no field", EscapeForMessage(segment.name),
                        walked.empty() ? std::string() : " in " + walked, FieldList(*at)));
      }
      indexes.push_back(*index);
      const Field& field = at->fields()[*index];
      walked += (walked.empty() ? "" : ".") + schema::QuoteFieldName(field.name());
      at = field.type().get();
    }
    SelectPath(selection, indexes);
  }
  return selection;
}

namespace {

// A struct, or arrays of a struct, with only the selected fields.
Result<TypePtr> PruneType(const Type& type, const ColumnSelection& selection) {
  if (!type.is_array()) return PruneStruct(type, selection);
  SLUICE_ASSIGN_OR_RETURN(TypePtr element, PruneType(*type.element_type(), selection));
  return Type::Array(std::move(element), type.contains_null());
}

}  // namespace

Result<TypePtr> PruneStruct(const Type& struct_type, const ColumnSelection& selection) {
  std::vector<Field> fields;
  for (const auto& [index, sub] : selection.fields) {
    const Field& field = struct_type.fields()[index];
    if (sub.whole) {
      fields.push_back(field);
      continue;
    }
    SLUICE_ASSIGN_OR_RETURN(TypePtr pruned, PruneType(*field.type(), sub));
    Field copy = field;
    copy.set_type(std::move(pruned));
    fields.push_back(std::move(copy));
  }
  return Type::Struct(std::move(fields));
}

}  // namespace sluice::table::internal
