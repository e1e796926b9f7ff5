#include "sluice/data/parquet_sink.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "sluice/base/string_sink_testing.h"
#include "sluice/data/parquet_values_internal.h"
#include "sluice/data/validator.h"
#include "sluice/dialects/spark/spark.h"
#include "sluice/parquet/chunk_reader_testing.h"
#include "sluice/parquet/file_reader.h"

namespace sluice::data {
namespace {

using ::sluice::testing::StringSink;

using parquet::testing::DecodedChunk;
using parquet::testing::PlainBytesOf;
using schema::Field;
using schema::Type;

schema::SchemaPtr Ddl(std::string_view ddl) {
  auto s = dialects::spark::ReadDdl(ddl);
  EXPECT_TRUE(s.has_value()) << s.error().message();
  return s->value;
}

// A file written by a sink, with its footer and a way to decode any column chunk.
struct Written {
  std::shared_ptr<const ParquetRecordPlan> plan;
  std::string bytes;
  parquet::FileMetaData meta;

  DecodedChunk Column(size_t column, size_t group = 0) const {
    const parquet::ColumnChunk& cc = meta.row_groups.at(group).columns.at(column);
    parquet::EncodedColumnChunk chunk;
    chunk.data_pages = LargeString(
        std::string_view(bytes).substr(static_cast<size_t>(cc.file_offset),
                                       static_cast<size_t>(cc.meta_data->total_compressed_size)));
    auto d = parquet::testing::DecodeChunk(chunk, plan->writer_schema().columns.at(column),
                                           cc.meta_data->codec);
    EXPECT_TRUE(d.has_value()) << d.error().message();
    return d ? *d : DecodedChunk{};
  }
};

Written Write(schema::SchemaPtr schema, const std::vector<std::string>& lines,
              ParquetPlanOptions plan_options = {}, parquet::WriterOptions options = {}) {
  Written w;
  auto plan = ParquetRecordPlan::Compile(std::move(schema), plan_options);
  EXPECT_TRUE(plan.has_value()) << plan.error().message();
  if (!plan) return w;
  w.plan = *plan;
  StringSink out;
  auto sink = ParquetRecordSink::Open(w.plan, out, options);
  EXPECT_TRUE(sink.has_value()) << sink.error().message();
  for (const std::string& line : lines) {
    Status s = (*sink)->Append(line);
    EXPECT_TRUE(s.has_value()) << line << ": " << s.error().message();
  }
  Status s = (*sink)->Close();
  EXPECT_TRUE(s.has_value()) << s.error().message();
  w.bytes = std::move(out.text);
  w.meta = (*sink)->metadata();
  return w;
}

template <class T>
std::string B(T v) {
  return PlainBytesOf(v);
}

TEST(ParquetSinkTest, EveryLeafTypeIsConvertedFromTheValidatorsForms) {
  auto schema =
      schema::Schema::Make(
          {Field("b", Type::Boolean()), Field("i8", Type::Int8()), Field("i16", Type::Int16()),
           Field("i32", Type::Int32()), Field("i64", Type::Int64()), Field("f", Type::Float32()),
           Field("d", Type::Float64()), Field("dec9", Type::Decimal(9, 2).value()),
           Field("dec18", Type::Decimal(18, 3).value()),
           Field("dec38", Type::Decimal(38, 10).value()), Field("s", Type::String()),
           Field("bin", Type::Binary()), Field("dt", Type::Date()), Field("ts", Type::Timestamp()),
           Field("ntz", Type::TimestampNtz()),
           Field("ts9", Type::Timestamp(schema::TimeUnit::kNanos)), Field("t", Type::Time()),
           Field("t3", Type::Time(schema::TimeUnit::kMillis)), Field("u", Type::Uuid())})
          .value();
  const std::vector<std::string> lines = {
      R"({"b":true,"i8":-128,"i16":32767,"i32":-5,"i64":9007199254740993,"f":"NaN","d":-0.0,)"
      R"("dec9":-12.50,"dec18":123456789012345.678,"dec38":-1234567890123456789012345678.0123456789,)"
      R"("s":"h\u00e9\"llo","bin":"AAH/","dt":"2024-02-29","ts":"2024-05-06T09:08:09.5+02:00",)"
      R"("ntz":"2024-05-06 07:08:09","ts9":"1970-01-01T00:00:00.000000001Z","t":"01:02:03.000004",)"
      R"("t3":"23:59:59.999","u":"00112233-4455-6677-8899-aabbccddeeff"})",
      // Absent fields are null; keys in any order.
      R"({"u":null,"ts":1714979289,"f":1.5,"d":"-Infinity","i64":-1})",
  };
  Written w = Write(schema, lines);
  ASSERT_EQ(w.meta.num_rows, 2);
  ASSERT_EQ(w.meta.row_groups[0].columns.size(), 19u);
  auto value = [&](size_t column, size_t i) {
    DecodedChunk d = w.Column(column);
    return i < d.values.size() ? d.values[i] : std::string("(missing)");
  };
  EXPECT_EQ(value(0, 0), B(true));
  EXPECT_EQ(value(1, 0), B(int32_t{-128}));
  EXPECT_EQ(value(2, 0), B(int32_t{32767}));
  EXPECT_EQ(value(4, 0), B(int64_t{9007199254740993}));
  EXPECT_EQ(value(4, 1), B(int64_t{-1}));
  float f = 0;
  std::memcpy(&f, value(5, 0).data(), 4);
  EXPECT_TRUE(std::isnan(f));
  EXPECT_EQ(value(5, 1), B(1.5f));
  EXPECT_EQ(value(6, 0), B(-0.0));
  EXPECT_EQ(value(6, 1), B(-std::numeric_limits<double>::infinity()));
  EXPECT_EQ(value(7, 0), B(int32_t{-1250}));
  EXPECT_EQ(value(8, 0), B(int64_t{123456789012345678}));
  // decimal(38,10) is FIXED_LEN_BYTE_ARRAY(16): -12345678901234567890123456780123456789.
  std::string dec38 = value(9, 0);
  ASSERT_EQ(dec38.size(), 16u);
  internal::UInt128 bits = 0;
  for (char c : dec38) bits = bits * 256 + static_cast<uint8_t>(c);
  const auto unscaled = static_cast<internal::Int128>(bits);
  internal::Int128 expected = 0;
  for (char c : std::string("12345678901234567890123456780123456789")) {
    expected = expected * 10 + (c - '0');
  }
  EXPECT_TRUE(unscaled == -expected);
  EXPECT_EQ(value(10, 0), "h\xc3\xa9\"llo");
  EXPECT_EQ(value(11, 0), std::string("\x00\x01\xff", 3));
  EXPECT_EQ(value(12, 0), B(int32_t{19782}));
  EXPECT_EQ(value(13, 0), B(int64_t{1714979289500000}));
  EXPECT_EQ(value(13, 1), B(int64_t{1714979289000000}));
  EXPECT_EQ(value(14, 0), B(int64_t{1714979289000000}));
  EXPECT_EQ(value(15, 0), B(int64_t{1}));
  EXPECT_EQ(value(16, 0), B(int64_t{3723000004}));
  EXPECT_EQ(value(17, 0), B(int32_t{86399999}));
  EXPECT_EQ(value(18, 0), std::string("\x00\x11\x22\x33\x44\x55\x66\x77\x88\x99\xaa\xbb\xcc\xdd"
                                      "\xee\xff",
                                      16));
  // Row 2's absent columns are nulls: one value in the column, a definition level of 0.
  DecodedChunk s = w.Column(10);
  EXPECT_EQ(s.def_levels, (std::vector<int16_t>{1, 0}));
  EXPECT_EQ(w.Column(18).values.size(), 1u);
}

// a ARRAY<STRUCT<m: MAP<STRING, ARRAY<INT>>>>: five levels of nesting, every one nullable.
TEST(ParquetSinkTest, NestedListsMapsAndStructsGetDremelLevels) {
  const std::vector<std::string> lines = {
      R"({"a":[{"m":{"k1":[1,null],"k2":[]}},null,{"m":{}},{"m":null}]})",
      R"({"a":[]})",
      R"({"a":null})",
      R"({})",
  };
  Written w = Write(Ddl("a ARRAY<STRUCT<m: MAP<STRING, ARRAY<INT>>>>"), lines);
  ASSERT_EQ(w.plan->writer_schema().columns.size(), 2u);
  EXPECT_EQ(w.plan->writer_schema().columns[1].max_def_level, 8);
  EXPECT_EQ(w.plan->writer_schema().columns[1].max_rep_level, 3);
  DecodedChunk keys = w.Column(0);
  EXPECT_EQ(keys.rep_levels, (std::vector<int16_t>{0, 2, 1, 1, 1, 0, 0, 0}));
  EXPECT_EQ(keys.def_levels, (std::vector<int16_t>{5, 5, 2, 4, 3, 1, 0, 0}));
  EXPECT_EQ(keys.values, (std::vector<std::string>{"k1", "k2"}));
  DecodedChunk values = w.Column(1);
  EXPECT_EQ(values.rep_levels, (std::vector<int16_t>{0, 3, 2, 1, 1, 1, 0, 0, 0}));
  EXPECT_EQ(values.def_levels, (std::vector<int16_t>{8, 7, 6, 2, 4, 3, 1, 0, 0}));
  EXPECT_EQ(values.values, (std::vector<std::string>{B(int32_t{1})}));
}

TEST(ParquetSinkTest, StructsNestFiveDeepWithNullsAtEveryLevel) {
  const std::vector<std::string> lines = {
      R"({"s":{"t":{"u":{"v":{"x":1,"y":"a"}}}}})",
      R"({"s":{"t":{"u":{"v":null}}}})",
      R"({"s":{"t":{"u":null}}})",
      R"({"s":{"t":null}})",
      R"({"s":null})",
      R"({"s":{"t":{"u":{"v":{"y":"b"}}}}})",
  };
  Written w =
      Write(Ddl("s STRUCT<t: STRUCT<u: STRUCT<v: STRUCT<x: INT, y: STRING NOT NULL>>>>"), lines);
  DecodedChunk x = w.Column(0);
  EXPECT_EQ(x.def_levels, (std::vector<int16_t>{5, 3, 2, 1, 0, 4}));
  DecodedChunk y = w.Column(1);
  // y cannot be null: its maximum is its struct's level, 4.
  EXPECT_EQ(y.def_levels, (std::vector<int16_t>{4, 3, 2, 1, 0, 4}));
  EXPECT_EQ(y.values, (std::vector<std::string>{"a", "b"}));
}

TEST(ParquetSinkTest, MapKeysAreConvertedToTheKeyType) {
  const std::vector<std::string> lines = {
      R"({"byint":{"-3":"x","70000":"y"},"bydate":{"2024-02-29":true},"bydec":{"1.5":1}})",
      R"({"byint":{},"bydate":null})",
  };
  Written w =
      Write(Ddl("byint MAP<INT, STRING>, bydate MAP<DATE, BOOLEAN>, bydec MAP<DECIMAL(4,2), INT>"),
            lines);
  EXPECT_EQ(w.Column(0).values, (std::vector<std::string>{B(int32_t{-3}), B(int32_t{70000})}));
  EXPECT_EQ(w.Column(0).def_levels, (std::vector<int16_t>{2, 2, 1}));
  EXPECT_EQ(w.Column(2).values, (std::vector<std::string>{B(int32_t{19782})}));
  EXPECT_EQ(w.Column(2).def_levels, (std::vector<int16_t>{2, 0}));
  EXPECT_EQ(w.Column(4).values, (std::vector<std::string>{B(int32_t{150})}));
}

TEST(ParquetSinkTest, TheRescuedColumnIsAddedLast) {
  ParquetPlanOptions options;
  options.rescued_column = "_rescued_data";
  Written w =
      Write(Ddl("id INT"),
            {R"({"id":1,"_rescued_data":null})", R"({"id":null,"_rescued_data":"{\"id\":\"x\"}"})"},
            options);
  ASSERT_EQ(w.meta.schema.size(), 3u);
  EXPECT_EQ(w.meta.schema[2].name, "_rescued_data");
  EXPECT_EQ(w.Column(1).values, (std::vector<std::string>{"{\"id\":\"x\"}"}));
}

TEST(ParquetSinkTest, ValidatorOutputIsWrittenAsSparkReadsTheRecords) {
  // Raw records through the validator, then the sink: the values Spark's JSON reader gives.
  auto schema = Ddl("n DOUBLE, price DECIMAL(10,2), at TIMESTAMP, tags MAP<STRING, INT>, s STRING");
  auto plan = ValidationPlan::Compile(schema);
  ASSERT_TRUE(plan.has_value());
  RecordValidator validator(*plan);
  std::string out;
  for (std::string record : {
           std::string(R"({"n":NaN,"price":"1,234.565","at":0,"tags":{"a":1},"s":12})"),
           std::string(R"({"price":7,"at":"2024-01-01","s":{"k":[1,2]},"extra":1})"),
       }) {
    record.append(64, ' ');
    const RecordResult& r =
        validator.CheckJson(std::string_view(record.data(), record.size() - 64), "f", out);
    ASSERT_NE(r.status, RecordStatus::kBad);
    ASSERT_NE(r.status, RecordStatus::kMalformed);
  }
  std::vector<std::string> lines;
  for (size_t start = 0; start < out.size();) {
    const size_t nl = out.find('\n', start);
    lines.push_back(out.substr(start, nl - start));
    start = nl + 1;
  }
  ParquetPlanOptions options;
  options.rescued_column = "_rescued_data";
  Written w = Write(schema, lines, options);
  double n = 0;
  std::memcpy(&n, w.Column(0).values.at(0).data(), 8);
  EXPECT_TRUE(std::isnan(n));
  EXPECT_EQ(w.Column(1).values, (std::vector<std::string>{B(int64_t{123457}), B(int64_t{700})}));
  EXPECT_EQ(w.Column(2).values,
            (std::vector<std::string>{B(int64_t{0}), B(int64_t{1704067200000000})}));
  EXPECT_EQ(w.Column(5).values, (std::vector<std::string>{"12", R"({"k":[1,2]})"}));
  const DecodedChunk rescued = w.Column(6);
  ASSERT_EQ(rescued.values.size(), 1u);
  EXPECT_NE(rescued.values[0].find("extra"), std::string::npos);
}

TEST(ParquetSinkTest, LinesThatAreNotRecordsFailTheSinkForGood) {
  auto plan = ParquetRecordPlan::Compile(Ddl("a INT, b STRUCT<c: DATE>"));
  ASSERT_TRUE(plan.has_value());
  struct Case {
    std::string line;
    ErrorCode code;
    std::string message_part;
  };
  for (const Case& c : std::vector<Case>{
           {R"({"a":1,"zz":2})", ErrorCode::kInvalidArgument, "`zz` is not a field"},
           {R"({"a":1,"a":2})", ErrorCode::kInvalidArgument, "twice"},
           {R"({"a":)", ErrorCode::kInvalidArgument, "malformed JSON"},
           {R"([1])", ErrorCode::kInvalidArgument, "malformed JSON"},
           {R"({"a":"x"})", ErrorCode::kInvalidArgument, "a string does not fit"},
           {R"({"a":3000000000})", ErrorCode::kInternal, "out of range"},
           {R"({"b":{"c":"yesterday"}})", ErrorCode::kInternal, "line 2: b.c: cannot write"},
       }) {
    StringSink out;
    auto sink = ParquetRecordSink::Open(*plan, out);
    ASSERT_TRUE(sink.has_value());
    ASSERT_TRUE((*sink)->Append(R"({"a":1})").has_value());
    Status s = (*sink)->Append(c.line);
    ASSERT_FALSE(s.has_value()) << c.line;
    EXPECT_EQ(s.error().code(), c.code) << c.line << ": " << s.error().message();
    EXPECT_NE(s.error().message().find(c.message_part), std::string::npos) << s.error().message();
    EXPECT_FALSE((*sink)->Append(R"({"a":1})").has_value());
    EXPECT_FALSE((*sink)->Close().has_value());
  }
}

// Keys are matched to fields whatever their order and spelling: in schema order (compared in
// place), out of order, escaped, and for names JSON must escape; a key that only starts like a
// field, or that a field only starts like, is no field.
TEST(ParquetSinkTest, KeysFindTheirFieldsHoweverTheyAreWritten) {
  schema::SchemaPtr schema =
      Ddl("name STRING, `na\"me` STRING, `a\\b` STRING, n INT, `c\\` STRING");
  ASSERT_EQ(schema->fields()[1].name(), "na\"me");
  ASSERT_EQ(schema->fields()[2].name(), "a\\b");
  const std::vector<std::string> lines = {
      R"({"name":"1","na\"me":"2","a\\b":"3","n":4})",
      R"({"n":5,"a\\b":"6","na\"me":"7","name":"8"})",
      R"({"na\u006de":"9","n\u0061\"me":"10"})",
      R"({"n":11})",
  };
  Written w = Write(schema, lines);
  EXPECT_EQ(w.Column(0).values, (std::vector<std::string>{"1", "8", "9"}));
  EXPECT_EQ(w.Column(1).values, (std::vector<std::string>{"2", "7", "10"}));
  EXPECT_EQ(w.Column(2).values, (std::vector<std::string>{"3", "6"}));
  EXPECT_EQ(w.Column(3).values,
            (std::vector<std::string>{B(int32_t{4}), B(int32_t{5}), B(int32_t{11})}));
  auto plan = ParquetRecordPlan::Compile(schema);
  ASSERT_TRUE(plan.has_value());
  for (const char* line : {R"({"names":"x"})", R"({"nam":"x"})", R"({"name":"1","nn":2})",
                           R"({"a\\bc":"x"})", R"({"na\"":"x"})",
                           // c, a backslash, a quote: the key is c"d (its quote escaped), not the
                           // field named c and a backslash that comes next in order.
                           R"({"name":"1","na\"me":"2","a\\b":"3","n":4,"c\"d":"x"})"}) {
    StringSink out;
    auto sink = ParquetRecordSink::Open(*plan, out);
    ASSERT_TRUE(sink.has_value());
    Status st = (*sink)->Append(line);
    ASSERT_FALSE(st.has_value()) << line;
    EXPECT_NE(st.error().message().find("is not a field"), std::string::npos)
        << line << ": " << st.error().message();
  }
}

