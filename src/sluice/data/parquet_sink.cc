#include "sluice/data/parquet_sink.h"

#include <simdjson.h>

#include <algorithm>
#include <charconv>
#include <cstring>
#include <limits>
#include <optional>

#include "sluice/base/strings.h"
#include "sluice/data/name_index_internal.h"
#include "sluice/data/parquet_values_internal.h"
#include "sluice/schema/field_path.h"

namespace sluice::data {

namespace od = simdjson::ondemand;
using parquet::PhysicalType;
using parquet::SchemaNode;
using schema::TypeKind;

// How a leaf's JSON value becomes a Parquet value.
enum class LeafKind : uint8_t {
  kNone,  // not a leaf
  kBoolean,
  kInt32,  // int8, int16, int32, range-checked
  kInt64,
  kFloat,
  kDouble,
  kDecimalInt32,
  kDecimalInt64,
  kDecimalBytes,  // FIXED_LEN_BYTE_ARRAY of `width` bytes
  kString,
  kBinary,
  kDate,
  kTimestamp,
  kTimestampNtz,
  kTimeInt32,  // time(3)
  kTimeInt64,
  kUuid,
};

struct ParquetRecordPlan::Node {
  LeafKind leaf = LeafKind::kNone;
  int precision = 0;
  int scale = 0;
  int32_t width = 0;
  schema::TimeUnit unit = schema::TimeUnit::kMicros;
  int64_t min = 0;
  int64_t max = 0;
  /// A struct child's name (the JSON key).
  std::string name;
  /// The name is written in JSON as it is (no '"', '\\' or control character to escape), so a
  /// key's raw bytes can be compared with it in place.
  bool plain_name = false;
  /// The schema path, for messages: `items[].qty`, `tags{key}`.
  std::string path;
  /// Wide structs: name -> child position.
  internal::StringMap<uint32_t> by_name;
};

ParquetRecordPlan::ParquetRecordPlan(parquet::ParquetSchema parquet)
    : parquet_(std::move(parquet)) {}
ParquetRecordPlan::~ParquetRecordPlan() = default;

namespace {

constexpr int32_t kWideStruct = 12;

// The leaf conversion of a model type stored as `physical`; an error when the two do not
// agree as the sink expects them to.
Status CompileLeaf(const schema::Type& type, const parquet::ColumnDescriptor& column,
                   ParquetRecordPlan::Node& n) {
  auto expect = [&](PhysicalType p, LeafKind kind) -> Status {
    if (column.physical != p) {
      return InvalidArgument(n.path + ": " + type.ToString() + " stored as " +
                             std::string(parquet::PhysicalTypeName(column.physical)) +
                             " cannot be written");
    }
    n.leaf = kind;
    return Ok();
  };
  switch (type.kind()) {
    case TypeKind::kBoolean:
      return expect(PhysicalType::kBoolean, LeafKind::kBoolean);
    case TypeKind::kInt8:
      n.min = INT8_MIN;
      n.max = INT8_MAX;
      return expect(PhysicalType::kInt32, LeafKind::kInt32);
    case TypeKind::kInt16:
      n.min = INT16_MIN;
      n.max = INT16_MAX;
      return expect(PhysicalType::kInt32, LeafKind::kInt32);
    case TypeKind::kInt32:
      n.min = INT32_MIN;
      n.max = INT32_MAX;
      return expect(PhysicalType::kInt32, LeafKind::kInt32);
    case TypeKind::kInt64:
      return expect(PhysicalType::kInt64, LeafKind::kInt64);
    case TypeKind::kFloat32:
      return expect(PhysicalType::kFloat, LeafKind::kFloat);
    case TypeKind::kFloat64:
      return expect(PhysicalType::kDouble, LeafKind::kDouble);
    case TypeKind::kDecimal:
      n.precision = type.precision();
      n.scale = type.scale();
      if (column.physical == PhysicalType::kInt32) {
        return expect(PhysicalType::kInt32, LeafKind::kDecimalInt32);
      }
      if (column.physical == PhysicalType::kInt64) {
        return expect(PhysicalType::kInt64, LeafKind::kDecimalInt64);
      }
      n.width = column.type_length;
      if (n.width < 1 || n.width > 16) {
        return InvalidArgument(n.path + ": a decimal of " + std::to_string(n.width) +
                               " bytes cannot be written");
      }
      return expect(PhysicalType::kFixedLenByteArray, LeafKind::kDecimalBytes);
    case TypeKind::kString:
      return expect(PhysicalType::kByteArray, LeafKind::kString);
    case TypeKind::kBinary:
      return expect(PhysicalType::kByteArray, LeafKind::kBinary);
    case TypeKind::kDate:
      return expect(PhysicalType::kInt32, LeafKind::kDate);
    case TypeKind::kTimestamp:
      n.unit = type.unit();
      return expect(PhysicalType::kInt64, LeafKind::kTimestamp);
    case TypeKind::kTimestampNtz:
      n.unit = type.unit();
      return expect(PhysicalType::kInt64, LeafKind::kTimestampNtz);
    case TypeKind::kTime:
      n.unit = type.unit();
      if (n.unit == schema::TimeUnit::kMillis) {
        return expect(PhysicalType::kInt32, LeafKind::kTimeInt32);
      }
      return expect(PhysicalType::kInt64, LeafKind::kTimeInt64);
    case TypeKind::kUuid:
      if (column.type_length != 16) return InvalidArgument(n.path + ": a uuid must be 16 bytes");
      return expect(PhysicalType::kFixedLenByteArray, LeafKind::kUuid);
    case TypeKind::kNull:
    case TypeKind::kStruct:
    case TypeKind::kArray:
    case TypeKind::kMap:
      break;
  }
  return InvalidArgument(n.path + ": " + type.ToString() + " is not a leaf type");
}

// The schema with the rescued column added last, when it is asked for and missing.
Result<schema::SchemaPtr> WithRescuedColumn(schema::SchemaPtr schema, const std::string& rescued) {
  if (rescued.empty()) return schema;
  if (const schema::Field* f = schema->struct_type()->FindField(rescued)) {
    if (f->type()->kind() != TypeKind::kString) {
      return InvalidArgument("the rescued-data column `" + rescued + "` is in the schema as " +
                             f->type()->ToString() + "; it must be a string");
    }
    return schema;
  }
  std::vector<schema::Field> fields = schema->fields();
  fields.emplace_back(rescued, schema::Type::String(), true);
  return schema::Schema::Make(std::move(fields), schema->info());
}

}  // namespace

Result<std::shared_ptr<const ParquetRecordPlan>> ParquetRecordPlan::Compile(
    schema::SchemaPtr schema, const ParquetPlanOptions& options) {
  if (!schema) return InvalidArgument("no schema to write Parquet with");
  SLUICE_ASSIGN_OR_RETURN(schema, WithRescuedColumn(std::move(schema), options.rescued_column));
  SLUICE_ASSIGN_OR_RETURN(auto mapped,
                          parquet::ParquetSchema::FromModel(std::move(schema), options.schema));
  std::shared_ptr<ParquetRecordPlan> plan(new ParquetRecordPlan(std::move(mapped.value)));
  plan->notes_ = std::move(mapped.notes);
  plan->writer_schema_ = parquet::FileSchemaFor(plan->parquet_);
  const auto& nodes = plan->parquet_.nodes();
  plan->nodes_.resize(nodes.size());
  // Parents come before their children in nodes(), so paths are built top-down.
  for (size_t i = 0; i < nodes.size(); ++i) {
    const SchemaNode& sn = nodes[i];
    Node& n = plan->nodes_[i];
    const std::string prefix = n.path.empty() ? "" : n.path + ".";
    for (int32_t k = 0; k < sn.num_children; ++k) {
      Node& c = plan->nodes_[static_cast<size_t>(sn.first_child + k)];
      switch (sn.kind) {
        case SchemaNode::Kind::kStruct:
          c.name = sn.type->fields()[static_cast<size_t>(k)].name();
          c.plain_name = std::none_of(c.name.begin(), c.name.end(), [](char ch) {
            return ch == '"' || ch == '\\' || static_cast<unsigned char>(ch) < 0x20;
          });
          c.path = prefix + schema::QuoteFieldName(c.name);
          if (sn.num_children > kWideStruct) n.by_name.emplace(c.name, static_cast<uint32_t>(k));
          break;
        case SchemaNode::Kind::kList:
          c.path = n.path + "[]";
          break;
        case SchemaNode::Kind::kMap:
          c.path = n.path + (k == 0 ? "{key}" : "{value}");
          break;
        case SchemaNode::Kind::kLeaf:
        case SchemaNode::Kind::kAbsent:
          break;
      }
    }
    if (sn.kind == SchemaNode::Kind::kLeaf) {
      SLUICE_TRY(CompileLeaf(*sn.type, plan->parquet_.leaves()[static_cast<size_t>(sn.leaf)], n));
    }
  }
  return std::shared_ptr<const ParquetRecordPlan>(std::move(plan));
}

// ---------------------------------------------------------------------------------------------
// Shredding one record: a walk of the JSON with simdjson's on-demand parser and the node tree
// at the same time (see schema_map.h for the levels).

struct ParquetRecordSink::Impl {
  using Node = ParquetRecordPlan::Node;

