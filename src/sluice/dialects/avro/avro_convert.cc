// Avro <-> model conversion, following spark-avro's SchemaConverters (Spark 3.5).
#include "sluice/dialects/avro/avro_convert.h"

#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <set>
#include <unordered_set>
#include <utility>
#include <vector>

#include "sluice/base/json_writer.h"
#include "sluice/base/strings.h"
#include "sluice/dialects/avro/avro_internal.h"

namespace sluice::dialects::avro {

using schema::Converted;
using schema::Field;
using schema::FieldPath;
using schema::NoteSink;
using schema::Schema;
using schema::SchemaInfo;
using schema::SchemaPtr;
using schema::StringLength;
using schema::TimeUnit;
using schema::Type;
using schema::TypeKind;
using schema::TypePtr;

namespace {

// A hostile schema can share one record among many fields at every level, so its expansion into
// the model (which has no references) grows exponentially. Real schemas stay far below this.
constexpr size_t kMaxExpandedTypes = 200'000;

std::string JoinKeys(const JsonValue& object) {
  std::vector<std::string> keys;
  for (const JsonMember& m : object.members()) keys.push_back(EscapeForMessage(m.key, 60));
  return JoinStrings(keys, ", ");
}

std::string QuotedList(const std::vector<std::string>& items, size_t max_items = 8) {
  std::vector<std::string> shown;
  for (size_t i = 0; i < items.size() && i < max_items; ++i) shown.push_back(items[i]);
  std::string out = JoinStrings(shown, ", ");
  if (items.size() > max_items) out += fmt::format(", ... ({} in all)", items.size());
  return out;
}

// ---------------------------------------------------------------------------------------------
// Avro -> model

class ToModelConverter {
 public:
  Result<Converted<SchemaPtr>> Run(const AvroSchema& avro) {
    const AvroNode& root = avro.root();
    std::vector<size_t> memo(avro.node_count(), 0);
    if (ExpandedSize(root, 1, memo) > kMaxExpandedTypes) return TooManyTypes();
    SchemaInfo info;
    std::vector<Field> fields;
    if (root.type() == AvroType::kRecord) {
      info.name = root.name();
      info.namespace_name = root.namespace_name();
      info.doc = root.doc();
      if (!root.aliases().empty()) {
        notes_.Add(FieldPath(), fmt::format("aliases of record {} are not kept: {}",
                                            root.full_name(), QuotedList(root.aliases())));
      }
      NoteProps(root, FieldPath());
      stack_.insert(&root);
      SLUICE_ASSIGN_OR_RETURN(fields, ConvertFields(root, FieldPath(), 1));
    } else {
      FieldPath path = FieldPath::Of("value");
      notes_.Add(FieldPath(), fmt::format("top-level {} is not a record: read as a single field "
                                          "`value`",
                                          DescribeNode(root)));
      SLUICE_ASSIGN_OR_RETURN(Typed t, Convert(root, path, 1));
      fields.emplace_back("value", t.type, t.nullable);
    }
    auto made = Schema::Make(std::move(fields), std::move(info));
    if (!made) return Fail(made.error());
    return Converted<SchemaPtr>{std::move(made).value(), notes_.Take()};
  }

 private:
  struct Typed {
    TypePtr type;
    bool nullable = false;
  };

  static Unexpected<Error> TooManyTypes() {
    return InvalidArgument(fmt::format(
        "the schema expands to more than {} types in the model (named types shared many times "
        "over)",
        kMaxExpandedTypes));
  }

  // How many model types `n` expands to, memoised per node so a hostile schema is refused in
  // time linear in its size. Saturates above the limit; recursion and excess depth count as one
  // (the conversion reports those itself).
  size_t ExpandedSize(const AvroNode& n, int depth, std::vector<size_t>& memo) {
    if (depth > schema::kMaxNestingDepth) return 1;
    if (memo[n.id()] != 0) return memo[n.id()];
    if (n.type() == AvroType::kRecord && !counting_.insert(&n).second) return 1;
    size_t total = 1;
    auto add = [&](const AvroNode& child) {
      total = std::min(total + ExpandedSize(child, depth + 1, memo), kMaxExpandedTypes + 1);
    };
    for (const AvroField& f : n.fields()) add(f.type());
    for (const AvroNode* b : n.branches()) add(*b);
    if (n.type() == AvroType::kArray) add(n.items());
    if (n.type() == AvroType::kMap) add(n.values());
    counting_.erase(&n);
    memo[n.id()] = total;
    return total;
  }

  void NoteProps(const AvroNode& n, const FieldPath& path) {
    if (!n.props().members().empty()) {
      notes_.Add(path, fmt::format("attributes of {} are not kept: {}", DescribeNode(n),
                                   JoinKeys(n.props())));
    }
  }