TEST(ParquetSinkTest, OnePlanOpensManySmallFiles) {
  auto plan = ParquetRecordPlan::Compile(Ddl("id BIGINT, name STRING"));
  ASSERT_TRUE(plan.has_value());
  MemoryFileSystem fs;
  for (int f = 0; f < 50; ++f) {
    auto file = fs.OpenWritable("part-" + std::to_string(f) + ".parquet");
    ASSERT_TRUE(file.has_value());
    auto sink = ParquetRecordSink::Open(*plan, std::move(*file));
    ASSERT_TRUE(sink.has_value());
    std::string lines;
    for (int i = 0; i < 10; ++i) {
      lines += R"({"id":)" + std::to_string(f * 10 + i) + R"(,"name":"n"})" + "\n";
    }
    ASSERT_TRUE((*sink)->AppendLines(lines).has_value());
    ASSERT_TRUE((*sink)->Close().has_value());
    EXPECT_EQ((*sink)->num_rows(), 10);
  }
  auto last = fs.ReadFile("part-49.parquet");
  ASSERT_TRUE(last.has_value());
  EXPECT_EQ(last->substr(last->size() - 4), "PAR1");
}

TEST(ParquetSinkTest, NullTypedFieldsAreLeftOutWithANote) {
  auto schema =
      schema::Schema::Make({Field("a", Type::Int32()), Field("gone", Type::Null())}).value();
  Written w = Write(schema, {R"({"a":1,"gone":null})"});
  EXPECT_EQ(w.meta.schema.size(), 2u);
  EXPECT_FALSE(w.plan->notes().empty());
}

