// Reading schemas from any writer: every annotation LogicalTypes.md defines, the legacy list
// and map shapes of its backward-compatibility rules (written in the text form, as the
// specification shows them), field ids and hostile element trees.
#include <gtest/gtest.h>

#include "sluice/parquet/schema_map.h"
#include "sluice/parquet/schema_text.h"

namespace sluice::parquet {
namespace {

Result<schema::Converted<ParquetSchema>> ReadText(const std::string& body) {
  auto elements = ParseMessageType("message m {\n" + body + "\n}\n");
  if (!elements) return Fail(elements.error());
  return ParquetSchema::FromElements(std::move(*elements));
}

std::string NotesOf(const schema::Converted<ParquetSchema>& r) {
  std::string out;
  for (const auto& n : r.notes) out += n.ToString() + "\n";
  return out;
}

struct PrimitiveCase {
  std::string line;
  std::string type;
  bool is_unsigned = false;
  std::string note = "";
};

TEST(SchemaLegacyTest, ReadsEveryAnnotationOfEveryPhysicalType) {
  const std::vector<PrimitiveCase> cases = {
      {"required boolean a;", "boolean"},
      {"required int32 a;", "int32"},
      {"required int64 a;", "int64"},
      {"required float a;", "float32"},
      {"required double a;", "float64"},
      {"required binary a;", "binary"},
      {"required fixed_len_byte_array(7) a;", "binary"},
      {"required int32 a (INTEGER(8,true));", "int8"},
      {"required int32 a (INTEGER(16,true));", "int16"},
      {"required int32 a (INTEGER(32,true));", "int32"},
      {"required int64 a (INTEGER(64,true));", "int64"},
      {"required int32 a (INT_8);", "int8"},
      {"required int32 a (INT_16);", "int16"},
      {"required int32 a (INT_32);", "int32"},
      {"required int64 a (INT_64);", "int64"},
      {"required int32 a (INTEGER(8,false));", "int16", true},
      {"required int32 a (INTEGER(16,false));", "int32", true},
      {"required int32 a (INTEGER(32,false));", "int64", true},
      {"required int64 a (INTEGER(64,false));", "decimal(20,0)", true,
       "a: unsigned 64-bit integers are read as decimal(20,0)\n"},
      {"required int32 a (UINT_8);", "int16", true},
      {"required int32 a (UINT_16);", "int32", true},
      {"required int32 a (UINT_32);", "int64", true},
      {"required int64 a (UINT_64);", "decimal(20,0)", true,
       "a: unsigned 64-bit integers are read as decimal(20,0)\n"},
      {"required int32 a (DECIMAL(9,2));", "decimal(9,2)"},
      {"required int32 a (DECIMAL(1,0));", "decimal(1,0)"},
      {"required int64 a (DECIMAL(18,4));", "decimal(18,4)"},
      {"required int64 a (DECIMAL(5,5));", "decimal(5,5)"},
      {"required fixed_len_byte_array(16) a (DECIMAL(38,10));", "decimal(38,10)"},
      {"required fixed_len_byte_array(5) a (DECIMAL(11,0));", "decimal(11,0)"},
      {"required fixed_len_byte_array(4) a (DECIMAL(3,1));", "decimal(3,1)"},
      {"required binary a (DECIMAL(30,5));", "decimal(30,5)"},
      {"required int32 a (DATE);", "date"},
      {"required int32 a (TIME(MILLIS,false));", "time(3)"},
      {"required int64 a (TIME(MICROS,false));", "time"},
      {"required int64 a (TIME(NANOS,false));", "time(9)"},
      {"required int64 a (TIME(MICROS,true));", "time", false,
       "a: a time adjusted to UTC is read as a time of day without a zone\n"},
      {"required int32 a (TIME_MILLIS);", "time(3)"},
      {"required int64 a (TIME_MICROS);", "time"},
      {"required int64 a (TIMESTAMP(MILLIS,true));", "timestamp(3)"},
      {"required int64 a (TIMESTAMP(MICROS,true));", "timestamp"},
      {"required int64 a (TIMESTAMP(NANOS,true));", "timestamp(9)"},
      {"required int64 a (TIMESTAMP(MILLIS,false));", "timestamp_ntz(3)"},
      {"required int64 a (TIMESTAMP(MICROS,false));", "timestamp_ntz"},
      {"required int64 a (TIMESTAMP(NANOS,false));", "timestamp_ntz(9)"},
      {"required int64 a (TIMESTAMP_MILLIS);", "timestamp(3)"},
      {"required int64 a (TIMESTAMP_MICROS);", "timestamp"},
      {"required int96 a;", "timestamp"},
      {"required binary a (STRING);", "string"},
      {"required binary a (UTF8);", "string"},
      {"required binary a (ENUM);", "string"},
      {"required binary a (JSON);", "string"},
      {"required binary a (BSON);", "binary"},
      {"required fixed_len_byte_array(16) a (UUID);", "uuid"},
      {"required fixed_len_byte_array(2) a (FLOAT16);", "float32", false,
       "a: FLOAT16 is read as float32\n"},
      {"required fixed_len_byte_array(12) a (INTERVAL);", "binary", false,
       "a: INTERVAL is read as binary: its 12 bytes hold months, days and milliseconds\n"},
      {"optional int32 a (UNKNOWN);", "null"},
      {"optional binary a (UNKNOWN);", "null"},
      {"required binary a (GEOMETRY);", "binary", false,
       "a: GEOMETRY is read as binary (well-known binary)\n"},
      {"required binary a (GEOGRAPHY);", "binary", false,
       "a: GEOGRAPHY is read as binary (well-known binary)\n"},
  };
  for (const PrimitiveCase& c : cases) {
    auto r = ReadText(c.line);
    ASSERT_TRUE(r.has_value()) << c.line << ": " << r.error().ToString();
    ASSERT_EQ(r->value.leaves().size(), 1u) << c.line;
    const ColumnDescriptor& leaf = r->value.leaves()[0];
    EXPECT_EQ(leaf.type->ToString(), c.type) << c.line;
    EXPECT_EQ(r->value.model()->fields()[0].type()->ToString(), c.type) << c.line;
    EXPECT_EQ(leaf.is_unsigned, c.is_unsigned) << c.line;
    EXPECT_EQ(NotesOf(*r), c.note) << c.line;
  }
}

TEST(SchemaLegacyTest, DescribesEachLeafForTheDecoder) {
  auto r = ReadText(
      "required int96 legacy;\n"
      "optional fixed_len_byte_array(9) d (DECIMAL(20,2));\n"
      "optional int32 u (UINT_32);\n"
      "optional binary s (STRING);\n"
      "optional fixed_len_byte_array(12) i (INTERVAL);");
  ASSERT_TRUE(r.has_value()) << r.error().ToString();
  const auto& leaves = r->value.leaves();
  EXPECT_EQ(leaves[0].physical, PhysicalType::kInt96);
  EXPECT_EQ(leaves[0].type_length, 12);
  EXPECT_EQ(leaves[0].sort_order, SortOrder::kUnknown);
  EXPECT_EQ(leaves[0].max_def, 0);
  EXPECT_EQ(leaves[1].type_length, 9);
  EXPECT_EQ(leaves[1].type->scale(), 2);
  EXPECT_EQ(leaves[1].sort_order, SortOrder::kSigned);
  EXPECT_EQ(leaves[1].max_def, 1);
  EXPECT_EQ(leaves[2].sort_order, SortOrder::kUnsigned);
  EXPECT_EQ(leaves[3].sort_order, SortOrder::kUnsigned);
  EXPECT_EQ(leaves[4].sort_order, SortOrder::kUnknown);
  EXPECT_EQ(leaves[4].element, 5);
}

TEST(SchemaLegacyTest, ReadsADecimalAnnotatedByItsConvertedTypeAlone) {
  std::vector<SchemaElement> elements(2);
  elements[0].name = "m";
  elements[0].num_children = 1;
  elements[1].name = "d";
  elements[1].type = PhysicalType::kInt64;
  elements[1].repetition = Repetition::kOptional;
  elements[1].converted_type = ConvertedType::kDecimal;
  elements[1].precision = 12;
  elements[1].scale = 3;
  auto r = ParquetSchema::FromElements(elements);
  ASSERT_TRUE(r.has_value()) << r.error().ToString();
  EXPECT_EQ(r->value.leaves()[0].type->ToString(), "decimal(12,3)");
  elements[1].precision.reset();
  auto no_precision = ParquetSchema::FromElements(elements);
  ASSERT_FALSE(no_precision.has_value());
  EXPECT_EQ(no_precision.error().message(), "element 1 (d): DECIMAL without a precision");
}

TEST(SchemaLegacyTest, LogicalTypeWinsOverTheConvertedType) {
  // parquet-mr 1.13 writes local timestamps with TIMESTAMP_MICROS beside them.
  std::vector<SchemaElement> elements(2);
  elements[0].name = "m";
  elements[0].num_children = 1;
  elements[1].name = "t";
  elements[1].type = PhysicalType::kInt64;
  elements[1].repetition = Repetition::kOptional;
  elements[1].converted_type = ConvertedType::kTimestampMicros;
  elements[1].logical_type = LogicalType{
      .kind = LogicalType::Kind::kTimestamp, .adjusted_to_utc = false, .unit = TimeUnit::kMicros};
  auto r = ParquetSchema::FromElements(elements);
  ASSERT_TRUE(r.has_value()) << r.error().ToString();
  EXPECT_EQ(r->value.leaves()[0].type->ToString(), "timestamp_ntz");
}

TEST(SchemaLegacyTest, RejectsAnnotationsTheirPhysicalTypeCannotCarry) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"required int32 a (STRING);", "element 1 (a): STRING cannot annotate int32"},
      {"required int32 a (UTF8);", "element 1 (a): STRING cannot annotate int32"},
      {"required boolean a (DATE);", "element 1 (a): DATE cannot annotate boolean"},
      {"required float a (UUID);", "element 1 (a): UUID cannot annotate float"},
      {"required fixed_len_byte_array(8) a (UUID);",
       "element 1 (a): UUID cannot annotate fixed_len_byte_array(8)"},
      {"required int32 a (DECIMAL(10,2));", "element 1 (a): DECIMAL(10,2) does not fit in int32"},
      {"required int64 a (DECIMAL(19,2));", "element 1 (a): DECIMAL(19,2) does not fit in int64"},
      {"required fixed_len_byte_array(4) a (DECIMAL(10,2));",
       "element 1 (a): DECIMAL(10,2) does not fit in fixed_len_byte_array"},
      {"required binary a (DECIMAL(39,0));",
       "element 1 (a): DECIMAL(39,0) has more digits than the 38 sluice holds"},
      {"required int32 a (DECIMAL(5,6));",
       "element 1 (a): DECIMAL(5,6) has a precision or scale out of range"},
      {"required int32 a (DECIMAL(0,0));",
       "element 1 (a): DECIMAL(0,0) has a precision or scale out of range"},
      {"required double a (DECIMAL(5,1));", "element 1 (a): DECIMAL(5,1) cannot annotate double"},
      {"required int64 a (TIME(MILLIS,false));",
       "element 1 (a): TIME(MILLIS,false) cannot annotate int64"},
      {"required int32 a (TIME(MICROS,false));",
       "element 1 (a): TIME(MICROS,false) cannot annotate int32"},
      {"required int32 a (TIMESTAMP(MICROS,true));",
       "element 1 (a): TIMESTAMP(MICROS,true) cannot annotate int32"},
      {"required int96 a (TIMESTAMP_MICROS);",
       "element 1 (a): TIMESTAMP(MICROS,true) cannot annotate int96"},
      {"required int32 a (INTEGER(64,true));",
       "element 1 (a): INTEGER(64,true) cannot annotate int32"},
      {"required int64 a (INTEGER(32,true));",
       "element 1 (a): INTEGER(32,true) cannot annotate int64"},
      {"required int64 a (UINT_8);", "element 1 (a): INTEGER(8,false) cannot annotate int64"},
      {"required fixed_len_byte_array(3) a (FLOAT16);",
       "element 1 (a): FLOAT16 cannot annotate fixed_len_byte_array(3)"},
      {"required binary a (INTERVAL);", "element 1 (a): INTERVAL cannot annotate binary"},
      {"required int32 a (MAP_KEY_VALUE);", "element 1 (a): MAP_KEY_VALUE cannot annotate int32"},
      {"required binary a (VARIANT);", "element 1 (a): VARIANT annotates a group, not binary"},
      {"required binary a (LIST);", "element 1 (a): LIST annotates a group, not binary"},
      {"required int32 a (GEOMETRY);", "element 1 (a): GEOMETRY cannot annotate int32"},
      {"required group a (STRING) {\n required int32 x;\n}",
       "element 1 (a): STRING cannot annotate a group"},
      {"required group a (DECIMAL(5,2)) {\n required int32 x;\n}",
       "element 1 (a): DECIMAL(5,2) cannot annotate a group"},
      {"optional group s {\n optional group t {\n required int32 x (STRING);\n}\n}",
       "element 3 (s.t.x): STRING cannot annotate int32"},
  };
  for (const auto& [line, message] : cases) {
    auto r = ReadText(line);
    ASSERT_FALSE(r.has_value()) << line;
    EXPECT_EQ(r.error().code(), ErrorCode::kInvalidArgument) << line;
    EXPECT_EQ(r.error().message(), message) << line;
  }
}