  static Unexpected<Error> WithPath(const Error& e, const FieldPath& path) {
    if (path.empty()) return Fail(e);
    return Fail(e.WithContext(path.ToString()));
  }

  Result<std::vector<Field>> ConvertFields(const AvroNode& record, const FieldPath& path,
                                           int depth) {
    std::vector<Field> fields;
    fields.reserve(record.fields().size());
    for (const AvroField& f : record.fields()) {
      FieldPath fp = path.empty() ? FieldPath::Of(f.name()) : path.Child(f.name());
      SLUICE_ASSIGN_OR_RETURN(Typed t, Convert(f.type(), fp, depth + 1));
      Field field(f.name(), t.type, t.nullable);
      field.set_doc(f.doc());
      // `"default": null` on an optional field is how Avro says what a nullable model field
      // without a default already means (missing reads as null), so it is not stored; the
      // writer puts it back on every nullable field.
      bool implicit_null = t.nullable && f.default_value() && f.default_value()->is_null();
      if (f.default_value() && !implicit_null) {
        field.set_default_value(ModelDefault(f.type(), *f.default_value()));
      }
      if (f.order() != SortOrder::kAscending) {
        notes_.Add(fp, fmt::format("sort order \"{}\" is not kept",
                                   f.order() == SortOrder::kDescending ? "descending" : "ignore"));
      }
      JsonValue metadata = f.props();
      if (!f.aliases().empty()) {
        JsonValue aliases = JsonValue::Array();
        for (const std::string& a : f.aliases()) aliases.Append(JsonValue::String(a));
        metadata.Set(std::string(kAliasesMetadataKey), std::move(aliases));
      }
      field.set_metadata(std::move(metadata));
      fields.push_back(std::move(field));
    }
    return fields;
  }

  Result<TypePtr> Decimal(const AvroNode& n, const FieldPath& path) {
    const LogicalType& lt = n.logical_type();
    if (lt.precision > schema::kMaxDecimalPrecision) {
      return Unimplemented(fmt::format(
          "{}: decimal({},{}) has a precision above the model's maximum of {} (Spark refuses it "
          "too)",
          path.empty() ? "value" : path.ToString(), lt.precision, lt.scale,
          schema::kMaxDecimalPrecision));
    }
    auto d = Type::Decimal(lt.precision, lt.scale);
    if (!d) return WithPath(d.error(), path);
    return std::move(d).value();
  }

  Result<Typed> Convert(const AvroNode& n, const FieldPath& path, int depth) {
    if (++expanded_ > kMaxExpandedTypes) return TooManyTypes();
    if (depth > schema::kMaxNestingDepth) {
      return InvalidArgument(fmt::format("{}: types nest deeper than {} levels", path.ToString(),
                                         schema::kMaxNestingDepth));
    }
    if (n.is_primitive() || n.type() == AvroType::kArray || n.type() == AvroType::kMap) {
      NoteProps(n, path);
    }
    LogicalKind lk = n.logical_type().kind;
    switch (n.type()) {
      case AvroType::kNull:
        return Typed{Type::Null(), true};
      case AvroType::kBoolean:
        return Typed{Type::Boolean()};
      case AvroType::kInt:
        if (lk == LogicalKind::kDate) return Typed{Type::Date()};
        if (lk == LogicalKind::kTimeMillis) return Typed{Type::Time(TimeUnit::kMillis)};
        return Typed{Type::Int32()};
      case AvroType::kLong:
        switch (lk) {
          case LogicalKind::kTimeMicros:
            return Typed{Type::Time(TimeUnit::kMicros)};
          case LogicalKind::kTimestampMillis:
            return Typed{Type::Timestamp(TimeUnit::kMillis)};
          case LogicalKind::kTimestampMicros:
            return Typed{Type::Timestamp(TimeUnit::kMicros)};
          case LogicalKind::kTimestampNanos:
            return Typed{Type::Timestamp(TimeUnit::kNanos)};
          case LogicalKind::kLocalTimestampMillis:
            return Typed{Type::TimestampNtz(TimeUnit::kMillis)};
          case LogicalKind::kLocalTimestampMicros:
            return Typed{Type::TimestampNtz(TimeUnit::kMicros)};
          case LogicalKind::kLocalTimestampNanos:
            return Typed{Type::TimestampNtz(TimeUnit::kNanos)};
          case LogicalKind::kNone:
          case LogicalKind::kDecimal:
          case LogicalKind::kUuid:
          case LogicalKind::kDate:
          case LogicalKind::kTimeMillis:
          case LogicalKind::kDuration:
            return Typed{Type::Int64()};
        }
        return Typed{Type::Int64()};
      case AvroType::kFloat:
        return Typed{Type::Float32()};
      case AvroType::kDouble:
        return Typed{Type::Float64()};
      case AvroType::kBytes:
        if (lk == LogicalKind::kDecimal) {
          SLUICE_ASSIGN_OR_RETURN(TypePtr d, Decimal(n, path));
          return Typed{d};
        }
        return Typed{Type::Binary()};
      case AvroType::kString:
        if (lk == LogicalKind::kUuid) return Typed{Type::Uuid()};
        return Typed{Type::String()};
      case AvroType::kFixed:
        return ConvertFixed(n, path);
      case AvroType::kEnum: {
        std::string message = fmt::format("enum {} read as string: its symbols are not kept ({})",
                                          n.full_name(), QuotedList(n.symbols()));
        if (n.enum_default()) message += fmt::format(", nor its default {}", *n.enum_default());
        notes_.Add(path, std::move(message));
        NoteNamedExtras(n, path);
        return Typed{Type::String()};
      }
      case AvroType::kArray: {
        SLUICE_ASSIGN_OR_RETURN(Typed items, Convert(n.items(), path.Element(), depth + 1));
        auto a = Type::Array(items.type, items.nullable);
        if (!a) return WithPath(a.error(), path);
        return Typed{std::move(a).value()};
      }
      case AvroType::kMap: {
        SLUICE_ASSIGN_OR_RETURN(Typed values, Convert(n.values(), path.Value(), depth + 1));
        auto m = Type::Map(Type::String(), values.type, values.nullable);
        if (!m) return WithPath(m.error(), path);
        return Typed{std::move(m).value()};
      }
      case AvroType::kUnion:
        return ConvertUnion(n, path, depth);
      case AvroType::kRecord:
        return ConvertRecord(n, path, depth);
    }
    return Internal("unhandled Avro type");
  }