// The sink reads lines with a scanner of its own: whitespace anywhere JSON allows it, and
// nothing JSON does not allow, wherever it stands (a value of a null-typed field too); the
// error names the line and the byte.
TEST(ParquetSinkTest, LinesAreReadAsStrictlyAsJson) {
  schema::SchemaPtr schema = Ddl("a INT, gone VOID, s STRING, l ARRAY<BIGINT>");
  ASSERT_EQ(schema->fields()[1].type()->kind(), schema::TypeKind::kNull);
  Written w = Write(schema, {" { \"a\" : 1 ,\t\"gone\" : { \"x\" : [ 1 , \"]\" ] } , "
                             "\"s\" : \"q\\u00e9\\n\" , \"l\" : [ 2 , -3 ] } \r",
                             R"({"gone":[[{}]],"l":[],"s":"\ud83d\ude00"})"});
  EXPECT_EQ(w.Column(0).values, (std::vector<std::string>{B(int32_t{1})}));
  EXPECT_EQ(w.Column(1).values, (std::vector<std::string>{"q\xC3\xA9\n", "\xF0\x9F\x98\x80"}));
  EXPECT_EQ(w.Column(2).values, (std::vector<std::string>{B(int64_t{2}), B(int64_t{-3})}));
  auto plan = ParquetRecordPlan::Compile(schema);
  ASSERT_TRUE(plan.has_value());
  for (const std::string line : {
           R"({"a":1,})",
           R"({"a":01})",
           R"({"a":1.})",
           R"({"a":-})",
           R"({"a":1e})",
           R"({"a":1 "s":"x"})",
           R"({"a":1} x)",
           R"({"a":1}})",
           R"({"s":"\x"})",
           R"({"s":"\u12g4"})",
           R"({"s":"unterminated})",
           "{\"s\":\"tab\there\"}",
           "{\"s\":\"\xC3\"}",
           R"({"gone":tru})",
           R"({"gone":[1,]})",
           R"({"gone":{"x"}})",
           R"({"gone":nul})",
           R"({"l":[1 2]})",
           R"({"l":[1,)",
           R"({a:1})",
           R"({"a")",
           R"({"a":1e5x})",
           "",
       }) {
    StringSink out;
    auto sink = ParquetRecordSink::Open(*plan, out);
    ASSERT_TRUE(sink.has_value());
    Status st = (*sink)->Append(line);
    ASSERT_FALSE(st.has_value()) << line;
    EXPECT_NE(st.error().message().find("malformed JSON at byte "), std::string::npos)
        << line << ": " << st.error().message();
    EXPECT_NE(st.error().message().find("line 1"), std::string::npos) << st.error().message();
  }
}