  std::shared_ptr<const ParquetRecordPlan> plan;
  const std::vector<SchemaNode>* snodes = nullptr;
  const std::vector<Node>* pnodes = nullptr;
  std::unique_ptr<parquet::FileWriter> writer;
  parquet::ColumnWriter* cols = nullptr;  // the current row group's, refreshed after EndRow
  od::parser parser;
  std::string buffer;                      // the line with simdjson's padding
  std::string scratch;                     // decoded bytes of one value
  std::vector<std::vector<uint8_t>> seen;  // per depth: which fields of a struct were seen
  int64_t line = 0;
  std::optional<Error> failed;

  const Node& P(const SchemaNode& n) const {
    return (*pnodes)[static_cast<size_t>(&n - snodes->data())];
  }
  const SchemaNode& Child(const SchemaNode& n, int32_t k) const {
    return (*snodes)[static_cast<size_t>(n.first_child + k)];
  }

  Unexpected<Error> Bad(const SchemaNode& n, std::string_view what) const {
    const std::string& path = P(n).path;
    return InvalidArgument("line " + std::to_string(line) + (path.empty() ? "" : ": " + path) +
                           ": " + std::string(what));
  }
  Unexpected<Error> Json(const SchemaNode& n, simdjson::error_code e) const {
    return Bad(n, std::string("malformed JSON: ") + simdjson::error_message(e));
  }
  Unexpected<Error> Unconvertible(const SchemaNode& n, std::string_view text,
                                  std::string_view why) const {
    return Fail(ErrorCode::kInternal,
                "line " + std::to_string(line) + ": " + P(n).path + ": cannot write " +
                    EscapeForMessage(text, 60) + " as " + n.type->ToString() +
                    (why.empty() ? "" : ": " + std::string(why)) + " (the validator accepted it)");
  }

