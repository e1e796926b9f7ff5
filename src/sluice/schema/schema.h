// A Schema: the top-level struct of a table, record or message, with the name some languages give
// it. Immutable once built; shared as SchemaPtr.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "sluice/schema/field_path.h"
#include "sluice/schema/type.h"

namespace sluice::schema {

/// What names a schema as a whole: Avro's record name and namespace, a table or contract name.
struct SchemaInfo {
  std::string name;
  std::string namespace_name;
  std::optional<std::string> doc;
};

class Schema;
using SchemaPtr = std::shared_ptr<const Schema>;

class Schema {
 public:
  /// Build from top-level fields; the same checks as Type::Struct.
  static Result<SchemaPtr> Make(std::vector<Field> fields, SchemaInfo info = {});
  /// Wrap an existing struct type; kInvalidArgument if it is not a struct.
  static Result<SchemaPtr> FromStruct(TypePtr struct_type, SchemaInfo info = {});

  const TypePtr& struct_type() const { return struct_type_; }
  const std::vector<Field>& fields() const { return struct_type_->fields(); }
  const SchemaInfo& info() const { return info_; }

  /// The field at `path`, or nullptr. Paths may step through arrays and maps.
  const Field* FindField(const FieldPath& path) const;

  /// Same fields (names, types, nullability, docs, defaults, metadata). Names of the schema
  /// itself are not compared.
  bool Equals(const Schema& other) const;

  Schema(TypePtr struct_type, SchemaInfo info)
      : struct_type_(std::move(struct_type)), info_(std::move(info)) {}  // use Make

 private:
  TypePtr struct_type_;
  SchemaInfo info_;
};

/// Call `visit(path, field)` for every field, depth first, parents before children. Fields of
/// structs inside arrays and maps are visited with paths like `a[].b` and `m{value}.c`.
void VisitFields(const Schema& schema,
                 const std::function<void(const FieldPath&, const Field&)>& visit);

/// Return `type` with every field, element and value made nullable, all the way down.
TypePtr AsNullable(const TypePtr& type);

}  // namespace sluice::schema