struct ShapeCase {
  std::string name;
  std::string text;
  std::string model;
  std::vector<std::pair<int, int>> levels;  // (max_def, max_rep) per leaf
};

void ExpectShape(const ShapeCase& c) {
  auto r = ReadText(c.text);
  ASSERT_TRUE(r.has_value()) << c.name << ": " << r.error().ToString();
  EXPECT_EQ(r->value.model()->struct_type()->ToString(), c.model) << c.name;
  ASSERT_EQ(r->value.leaves().size(), c.levels.size()) << c.name;
  for (size_t i = 0; i < c.levels.size(); ++i) {
    EXPECT_EQ(r->value.leaves()[i].max_def, c.levels[i].first) << c.name << " leaf " << i;
    EXPECT_EQ(r->value.leaves()[i].max_rep, c.levels[i].second) << c.name << " leaf " << i;
  }
  // The node tree agrees with the leaves: each leaf node has the leaf's levels.
  for (const ColumnDescriptor& leaf : r->value.leaves()) {
    const SchemaNode& node = r->value.nodes()[leaf.node];
    EXPECT_EQ(node.def_level, leaf.max_def) << c.name;
    EXPECT_EQ(node.rep_level, leaf.max_rep) << c.name;
  }
}

TEST(SchemaLegacyTest, ReadsEveryListShapeOfTheSpecification) {
  const std::vector<ShapeCase> cases = {
      {"3-level, nullable elements",
       "required group my_list (LIST) {\n"
       "  repeated group list {\n"
       "    optional binary element (STRING);\n"
       "  }\n"
       "}",
       "struct<my_list: array<string> not null>",
       {{2, 1}}},
      {"3-level, nullable list",
       "optional group my_list (LIST) {\n"
       "  repeated group list {\n"
       "    required binary element (STRING);\n"
       "  }\n"
       "}",
       "struct<my_list: array<string not null>>",
       {{2, 1}}},
      {"list of lists",
       "optional group array_of_arrays (LIST) {\n"
       "  repeated group list {\n"
       "    required group element (LIST) {\n"
       "      repeated group list {\n"
       "        required int32 element;\n"
       "      }\n"
       "    }\n"
       "  }\n"
       "}",
       "struct<array_of_arrays: array<array<int32 not null> not null>>",
       {{3, 2}}},
      {"misnamed repeated group",
       "optional group my_list (LIST) {\n"
       "  repeated group element {\n"
       "    required binary str (STRING);\n"
       "  };\n"
       "}",
       "struct<my_list: array<string not null>>",
       {{2, 1}}},
      {"rule 1: repeated primitive",
       "optional group my_list (LIST) {\n"
       "  repeated int32 element;\n"
       "}",
       "struct<my_list: array<int32 not null>>",
       {{2, 1}}},
      {"rule 2: repeated group of several fields",
       "optional group my_list (LIST) {\n"
       "  repeated group element {\n"
       "    required binary str (STRING);\n"
       "    required int32 num;\n"
       "  };\n"
       "}",
       "struct<my_list: array<struct<str: string not null, num: int32 not null> not null>>",
       {{2, 1}, {2, 1}}},
      {"rule 3: repeated group of one repeated field",
       "optional group my_list (LIST) {\n"
       "  repeated group array (LIST) {\n"
       "    repeated int32 array;\n"
       "  };\n"
       "}",
       "struct<my_list: array<array<int32 not null> not null>>",
       {{3, 2}}},
      {"rule 3 without an annotation",
       "optional group my_list (LIST) {\n"
       "  repeated group bag {\n"
       "    repeated int32 item;\n"
       "  };\n"
       "}",
       "struct<my_list: array<struct<item: array<int32 not null> not null> not null>>",
       {{3, 2}}},
      {"rule 4: named array",
       "optional group my_list (LIST) {\n"
       "  repeated group array {\n"
       "    required binary str (STRING);\n"
       "  };\n"
       "}",
       "struct<my_list: array<struct<str: string not null> not null>>",
       {{2, 1}}},
      {"rule 4: named <list>_tuple",
       "optional group my_list (LIST) {\n"
       "  repeated group my_list_tuple {\n"
       "    required binary str (STRING);\n"
       "  };\n"
       "}",
       "struct<my_list: array<struct<str: string not null> not null>>",
       {{2, 1}}},
      {"rule 5: nullable element of a misnamed group",
       "optional group my_list (LIST) {\n"
       "  repeated group element {\n"
       "    optional binary str (STRING);\n"
       "  };\n"
       "}",
       "struct<my_list: array<string>>",
       {{3, 1}}},
      {"Hive's bag",
       "optional group f (LIST) {\n"
       "  repeated group bag {\n"
       "    optional int32 array_element;\n"
       "  }\n"
       "}",
       "struct<f: array<int32>>",
       {{3, 1}}},
      {"unannotated repeated primitive",
       "repeated int32 num;",
       "struct<num: array<int32 not null> not null>",
       {{1, 1}}},
      {"unannotated repeated group",
       "repeated group my_list {\n"
       "  required int32 num;\n"
       "  optional binary str (STRING);\n"
       "}",
       "struct<my_list: array<struct<num: int32 not null, str: string> not null> not null>",
       {{1, 1}, {2, 1}}},
      {"unannotated repeated inside a struct",
       "optional group s {\n"
       "  repeated group points {\n"
       "    required double x;\n"
       "    repeated int64 tags;\n"
       "  }\n"
       "}",
       "struct<s: struct<points: array<struct<x: float64 not null, tags: array<int64 not null> "
       "not null> not null> not null>>",
       {{2, 1}, {3, 2}}},
      {"LIST converted type only",
       "optional group l (LIST) {\n"
       "  repeated group list {\n"
       "    optional binary element (UTF8);\n"
       "  }\n"
       "}",
       "struct<l: array<string>>",
       {{3, 1}}},
  };
  for (const ShapeCase& c : cases) ExpectShape(c);
}