// Every row of a file, as the reader prints it.
std::vector<std::string> RowsOf(const std::string& bytes) {
  auto fs = std::make_shared<MemoryFileSystem>();
  EXPECT_TRUE(fs->WriteFile("f.parquet", bytes).has_value());
  auto reader = parquet::FileReader::Open(fs, "f.parquet");
  EXPECT_TRUE(reader.has_value()) << reader.error().message();
  std::vector<std::string> rows;
  if (!reader) return rows;
  Status s = (*reader)->ReadAllRows({}, [&](std::string_view row) -> Status {
    rows.emplace_back(row);
    return Ok();
  });
  EXPECT_TRUE(s.has_value()) << s.error().message();
  return rows;
}

// Fragments shredded apart and appended in order make the file the lines make one by one,
// row groups aside: those end only between fragments.
TEST(ParquetSinkTest, FragmentsAppendToTheSameRowsAsLines) {
  auto plan = ParquetRecordPlan::Compile(
      Ddl("id BIGINT NOT NULL, s STRING, d DECIMAL(30,2), t TIMESTAMP, "
          "l ARRAY<STRUCT<k: STRING, v: ARRAY<INT>>>, m MAP<STRING, DOUBLE>, b BOOLEAN"),
      {.rescued_column = "_rescued_data"});
  ASSERT_TRUE(plan.has_value());
  std::mt19937 rng(11);
  std::vector<std::string> lines;
  for (int i = 0; i < 3000; ++i) {
    std::string line = "{\"id\":" + std::to_string(i);
    if (rng() % 4) line += ",\"s\":\"text " + std::string(rng() % 40, 'x') + "\"";
    if (rng() % 3) line += ",\"d\":" + std::to_string(rng() % 100000) + ".25";
    if (rng() % 2) line += ",\"t\":\"2026-01-0" + std::to_string(1 + rng() % 9) + "T01:02:03Z\"";
    if (rng() % 3) {
      line += ",\"l\":[";
      for (unsigned k = rng() % 3; k > 0; --k) {
        line += "{\"k\":\"" + std::to_string(k) + "\",\"v\":[" + std::to_string(k) + "]}";
        if (k > 1) line += ",";
      }
      line += "]";
    }
    if (rng() % 3) line += ",\"m\":{\"a\":1.5,\"b\":null}";
    if (rng() % 2) line += ",\"b\":true";
    line += rng() % 5 ? ",\"_rescued_data\":null}" : ",\"_rescued_data\":\"{}\"}";
    lines.push_back(std::move(line));
  }
  parquet::WriterOptions options;
  options.row_group_bytes = 64 << 10;
  StringSink by_line;
  auto line_sink = ParquetRecordSink::Open(*plan, by_line, options);
  ASSERT_TRUE(line_sink.has_value());
  for (const std::string& line : lines) ASSERT_TRUE((*line_sink)->Append(line).has_value());
  ASSERT_TRUE((*line_sink)->Close().has_value());

  StringSink by_fragment;
  auto sink = ParquetRecordSink::Open(*plan, by_fragment, options);
  ASSERT_TRUE(sink.has_value());
  ParquetFragment fragment(*plan);
  std::vector<int64_t> ends = {0};
  for (size_t i = 0; i < lines.size();) {
    const size_t n = std::min<size_t>(lines.size() - i, 1 + rng() % 400);
    std::string block;
    for (size_t k = 0; k < n; ++k) block += lines[i + k] + (k % 7 == 0 ? "\r\n\n" : "\n");
    fragment.Clear();
    ASSERT_TRUE(fragment.AppendLines(block).has_value());
    ASSERT_EQ(fragment.num_rows(), static_cast<int64_t>(n));
    ASSERT_TRUE((*sink)->AppendFragment(fragment).has_value());
    i += n;
    ends.push_back(static_cast<int64_t>(i));
  }
  ASSERT_TRUE((*sink)->Close().has_value());
  EXPECT_EQ((*sink)->num_rows(), 3000);
  EXPECT_EQ(RowsOf(by_fragment.text), RowsOf(by_line.text));
  const parquet::FileMetaData& meta = (*sink)->metadata();
  EXPECT_GT(meta.row_groups.size(), 2u);
  int64_t at = 0;
  for (const parquet::RowGroup& g : meta.row_groups) {
    at += g.num_rows;
    EXPECT_NE(std::find(ends.begin(), ends.end(), at), ends.end()) << at;
  }
}