  Status Record(std::string_view text) {
    ++line;
    const size_t padded = text.size() + simdjson::SIMDJSON_PADDING;
    if (buffer.size() < padded) buffer.resize(padded);
    std::memcpy(buffer.data(), text.data(), text.size());
    std::memset(buffer.data() + text.size(), 0, simdjson::SIMDJSON_PADDING);
    const SchemaNode& root = snodes->front();
    od::document doc;
    if (auto e = parser.iterate(buffer.data(), text.size(), buffer.size()).get(doc); e) {
      return Json(root, e);
    }
    od::object obj;
    if (auto e = doc.get_object().get(obj); e) return Json(root, e);
    SLUICE_TRY(Struct(root, obj, 0, 0));
    SLUICE_TRY(writer->EndRow());
    cols = writer->columns();
    return Ok();
  }

  // A key without escapes is taken as it is written, without unescaping it.
  static bool RawKey(od::field& field, const char* limit, std::string_view* key) {
    const char* start = field.key().raw();
    const void* q = std::memchr(start, '"', static_cast<size_t>(limit - start));
    if (q == nullptr) return false;
    std::string_view k(start, static_cast<size_t>(static_cast<const char*>(q) - start));
    if (k.find('\\') != std::string_view::npos) return false;
    *key = k;
    return true;
  }