  void NoteNamedExtras(const AvroNode& n, const FieldPath& path) {
    if (!n.aliases().empty()) {
      notes_.Add(path, fmt::format("aliases of {} are not kept: {}", n.full_name(),
                                   QuotedList(n.aliases())));
    }
    if (n.doc() && n.type() != AvroType::kRecord) {
      notes_.Add(path, fmt::format("doc of {} is not kept", n.full_name()));
    }
    NoteProps(n, path);
  }

  Result<Typed> ConvertFixed(const AvroNode& n, const FieldPath& path) {
    LogicalKind lk = n.logical_type().kind;
    NoteNamedExtras(n, path);
    if (lk == LogicalKind::kDecimal) {
      SLUICE_ASSIGN_OR_RETURN(TypePtr d, Decimal(n, path));
      notes_.Add(path, fmt::format("fixed {} ({} bytes) read as {}: its name and size are not kept",
                                   n.full_name(), n.size(), d->ToString()));
      return Typed{d};
    }
    if (lk == LogicalKind::kUuid) {
      notes_.Add(path, fmt::format("fixed {} (16 bytes) read as uuid: its name and the fixed "
                                   "encoding are not kept",
                                   n.full_name()));
      return Typed{Type::Uuid()};
    }
    if (lk == LogicalKind::kDuration) {
      notes_.Add(path, fmt::format("fixed {} (duration: months, days, milliseconds) read as "
                                   "binary: the model has no interval type",
                                   n.full_name()));
      return Typed{Type::Binary()};
    }
    notes_.Add(path, fmt::format("fixed {} read as binary: its name and size ({} bytes) are not "
                                 "kept",
                                 n.full_name(), n.size()));
    return Typed{Type::Binary()};
  }

  Result<Typed> ConvertRecord(const AvroNode& n, const FieldPath& path, int depth) {
    if (stack_.count(&n) != 0) {
      return Unimplemented(fmt::format(
          "{}: record {} refers to itself; the model cannot hold recursive types (Spark refuses "
          "them too)",
          path.ToString(), n.full_name()));
    }
    notes_.Add(path,
               fmt::format("record {} read as a struct: its name is not kept", n.full_name()));
    if (n.doc()) notes_.Add(path, fmt::format("doc of record {} is not kept", n.full_name()));
    NoteNamedExtras(n, path);
    stack_.insert(&n);
    auto fields = ConvertFields(n, path, depth);
    stack_.erase(&n);
    if (!fields) return Fail(std::move(fields).error());
    auto st = Type::Struct(std::move(fields).value());
    if (!st) return WithPath(st.error(), path);
    return Typed{std::move(st).value()};
  }

  // How a union reads: nullable T, merged numeric type, or a struct of members.
  enum class UnionShape : uint8_t { kEmpty, kNullOnly, kSingle, kIntLong, kFloatDouble, kMembers };