TEST(SchemaLegacyTest, ReadsEveryMapShapeOfTheSpecification) {
  const std::vector<ShapeCase> cases = {
      {"standard",
       "required group my_map (MAP) {\n"
       "  repeated group key_value {\n"
       "    required binary key (STRING);\n"
       "    optional int32 value;\n"
       "  }\n"
       "}",
       "struct<my_map: map<string, int32> not null>",
       {{1, 1}, {2, 1}}},
      {"misnamed key and value",
       "optional group my_map (MAP) {\n"
       "  repeated group map {\n"
       "    required binary str (STRING);\n"
       "    required int32 num;\n"
       "  }\n"
       "}",
       "struct<my_map: map<string, int32 not null>>",
       {{2, 1}, {2, 1}}},
      {"MAP_KEY_VALUE in place of MAP",
       "optional group my_map (MAP_KEY_VALUE) {\n"
       "  repeated group map {\n"
       "    required binary key (STRING);\n"
       "    optional int32 value;\n"
       "  }\n"
       "}",
       "struct<my_map: map<string, int32>>",
       {{2, 1}, {3, 1}}},
      {"old parquet-mr: MAP_KEY_VALUE inside MAP",
       "optional group m (MAP) {\n"
       "  repeated group map (MAP_KEY_VALUE) {\n"
       "    required binary key (UTF8);\n"
       "    optional group value {\n"
       "      optional int32 x;\n"
       "    }\n"
       "  }\n"
       "}",
       "struct<m: map<string, struct<x: int32>>>",
       {{2, 1}, {4, 1}}},
      {"keys only",
       "optional group s (MAP) {\n"
       "  repeated group key_value {\n"
       "    required int32 key;\n"
       "  }\n"
       "}",
       "struct<s: map<int32, null>>",
       {{2, 1}}},
      {"repeated value",
       "optional group m (MAP) {\n"
       "  repeated group key_value {\n"
       "    required binary key (STRING);\n"
       "    repeated int32 value;\n"
       "  }\n"
       "}",
       "struct<m: map<string, array<int32 not null> not null>>",
       {{2, 1}, {3, 2}}},
      {"map of lists in a list",
       "optional group l (LIST) {\n"
       "  repeated group list {\n"
       "    optional group element (MAP) {\n"
       "      repeated group key_value {\n"
       "        required group key {\n"
       "          required int32 a;\n"
       "          optional int32 b;\n"
       "        }\n"
       "        optional group value (LIST) {\n"
       "          repeated group list {\n"
       "            optional int64 element;\n"
       "          }\n"
       "        }\n"
       "      }\n"
       "    }\n"
       "  }\n"
       "}",
       "struct<l: array<map<struct<a: int32 not null, b: int32>, array<int64>>>>",
       {{4, 2}, {5, 2}, {7, 3}}},
  };
  for (const ShapeCase& c : cases) ExpectShape(c);
}

