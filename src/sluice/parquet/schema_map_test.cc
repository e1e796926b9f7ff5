#include "sluice/parquet/schema_map.h"

#include <gtest/gtest.h>

#include <map>

#include "sluice/parquet/schema_text.h"
#include "sluice/schema/scaling_testing.h"

namespace sluice::parquet {
namespace {

using schema::Field;
using schema::Schema;
using schema::SchemaPtr;
using schema::TimeUnit;
using schema::Type;
using schema::TypePtr;

TypePtr Dec(int p, int s) { return *Type::Decimal(p, s); }
TypePtr Arr(TypePtr e, bool contains_null = true) {
  return *Type::Array(std::move(e), contains_null);
}
TypePtr MapOf(TypePtr k, TypePtr v, bool value_null = true) {
  return *Type::Map(std::move(k), std::move(v), value_null);
}
TypePtr StructOf(std::vector<Field> fields) { return *Type::Struct(std::move(fields)); }
SchemaPtr Make(std::vector<Field> fields) { return *Schema::Make(std::move(fields)); }

Field WithMetadata(Field f, std::string key, JsonValue value) {
  JsonValue m = JsonValue::Object();
  m.Set(std::move(key), std::move(value));
  f.set_metadata(std::move(m));
  return f;
}

schema::Converted<ParquetSchema> Write(const SchemaPtr& s, const WriteSchemaOptions& o = {}) {
  auto r = ParquetSchema::FromModel(s, o);
  EXPECT_TRUE(r.has_value()) << r.error().ToString();
  return std::move(*r);
}

schema::Converted<ParquetSchema> Read(std::vector<SchemaElement> elements) {
  auto r = ParquetSchema::FromElements(std::move(elements));
  EXPECT_TRUE(r.has_value()) << r.error().ToString();
  return std::move(*r);
}

SchemaPtr EveryPrimitive(bool nullable) {
  return Make({
      Field("bool", Type::Boolean(), nullable),
      Field("i8", Type::Int8(), nullable),
      Field("i16", Type::Int16(), nullable),
      Field("i32", Type::Int32(), nullable),
      Field("i64", Type::Int64(), nullable),
      Field("f32", Type::Float32(), nullable),
      Field("f64", Type::Float64(), nullable),
      Field("d9", Dec(9, 2), nullable),
      Field("d18", Dec(18, 0), nullable),
      Field("d19", Dec(19, 4), nullable),
      Field("d38", Dec(38, 38), nullable),
      Field("s", Type::String(), nullable),
      Field("bin", Type::Binary(), nullable),
      Field("date", Type::Date(), nullable),
      Field("ts", Type::Timestamp(), nullable),
      Field("ts3", Type::Timestamp(TimeUnit::kMillis), nullable),
      Field("ts9", Type::Timestamp(TimeUnit::kNanos), nullable),
      Field("ntz", Type::TimestampNtz(), nullable),
      Field("ntz3", Type::TimestampNtz(TimeUnit::kMillis), nullable),
      Field("t3", Type::Time(TimeUnit::kMillis), nullable),
      Field("t6", Type::Time(), nullable),
      Field("t9", Type::Time(TimeUnit::kNanos), nullable),
      Field("uuid", Type::Uuid(), nullable),
  });
}

TEST(SchemaMapWriteTest, WritesEveryPrimitiveAsSparkDoes) {
  auto written = Write(EveryPrimitive(true));
  EXPECT_TRUE(written.notes.empty());
  EXPECT_EQ(MessageTypeText(written.value.elements()),
            "message spark_schema {\n"
            "  optional boolean bool;\n"
            "  optional int32 i8 (INTEGER(8,true));\n"
            "  optional int32 i16 (INTEGER(16,true));\n"
            "  optional int32 i32;\n"
            "  optional int64 i64;\n"
            "  optional float f32;\n"
            "  optional double f64;\n"
            "  optional int32 d9 (DECIMAL(9,2));\n"
            "  optional int64 d18 (DECIMAL(18,0));\n"
            "  optional fixed_len_byte_array(9) d19 (DECIMAL(19,4));\n"
            "  optional fixed_len_byte_array(16) d38 (DECIMAL(38,38));\n"
            "  optional binary s (STRING);\n"
            "  optional binary bin;\n"
            "  optional int32 date (DATE);\n"
            "  optional int64 ts (TIMESTAMP(MICROS,true));\n"
            "  optional int64 ts3 (TIMESTAMP(MILLIS,true));\n"
            "  optional int64 ts9 (TIMESTAMP(NANOS,true));\n"
            "  optional int64 ntz (TIMESTAMP(MICROS,false));\n"
            "  optional int64 ntz3 (TIMESTAMP(MILLIS,false));\n"
            "  optional int32 t3 (TIME(MILLIS,false));\n"
            "  optional int64 t6 (TIME(MICROS,false));\n"
            "  optional int64 t9 (TIME(NANOS,false));\n"
            "  optional fixed_len_byte_array(16) uuid (UUID);\n"
            "}\n");
}

TEST(SchemaMapWriteTest, WritesTheLegacyConvertedTypeBesideEachLogicalType) {
  auto written = Write(EveryPrimitive(false));
  std::map<std::string, std::optional<ConvertedType>> converted;
  for (const SchemaElement& e : written.value.elements()) converted[e.name] = e.converted_type;
  EXPECT_EQ(converted["i8"], ConvertedType::kInt8);
  EXPECT_EQ(converted["i16"], ConvertedType::kInt16);
  EXPECT_EQ(converted["i32"], std::nullopt);
  EXPECT_EQ(converted["d19"], ConvertedType::kDecimal);
  EXPECT_EQ(converted["s"], ConvertedType::kUtf8);
  EXPECT_EQ(converted["bin"], std::nullopt);
  EXPECT_EQ(converted["date"], ConvertedType::kDate);
  EXPECT_EQ(converted["ts"], ConvertedType::kTimestampMicros);
  EXPECT_EQ(converted["ts3"], ConvertedType::kTimestampMillis);
  EXPECT_EQ(converted["ts9"], std::nullopt);
  // Spark writes TIMESTAMP_NTZ without a converted type.
  EXPECT_EQ(converted["ntz"], std::nullopt);
  EXPECT_EQ(converted["ntz3"], std::nullopt);
  EXPECT_EQ(converted["t3"], ConvertedType::kTimeMillis);
  EXPECT_EQ(converted["t6"], ConvertedType::kTimeMicros);
  EXPECT_EQ(converted["t9"], std::nullopt);
  EXPECT_EQ(converted["uuid"], std::nullopt);
  const SchemaElement& d19 = written.value.elements()[10];
  ASSERT_EQ(d19.name, "d19");
  EXPECT_EQ(d19.precision, 19);
  EXPECT_EQ(d19.scale, 4);
  EXPECT_EQ(d19.type_length, 9);
  const SchemaElement& root = written.value.elements()[0];
  EXPECT_EQ(root.name, "spark_schema");
  EXPECT_FALSE(root.repetition.has_value());
  EXPECT_EQ(root.num_children, 23);
  EXPECT_EQ(written.value.elements()[1].repetition, Repetition::kRequired);
}

TEST(SchemaMapWriteTest, SizesFixedDecimalsToTheFewestBytes) {
  // Spark's minBytesForPrecision: 19-21 digits in 9 bytes, ..., 37-38 in 16.
  const std::vector<std::pair<int, int32_t>> cases = {{19, 9},  {21, 9},  {22, 10}, {26, 11},
                                                      {27, 12}, {31, 13}, {32, 14}, {35, 15},
                                                      {36, 16}, {38, 16}};
  for (const auto& [precision, bytes] : cases) {
    auto written = Write(Make({Field("d", Dec(precision, 0))}));
    EXPECT_EQ(written.value.elements()[1].type_length, bytes) << precision;
    EXPECT_EQ(written.value.leaves()[0].type_length, bytes) << precision;
  }
}

TEST(SchemaMapWriteTest, EveryTypeReadsBackAsItself) {
  for (bool nullable : {true, false}) {
    SchemaPtr model = EveryPrimitive(nullable);
    auto written = Write(model);
    auto read = Read(written.value.elements());
    EXPECT_TRUE(read.notes.empty());
    EXPECT_TRUE(read.value.model()->Equals(*model))
        << read.value.model()->struct_type()->ToString();
    ASSERT_EQ(read.value.leaves().size(), written.value.leaves().size());
    for (size_t i = 0; i < read.value.leaves().size(); ++i) {
      const ColumnDescriptor& a = written.value.leaves()[i];
      const ColumnDescriptor& b = read.value.leaves()[i];
      EXPECT_EQ(a.path, b.path);
      EXPECT_EQ(a.physical, b.physical);
      EXPECT_EQ(a.type_length, b.type_length);
      EXPECT_EQ(a.max_def, b.max_def);
      EXPECT_EQ(a.max_rep, b.max_rep);
      EXPECT_TRUE(a.type->Equals(*b.type)) << a.type->ToString();
      EXPECT_EQ(a.sort_order, b.sort_order) << a.type->ToString();
      EXPECT_FALSE(b.is_unsigned);
    }
  }
}

SchemaPtr Nested() {
  // Five levels: struct > array > map > struct > array.
  TypePtr inner =
      StructOf({Field("x", Type::Int64(), false), Field("ys", Arr(Type::String(), true), true)});
  TypePtr by_key = MapOf(Type::String(), inner, true);
  TypePtr outer =
      StructOf({Field("id", Type::Int32(), false), Field("maps", Arr(by_key, false), true)});
  return Make({Field("top", outer, true), Field("flat", Dec(25, 3), false)});
}

TEST(SchemaMapWriteTest, WritesNestedTypesInTheThreeLevelForms) {
  auto written = Write(Nested());
  EXPECT_EQ(MessageTypeText(written.value.elements()),
            "message spark_schema {\n"
            "  optional group top {\n"
            "    required int32 id;\n"
            "    optional group maps (LIST) {\n"
            "      repeated group list {\n"
            "        required group element (MAP) {\n"
            "          repeated group key_value {\n"
            "            required binary key (STRING);\n"
            "            optional group value {\n"
            "              required int64 x;\n"
            "              optional group ys (LIST) {\n"
            "                repeated group list {\n"
            "                  optional binary element (STRING);\n"
            "                }\n"
            "              }\n"
            "            }\n"
            "          }\n"
            "        }\n"
            "      }\n"
            "    }\n"
            "  }\n"
            "  required fixed_len_byte_array(11) flat (DECIMAL(25,3));\n"
            "}\n");
  const auto& leaves = written.value.leaves();
  ASSERT_EQ(leaves.size(), 5u);
  auto path = [](const ColumnDescriptor& d) {
    std::string out;
    for (const std::string& p : d.path) out += (out.empty() ? "" : ".") + p;
    return out;
  };
  EXPECT_EQ(path(leaves[0]), "top.id");
  EXPECT_EQ(path(leaves[1]), "top.maps.list.element.key_value.key");
  EXPECT_EQ(path(leaves[2]), "top.maps.list.element.key_value.value.x");
  EXPECT_EQ(path(leaves[3]), "top.maps.list.element.key_value.value.ys.list.element");
  EXPECT_EQ(path(leaves[4]), "flat");
  EXPECT_EQ(leaves[3].field_path.ToString(), "top.maps[]{value}.ys[]");
  // Definition levels count optional and repeated elements on the path; repetition levels
  // count the repeated ones.
  EXPECT_EQ(leaves[0].max_def, 1);
  EXPECT_EQ(leaves[0].max_rep, 0);
  EXPECT_EQ(leaves[1].max_def, 4);  // top?, maps?, list*, key_value*
  EXPECT_EQ(leaves[1].max_rep, 2);
  EXPECT_EQ(leaves[2].max_def, 5);  // ... value?
  EXPECT_EQ(leaves[2].max_rep, 2);
  EXPECT_EQ(leaves[3].max_def, 8);  // ... value?, ys?, list*, element?
  EXPECT_EQ(leaves[3].max_rep, 3);
  EXPECT_EQ(leaves[4].max_def, 0);
  EXPECT_EQ(leaves[4].max_rep, 0);

  auto read = Read(written.value.elements());
  EXPECT_TRUE(read.value.model()->Equals(*Nested()));
}

// The node tree of the nested schema, checked node by node: what the page writer and reader
// walk.
void ExpectNestedNodes(const ParquetSchema& ps) {
  using K = SchemaNode::Kind;
  const SchemaNode& root = ps.root();
  EXPECT_EQ(root.kind, K::kStruct);
  EXPECT_EQ(root.type, ps.model()->struct_type().get());
  EXPECT_EQ(root.num_leaves, 5);
  ASSERT_EQ(root.num_children, 2);
  const SchemaNode& top = ps.children(root)[0];
  EXPECT_EQ(top.kind, K::kStruct);
  EXPECT_TRUE(top.nullable);
  EXPECT_EQ(top.def_level, 1);
  EXPECT_EQ(top.rep_level, 0);
  EXPECT_EQ(top.first_leaf, 0);
  EXPECT_EQ(top.num_leaves, 4);
  EXPECT_EQ(ps.elements()[top.element].name, "top");
  ASSERT_EQ(top.num_children, 2);
  const SchemaNode& id = ps.children(top)[0];
  EXPECT_EQ(id.kind, K::kLeaf);
  EXPECT_FALSE(id.nullable);
  EXPECT_EQ(id.def_level, 1);
  EXPECT_EQ(id.leaf, 0);
  EXPECT_EQ(ps.leaves()[0].node, ps.IndexOf(id));
  const SchemaNode& maps = ps.children(top)[1];
  EXPECT_EQ(maps.kind, K::kList);
  EXPECT_EQ(maps.def_level, 2);  // present, perhaps empty
  EXPECT_EQ(maps.rep_level, 0);
  EXPECT_EQ(ps.elements()[maps.element].name, "maps");
  ASSERT_EQ(maps.num_children, 1);
  const SchemaNode& map = ps.children(maps)[0];
  EXPECT_EQ(map.kind, K::kMap);
  EXPECT_FALSE(map.nullable);
  EXPECT_EQ(map.def_level, 3);  // the list entry's level: elements are never null
  EXPECT_EQ(map.rep_level, 1);
  EXPECT_TRUE(map.type->is_map());
  ASSERT_EQ(map.num_children, 2);
  const SchemaNode& key = ps.children(map)[0];
  const SchemaNode& value = ps.children(map)[1];
  EXPECT_EQ(key.kind, K::kLeaf);
  EXPECT_EQ(key.def_level, 4);
  EXPECT_EQ(key.rep_level, 2);
  EXPECT_EQ(value.kind, K::kStruct);
  EXPECT_TRUE(value.nullable);
  EXPECT_EQ(value.def_level, 5);
  EXPECT_EQ(value.rep_level, 2);
  EXPECT_EQ(value.first_leaf, 2);
  EXPECT_EQ(value.num_leaves, 2);
  const SchemaNode& ys = ps.children(value)[1];
  EXPECT_EQ(ys.kind, K::kList);
  EXPECT_EQ(ys.def_level, 6);
  EXPECT_EQ(ys.rep_level, 2);
  const SchemaNode& y = ps.children(ys)[0];
  EXPECT_EQ(y.kind, K::kLeaf);
  EXPECT_TRUE(y.nullable);
  EXPECT_EQ(y.def_level, 8);
  EXPECT_EQ(y.rep_level, 3);
  EXPECT_EQ(y.leaf, 3);
  EXPECT_EQ(ps.leaves()[3].max_def, y.def_level);
  const SchemaNode& flat = ps.children(root)[1];
  EXPECT_EQ(flat.kind, K::kLeaf);
  EXPECT_EQ(flat.leaf, 4);
  EXPECT_EQ(flat.type->ToString(), "decimal(25,3)");
}

TEST(SchemaMapWriteTest, NodeTreeMirrorsTheModelWithItsLevels) {
  auto written = Write(Nested());
  ExpectNestedNodes(written.value);
}

TEST(SchemaMapReadTest, NodeTreeOfAReadSchemaIsTheSameAsTheWrittenOne) {
  auto written = Write(Nested());
  auto read = Read(written.value.elements());
  ExpectNestedNodes(read.value);
}

TEST(SchemaMapWriteTest, LeavesOutNullColumnsWithANote) {
  SchemaPtr model =
      Make({Field("a", Type::Int32()), Field("v", Type::Null()),
            Field("s", StructOf({Field("n", Type::Null()), Field("b", Type::Binary())}))});
  auto written = Write(model);
  EXPECT_EQ(MessageTypeText(written.value.elements()),
            "message spark_schema {\n"
            "  optional int32 a;\n"
            "  optional group s {\n"
            "    optional binary b;\n"
            "  }\n"
            "}\n");
  ASSERT_EQ(written.notes.size(), 2u);
  EXPECT_EQ(written.notes[0].path.ToString(), "v");
  EXPECT_EQ(written.notes[1].path.ToString(), "s.n");
  // The node tree still has a node per field, so a record's fields line up with it.
  const ParquetSchema& ps = written.value;
  ASSERT_EQ(ps.root().num_children, 3);
  const SchemaNode& v = ps.children(ps.root())[1];
  EXPECT_EQ(v.kind, SchemaNode::Kind::kAbsent);
  EXPECT_EQ(v.element, -1);
  EXPECT_EQ(v.num_leaves, 0);
  const SchemaNode& s = ps.children(ps.root())[2];
  ASSERT_EQ(s.num_children, 2);
  EXPECT_EQ(ps.children(s)[0].kind, SchemaNode::Kind::kAbsent);
  EXPECT_EQ(ps.children(s)[1].leaf, 1);
}

TEST(SchemaMapWriteTest, RejectsWhatParquetCannotHold) {
  auto only_null = ParquetSchema::FromModel(Make({Field("v", Type::Null())}));
  ASSERT_FALSE(only_null.has_value());
  EXPECT_EQ(only_null.error().code(), ErrorCode::kInvalidArgument);
  EXPECT_NE(only_null.error().message().find("no columns"), std::string::npos);

  auto empty_struct = ParquetSchema::FromModel(
      Make({Field("a", Type::Int32()), Field("s", StructOf({Field("n", Type::Null())}))}));
  ASSERT_FALSE(empty_struct.has_value());
  EXPECT_NE(empty_struct.error().message().find("s: a struct without columns"), std::string::npos)
      << empty_struct.error().message();

  auto null_array = ParquetSchema::FromModel(Make({Field("xs", Arr(Type::Null()))}));
  ASSERT_FALSE(null_array.has_value());
  EXPECT_NE(null_array.error().message().find("xs: an array of null"), std::string::npos)
      << null_array.error().message();

  auto no_columns = ParquetSchema::FromModel(Make({}));
  EXPECT_FALSE(no_columns.has_value());
}

TEST(SchemaMapWriteTest, WritesAMapOfNullAsKeysOnly) {
  SchemaPtr model = Make({Field("set", MapOf(Type::String(), Type::Null()))});
  auto written = Write(model);
  EXPECT_EQ(MessageTypeText(written.value.elements()),
            "message spark_schema {\n"
            "  optional group set (MAP) {\n"
            "    repeated group key_value {\n"
            "      required binary key (STRING);\n"
            "    }\n"
            "  }\n"
            "}\n");
  const SchemaNode& map = written.value.children(written.value.root())[0];
  EXPECT_EQ(written.value.children(map)[1].kind, SchemaNode::Kind::kAbsent);
  auto read = Read(written.value.elements());
  EXPECT_TRUE(read.value.model()->Equals(*model)) << read.value.model()->struct_type()->ToString();
  EXPECT_EQ(read.value.children(read.value.children(read.value.root())[0])[1].kind,
            SchemaNode::Kind::kAbsent);
}

TEST(SchemaMapWriteTest, NotesCharAndVarcharLengths) {
  auto written = Write(Make({Field("c", *Type::Char(3)), Field("v", *Type::Varchar(10))}));
  ASSERT_EQ(written.notes.size(), 2u);
  EXPECT_EQ(written.notes[0].ToString(),
            "c: char(3) is written as a Parquet STRING, without its length");
  EXPECT_EQ(written.value.elements()[2].logical_type->kind, LogicalType::Kind::kString);
}

TEST(SchemaMapWriteTest, WritesFieldIdsFromSparkOrDeltaMetadata) {
  SchemaPtr model = Make({
      WithMetadata(Field("a", Type::Int32()), "parquet.field.id", JsonValue::Int(7)),
      WithMetadata(
          Field("b", StructOf({WithMetadata(Field("c", Type::String()), "delta.columnMapping.id",
                                            JsonValue::Int(9))})),
          "delta.columnMapping.id", JsonValue::Int(8)),
      Field("d", Type::Int64()),
  });
  auto written = Write(model);
  EXPECT_EQ(MessageTypeText(written.value.elements()),
            "message spark_schema {\n"
            "  optional int32 a = 7;\n"
            "  optional group b = 8 {\n"
            "    optional binary c (STRING) = 9;\n"
            "  }\n"
            "  optional int64 d;\n"
            "}\n");
  // Read back, each id is Spark's parquet.field.id.
  auto read = Read(written.value.elements());
  const auto& fields = read.value.model()->fields();
  EXPECT_EQ(fields[0].metadata().Find("parquet.field.id")->as_int64(), 7);
  EXPECT_EQ(fields[1].metadata().Find("parquet.field.id")->as_int64(), 8);
  EXPECT_EQ(fields[1].type()->fields()[0].metadata().Find("parquet.field.id")->as_int64(), 9);
  EXPECT_EQ(fields[2].metadata().Find("parquet.field.id"), nullptr);
}

TEST(SchemaMapWriteTest, RejectsAFieldIdThatIsNotAnInt32) {
  for (JsonValue bad :
       {JsonValue::String("7"), JsonValue::Double(1.5), JsonValue::Int(int64_t{1} << 40)}) {
    auto r = ParquetSchema::FromModel(
        Make({WithMetadata(Field("a", Type::Int32()), "parquet.field.id", bad)}));
    ASSERT_FALSE(r.has_value());
    EXPECT_NE(r.error().message().find("a: parquet.field.id must be a 32-bit integer"),
              std::string::npos)
        << r.error().message();
  }
}

TEST(SchemaMapWriteTest, UsesColumnMappingPhysicalNamesWhenAsked) {
  auto field = [](std::string name, TypePtr type, std::string physical, int id) {
    Field f(std::move(name), std::move(type));
    JsonValue m = JsonValue::Object();
    m.Set("delta.columnMapping.id", JsonValue::Int(id));
    m.Set("delta.columnMapping.physicalName", JsonValue::String(std::move(physical)));
    f.set_metadata(std::move(m));
    return f;
  };
  SchemaPtr model =
      Make({field("user id", Type::Int64(), "col-5f2a", 1),
            field("s", StructOf({field("x", Type::Int32(), "col-77", 3)}), "col-9b", 2)});
  WriteSchemaOptions options;
  options.use_physical_names = true;
  auto written = Write(model, options);
  EXPECT_EQ(MessageTypeText(written.value.elements()),
            "message spark_schema {\n"
            "  optional int64 col-5f2a = 1;\n"
            "  optional group col-9b = 2 {\n"
            "    optional int32 col-77 = 3;\n"
            "  }\n"
            "}\n");
  EXPECT_EQ(written.value.leaves()[1].path, (std::vector<std::string>{"col-9b", "col-77"}));
  // Messages keep speaking of the logical names.
  EXPECT_EQ(written.value.leaves()[1].field_path.ToString(), "s.x");

  auto logical = Write(model);
  EXPECT_EQ(logical.value.elements()[1].name, "user id");

  auto missing = ParquetSchema::FromModel(Make({Field("a", Type::Int32())}), options);
  ASSERT_FALSE(missing.has_value());
  EXPECT_NE(missing.error().message().find("a: no delta.columnMapping.physicalName"),
            std::string::npos);
}

TEST(SchemaMapWriteTest, RootNameIsAnOption) {
  WriteSchemaOptions options;
  options.root_name = "schema";
  auto written = Write(Make({Field("a", Type::Int32())}), options);
  EXPECT_EQ(written.value.elements()[0].name, "schema");
}

// A record shredder written from the recipe at the top of schema_map.h, over JSON records
// (objects for structs, arrays for lists), so that the node tree is checked by what the page
// writer will do with it.
struct Level {
  int r;
  int d;
  std::string value;  // "" for none
  bool operator==(const Level&) const = default;
};
using Columns = std::vector<std::vector<Level>>;

void EmitEmpty(const SchemaNode& node, int r, int d, Columns& out) {
  for (int32_t i = node.first_leaf; i < node.first_leaf + node.num_leaves; ++i) {
    out[i].push_back(Level{r, d, ""});
  }
}

void Shred(const ParquetSchema& ps, const SchemaNode& node, const JsonValue& v, int r,
           Columns& out);

// A child's value: null (or missing) writes def_level - 1, but a list that cannot be null
// (an unannotated repeated field) is empty instead.
void ShredChild(const ParquetSchema& ps, const SchemaNode& c, const JsonValue* v, int r,
                Columns& out) {
  if (c.kind == SchemaNode::Kind::kAbsent) return;
  if (v == nullptr || v->is_null()) {
    if (c.nullable) return EmitEmpty(c, r, c.def_level - 1, out);
    ASSERT_EQ(c.kind, SchemaNode::Kind::kList) << "null for a value that cannot be null";
    return EmitEmpty(c, r, c.def_level, out);
  }
  Shred(ps, c, *v, r, out);
}

void Shred(const ParquetSchema& ps, const SchemaNode& node, const JsonValue& v, int r,
           Columns& out) {
  switch (node.kind) {
    case SchemaNode::Kind::kLeaf:
      out[node.leaf].push_back(
          Level{r, node.def_level, v.is_string() ? v.as_string() : v.number_text()});
      return;
    case SchemaNode::Kind::kStruct:
      for (int32_t j = 0; j < node.num_children; ++j) {
        const SchemaNode& c = ps.children(node)[j];
        ShredChild(ps, c, v.Find(node.type->fields()[j].name()), r, out);
      }
      return;
    case SchemaNode::Kind::kList: {
      if (v.items().empty()) return EmitEmpty(node, r, node.def_level, out);
      const SchemaNode& element = ps.children(node)[0];
      for (size_t i = 0; i < v.items().size(); ++i) {
        ShredChild(ps, element, &v.items()[i], i == 0 ? r : node.rep_level + 1, out);
      }
      return;
    }
    case SchemaNode::Kind::kMap:
    case SchemaNode::Kind::kAbsent:
      FAIL() << "not used here";
  }
}

Columns ShredAll(const ParquetSchema& ps, const std::vector<std::string>& records) {
  Columns out(ps.leaves().size());
  for (const std::string& text : records) {
    auto record = ParseJson(text);
    EXPECT_TRUE(record.has_value()) << text;
    Shred(ps, ps.root(), *record, 0, out);
  }
  return out;
}

TEST(SchemaMapNodeTreeTest, ShredsTheDremelPapersExample) {
  auto elements = ParseMessageType(
      "message Document {\n"
      "  required int64 DocId;\n"
      "  optional group Links {\n"
      "    repeated int64 Backward;\n"
      "    repeated int64 Forward;\n"
      "  }\n"
      "  repeated group Name {\n"
      "    repeated group Language {\n"
      "      required binary Code;\n"
      "      optional binary Country;\n"
      "    }\n"
      "    optional binary Url;\n"
      "  }\n"
      "}\n");
  ASSERT_TRUE(elements.has_value()) << elements.error().ToString();
  auto read = Read(*elements);
  const Columns columns =
      ShredAll(read.value, {R"({"DocId": 10, "Links": {"Forward": [20, 40, 60]},
           "Name": [{"Language": [{"Code": "en-us", "Country": "us"}, {"Code": "en"}],
                     "Url": "http://A"},
                    {"Url": "http://B"},
                    {"Language": [{"Code": "en-gb", "Country": "gb"}]}]})",
                            R"({"DocId": 20, "Links": {"Backward": [10, 30], "Forward": [80]},
           "Name": [{"Url": "http://C"}]})"});
  ASSERT_EQ(columns.size(), 6u);
  // The columns of Figure 3 of Melnik et al., "Dremel" (VLDB 2010).
  EXPECT_EQ(columns[0], (std::vector<Level>{{0, 0, "10"}, {0, 0, "20"}}));
  EXPECT_EQ(columns[1], (std::vector<Level>{{0, 1, ""}, {0, 2, "10"}, {1, 2, "30"}}));
  EXPECT_EQ(columns[2],
            (std::vector<Level>{{0, 2, "20"}, {1, 2, "40"}, {1, 2, "60"}, {0, 2, "80"}}));
  EXPECT_EQ(
      columns[3],
      (std::vector<Level>{{0, 2, "en-us"}, {2, 2, "en"}, {1, 1, ""}, {1, 2, "en-gb"}, {0, 1, ""}}));
  EXPECT_EQ(columns[4],
            (std::vector<Level>{{0, 3, "us"}, {2, 2, ""}, {1, 1, ""}, {1, 3, "gb"}, {0, 1, ""}}));
  EXPECT_EQ(
      columns[5],
      (std::vector<Level>{{0, 2, "http://A"}, {1, 2, "http://B"}, {1, 1, ""}, {0, 2, "http://C"}}));
}

