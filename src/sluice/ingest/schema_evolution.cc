#include "sluice/ingest/schema_evolution.h"

#include <utility>

#include "sluice/base/strings.h"
#include "sluice/schema/field_path.h"

namespace sluice::ingest {
namespace {

using schema::Field;
using schema::Type;
using schema::TypeKind;
using schema::TypePtr;

// Integer digits a decimal needs to hold every value of an integer kind; 0 for other kinds.
int IntegerDigits(TypeKind k) {
  if (k == TypeKind::kInt8) return 3;
  if (k == TypeKind::kInt16) return 5;
  if (k == TypeKind::kInt32) return 10;
  if (k == TypeKind::kInt64) return 20;
  return 0;
}

bool IsInteger(TypeKind k) { return schema::IntegerRank(k) > 0; }

class Evolver {
 public:
  explicit Evolver(const EvolveOptions& options) : options_(options) {}

  Result<TypePtr> Struct(const Type& current, const Type& incoming, const std::string& path,
                         bool root) {
    std::vector<Field> fields = current.fields();
    for (const Field& in : incoming.fields()) {
      if (root && in.name() == options_.rescued_column) continue;
      Field* match = Find(fields, in.name());
      const std::string child = path.empty() ? schema::QuoteFieldName(in.name())
                                             : path + "." + schema::QuoteFieldName(in.name());
      if (match == nullptr) {
        Field added(in.name(), schema::AsNullable(in.type()), true);
        added.set_doc(in.doc());
        fields.push_back(std::move(added));
        out_.added.push_back(child);
        continue;
      }
      SLUICE_ASSIGN_OR_RETURN(TypePtr t, Evolve(match->type(), in.type(), child));
      if (t != match->type()) match->set_type(std::move(t));
    }
    if (root && !options_.rescued_column.empty()) {
      // The rescued-data column stays last, as Auto Loader keeps it.
      for (size_t i = 0; i + 1 < fields.size(); ++i) {
        if (fields[i].name() == options_.rescued_column) {
          Field rescued = fields[i];
          fields.erase(fields.begin() + static_cast<std::ptrdiff_t>(i));
          fields.push_back(std::move(rescued));
          break;
        }
      }
    }
    return Type::Struct(std::move(fields));
  }

  SchemaEvolution& result() { return out_; }

 private:
  Field* Find(std::vector<Field>& fields, const std::string& name) const {
    for (Field& f : fields) {
      if (f.name() == name) return &f;
    }
    if (options_.case_sensitive) return nullptr;
    for (Field& f : fields) {
      if (EqualsIgnoreCase(f.name(), name)) return &f;
    }
    return nullptr;
  }

  Result<TypePtr> Evolve(const TypePtr& current, const TypePtr& incoming, const std::string& path) {
    if (current->is_struct() && incoming->is_struct()) {
      SLUICE_ASSIGN_OR_RETURN(TypePtr t, Struct(*current, *incoming, path, false));
      return t->Equals(*current, true) ? current : t;
    }
    if (current->is_array() && incoming->is_array()) {
      SLUICE_ASSIGN_OR_RETURN(
          TypePtr e, Evolve(current->element_type(), incoming->element_type(), path + "[]"));
      if (e == current->element_type()) return current;
      return Type::Array(std::move(e), current->contains_null());
    }
    if (current->is_map() && incoming->is_map()) {
      SLUICE_ASSIGN_OR_RETURN(
          TypePtr v, Evolve(current->value_type(), incoming->value_type(), path + "{value}"));
      if (v == current->value_type()) return current;
      return Type::Map(current->key_type(), std::move(v), current->value_contains_null());
    }
    if (current->is_map() && incoming->is_struct()) {
      // A JSON object infers as a struct, one field per key. Where the schema holds a map, each
      // field is an entry whose type folds into the value type (as the table's OverlayType folds
      // it), so a new field in any entry's value is a new column of the value.
      TypePtr v = current->value_type();
      for (const Field& entry : incoming->fields()) {
        if (entry.type()->kind() == TypeKind::kNull) continue;
        SLUICE_ASSIGN_OR_RETURN(v, Evolve(v, entry.type(), path + "{value}"));
      }
      if (v == current->value_type()) return current;
      return Type::Map(current->key_type(), std::move(v), current->value_contains_null());
    }
    if (options_.widen && CanWiden(*current, *incoming)) {
      out_.widened.push_back(path);
      return incoming;
    }
    if (options_.conflicts_become_string && !current->Equals(*incoming, false) &&
        !(options_.widen && CanWiden(*incoming, *current)) &&
        current->kind() != TypeKind::kString) {
      out_.widened.push_back(path);
      return Type::String();
    }
    return current;
  }

  const EvolveOptions& options_;
  SchemaEvolution out_;
};

}  // namespace

bool CanWiden(const Type& from, const Type& to) {
  const TypeKind f = from.kind();
  const TypeKind t = to.kind();
  if (IsInteger(f)) {
    if (IsInteger(t)) return schema::IntegerRank(t) > schema::IntegerRank(f);
    if (t == TypeKind::kFloat64) return f != TypeKind::kInt64;
    if (t == TypeKind::kDecimal) return to.precision() - to.scale() >= IntegerDigits(f);
    return false;
  }
  if (f == TypeKind::kFloat32) return t == TypeKind::kFloat64;
  if (f == TypeKind::kDecimal && t == TypeKind::kDecimal) {
    const bool wider = to.scale() >= from.scale() &&
                       to.precision() - to.scale() >= from.precision() - from.scale();
    return wider && (to.precision() != from.precision() || to.scale() != from.scale());
  }
  if (f == TypeKind::kDate) return t == TypeKind::kTimestampNtz;
  return false;
}

Result<SchemaEvolution> EvolveSchema(const schema::Schema& current, const schema::Schema& incoming,
                                     const EvolveOptions& options) {
  Evolver evolver(options);
  SLUICE_ASSIGN_OR_RETURN(
      TypePtr merged, evolver.Struct(*current.struct_type(), *incoming.struct_type(), "", true));
  SchemaEvolution out = std::move(evolver.result());
  SLUICE_ASSIGN_OR_RETURN(out.schema, schema::Schema::FromStruct(std::move(merged)));
  return out;
}

}  // namespace sluice::ingest