TEST(SchemaLegacyTest, RejectsMalformedListsAndMaps) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"optional group l (LIST) {\n repeated int32 a;\n repeated int32 b;\n}",
       "element 1 (l): a LIST group must have exactly one child"},
      {"optional group l (LIST) {\n optional int32 a;\n}",
       "element 2 (l): the child of a LIST group must be repeated"},
      {"optional group m (MAP) {\n repeated group kv {\n required int32 key;\n}\n required "
       "int32 other;\n}",
       "element 1 (m): a MAP group must have exactly one child"},
      {"optional group m (MAP) {\n required group key_value {\n required binary key;\n}\n}",
       "element 2 (m): the child of a MAP group must be a repeated group"},
      {"optional group m (MAP) {\n repeated binary key;\n}",
       "element 2 (m): the child of a MAP group must be a repeated group"},
      {"optional group m (MAP) {\n repeated group kv {\n required int32 a;\n required int32 "
       "b;\n required int32 c;\n}\n}",
       "element 2 (m): a map's key-value group holds more than a key and a value"},
      {"optional group m (MAP) {\n repeated group kv {\n optional binary key;\n}\n}",
       "element 3 (m{key}): a map key must be required"},
      {"optional group m (MAP) {\n repeated group kv {\n required int32 key (UNKNOWN);\n}\n}",
       "element 1 (m): map keys cannot be of type null"},
      {"optional group l (LIST) {\n repeated group list {\n optional group element (STRING) "
       "{\n required int32 x;\n}\n}\n}",
       "element 3 (l[]): STRING cannot annotate a group"},
  };
  for (const auto& [text, message] : cases) {
    auto r = ReadText(text);
    ASSERT_FALSE(r.has_value()) << text;
    EXPECT_EQ(r.error().message(), message) << text;
  }
}

