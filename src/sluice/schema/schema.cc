#include "sluice/schema/schema.h"

namespace sluice::schema {

Result<SchemaPtr> Schema::Make(std::vector<Field> fields, SchemaInfo info) {
  SLUICE_ASSIGN_OR_RETURN(TypePtr st, Type::Struct(std::move(fields)));
  return std::make_shared<const Schema>(std::move(st), std::move(info));
}

Result<SchemaPtr> Schema::FromStruct(TypePtr struct_type, SchemaInfo info) {
  if (struct_type == nullptr || !struct_type->is_struct()) {
    return InvalidArgument("a schema must be a struct");
  }
  return std::make_shared<const Schema>(std::move(struct_type), std::move(info));
}

const Field* Schema::FindField(const FieldPath& path) const {
  const Type* current = struct_type_.get();
  const Field* found = nullptr;
  for (const PathSegment& seg : path.segments()) {
    if (current == nullptr) return nullptr;
    switch (seg.kind) {
      case PathSegment::Kind::kField:
        if (!current->is_struct()) return nullptr;
        found = current->FindField(seg.name);
        if (found == nullptr) return nullptr;
        current = found->type().get();
        break;
      case PathSegment::Kind::kElement:
        if (!current->is_array()) return nullptr;
        current = current->element_type().get();
        found = nullptr;
        break;
      case PathSegment::Kind::kKey:
        if (!current->is_map()) return nullptr;
        current = current->key_type().get();
        found = nullptr;
        break;
      case PathSegment::Kind::kValue:
        if (!current->is_map()) return nullptr;
        current = current->value_type().get();
        found = nullptr;
        break;
    }
  }
  return found;
}

bool Schema::Equals(const Schema& other) const {
  return struct_type_->Equals(*other.struct_type_, true);
}

namespace {

void VisitType(const FieldPath& path, const Type& type,
               const std::function<void(const FieldPath&, const Field&)>& visit) {
  if (type.is_struct()) {
    for (const Field& f : type.fields()) {
      FieldPath child = path.Child(f.name());
      visit(child, f);
      VisitType(child, *f.type(), visit);
    }
  } else if (type.is_array()) {
    VisitType(path.Element(), *type.element_type(), visit);
  } else if (type.is_map()) {
    VisitType(path.Key(), *type.key_type(), visit);
    VisitType(path.Value(), *type.value_type(), visit);
  }
}

}  // namespace

void VisitFields(const Schema& schema,
                 const std::function<void(const FieldPath&, const Field&)>& visit) {
  VisitType(FieldPath(), *schema.struct_type(), visit);
}

TypePtr AsNullable(const TypePtr& type) {
  if (type->is_struct()) {
    std::vector<Field> fields;
    fields.reserve(type->fields().size());
    for (const Field& f : type->fields()) {
      Field copy = f;
      copy.set_nullable(true).set_type(AsNullable(f.type()));
      fields.push_back(std::move(copy));
    }
    // Same names and depth as a valid struct: cannot fail.
    return *Type::Struct(std::move(fields));
  }
  if (type->is_array()) return *Type::Array(AsNullable(type->element_type()), true);
  if (type->is_map()) {
    return *Type::Map(AsNullable(type->key_type()), AsNullable(type->value_type()), true);
  }
  return type;
}

}  // namespace sluice::schema