  static UnionShape ShapeOf(const AvroNode& n, std::vector<const AvroNode*>* non_null) {
    std::vector<const AvroNode*> rest;
    for (const AvroNode* b : n.branches()) {
      if (b->type() != AvroType::kNull) rest.push_back(b);
    }
    UnionShape shape = UnionShape::kMembers;
    if (n.branches().empty()) {
      shape = UnionShape::kEmpty;
    } else if (rest.empty()) {
      shape = UnionShape::kNullOnly;
    } else if (rest.size() == 1) {
      shape = UnionShape::kSingle;
    } else if (rest.size() == 2) {
      // spark-avro compares the branches' base types only, logical types aside.
      std::set<AvroType> types = {rest[0]->type(), rest[1]->type()};
      if (types == std::set<AvroType>{AvroType::kInt, AvroType::kLong})
        shape = UnionShape::kIntLong;
      if (types == std::set<AvroType>{AvroType::kFloat, AvroType::kDouble}) {
        shape = UnionShape::kFloatDouble;
      }
    }
    if (non_null != nullptr) *non_null = std::move(rest);
    return shape;
  }

  static std::string BranchList(const AvroNode& n) {
    std::vector<std::string> names;
    for (const AvroNode* b : n.branches()) names.push_back(DescribeNode(*b));
    return "[" + QuotedList(names) + "]";
  }

  Result<Typed> ConvertUnion(const AvroNode& n, const FieldPath& path, int depth) {
    std::vector<const AvroNode*> rest;
    UnionShape shape = ShapeOf(n, &rest);
    bool has_null = rest.size() < n.branches().size();
    switch (shape) {
      case UnionShape::kEmpty:
        notes_.Add(path, "empty union (it holds no value) read as null");
        return Typed{Type::Null(), true};
      case UnionShape::kNullOnly:
        return Typed{Type::Null(), true};
      case UnionShape::kSingle: {
        if (!has_null) {
          notes_.Add(path,
                     fmt::format("union {} of one branch read as that branch", BranchList(n)));
        }
        SLUICE_ASSIGN_OR_RETURN(Typed t, Convert(*rest[0], path, depth + 1));
        return Typed{t.type, t.nullable || has_null};
      }
      case UnionShape::kIntLong:
      case UnionShape::kFloatDouble: {
        bool ints = shape == UnionShape::kIntLong;
        for (const AvroNode* b : rest) NoteProps(*b, path);
        notes_.Add(path, fmt::format("union {} read as {}: which branch a value had is lost",
                                     BranchList(n), ints ? "int64" : "float64"));
        return Typed{ints ? Type::Int64() : Type::Float64(), has_null};
      }
      case UnionShape::kMembers:
        break;
    }
    notes_.Add(path, fmt::format("union {} read as a struct with one nullable field per non-null "
                                 "branch (member0..member{})",
                                 BranchList(n), rest.size() - 1));
    std::vector<Field> members;
    for (size_t i = 0; i < rest.size(); ++i) {
      std::string name = fmt::format("member{}", i);
      SLUICE_ASSIGN_OR_RETURN(Typed t, Convert(*rest[i], path.Child(name), depth + 1));
      members.emplace_back(name, t.type, true);
    }
    auto st = Type::Struct(std::move(members));
    if (!st) return WithPath(st.error(), path);
    return Typed{std::move(st).value(), has_null};
  }

  // A default in the model's terms: decimals become numbers, a union default that became a member
  // struct becomes {"member0": value}; everything else is kept as Avro wrote it.
  JsonValue ModelDefault(const AvroNode& type, const JsonValue& v) {
    switch (type.type()) {
      case AvroType::kBytes:
      case AvroType::kFixed:
        if (type.logical_type().kind == LogicalKind::kDecimal && v.is_string()) {
          auto bytes = internal::DecodeByteString(v.as_string());
          if (bytes) {
            return JsonValue::NumberText(
                internal::UnscaledBytesToDecimalText(*bytes, type.logical_type().scale));
          }
        }
        return v;
      case AvroType::kUnion: {
        if (type.branches().empty()) return v;
        const AvroNode& first = *type.branches()[0];
        if (first.type() == AvroType::kNull) return v;
        if (ShapeOf(type, nullptr) == UnionShape::kMembers) {
          JsonValue out = JsonValue::Object();
          out.Set("member0", ModelDefault(first, v));
          return out;
        }
        return ModelDefault(first, v);
      }
      case AvroType::kArray: {
        if (!v.is_array()) return v;
        JsonValue out = JsonValue::Array();
        for (const JsonValue& item : v.items()) out.Append(ModelDefault(type.items(), item));
        return out;
      }
      case AvroType::kMap: {
        if (!v.is_object()) return v;
        JsonValue out = JsonValue::Object();
        for (const JsonMember& m : v.members()) {
          out.mutable_members().push_back(JsonMember{m.key, ModelDefault(type.values(), m.value)});
        }
        return out;
      }
      case AvroType::kRecord: {
        if (!v.is_object()) return v;
        JsonValue out = JsonValue::Object();
        internal::MemberLookup members(v);
        for (const AvroField& f : type.fields()) {
          if (const JsonValue* member = members.Find(f.name())) {
            out.mutable_members().push_back(JsonMember{f.name(), ModelDefault(f.type(), *member)});
          }
        }
        return out;
      }
      case AvroType::kNull:
      case AvroType::kBoolean:
      case AvroType::kInt:
      case AvroType::kLong:
      case AvroType::kFloat:
      case AvroType::kDouble:
      case AvroType::kString:
      case AvroType::kEnum:
        return v;
    }
    return v;
  }

