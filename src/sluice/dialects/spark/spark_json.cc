// Spark StructType JSON: reading what `DataType.fromJson` accepts and writing what
// `StructType.json` writes. Delta's `schemaString` is the same text.
#include <fmt/format.h>

#include "sluice/base/hash.h"
#include "sluice/base/json_writer.h"
#include "sluice/base/strings.h"
#include "sluice/dialects/spark/spark.h"
#include "sluice/dialects/spark/spark_internal.h"

namespace sluice::dialects::spark {

using schema::Field;
using schema::FieldPath;
using schema::NoteSink;
using schema::StringLength;
using schema::Type;
using schema::TypeKind;
using schema::TypePtr;

namespace {

class JsonSchemaReader {
 public:
  JsonSchemaReader(std::string_view text, NoteSink& notes) : text_(text), notes_(notes) {}

  Unexpected<Error> Err(const JsonValue& at, const FieldPath& path, std::string_view what,
                        ErrorCode code = ErrorCode::kParseError) const {
    std::string where =
        fmt::format("{} (offset {})", DescribeOffset(text_, at.offset()), at.offset());
    if (!path.empty()) where += fmt::format(": field {}", path.ToString());
    return Fail(code, fmt::format("{}: {}", where, what));
  }

  Result<TypePtr> ReadType(const JsonValue& v, const FieldPath& path, int depth) {
    if (depth >= schema::kMaxNestingDepth) {
      return Err(v, path,
                 fmt::format("types nest deeper than {} levels", schema::kMaxNestingDepth));
    }
    if (v.is_string()) return ReadPrimitive(v, path);
    if (!v.is_object()) return Err(v, path, "a type must be a string or an object");
    const JsonValue* kind = v.Find("type");
    if (kind == nullptr || !kind->is_string()) {
      return Err(v, path, "a complex type needs a string \"type\" key");
    }
    const std::string& k = kind->as_string();
    if (k == "struct") {
      const JsonValue* fields = v.Find("fields");
      if (fields == nullptr || !fields->is_array()) {
        return Err(v, path, "a struct needs a \"fields\" array");
      }
      std::vector<Field> out;
      out.reserve(fields->items().size());
      for (const JsonValue& f : fields->items()) {
        SLUICE_ASSIGN_OR_RETURN(Field field, ReadField(f, path, depth + 1));
        out.push_back(std::move(field));
      }
      auto t = Type::Struct(std::move(out));
      if (!t.has_value()) return Err(v, path, t.error().message(), ErrorCode::kInvalidArgument);
      return t;
    }
    if (k == "array") {
      const JsonValue* elem = v.Find("elementType");
      if (elem == nullptr) return Err(v, path, "an array needs \"elementType\"");
      SLUICE_ASSIGN_OR_RETURN(bool contains_null, ReadBool(v, "containsNull", path));
      SLUICE_ASSIGN_OR_RETURN(TypePtr e, ReadType(*elem, path.Element(), depth + 1));
      auto t = Type::Array(std::move(e), contains_null);
      if (!t.has_value()) return Err(v, path, t.error().message(), ErrorCode::kInvalidArgument);
      return t;
    }
    if (k == "map") {
      const JsonValue* key = v.Find("keyType");
      const JsonValue* value = v.Find("valueType");
      if (key == nullptr || value == nullptr) {
        return Err(v, path, "a map needs \"keyType\" and \"valueType\"");
      }
      SLUICE_ASSIGN_OR_RETURN(bool contains_null, ReadBool(v, "valueContainsNull", path));
      SLUICE_ASSIGN_OR_RETURN(TypePtr kt, ReadType(*key, path.Key(), depth + 1));
      SLUICE_ASSIGN_OR_RETURN(TypePtr vt, ReadType(*value, path.Value(), depth + 1));
      auto t = Type::Map(std::move(kt), std::move(vt), contains_null);
      if (!t.has_value()) return Err(v, path, t.error().message(), ErrorCode::kInvalidArgument);
      return t;
    }
    if (k == "udt") {
      const JsonValue* sql = v.Find("sqlType");
      if (sql == nullptr) return Err(v, path, "a udt needs \"sqlType\"");
      const JsonValue* cls = v.Find("class");
      notes_.Add(path, fmt::format("user-defined type {} read as its sqlType",
                                   cls != nullptr && cls->is_string() ? cls->as_string() : "?"));
      return ReadType(*sql, path, depth + 1);
    }
    return Err(*kind, path, fmt::format("unknown complex type \"{}\"", EscapeForMessage(k, 60)));
  }

 private:
  Result<bool> ReadBool(const JsonValue& obj, std::string_view key, const FieldPath& path) {
    const JsonValue* b = obj.Find(key);
    if (b == nullptr) return true;  // Spark always writes it; absent reads as nullable
    if (!b->is_bool()) return Err(*b, path, fmt::format("\"{}\" must be true or false", key));
    return b->as_bool();
  }