TEST(SchemaMapNodeTreeTest, ShredsTheListsSluiceWrites) {
  auto written = Write(Make({Field("xs", Arr(Type::Int64(), true)),
                             Field("m", Arr(Arr(Type::String(), false), true), false)}));
  const Columns columns =
      ShredAll(written.value, {R"({"xs": null, "m": []})", R"({"xs": [], "m": [null, []]})",
                               R"({"xs": [null, 1], "m": [["a", "b"], ["c"]]})"});
  EXPECT_EQ(columns[0], (std::vector<Level>{{0, 0, ""}, {0, 1, ""}, {0, 2, ""}, {1, 3, "1"}}));
  EXPECT_EQ(columns[1],
            (std::vector<Level>{
                {0, 0, ""}, {0, 1, ""}, {1, 2, ""}, {0, 3, "a"}, {2, 3, "b"}, {1, 3, "c"}}));
}

// Wide schemas: one flat row of n columns, and n columns each an optional list of structs.
std::vector<SchemaElement> WideElements(size_t n, bool nested) {
  std::vector<SchemaElement> out;
  SchemaElement root;
  root.name = "spark_schema";
  root.num_children = static_cast<int32_t>(n);
  out.push_back(root);
  for (size_t i = 0; i < n; ++i) {
    SchemaElement leaf;
    leaf.type = i % 2 == 0 ? PhysicalType::kInt64 : PhysicalType::kByteArray;
    leaf.repetition = Repetition::kOptional;
    if (!nested) {
      leaf.name = scaling::ColumnName(i);
      out.push_back(leaf);
      continue;
    }
    SchemaElement list;
    list.name = scaling::ColumnName(i);
    list.repetition = Repetition::kOptional;
    list.num_children = 1;
    list.converted_type = ConvertedType::kList;
    SchemaElement middle;
    middle.name = "list";
    middle.repetition = Repetition::kRepeated;
    middle.num_children = 1;
    SchemaElement element;
    element.name = "element";
    element.repetition = Repetition::kOptional;
    element.num_children = 1;
    leaf.name = "x";
    out.push_back(list);
    out.push_back(middle);
    out.push_back(element);
    out.push_back(leaf);
  }
  return out;
}