  NoteSink notes_;
  std::unordered_set<const AvroNode*> stack_;
  std::unordered_set<const AvroNode*> counting_;
  size_t expanded_ = 0;
};

// ---------------------------------------------------------------------------------------------
// model -> Avro

class FromModelConverter {
 public:
  Result<Converted<JsonValue>> Run(const Schema& schema) {
    const SchemaInfo& info = schema.info();
    std::string name = info.name.empty() ? "topLevelRecord" : info.name;
    std::string ns = info.namespace_name;
    size_t dot = name.rfind('.');
    if (dot != std::string::npos) {
      // A dotted schema name is a full name, as in Avro.
      ns = name.substr(0, dot);
      name = name.substr(dot + 1);
    }
    if (!internal::IsValidName(name) || internal::PrimitiveType(name)) {
      return InvalidArgument(fmt::format(
          "schema name \"{}\" is not a valid Avro record name ([A-Za-z_][A-Za-z0-9_]*, not a "
          "primitive type name)",
          EscapeForMessage(name)));
    }
    if (!ns.empty() && !internal::IsValidFullName(ns)) {
      return InvalidArgument(fmt::format(
          "schema namespace \"{}\" is not a valid Avro namespace (names joined by dots)",
          EscapeForMessage(ns)));
    }
    used_names_.insert(ns.empty() ? name : ns + "." + name);
    JsonValue record = JsonValue::Object();
    record.Set("type", JsonValue::String("record"));
    record.Set("name", JsonValue::String(name));
    if (!ns.empty()) record.Set("namespace", JsonValue::String(ns));
    if (info.doc) record.Set("doc", JsonValue::String(*info.doc));
    std::string child_ns = ns.empty() ? name : ns + "." + name;
    SLUICE_ASSIGN_OR_RETURN(JsonValue fields,
                            FieldsJson(*schema.struct_type(), FieldPath(), child_ns));
    record.Set("fields", std::move(fields));
    return Converted<JsonValue>{std::move(record), notes_.Take()};
  }

 private:
  // Spark names nested records and fixeds after their field; two fields can still meet on one
  // full name (a decimal's "fixed" beside a field named "fixed"), so later ones get a suffix.
  std::string UniqueName(const std::string& ns, const std::string& base) {
    std::string name = base;
    for (int k = 2;; ++k) {
      std::string full = ns.empty() ? name : ns + "." + name;
      if (!internal::PrimitiveType(name) && used_names_.insert(full).second) return name;
      name = fmt::format("{}_{}", base, k);
    }
  }

  Result<JsonValue> FieldsJson(const Type& st, const FieldPath& path, const std::string& ns) {
    JsonValue fields = JsonValue::Array();
    for (const Field& f : st.fields()) {
      FieldPath fp = path.empty() ? FieldPath::Of(f.name()) : path.Child(f.name());
      SLUICE_ASSIGN_OR_RETURN(JsonValue field, FieldJson(f, fp, ns));
      fields.Append(std::move(field));
    }
    return fields;
  }

  // How a model field is written: its Avro default (if any) and whether its type is a union with
  // "null" first (a nullable field whose default is absent, null or not representable), which
  // makes null the only default Avro accepts for it, also inside an enclosing record's default.
  struct FieldPlan {
    std::optional<JsonValue> avro_default;
    bool nullable_union = false;
    bool null_first = false;
    bool default_dropped = false;
  };

  FieldPlan Plan(const Field& f) {
    FieldPlan plan;
    bool is_null_type = f.type()->kind() == TypeKind::kNull;
    plan.nullable_union = f.nullable() && !is_null_type;
    if (f.default_value()) {
      plan.avro_default = AvroDefault(*f.type(), *f.default_value());
      if (plan.avro_default && plan.avro_default->is_null() && !plan.nullable_union &&
          !is_null_type) {
        plan.avro_default.reset();  // null for a field that is not nullable
      }
      plan.default_dropped = !plan.avro_default.has_value();
    }
    if (plan.nullable_union && (!plan.avro_default || plan.avro_default->is_null())) {
      plan.null_first = true;
      plan.avro_default = JsonValue::Null();
    }
    return plan;
  }