  Result<std::string_view> Key(od::field& field, const SchemaNode& n) {
    std::string_view key;
    if (RawKey(field, buffer.data() + buffer.size(), &key)) return key;
    if (auto e = field.unescaped_key().get(key); e) return Json(n, e);
    return key;
  }

  // Whether `field`'s key is, as written, the name of child `k` (the one after the last key
  // seen, as records usually come in schema order): its raw bytes compared in place, without
  // looking for the key's end first.
  bool KeyIs(od::field& field, const SchemaNode& n, int32_t k) const {
    if (k >= n.num_children) return false;
    const Node& c = P(Child(n, k));
    if (!c.plain_name) return false;
    const char* raw = field.key().raw();
    const size_t size = c.name.size();
    return static_cast<size_t>(buffer.data() + buffer.size() - raw) > size &&
           std::memcmp(raw, c.name.data(), size) == 0 && raw[size] == '"';
  }

  int32_t FindChild(const SchemaNode& n, std::string_view key, int32_t hint) const {
    if (hint < n.num_children && P(Child(n, hint)).name == key) return hint;
    const Node& pn = P(n);
    if (!pn.by_name.empty()) {
      auto it = pn.by_name.find(key);
      return it == pn.by_name.end() ? -1 : static_cast<int32_t>(it->second);
    }
    for (int32_t k = 0; k < n.num_children; ++k) {
      if (P(Child(n, k)).name == key) return k;
    }
    return -1;
  }

  Status Struct(const SchemaNode& n, od::object& obj, int16_t rep, size_t depth) {
    if (seen.size() <= depth) seen.resize(depth + 1);
    seen[depth].assign(static_cast<size_t>(n.num_children), 0);
    int32_t hint = 0;
    for (auto member : obj) {
      od::field field;
      if (auto e = std::move(member).get(field); e) return Json(n, e);
      int32_t k = hint;
      if (!KeyIs(field, n, hint)) {
        SLUICE_ASSIGN_OR_RETURN(std::string_view key, Key(field, n));
        k = FindChild(n, key, hint);
        if (k < 0) {
          return Bad(n, "`" + EscapeForMessage(key, 60) + "` is not a field of the schema");
        }
      }
      if (seen[depth][static_cast<size_t>(k)]) {
        return Bad(Child(n, k), "the key appears twice in one object");
      }
      seen[depth][static_cast<size_t>(k)] = 1;
      hint = k + 1;
      SLUICE_TRY(Value(Child(n, k), field.value(), rep, depth + 1));
    }
    for (int32_t k = 0; k < n.num_children; ++k) {
      if (!seen[depth][static_cast<size_t>(k)]) SLUICE_TRY(Null(Child(n, k), rep));
    }
    return Ok();
  }

  // A null (or absent) value at `n`: each leaf below it stops at n's parent's level.
  Status Null(const SchemaNode& n, int16_t rep) {
    if (n.kind == SchemaNode::Kind::kAbsent) return Ok();
    if (!n.nullable) return Bad(n, "null in a place that cannot be null");
    const int16_t def = static_cast<int16_t>(n.def_level - 1);
    for (int32_t l = n.first_leaf; l < n.first_leaf + n.num_leaves; ++l)
      cols[l].AppendNull(def, rep);
    return Ok();
  }

  // An empty list or map: present, without entries.
  void Empty(const SchemaNode& n, int16_t rep) {
    for (int32_t l = n.first_leaf; l < n.first_leaf + n.num_leaves; ++l) {
      cols[l].AppendNull(n.def_level, rep);
    }
  }