TEST(SchemaMapScalingTest, ReadsAHundredThousandColumnsInLinearTime) {
  for (bool nested : {false, true}) {
    EXPECT_TRUE(scaling::ScalesLinearly(
        [&](size_t n) {
          auto r = ParquetSchema::FromElements(WideElements(n, nested));
          ASSERT_TRUE(r.has_value()) << r.error().ToString();
          ASSERT_EQ(r->value.leaves().size(), n);
        },
        25'000, /*max_seconds=*/3))
        << (nested ? "nested" : "flat");
  }
}

TEST(SchemaMapScalingTest, WritesAHundredThousandColumnsInLinearTime) {
  EXPECT_TRUE(scaling::ScalesLinearly(
      [&](size_t n) {
        std::vector<Field> fields;
        fields.reserve(n);
        for (size_t i = 0; i < n; ++i) {
          fields.emplace_back(scaling::ColumnName(i),
                              i % 3 == 0 ? Arr(Type::String()) : Type::Int64());
        }
        auto r = ParquetSchema::FromModel(Make(std::move(fields)));
        ASSERT_TRUE(r.has_value()) << r.error().ToString();
        ASSERT_EQ(r->value.leaves().size(), n);
      },
      25'000, /*max_seconds=*/3));
}

TEST(SchemaMapScalingTest, TextFormOfAHundredThousandColumnsIsLinear) {
  EXPECT_TRUE(scaling::ScalesLinearly(
      [&](size_t n) {
        const std::string text = MessageTypeText(WideElements(n, true));
        auto r = ParseMessageType(text);
        ASSERT_TRUE(r.has_value()) << r.error().ToString();
        ASSERT_EQ(r->size(), 4 * n + 1);
      },
      25'000, /*max_seconds=*/3));
}

}  // namespace
}  // namespace sluice::parquet