  Result<JsonValue> FieldJson(const Field& f, const FieldPath& path, const std::string& ns) {
    if (!internal::IsValidName(f.name())) {
      return InvalidArgument(
          fmt::format("{}: field name \"{}\" is not a valid Avro name ([A-Za-z_][A-Za-z0-9_]*)",
                      path.ToString(), EscapeForMessage(f.name())));
    }
    JsonValue out = JsonValue::Object();
    out.Set("name", JsonValue::String(f.name()));
    SLUICE_ASSIGN_OR_RETURN(JsonValue type, TypeJson(*f.type(), path, f.name(), ns));
    FieldPlan plan = Plan(f);
    if (plan.default_dropped) {
      notes_.Add(path, fmt::format("default {} is not kept: Avro cannot hold it for {}{}",
                                   EscapeForMessage(ToJson(*f.default_value()), 80),
                                   schema::TypeWithNullability(*f.type(), f.nullable()),
                                   f.nullable() ? " (the field gets default null)" : ""));
    }
    if (plan.nullable_union) {
      JsonValue u = JsonValue::Array();
      if (plan.null_first) {
        u.Append(JsonValue::String("null"));
        u.Append(std::move(type));
      } else {
        u.Append(std::move(type));
        u.Append(JsonValue::String("null"));
      }
      out.Set("type", std::move(u));
    } else {
      out.Set("type", std::move(type));
    }
    std::optional<JsonValue> def = std::move(plan.avro_default);
    if (f.doc()) out.Set("doc", JsonValue::String(*f.doc()));
    if (def) out.Set("default", std::move(*def));
    for (const JsonMember& m : f.metadata().members()) {
      if (m.key == kAliasesMetadataKey) {
        bool ok = m.value.is_array();
        for (const JsonValue& a : m.value.items()) {
          ok = ok && a.is_string() && internal::IsValidName(a.as_string());
        }
        if (ok) {
          out.Set("aliases", m.value);
        } else {
          notes_.Add(path, fmt::format("metadata {} is not kept: not an array of Avro names",
                                       kAliasesMetadataKey));
        }
        continue;
      }
      if (m.key == "name" || m.key == "type" || m.key == "doc" || m.key == "default" ||
          m.key == "order" || m.key == "aliases") {
        notes_.Add(path, fmt::format("metadata key \"{}\" is not kept: Avro reserves it for "
                                     "fields",
                                     m.key));
        continue;
      }
      out.Set(m.key, m.value);
    }
    return out;
  }

  static JsonValue Logical(std::string_view base, std::string_view logical) {
    JsonValue v = JsonValue::Object();
    v.Set("type", JsonValue::String(std::string(base)));
    v.Set("logicalType", JsonValue::String(std::string(logical)));
    return v;
  }

  static std::string_view UnitName(TimeUnit unit) {
    switch (unit) {
      case TimeUnit::kMillis:
        return "millis";
      case TimeUnit::kMicros:
        return "micros";
      case TimeUnit::kNanos:
        return "nanos";
    }
    return "micros";
  }

  // A nullable element or value type: ["null", T] (no default lives at that level).
  static JsonValue NullableUnion(JsonValue t) {
    JsonValue u = JsonValue::Array();
    u.Append(JsonValue::String("null"));
    u.Append(std::move(t));
    return u;
  }