  Status Value(const SchemaNode& n, od::value v, int16_t rep, size_t depth) {
    if (n.kind == SchemaNode::Kind::kAbsent) return Ok();  // null-typed: nothing is stored
    od::json_type type;
    if (auto e = v.type().get(type); e) return Json(n, e);
    if (type == od::json_type::null) return Null(n, rep);
    switch (n.kind) {
      case SchemaNode::Kind::kLeaf:
        return Leaf(n, v, type, rep);
      case SchemaNode::Kind::kStruct: {
        od::object obj;
        if (auto e = v.get_object().get(obj); e) return Bad(n, "expected an object");
        return Struct(n, obj, rep, depth);
      }
      case SchemaNode::Kind::kList: {
        od::array arr;
        if (auto e = v.get_array().get(arr); e) return Bad(n, "expected an array");
        return List(n, arr, rep, depth);
      }
      case SchemaNode::Kind::kMap: {
        od::object obj;
        if (auto e = v.get_object().get(obj); e) return Bad(n, "expected an object");
        return Map(n, obj, rep, depth);
      }
      case SchemaNode::Kind::kAbsent:
        break;
    }
    return Ok();
  }

  Status List(const SchemaNode& n, od::array& arr, int16_t rep, size_t depth) {
    const SchemaNode& element = Child(n, 0);
    int16_t r = rep;
    bool any = false;
    for (auto item : arr) {
      od::value v;
      if (auto e = std::move(item).get(v); e) return Json(n, e);
      SLUICE_TRY(Value(element, v, r, depth));
      r = static_cast<int16_t>(n.rep_level + 1);
      any = true;
    }
    if (!any) Empty(n, rep);
    return Ok();
  }

  Status Map(const SchemaNode& n, od::object& obj, int16_t rep, size_t depth) {
    const SchemaNode& key_node = Child(n, 0);
    const SchemaNode& value_node = Child(n, 1);
    if (key_node.kind != SchemaNode::Kind::kLeaf) return Bad(n, "map keys must be atomic");
    int16_t r = rep;
    bool any = false;
    for (auto member : obj) {
      od::field field;
      if (auto e = std::move(member).get(field); e) return Json(n, e);
      SLUICE_ASSIGN_OR_RETURN(std::string_view key, Key(field, n));
      SLUICE_TRY(LeafText(key_node, key, r, /*is_key=*/true));
      SLUICE_TRY(Value(value_node, field.value(), r, depth));
      r = static_cast<int16_t>(n.rep_level + 1);
      any = true;
    }
    if (!any) Empty(n, rep);
    return Ok();
  }

  Status Leaf(const SchemaNode& n, od::value& v, od::json_type type, int16_t rep) {
    switch (type) {
      case od::json_type::string: {
        std::string_view s;
        if (auto e = v.get_string().get(s); e) return Json(n, e);
        return LeafText(n, s, rep, /*is_key=*/false);
      }
      case od::json_type::number: {
        std::string_view token = v.raw_json_token();
        while (!token.empty() && static_cast<unsigned char>(token.back()) <= ' ') {
          token.remove_suffix(1);
        }
        return LeafNumber(n, token, rep);
      }
      case od::json_type::boolean: {
        bool b = false;
        if (auto e = v.get_bool().get(b); e) return Json(n, e);
        if (P(n).leaf != LeafKind::kBoolean) return Bad(n, "a boolean does not fit");
        cols[n.leaf].AppendBool(b, rep);
        return Ok();
      }
      case od::json_type::object:
      case od::json_type::array:
        return Bad(n, "expected a single value, not an object or array");
      case od::json_type::null:
        break;
    }
    return Null(n, rep);
  }