TEST(SchemaLegacyTest, ReadsFieldIdsIntoMetadataAndNotesTheOnesWithoutAField) {
  auto r = ReadText(
      "optional group l (LIST) = 1 {\n"
      "  repeated group list = 2 {\n"
      "    optional int32 element = 3;\n"
      "  }\n"
      "}\n"
      "required int64 id = 4;");
  ASSERT_TRUE(r.has_value()) << r.error().ToString();
  const auto& fields = r->value.model()->fields();
  EXPECT_EQ(fields[0].metadata().Find("parquet.field.id")->as_int64(), 1);
  EXPECT_EQ(fields[1].metadata().Find("parquet.field.id")->as_int64(), 4);
  EXPECT_EQ(NotesOf(*r),
            "l: the field id 2 of element \"list\" is not kept\n"
            "l[]: the field id 3 of element \"element\" is not kept\n");
}

TEST(SchemaLegacyTest, ReadsAVariantAsTheStructOfItsParts) {
  auto r = ReadText(
      "optional group v (VARIANT(1)) {\n"
      "  required binary metadata;\n"
      "  required binary value;\n"
      "}");
  ASSERT_TRUE(r.has_value()) << r.error().ToString();
  EXPECT_EQ(r->value.model()->struct_type()->ToString(),
            "struct<v: struct<metadata: binary not null, value: binary not null>>");
  EXPECT_EQ(NotesOf(*r), "v: VARIANT is read as the struct of its parts\n");
}