  Result<TypePtr> ReadPrimitive(const JsonValue& v, const FieldPath& path) {
    const std::string& n = v.as_string();
    if (n == "string") return Type::String();
    if (n == "binary") return Type::Binary();
    if (n == "boolean") return Type::Boolean();
    if (n == "byte") return Type::Int8();
    if (n == "short") return Type::Int16();
    if (n == "integer") return Type::Int32();
    if (n == "long") return Type::Int64();
    if (n == "float") return Type::Float32();
    if (n == "double") return Type::Float64();
    if (n == "date") return Type::Date();
    if (n == "timestamp" || n == "timestamp_ltz") return Type::Timestamp();
    if (n == "timestamp_ntz") return Type::TimestampNtz();
    if (n == "void" || n == "null") return Type::Null();
    if (n == "decimal") return *Type::Decimal(10, 0);
    if (StartsWith(n, "decimal(") || StartsWith(n, "char(") || StartsWith(n, "varchar(") ||
        StartsWith(n, "string collate ")) {
      // The DDL type parser accepts exactly Spark's spellings, spaces included.
      NoteSink type_notes;
      auto t = ParseDataType(n);
      if (!t.has_value()) return Err(v, path, t.error().message());
      if (StartsWith(n, "string collate ")) {
        notes_.Add(path, fmt::format("collation dropped from \"{}\"", n));
      }
      return t;
    }
    if (n == "variant" || StartsWith(n, "interval") || n == "calendarinterval") {
      return Err(v, path, fmt::format("Spark type \"{}\" has no equivalent in sluice's model", n),
                 ErrorCode::kUnimplemented);
    }
    return Err(v, path, fmt::format("unknown type \"{}\"", EscapeForMessage(n, 60)));
  }

  Result<Field> ReadField(const JsonValue& f, const FieldPath& parent, int depth) {
    if (!f.is_object()) return Err(f, parent, "a struct field must be an object");
    const JsonValue* name = f.Find("name");
    if (name == nullptr || !name->is_string()) {
      return Err(f, parent, "a struct field needs a string \"name\"");
    }
    FieldPath path = parent.Child(name->as_string());
    const JsonValue* type = f.Find("type");
    if (type == nullptr) return Err(f, path, "a struct field needs a \"type\"");
    SLUICE_ASSIGN_OR_RETURN(bool nullable, ReadBool(f, "nullable", path));
    SLUICE_ASSIGN_OR_RETURN(TypePtr t, ReadType(*type, path, depth));
    Field field(name->as_string(), std::move(t), nullable);
    const JsonValue* metadata = f.Find("metadata");
    if (metadata != nullptr) {
      if (!metadata->is_object()) return Err(*metadata, path, "\"metadata\" must be an object");
      SLUICE_TRY(ApplyMetadata(*metadata, path, field));
    }
    for (const JsonMember& m : f.members()) {
      if (m.key != "name" && m.key != "type" && m.key != "nullable" && m.key != "metadata") {
        notes_.Add(path, fmt::format("unknown key \"{}\" in a struct field ignored",
                                     EscapeForMessage(m.key, 60)));
      }
    }
    return field;
  }

  // Lift the metadata keys the model has slots for (comment, char/varchar, literal defaults)
  // into the field, and keep the rest as metadata.
  Status ApplyMetadata(const JsonValue& metadata, const FieldPath& path, Field& field) {
    JsonValue rest = metadata;
    const JsonValue* comment = metadata.Find(internal::kCommentKey);
    if (comment != nullptr && comment->is_string()) {
      field.set_doc(comment->as_string());
      rest.Remove(internal::kCommentKey);
    }
    const JsonValue* raw = metadata.Find(internal::kCharVarcharKey);
    if (raw != nullptr && raw->is_string()) {
      auto declared = ParseDataType(raw->as_string());
      TypePtr merged = declared.has_value() ? MergeCharVarchar(field.type(), *declared) : nullptr;
      if (merged != nullptr) {
        field.set_type(std::move(merged));
        rest.Remove(internal::kCharVarcharKey);
      } else {
        notes_.Add(path,
                   fmt::format("{} \"{}\" does not match the field type; kept as metadata",
                               internal::kCharVarcharKey, EscapeForMessage(raw->as_string())));
      }
    }
    const JsonValue* def = metadata.Find(internal::kCurrentDefaultKey);
    if (def != nullptr && def->is_string()) {
      auto literal = internal::SqlLiteralToDefault(def->as_string());
      if (literal.has_value()) {
        field.set_default_value(std::move(*literal));
        rest.Remove(internal::kCurrentDefaultKey);
      }
    }
    field.set_metadata(std::move(rest));
    return Ok();
  }