  Result<JsonValue> TypeJson(const Type& t, const FieldPath& path, const std::string& record_name,
                             const std::string& ns) {
    switch (t.kind()) {
      case TypeKind::kNull:
        return JsonValue::String("null");
      case TypeKind::kBoolean:
        return JsonValue::String("boolean");
      case TypeKind::kInt8:
      case TypeKind::kInt16:
        notes_.Add(path, fmt::format("{} written as Avro int", t.ToString()));
        return JsonValue::String("int");
      case TypeKind::kInt32:
        return JsonValue::String("int");
      case TypeKind::kInt64:
        return JsonValue::String("long");
      case TypeKind::kFloat32:
        return JsonValue::String("float");
      case TypeKind::kFloat64:
        return JsonValue::String("double");
      case TypeKind::kDecimal: {
        // spark-avro: a fixed of the fewest bytes, named "<namespace>.<field>.fixed".
        std::string fixed_ns = ns.empty() ? record_name : ns + "." + record_name;
        int size = 1;
        while (MaxDecimalPrecisionForFixedSize(size) < t.precision()) ++size;
        JsonValue v = JsonValue::Object();
        v.Set("type", JsonValue::String("fixed"));
        v.Set("name", JsonValue::String(UniqueName(fixed_ns, "fixed")));
        v.Set("namespace", JsonValue::String(fixed_ns));
        v.Set("size", JsonValue::Int(size));
        v.Set("logicalType", JsonValue::String("decimal"));
        v.Set("precision", JsonValue::Int(t.precision()));
        v.Set("scale", JsonValue::Int(t.scale()));
        return v;
      }
      case TypeKind::kString:
        if (t.string_length() != StringLength::kUnbounded) {
          notes_.Add(path, fmt::format("{} written as Avro string: the length limit is lost",
                                       t.ToString()));
        }
        return JsonValue::String("string");
      case TypeKind::kBinary:
        return JsonValue::String("bytes");
      case TypeKind::kDate:
        return Logical("int", "date");
      case TypeKind::kTimestamp:
        return Logical("long", fmt::format("timestamp-{}", UnitName(t.unit())));
      case TypeKind::kTimestampNtz:
        return Logical("long", fmt::format("local-timestamp-{}", UnitName(t.unit())));
      case TypeKind::kTime:
        switch (t.unit()) {
          case TimeUnit::kMillis:
            return Logical("int", "time-millis");
          case TimeUnit::kMicros:
            return Logical("long", "time-micros");
          case TimeUnit::kNanos:
            notes_.Add(path,
                       "time(9) written as long (nanoseconds since midnight): Avro has no "
                       "time-nanos");
            return JsonValue::String("long");
        }
        return Logical("long", "time-micros");
      case TypeKind::kUuid:
        return Logical("string", "uuid");
      case TypeKind::kArray: {
        SLUICE_ASSIGN_OR_RETURN(JsonValue items,
                                TypeJson(*t.element_type(), path.Element(), record_name, ns));
        JsonValue v = JsonValue::Object();
        v.Set("type", JsonValue::String("array"));
        bool nullable = t.contains_null() && t.element_type()->kind() != TypeKind::kNull;
        v.Set("items", nullable ? NullableUnion(std::move(items)) : std::move(items));
        return v;
      }
      case TypeKind::kMap: {
        if (t.key_type()->kind() != TypeKind::kString ||
            t.key_type()->string_length() != StringLength::kUnbounded) {
          notes_.Add(path, fmt::format("map keys of type {} written as strings: Avro map keys "
                                       "are strings",
                                       t.key_type()->ToString()));
        }
        SLUICE_ASSIGN_OR_RETURN(JsonValue values,
                                TypeJson(*t.value_type(), path.Value(), record_name, ns));
        JsonValue v = JsonValue::Object();
        v.Set("type", JsonValue::String("map"));
        bool nullable = t.value_contains_null() && t.value_type()->kind() != TypeKind::kNull;
        v.Set("values", nullable ? NullableUnion(std::move(values)) : std::move(values));
        return v;
      }
      case TypeKind::kStruct: {
        std::string name = UniqueName(ns, record_name);
        JsonValue v = JsonValue::Object();
        v.Set("type", JsonValue::String("record"));
        v.Set("name", JsonValue::String(name));
        if (!ns.empty()) v.Set("namespace", JsonValue::String(ns));
        std::string child_ns = ns.empty() ? name : ns + "." + name;
        SLUICE_ASSIGN_OR_RETURN(JsonValue fields, FieldsJson(t, path, child_ns));
        v.Set("fields", std::move(fields));
        return v;
      }
    }
    return Internal("unhandled model type");
  }