TEST(SchemaLegacyTest, NamesEachLeafByItsElementPath) {
  auto r = ReadText(
      "optional group my_list (LIST) {\n"
      "  repeated group element {\n"
      "    required binary str (STRING);\n"
      "    required int32 num;\n"
      "  }\n"
      "}\n"
      "optional group m (MAP) {\n"
      "  repeated group map {\n"
      "    required binary key (UTF8);\n"
      "    optional group value {\n"
      "      optional int32 x;\n"
      "    }\n"
      "  }\n"
      "}\n"
      "repeated int32 nums;");
  ASSERT_TRUE(r.has_value()) << r.error().ToString();
  const auto& leaves = r->value.leaves();
  ASSERT_EQ(leaves.size(), 5u);
  using Path = std::vector<std::string>;
  EXPECT_EQ(leaves[0].path, (Path{"my_list", "element", "str"}));
  EXPECT_EQ(leaves[1].path, (Path{"my_list", "element", "num"}));
  EXPECT_EQ(leaves[2].path, (Path{"m", "map", "key"}));
  EXPECT_EQ(leaves[3].path, (Path{"m", "map", "value", "x"}));
  EXPECT_EQ(leaves[4].path, (Path{"nums"}));
  EXPECT_EQ(leaves[1].field_path.ToString(), "my_list[].num");
  EXPECT_EQ(leaves[3].field_path.ToString(), "m{value}.x");
  EXPECT_EQ(leaves[4].field_path.ToString(), "nums[]");
  // The unannotated repeated field: a list node that cannot be null, over an element node
  // written as the same repeated element.
  const SchemaNode& nums = r->value.children(r->value.root())[2];
  EXPECT_EQ(nums.kind, SchemaNode::Kind::kList);
  EXPECT_FALSE(nums.nullable);
  EXPECT_EQ(nums.def_level, 0);
  EXPECT_EQ(nums.rep_level, 0);
  const SchemaNode& num = r->value.children(nums)[0];
  EXPECT_EQ(num.element, nums.element);
  EXPECT_EQ(num.def_level, 1);
  EXPECT_EQ(num.rep_level, 1);
}