  // Put the char/varchar lengths of `declared` into `actual` where `actual` has plain strings;
  // nullptr when the two types differ in shape.
  static TypePtr MergeCharVarchar(const TypePtr& actual, const TypePtr& declared) {
    if (actual->kind() != declared->kind()) return nullptr;
    if (actual->kind() == TypeKind::kString) return declared;
    if (actual->is_struct()) {
      if (actual->fields().size() != declared->fields().size()) return nullptr;
      std::vector<Field> fields;
      for (size_t i = 0; i < actual->fields().size(); ++i) {
        const Field& a = actual->fields()[i];
        if (a.name() != declared->fields()[i].name()) return nullptr;
        TypePtr t = MergeCharVarchar(a.type(), declared->fields()[i].type());
        if (t == nullptr) return nullptr;
        Field copy = a;
        copy.set_type(std::move(t));
        fields.push_back(std::move(copy));
      }
      auto r = Type::Struct(std::move(fields));
      return r.has_value() ? *r : nullptr;
    }
    if (actual->is_array()) {
      TypePtr e = MergeCharVarchar(actual->element_type(), declared->element_type());
      if (e == nullptr) return nullptr;
      auto r = Type::Array(std::move(e), actual->contains_null());
      return r.has_value() ? *r : nullptr;
    }
    if (actual->is_map()) {
      TypePtr k = MergeCharVarchar(actual->key_type(), declared->key_type());
      TypePtr v = MergeCharVarchar(actual->value_type(), declared->value_type());
      if (k == nullptr || v == nullptr) return nullptr;
      auto r = Type::Map(std::move(k), std::move(v), actual->value_contains_null());
      return r.has_value() ? *r : nullptr;
    }
    return actual->Equals(*declared) ? actual : nullptr;
  }

  std::string_view text_;
  NoteSink& notes_;
};

void WriteType(JsonWriter& w, const Type& t, NoteSink& notes, const FieldPath& path);

void WriteField(JsonWriter& w, const Field& f, bool top_level, NoteSink& notes,
                const FieldPath& path) {
  w.BeginObject();
  w.Key("name").String(f.name());
  w.Key("type");
  WriteType(w, *f.type(), notes, path);
  w.Key("nullable").Bool(f.nullable());
  JsonValue metadata = f.metadata();
  if (f.doc().has_value())
    metadata.Set(std::string(internal::kCommentKey), JsonValue::String(*f.doc()));
  if (f.default_value().has_value()) {
    auto lit = internal::DefaultToSqlLiteral(*f.default_value());
    if (lit.has_value()) {
      metadata.Set(std::string(internal::kCurrentDefaultKey), JsonValue::String(*lit));
    } else {
      notes.Add(path, "default value has no SQL literal form for CURRENT_DEFAULT; dropped");
    }
  }
  if (internal::HasCharVarchar(*f.type())) {
    if (top_level) {
      metadata.Set(std::string(internal::kCharVarcharKey),
                   JsonValue::String(internal::CatalogString(*f.type())));
    }
    // Nested fields are covered by their top-level field's type string.
  }
  w.Key("metadata").Value(metadata);
  w.EndObject();
}

void WriteType(JsonWriter& w, const Type& t, NoteSink& notes, const FieldPath& path) {
  if (t.is_struct()) {
    w.BeginObject().Key("type").String("struct").Key("fields").BeginArray();
    for (const Field& f : t.fields()) WriteField(w, f, path.empty(), notes, path.Child(f.name()));
    w.EndArray().EndObject();
  } else if (t.is_array()) {
    w.BeginObject().Key("type").String("array").Key("elementType");
    WriteType(w, *t.element_type(), notes, path.Element());
    w.Key("containsNull").Bool(t.contains_null()).EndObject();
  } else if (t.is_map()) {
    w.BeginObject().Key("type").String("map").Key("keyType");
    WriteType(w, *t.key_type(), notes, path.Key());
    w.Key("valueType");
    WriteType(w, *t.value_type(), notes, path.Value());
    w.Key("valueContainsNull").Bool(t.value_contains_null()).EndObject();
  } else {
    w.String(internal::JsonTypeName(t, &notes, path));
  }
}

}  // namespace

Result<Converted<SchemaPtr>> ReadJson(std::string_view text) {
  SLUICE_ASSIGN_OR_RETURN(JsonValue doc, ParseJson(text));
  NoteSink notes;
  JsonSchemaReader reader(text, notes);
  if (!doc.is_object() || doc.Find("type") == nullptr || !doc.Find("type")->is_string() ||
      doc.Find("type")->as_string() != "struct") {
    return reader.Err(doc, FieldPath(), "a Spark schema is a {\"type\":\"struct\",...} object");
  }
  SLUICE_ASSIGN_OR_RETURN(TypePtr st, reader.ReadType(doc, FieldPath(), 0));
  SLUICE_ASSIGN_OR_RETURN(SchemaPtr s, schema::Schema::FromStruct(std::move(st)));
  return Converted<SchemaPtr>{std::move(s), notes.Take()};
}

Converted<std::string> WriteJson(const schema::Schema& s) {
  NoteSink notes;
  JsonWriter w;
  WriteType(w, *s.struct_type(), notes, FieldPath());
  return Converted<std::string>{w.Take(), notes.Take()};
}

std::string SparkMd5(const schema::Schema& s) {
  // Our own writer's output always parses; re-serialize it the way PySpark's json.dumps does.
  JsonValue doc = *ParseJson(WriteJson(s).value);
  JsonFormat python;
  python.sort_keys = true;
  python.ascii_only = true;
  python.python_numbers = true;
  return Md5Hex(ToJson(doc, python));
}

}  // namespace sluice::dialects::spark