TEST(ParquetSinkTest, AFragmentThatFailedOrOfAnotherPlanIsRefused) {
  auto plan = ParquetRecordPlan::Compile(Ddl("a INT"));
  auto other = ParquetRecordPlan::Compile(Ddl("a INT"));
  ASSERT_TRUE(plan.has_value() && other.has_value());
  StringSink out;
  auto sink = ParquetRecordSink::Open(*plan, out);
  ASSERT_TRUE(sink.has_value());
  ParquetFragment bad(*plan);
  Status st = bad.AppendLines("{\"a\":1}\n{\"a\":\n");
  ASSERT_FALSE(st.has_value());
  EXPECT_NE(st.error().message().find("line 2"), std::string::npos) << st.error().message();
  EXPECT_FALSE(bad.AppendLines("{\"a\":1}").has_value());
  EXPECT_FALSE((*sink)->AppendFragment(bad).has_value());
  ParquetFragment foreign(*other);
  ASSERT_TRUE(foreign.AppendLines("{\"a\":1}").has_value());
  StringSink out2;
  auto sink2 = ParquetRecordSink::Open(*plan, out2);
  ASSERT_TRUE(sink2.has_value());
  EXPECT_FALSE((*sink2)->AppendFragment(foreign).has_value());
  bad.Clear();
  ASSERT_TRUE(bad.AppendLines("{\"a\":1}\n{\"a\":2}").has_value());
  StringSink out3;
  parquet::WriterOptions limited;
  limited.max_rows_per_row_group = 10;
  auto sink3 = ParquetRecordSink::Open(*plan, out3, limited);
  ASSERT_TRUE(sink3.has_value());
  EXPECT_FALSE((*sink3)->AppendFragment(bad).has_value());
  StringSink out4;
  auto sink4 = ParquetRecordSink::Open(*plan, out4);
  ASSERT_TRUE(sink4.has_value());
  ASSERT_TRUE((*sink4)->AppendFragment(bad).has_value());
  ASSERT_TRUE((*sink4)->Close().has_value());
  EXPECT_EQ(RowsOf(out4.text), (std::vector<std::string>{R"({"a":1})", R"({"a":2})"}));
}

}  // namespace
}  // namespace sluice::data