// Hostile element trees, built directly as a decoded footer could hold them.
SchemaElement Group(std::string name, int32_t children,
                    std::optional<Repetition> r = Repetition::kOptional) {
  SchemaElement e;
  e.name = std::move(name);
  e.num_children = children;
  e.repetition = r;
  return e;
}

SchemaElement Leaf(std::string name, PhysicalType t = PhysicalType::kInt32,
                   std::optional<Repetition> r = Repetition::kOptional) {
  SchemaElement e;
  e.name = std::move(name);
  e.type = t;
  e.repetition = r;
  return e;
}

std::string ErrorOf(std::vector<SchemaElement> elements) {
  auto r = ParquetSchema::FromElements(std::move(elements));
  if (r.has_value()) return "accepted";
  EXPECT_EQ(r.error().code(), ErrorCode::kInvalidArgument);
  return r.error().message();
}

TEST(SchemaLegacyTest, RejectsMalformedTreesNamingTheElement) {
  EXPECT_EQ(ErrorOf({}), "the Parquet schema has no elements");
  EXPECT_EQ(ErrorOf({Leaf("root", PhysicalType::kInt32, std::nullopt)}),
            "the root element is not a group");
  EXPECT_EQ(ErrorOf({Group("root", 1, Repetition::kRepeated), Leaf("a")}),
            "the root element is repeated");
  EXPECT_EQ(ErrorOf({Group("root", 3, std::nullopt), Leaf("a"), Leaf("b")}),
            "element 0 (\"root\") declares 3 children but the schema ends after 3 elements");
  EXPECT_EQ(ErrorOf({Group("root", 1, std::nullopt), Group("s", 2), Leaf("a")}),
            "element 1 (\"s\") declares 2 children but the schema ends after 3 elements");
  EXPECT_EQ(ErrorOf({Group("root", 1, std::nullopt), Leaf("a"), Leaf("b")}),
            "element 2 (\"b\") comes after the root's last child: the root declares 1 children");
  EXPECT_EQ(ErrorOf({Group("root", 0, std::nullopt)}),
            "element 0 (\"root\") is a group without children");
  EXPECT_EQ(ErrorOf({Group("root", 2, std::nullopt), Group("s", 0), Leaf("a")}),
            "element 1 (\"s\") is a group without children");
  EXPECT_EQ(ErrorOf({Group("root", 1, std::nullopt), Group("s", -5)}),
            "element 1 (\"s\") is a group without children");
  SchemaElement no_children_field = Group("s", 1);
  no_children_field.num_children.reset();
  EXPECT_EQ(ErrorOf({Group("root", 1, std::nullopt), no_children_field}),
            "element 1 (\"s\") is a group without children");
  EXPECT_EQ(ErrorOf({Group("root", 2, std::nullopt), Leaf("a"), Leaf("")}),
            "element 2 has an empty name");
  EXPECT_EQ(
      ErrorOf({Group("root", 1, std::nullopt), Leaf("a", PhysicalType::kInt32, std::nullopt)}),
      "element 1 (\"a\") has no repetition");
  SchemaElement primitive_with_children = Leaf("a");
  primitive_with_children.num_children = 2;
  EXPECT_EQ(ErrorOf({Group("root", 1, std::nullopt), primitive_with_children}),
            "element 1 (\"a\") is a primitive with 2 children");
  EXPECT_EQ(ErrorOf({Group("root", 1, std::nullopt), Leaf("a", static_cast<PhysicalType>(42))}),
            "element 1 (\"a\") has an unknown physical type 42");
  EXPECT_EQ(ErrorOf({Group("root", 1, std::nullopt),
                     Leaf("a", PhysicalType::kInt32, static_cast<Repetition>(-1))}),
            "element 1 (\"a\") has an unknown repetition -1");
  SchemaElement bad_converted = Leaf("a");
  bad_converted.converted_type = static_cast<ConvertedType>(99);
  EXPECT_EQ(ErrorOf({Group("root", 1, std::nullopt), bad_converted}),
            "element 1 (a): unknown converted type 99");
  SchemaElement bad_logical = Leaf("a");
  bad_logical.logical_type = LogicalType{.kind = static_cast<LogicalType::Kind>(9)};
  EXPECT_EQ(ErrorOf({Group("root", 1, std::nullopt), bad_logical}),
            "element 1 (a): unknown logical type 9");
  SchemaElement bad_unit = Leaf("a", PhysicalType::kInt64);
  bad_unit.logical_type =
      LogicalType{.kind = LogicalType::Kind::kTimestamp, .unit = static_cast<TimeUnit>(7)};
  EXPECT_EQ(ErrorOf({Group("root", 1, std::nullopt), bad_unit}),
            "element 1 (a): TIMESTAMP with an unknown unit");
  EXPECT_EQ(ErrorOf({Group("root", 1, std::nullopt), Leaf("f", PhysicalType::kFixedLenByteArray)}),
            "element 1 (f): a fixed_len_byte_array needs a positive type_length");
  EXPECT_EQ(ErrorOf({Group("root", 2, std::nullopt), Leaf("a"), Leaf("a")}),
            "the Parquet schema's root: duplicate field name a");
  EXPECT_EQ(ErrorOf({Group("root", 1, std::nullopt), Group("s", 2), Leaf("a"), Leaf("a")}),
            "element 1 (s): duplicate field name a");
  EXPECT_EQ(ErrorOf({Group("root", 1, std::nullopt), Leaf("\xff")}),
            "the Parquet schema's root: field name \"\\xff\" is not valid UTF-8");
}