  Status LeafNumber(const SchemaNode& n, std::string_view token, int16_t rep) {
    const Node& p = P(n);
    parquet::ColumnWriter& col = cols[n.leaf];
    switch (p.leaf) {
      case LeafKind::kInt32:
      case LeafKind::kInt64:
      case LeafKind::kTimestamp: {
        int64_t v = 0;
        auto [end, ec] = std::from_chars(token.data(), token.data() + token.size(), v);
        if (ec != std::errc() || end != token.data() + token.size()) {
          return Unconvertible(n, token, "not an integer in range");
        }
        if (p.leaf == LeafKind::kInt64) {
          col.AppendInt64(v, rep);
        } else if (p.leaf == LeafKind::kInt32) {
          if (v < p.min || v > p.max) return Unconvertible(n, token, "out of range");
          col.AppendInt32(static_cast<int32_t>(v), rep);
        } else {
          int64_t t = 0;
          if (!internal::TimestampFromSeconds(v, p.unit, &t)) {
            return Unconvertible(n, token, "out of range");
          }
          col.AppendInt64(t, rep);
        }
        return Ok();
      }
      case LeafKind::kFloat:
      case LeafKind::kDouble:
      case LeafKind::kDecimalInt32:
      case LeafKind::kDecimalInt64:
      case LeafKind::kDecimalBytes:
        return LeafText(n, token, rep, /*is_key=*/false);
      case LeafKind::kString:
        // Spark keeps a number read into a string column as its text.
        col.AppendBytes(token, rep);
        return Ok();
      case LeafKind::kNone:
      case LeafKind::kBoolean:
      case LeafKind::kBinary:
      case LeafKind::kDate:
      case LeafKind::kTimestampNtz:
      case LeafKind::kTimeInt32:
      case LeafKind::kTimeInt64:
      case LeafKind::kUuid:
        break;
    }
    return Bad(n, "a number does not fit");
  }