  // The Avro form of a model default for type `t`, or nullopt when Avro's rules reject it. The
  // rules are Avro's: a union's default matches its first branch, so nested nullable fields
  // written ["null", T] take only null.
  std::optional<JsonValue> AvroDefault(const Type& t, const JsonValue& v) {
    if (v.is_null()) return JsonValue::Null();  // the caller decides if null fits the field
    auto integer_in = [&](int64_t lo, int64_t hi) -> std::optional<JsonValue> {
      auto i = v.is_number() ? v.as_int64() : std::nullopt;
      if (i && *i >= lo && *i <= hi) return v;
      return std::nullopt;
    };
    constexpr int64_t kInt32Min = std::numeric_limits<int32_t>::min();
    constexpr int64_t kInt32Max = std::numeric_limits<int32_t>::max();
    constexpr int64_t kInt64Min = std::numeric_limits<int64_t>::min();
    constexpr int64_t kInt64Max = std::numeric_limits<int64_t>::max();
    switch (t.kind()) {
      case TypeKind::kNull:
        return std::nullopt;
      case TypeKind::kBoolean:
        return v.is_bool() ? std::optional<JsonValue>(v) : std::nullopt;
      case TypeKind::kInt8:
      case TypeKind::kInt16:
      case TypeKind::kInt32:
      case TypeKind::kDate:
        return integer_in(kInt32Min, kInt32Max);
      case TypeKind::kTime:
        return t.unit() == TimeUnit::kMillis ? integer_in(kInt32Min, kInt32Max)
                                             : integer_in(kInt64Min, kInt64Max);
      case TypeKind::kInt64:
      case TypeKind::kTimestamp:
      case TypeKind::kTimestampNtz:
        return integer_in(kInt64Min, kInt64Max);
      case TypeKind::kFloat32:
      case TypeKind::kFloat64:
        if (v.is_number()) return v;
        if (v.is_string() && (v.as_string() == "NaN" || v.as_string() == "Infinity" ||
                              v.as_string() == "-Infinity")) {
          return v;
        }
        return std::nullopt;
      case TypeKind::kDecimal: {
        std::string text;
        if (v.is_number()) text = v.number_text();
        if (v.is_string()) text = v.as_string();
        if (text.empty()) return std::nullopt;
        int size = 1;
        while (MaxDecimalPrecisionForFixedSize(size) < t.precision()) ++size;
        auto bytes = internal::DecimalToUnscaledBytes(text, t.precision(), t.scale(), size);
        if (!bytes) return std::nullopt;
        return JsonValue::String(internal::EncodeByteString(*bytes));
      }
      case TypeKind::kString:
      case TypeKind::kUuid:
        return v.is_string() ? std::optional<JsonValue>(v) : std::nullopt;
      case TypeKind::kBinary:
        if (v.is_string() && internal::DecodeByteString(v.as_string())) return v;
        return std::nullopt;
      case TypeKind::kArray: {
        if (!v.is_array()) return std::nullopt;
        bool null_first = t.contains_null() && t.element_type()->kind() != TypeKind::kNull;
        JsonValue out = JsonValue::Array();
        for (const JsonValue& item : v.items()) {
          if (null_first && !item.is_null()) return std::nullopt;
          if (!null_first && item.is_null() && t.element_type()->kind() != TypeKind::kNull) {
            return std::nullopt;
          }
          auto converted = AvroDefault(*t.element_type(), item);
          if (!converted) return std::nullopt;
          out.Append(std::move(*converted));
        }
        return out;
      }
      case TypeKind::kMap: {
        if (!v.is_object()) return std::nullopt;
        bool null_first = t.value_contains_null() && t.value_type()->kind() != TypeKind::kNull;
        JsonValue out = JsonValue::Object();
        for (const JsonMember& m : v.members()) {
          if (null_first != m.value.is_null() && t.value_type()->kind() != TypeKind::kNull) {
            return std::nullopt;
          }
          auto converted = AvroDefault(*t.value_type(), m.value);
          if (!converted) return std::nullopt;
          out.mutable_members().push_back(JsonMember{m.key, std::move(*converted)});
        }
        return out;
      }
      case TypeKind::kStruct: {
        if (!v.is_object()) return std::nullopt;
        JsonValue out = JsonValue::Object();
        internal::MemberLookup members(v);
        for (const Field& f : t.fields()) {
          const JsonValue* member = members.Find(f.name());
          FieldPlan plan = Plan(f);
          if (member == nullptr) {
            // Avro fills a missing member from that field's own default.
            if (!plan.avro_default) return std::nullopt;
            continue;
          }
          bool is_null_type = f.type()->kind() == TypeKind::kNull;
          if (plan.null_first && !member->is_null()) return std::nullopt;
          if (!plan.null_first && member->is_null() && !is_null_type) return std::nullopt;
          auto converted = AvroDefault(*f.type(), *member);
          if (!converted) return std::nullopt;
          out.mutable_members().push_back(JsonMember{f.name(), std::move(*converted)});
        }
        return out;
      }
    }
    return std::nullopt;
  }

  NoteSink notes_;
  std::set<std::string> used_names_;
};

}  // namespace

Result<Converted<SchemaPtr>> ToModel(const AvroSchema& avro) {
  ToModelConverter converter;
  return converter.Run(avro);
}

Result<Converted<JsonValue>> FromModel(const Schema& schema) {
  FromModelConverter converter;
  return converter.Run(schema);
}

Result<Converted<SchemaPtr>> ReadSchema(std::string_view text) {
  SLUICE_ASSIGN_OR_RETURN(AvroSchema avro, Parse(text));
  return ToModel(avro);
}

Result<Converted<WrittenSchema>> WriteAndParse(const Schema& schema, int indent) {
  SLUICE_ASSIGN_OR_RETURN(Converted<JsonValue> json, FromModel(schema));
  std::string text = ToJson(json.value, JsonFormat{.indent = indent < 0 ? 0 : indent});
  // The converter's output is meant to be valid Avro by construction; check it, so a gap in the
  // converter is an error here rather than a schema other tools reject.
  auto check = Parse(text);
  if (!check) {
    return Internal("the Avro schema written for the model does not parse: " +
                    check.error().message());
  }
  return Converted<WrittenSchema>{WrittenSchema{std::move(text), std::move(check).value()},
                                  std::move(json.notes)};
}

Result<Converted<std::string>> WriteSchema(const Schema& schema, int indent) {
  SLUICE_ASSIGN_OR_RETURN(Converted<WrittenSchema> written, WriteAndParse(schema, indent));
  return Converted<std::string>{std::move(written.value.text), std::move(written.notes)};
}

}  // namespace sluice::dialects::avro