TEST(SchemaLegacyTest, HugeChildCountsAllocateNothing) {
  EXPECT_EQ(ErrorOf({Group("root", std::numeric_limits<int32_t>::max(), std::nullopt), Leaf("a")}),
            "element 0 (\"root\") declares 2147483647 children but the schema ends after 2 "
            "elements");
}

TEST(SchemaLegacyTest, RejectsDeepTreesWithoutRecursingIntoThem) {
  // A chain of groups far deeper than any stack would take.
  std::vector<SchemaElement> chain = {Group("root", 1, std::nullopt)};
  for (int i = 0; i < 100'000; ++i) chain.push_back(Group("g", 1));
  chain.push_back(Leaf("x"));
  const std::string message = ErrorOf(chain);
  EXPECT_NE(message.find("nests deeper than 258 levels"), std::string::npos) << message;

  // Within the element bound but past the model's: the model's own error, placed.
  std::vector<SchemaElement> structs = {Group("root", 1, std::nullopt)};
  for (int i = 0; i < 200; ++i) structs.push_back(Group("g", 1));
  structs.push_back(Leaf("x"));
  const std::string model_message = ErrorOf(structs);
  EXPECT_NE(model_message.find("types nest deeper than 128 levels"), std::string::npos)
      << model_message;
}

TEST(SchemaLegacyTest, ReadsListsNestedToTheModelsLimit) {
  // 126 nested arrays: 252 group levels, the deepest a model schema can hold.
  schema::TypePtr t = schema::Type::Int32();
  for (int i = 0; i < 126; ++i) t = *schema::Type::Array(t);
  auto model = schema::Schema::Make({schema::Field("deep", t)});
  ASSERT_TRUE(model.has_value()) << model.error().ToString();
  auto written = ParquetSchema::FromModel(*model);
  ASSERT_TRUE(written.has_value()) << written.error().ToString();
  EXPECT_EQ(written->value.leaves()[0].max_rep, 126);
  EXPECT_EQ(written->value.leaves()[0].max_def, 1 + 2 * 126);
  auto read = ParquetSchema::FromElements(written->value.elements());
  ASSERT_TRUE(read.has_value()) << read.error().ToString();
  EXPECT_TRUE(read->value.model()->Equals(**model));
  auto text = ParseMessageType(MessageTypeText(written->value.elements()));
  ASSERT_TRUE(text.has_value()) << text.error().ToString();
  EXPECT_EQ(*text, written->value.elements());
}

}  // namespace
}  // namespace sluice::parquet