  // A value given as text: a JSON string's content, a number token of a float or decimal, or a
  // map key (`is_key`: keys of any type are strings in JSON).
  Status LeafText(const SchemaNode& n, std::string_view s, int16_t rep, bool is_key) {
    const Node& p = P(n);
    parquet::ColumnWriter& col = cols[n.leaf];
    switch (p.leaf) {
      case LeafKind::kString:
        col.AppendBytes(s, rep);
        return Ok();
      case LeafKind::kFloat: {
        float f = 0;
        if (!internal::FloatFromText(s, &f)) return Unconvertible(n, s, "");
        col.AppendFloat(f, rep);
        return Ok();
      }
      case LeafKind::kDouble: {
        double d = 0;
        if (!internal::DoubleFromText(s, &d)) return Unconvertible(n, s, "");
        col.AppendDouble(d, rep);
        return Ok();
      }
      case LeafKind::kDecimalInt32:
      case LeafKind::kDecimalInt64:
      case LeafKind::kDecimalBytes: {
        internal::Int128 v = 0;
        if (!internal::DecimalFromText(s, p.precision, p.scale, &v)) {
          return Unconvertible(n, s, "not a decimal of that precision");
        }
        if (p.leaf == LeafKind::kDecimalInt32) {
          col.AppendInt32(static_cast<int32_t>(v), rep);
        } else if (p.leaf == LeafKind::kDecimalInt64) {
          col.AppendInt64(static_cast<int64_t>(v), rep);
        } else {
          char bytes[16];
          internal::DecimalToBytes(v, p.width, bytes);
          col.AppendBytes(std::string_view(bytes, static_cast<size_t>(p.width)), rep);
        }
        return Ok();
      }
      case LeafKind::kBinary:
        if (!internal::Base64FromText(s, scratch)) return Unconvertible(n, s, "not base64");
        col.AppendBytes(scratch, rep);
        return Ok();
      case LeafKind::kDate: {
        int32_t days = 0;
        if (!internal::DateFromText(s, &days)) return Unconvertible(n, s, "");
        col.AppendInt32(days, rep);
        return Ok();
      }
      case LeafKind::kTimestamp:
      case LeafKind::kTimestampNtz: {
        int64_t t = 0;
        const char* why = "";
        if (!internal::TimestampFromText(s, p.unit, p.leaf == LeafKind::kTimestampNtz, &t, &why)) {
          return Unconvertible(n, s, why);
        }
        col.AppendInt64(t, rep);
        return Ok();
      }
      case LeafKind::kTimeInt32:
      case LeafKind::kTimeInt64: {
        int64_t t = 0;
        if (!internal::TimeFromText(s, p.unit, &t)) return Unconvertible(n, s, "");
        if (p.leaf == LeafKind::kTimeInt32) {
          col.AppendInt32(static_cast<int32_t>(t), rep);
        } else {
          col.AppendInt64(t, rep);
        }
        return Ok();
      }
      case LeafKind::kUuid: {
        char bytes[16];
        if (!internal::UuidFromText(s, bytes)) return Unconvertible(n, s, "");
        col.AppendBytes(std::string_view(bytes, 16), rep);
        return Ok();
      }
      case LeafKind::kBoolean:
        if (is_key && (s == "true" || s == "false")) {
          col.AppendBool(s == "true", rep);
          return Ok();
        }
        break;
      case LeafKind::kInt32:
      case LeafKind::kInt64:
        if (is_key) return LeafNumber(n, s, rep);
        break;
      case LeafKind::kNone:
        break;
    }
    return Bad(n, "a string does not fit");
  }
};

ParquetRecordSink::ParquetRecordSink(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
ParquetRecordSink::~ParquetRecordSink() = default;

namespace {

template <class SinkArg>
Result<std::unique_ptr<parquet::FileWriter>> OpenWriter(const ParquetRecordPlan& plan,
                                                        SinkArg&& sink,
                                                        parquet::WriterOptions options) {
  return parquet::FileWriter::Open(plan.writer_schema(), std::forward<SinkArg>(sink),
                                   std::move(options));
}

}  // namespace

Result<std::unique_ptr<ParquetRecordSink>> ParquetRecordSink::Open(
    std::shared_ptr<const ParquetRecordPlan> plan, ByteSink& sink, parquet::WriterOptions options) {
  if (!plan) return InvalidArgument("no plan to write Parquet with");
  auto impl = std::make_unique<Impl>();
  SLUICE_ASSIGN_OR_RETURN(impl->writer, OpenWriter(*plan, sink, std::move(options)));
  impl->plan = std::move(plan);
  impl->snodes = &impl->plan->parquet_schema().nodes();
  impl->pnodes = &impl->plan->nodes();
  impl->cols = impl->writer->columns();
  return std::unique_ptr<ParquetRecordSink>(new ParquetRecordSink(std::move(impl)));
}

Result<std::unique_ptr<ParquetRecordSink>> ParquetRecordSink::Open(
    std::shared_ptr<const ParquetRecordPlan> plan, std::unique_ptr<WritableFile> file,
    parquet::WriterOptions options) {
  if (!plan) return InvalidArgument("no plan to write Parquet with");
  auto impl = std::make_unique<Impl>();
  SLUICE_ASSIGN_OR_RETURN(impl->writer, OpenWriter(*plan, std::move(file), std::move(options)));
  impl->plan = std::move(plan);
  impl->snodes = &impl->plan->parquet_schema().nodes();
  impl->pnodes = &impl->plan->nodes();
  impl->cols = impl->writer->columns();
  return std::unique_ptr<ParquetRecordSink>(new ParquetRecordSink(std::move(impl)));
}

Status ParquetRecordSink::Append(std::string_view json_line) {
  Impl& s = *impl_;
  if (s.failed) return Fail(*s.failed);
  while (!json_line.empty() && (json_line.back() == '\n' || json_line.back() == '\r')) {
    json_line.remove_suffix(1);
  }
  Status st = s.Record(json_line);
  if (!st) s.failed = st.error();
  return st;
}

Status ParquetRecordSink::AppendLines(std::string_view lines) {
  while (!lines.empty()) {
    const size_t nl = lines.find('\n');
    const std::string_view line = lines.substr(0, nl);
    lines.remove_prefix(nl == std::string_view::npos ? lines.size() : nl + 1);
    if (line.empty() || (line.size() == 1 && line[0] == '\r')) continue;
    SLUICE_TRY(Append(line));
  }
  return Ok();
}

Status ParquetRecordSink::Close() {
  Impl& s = *impl_;
  if (s.failed) return Fail(*s.failed);
  Status st = s.writer->Close();
  if (!st) s.failed = st.error();
  return st;
}

int64_t ParquetRecordSink::num_rows() const { return impl_->writer->num_rows(); }
int64_t ParquetRecordSink::bytes_written() const { return impl_->writer->bytes_written(); }
const parquet::FileMetaData& ParquetRecordSink::metadata() const {
  return impl_->writer->metadata();
}

}  // namespace sluice::data
