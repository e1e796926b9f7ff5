#include "sluice/table/file_stats.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cstring>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "sluice/base/json_writer.h"
#include "sluice/base/string_sink_testing.h"
#include "sluice/data/parquet_sink.h"
#include "sluice/dialects/spark/spark.h"
#include "sluice/table/file_stats_internal.h"

namespace sluice::table {
namespace {

using ::sluice::testing::StringSink;

schema::SchemaPtr Ddl(std::string_view ddl) {
  auto s = dialects::spark::ReadDdl(ddl);
  EXPECT_TRUE(s.has_value()) << s.error().message();
  return s ? s->value : nullptr;
}

// A Parquet file written in memory by the project's writer: its plan (schema) and footer.
struct Written {
  std::shared_ptr<const data::ParquetRecordPlan> plan;
  parquet::FileMetaData meta;
};

Written Write(schema::SchemaPtr schema, const std::vector<std::string>& lines,
              data::ParquetPlanOptions plan_options = {}, parquet::WriterOptions options = {}) {
  Written w;
  auto plan = data::ParquetRecordPlan::Compile(std::move(schema), plan_options);
  EXPECT_TRUE(plan.has_value()) << plan.error().message();
  if (!plan) return w;
  w.plan = *plan;
  StringSink out;
  auto sink = data::ParquetRecordSink::Open(w.plan, out, options);
  EXPECT_TRUE(sink.has_value()) << sink.error().message();
  if (!sink) return w;
  for (const std::string& line : lines) {
    Status s = (*sink)->Append(line);
    EXPECT_TRUE(s.has_value()) << line << ": " << s.error().message();
  }
  Status s = (*sink)->Close();
  EXPECT_TRUE(s.has_value()) << s.error().message();
  w.meta = (*sink)->metadata();
  return w;
}

std::string Stats(const Written& w, const StatsOptions& options = {}) {
  if (!w.plan) return "<no file>";
  auto json = FileStatsJson(w.meta, w.plan->parquet_schema(), options);
  EXPECT_TRUE(json.has_value()) << json.error().message();
  return json ? *json : "<error: " + json.error().message() + ">";
}

std::string Stats(std::string_view ddl, const std::vector<std::string>& lines,
                  const StatsOptions& options = {}) {
  return Stats(Write(Ddl(ddl), lines), options);
}

StatsOptions Options(std::function<void(StatsOptions&)> edit) {
  StatsOptions o;
  edit(o);
  return o;
}

TEST(FileStatsTest, EveryPrimitiveType) {
  const std::string ddl =
      "b tinyint, s smallint, i int, l bigint, f float, d double, dec decimal(10,2), "
      "bigdec decimal(25,5), str string, bin binary, bool boolean, dt date, ts timestamp, "
      "ntz timestamp_ntz";
  const std::vector<std::string> lines = {
      R"({"b":1,"s":-300,"i":70000,"l":-5000000000,"f":1.5,"d":-2.25,"dec":123.45,)"
      R"("bigdec":12345678901234567890.12345,"str":"apple","bin":"AAEC","bool":true,)"
      R"("dt":"2024-09-09","ts":"2024-09-09T12:34:56.123456Z","ntz":"2024-09-09T12:34:56.987654"})",
      R"({"b":-7,"s":300,"i":-1,"l":42,"f":-0.5,"d":1e10,"dec":-0.05,"bigdec":-1.5,)"
      R"("str":"banana","bin":"","bool":false,"dt":"1969-12-31",)"
      R"("ts":"1969-12-31T23:59:59.999999Z","ntz":"2000-01-01T00:00:00"})",
      R"({})",
  };
  // Booleans and binary get no bounds; FLOAT and DOUBLE no maximum (NaN, see the header);
  // timestamps keep milliseconds, truncated toward the past.
  EXPECT_EQ(Stats(ddl, lines),
            R"({"numRecords":3,)"
            R"("minValues":{"b":-7,"s":-300,"i":-1,"l":-5000000000,"f":-0.5,"d":-2.25,)"
            R"("dec":-0.05,"bigdec":-1.50000,"str":"apple","dt":"1969-12-31",)"
            R"("ts":"1969-12-31T23:59:59.999Z","ntz":"2000-01-01T00:00:00.000"},)"
            R"("maxValues":{"b":1,"s":300,"i":70000,"l":42,"dec":123.45,)"
            R"("bigdec":12345678901234567890.12345,"str":"banana","dt":"2024-09-09",)"
            R"("ts":"2024-09-09T12:34:56.123Z","ntz":"2024-09-09T12:34:56.987"},)"
            R"("nullCount":{"b":1,"s":1,"i":1,"l":1,"f":1,"d":1,"dec":1,"bigdec":1,"str":1,)"
            R"("bin":1,"bool":1,"dt":1,"ts":1,"ntz":1},"tightBounds":true})");
}

TEST(FileStatsTest, TimestampsTruncateToMillisecondsTowardThePast) {
  EXPECT_EQ(
      Stats("ts timestamp",
            {R"({"ts":"1969-12-31T23:59:59.9995Z"})", R"({"ts":"1970-01-01T00:00:00.0019Z"})"},
            Options([](StatsOptions& o) { o.tight_bounds = false; })),
      R"({"numRecords":2,"minValues":{"ts":"1969-12-31T23:59:59.999Z"},)"
      R"("maxValues":{"ts":"1970-01-01T00:00:00.001Z"},"nullCount":{"ts":0}})");
}

TEST(FileStatsTest, AllNullColumnsHaveOnlyNullCounts) {
  EXPECT_EQ(Stats("a int, s string", {R"({"a":1})", R"({"a":2,"s":null})"}),
            R"({"numRecords":2,"minValues":{"a":1},"maxValues":{"a":2},)"
            R"("nullCount":{"a":0,"s":2},"tightBounds":true})");
  // Spark writes {} for a statistic whose every value is null.
  EXPECT_EQ(Stats("x int", {"{}", "{}"}),
            R"({"numRecords":2,"minValues":{},"maxValues":{},"nullCount":{"x":2},)"
            R"("tightBounds":true})");
}

TEST(FileStatsTest, FloatsKeepTheirMinimumOnly) {
  // NaN is no bound; Spark's maximum would be NaN, which the footer cannot tell apart.
  EXPECT_EQ(Stats("d double, f float", {R"({"d":"NaN","f":2.5})", R"({"d":1.25,"f":-0.0})"}),
            R"({"numRecords":2,"minValues":{"d":1.25,"f":0},"maxValues":{},)"
            R"("nullCount":{"d":0,"f":0},"tightBounds":true})");
  // Nothing but NaN gives no bounds at all; an infinite bound is left out.
  EXPECT_EQ(Stats("d double, e double", {R"({"d":"NaN","e":"-Infinity"})", R"({"e":3})"}),
            R"({"numRecords":2,"minValues":{},"maxValues":{},"nullCount":{"d":1,"e":0},)"
            R"("tightBounds":true})");
}

TEST(FileStatsTest, NestedStructsNestTheirStatistics) {
  const std::string ddl =
      "a struct<aa: string, ab: int, ac: struct<aca: int, acb: boolean>>, b int, "
      "flags struct<on: boolean>";
  const std::vector<std::string> lines = {
      R"({"a":{"aa":"x","ab":1,"ac":{"aca":5,"acb":true}},"b":1,"flags":{"on":true}})",
      R"({"a":null,"b":2})",
      R"({"a":{"aa":"y","ab":null,"ac":null},"b":3,"flags":{"on":null}})",
  };
  // A null struct makes its fields null; a struct of booleans has no bounds.
  EXPECT_EQ(Stats(ddl, lines), R"({"numRecords":3,)"
                               R"("minValues":{"a":{"aa":"x","ab":1,"ac":{"aca":5}},"b":1},)"
                               R"("maxValues":{"a":{"aa":"y","ab":1,"ac":{"aca":5}},"b":3},)"
                               R"("nullCount":{"a":{"aa":1,"ab":2,"ac":{"aca":2,"acb":2}},"b":0,)"
                               R"("flags":{"on":2}},"tightBounds":true})");
}

TEST(FileStatsTest, ArraysAndMapsHaveNullCountsOnly) {
  const std::string ddl =
      "id int, tags array<string>, m map<string,int>, st struct<arr: array<int>>";
  EXPECT_EQ(Stats(ddl, {R"({"id":1,"tags":["a","b"],"m":{"k":1},"st":{"arr":[1]}})",
                        R"({"id":2,"tags":["c"],"m":{"z":2},"st":{"arr":[2,3]}})"}),
            R"({"numRecords":2,"minValues":{"id":1},"maxValues":{"id":2},)"
            R"("nullCount":{"id":0,"tags":0,"m":0,"st":{"arr":0}},"tightBounds":true})");
  // A null array and an empty one look alike in a footer: the count is left out, not guessed.
  EXPECT_EQ(Stats(ddl, {R"({"id":1,"tags":null,"m":{},"st":null})",
                        R"({"id":2,"tags":[],"m":null,"st":{"arr":[]}})"}),
            R"({"numRecords":2,"minValues":{"id":1},"maxValues":{"id":2},)"
            R"("nullCount":{"id":0,"st":{}},"tightBounds":true})");
  // An array that cannot be null has none, empty or not.
  EXPECT_EQ(Stats("tags array<string> not null", {R"({"tags":[]})", R"({"tags":[null]})"}),
            R"({"numRecords":2,"nullCount":{"tags":0},"tightBounds":true})");
}

std::string ManyIntColumns(int n, int struct_at = -1) {
  std::string ddl;
  for (int i = 0; i < n; ++i) {
    if (!ddl.empty()) ddl += ", ";
    ddl += i == struct_at ? fmt::format("s struct<x: int, y: int, z: int>")
                          : fmt::format("c{} int", i);
  }
  return ddl;
}

TEST(FileStatsTest, OnlyTheFirst32LeafFieldsByDefault) {
  // Fields c0..c29, then s (x, y, z), then c31..c39: the count runs out inside s.
  const std::string ddl = ManyIntColumns(40, 30);
  std::string line = "{";
  for (int i = 0; i < 40; ++i) {
    if (i != 30) line += fmt::format("\"c{}\":{},", i, i);
  }
  line += R"("s":{"x":1,"y":2,"z":3}})";
  const Written w = Write(Ddl(ddl), {line});
  auto parsed = ParseStats(Stats(w));
  ASSERT_TRUE(parsed.has_value()) << parsed.error().message();
  ASSERT_EQ(parsed->min_values.size(), 31u);  // c0..c29 and s
  EXPECT_NE(parsed->min_values.Find("c29"), nullptr);
  EXPECT_EQ(parsed->min_values.Find("c31"), nullptr);
  const JsonValue* s = parsed->null_count.Find("s");
  ASSERT_NE(s, nullptr);
  EXPECT_EQ(ToJson(*s), R"({"x":0,"y":0})");

  // -1: every column; 0: none.
  parsed = ParseStats(Stats(w, Options([](StatsOptions& o) { o.num_indexed_cols = -1; })));
  ASSERT_TRUE(parsed.has_value());
  EXPECT_EQ(parsed->null_count.size(), 40u);
  EXPECT_EQ(Stats(w, Options([](StatsOptions& o) { o.num_indexed_cols = 0; })),
            R"({"numRecords":1,"tightBounds":true})");
}

TEST(FileStatsTest, EveryFieldThatIsNoStructTakesOneSlot) {
  const auto opts = Options([](StatsOptions& o) { o.num_indexed_cols = 2; });
  EXPECT_EQ(Stats("a array<int>, b int, c int", {R"({"a":[1],"b":2,"c":3})"}, opts),
            R"({"numRecords":1,"minValues":{"b":2},"maxValues":{"b":2},)"
            R"("nullCount":{"a":0,"b":0},"tightBounds":true})");
}

TEST(FileStatsTest, StatsColumnsNameFieldsIgnoringCase) {
  const std::string ddl = "a int, B struct<x: int, y: string>, c string, arr array<int>";
  const std::vector<std::string> lines = {R"({"a":1,"B":{"x":2,"y":"q"},"c":"w","arr":[5]})"};
  EXPECT_EQ(Stats(ddl, lines, Options([](StatsOptions& o) {
                    o.stats_columns = std::vector<std::string>{"b.X", "C"};
                  })),
            R"({"numRecords":1,"minValues":{"B":{"x":2},"c":"w"},)"
            R"("maxValues":{"B":{"x":2},"c":"w"},"nullCount":{"B":{"x":0},"c":0},)"
            R"("tightBounds":true})");
  // A struct brings all of its fields; a path into an array selects nothing.
  EXPECT_EQ(Stats(ddl, lines, Options([](StatsOptions& o) {
                    o.stats_columns = std::vector<std::string>{"`b`", "arr.element"};
                  })),
            R"({"numRecords":1,"minValues":{"B":{"x":2,"y":"q"}},)"
            R"("maxValues":{"B":{"x":2,"y":"q"}},"nullCount":{"B":{"x":0,"y":0}},)"
            R"("tightBounds":true})");
  // Set but empty: no column at all.
  EXPECT_EQ(Stats(ddl, lines,
                  Options([](StatsOptions& o) { o.stats_columns = std::vector<std::string>{}; })),
            R"({"numRecords":1,"tightBounds":true})");
}

TEST(FileStatsTest, LongStringsAreCutAndTheirMaximumRaised) {
  const std::string a40(40, 'a');
  const std::string z40(40, 'z');
  // The minimum keeps 32 characters; the maximum keeps 32 and a DEL above the next one.
  EXPECT_EQ(Stats("s string", {"{\"s\":\"" + a40 + "\"}", "{\"s\":\"" + z40 + "\"}"},
                  Options([](StatsOptions& o) { o.tight_bounds = false; })),
            R"({"numRecords":2,"minValues":{"s":")" + std::string(32, 'a') +
                R"("},"maxValues":{"s":")" + std::string(32, 'z') +
                "\x7F\"},\"nullCount\":{\"s\":0}}");

  const auto prefix3 = Options([](StatsOptions& o) {
    o.string_prefix_length = 3;
    o.tight_bounds = false;
  });
  // Characters count as Spark counts them: code points for the minimum ("a😀c"), UTF-16
  // units for the maximum; after a non-ASCII character the maximum takes U+10FFFF.
  EXPECT_EQ(Stats("s string", {R"({"s":"a😀cd"})", R"({"s":"m"})", R"({"s":"zz€€"})"}, prefix3),
            R"({"numRecords":3,"minValues":{"s":"a😀c"},"maxValues":{"s":"zz€)"
            "\xF4\x8F\xBF\xBF"
            R"("},"nullCount":{"s":0}})");
  // A maximum that cannot be raised within twice the prefix is left out.
  const std::string max4 = "\xF4\x8F\xBF\xBF\xF4\x8F\xBF\xBF\xF4\x8F\xBF\xBF\xF4\x8F\xBF\xBF";
  EXPECT_EQ(
      Stats("s string", {R"({"s":"b"})", "{\"s\":\"" + max4 + "\"}"}, Options([](StatsOptions& o) {
              o.string_prefix_length = 1;
              o.tight_bounds = false;
            })),
      R"({"numRecords":2,"minValues":{"s":"b"},"maxValues":{},"nullCount":{"s":0}})");
}

TEST(FileStatsTest, TruncateMaxStringFollowsDelta) {
  using internal::TruncateMaxString;
  const std::string kMax = "\xF4\x8F\xBF\xBF";  // U+10FFFF
  const std::string kDel = "\x7F";
  struct Case {
    std::string in;
    int prefix;
    std::optional<std::string> out;
  };
  const std::vector<Case> cases = {
      {"hello", 5, "hello"},
      {"hello", 9, "hello"},
      {"hello", 0, std::nullopt},
      {"", 0, ""},
      {"hello", 3, "hel" + kDel},
      {"hel\x7Fo", 3, "hel" + kMax},              // DEL is not below DEL
      {"x" + kMax + "yz", 2, "x" + kMax + kDel},  // the max character is kept whole
      {"xyz" + kMax + kMax + "w", 4, "xyz" + kMax + kMax + kDel},
      {"xyz" + kMax + kMax + "w", 3, std::nullopt},  // past 2 * 3 units
      {kMax + kMax + kMax, 1, std::nullopt},         // nothing above within 2 units
      {kMax + kMax + kMax, 3, kMax + kMax + kMax},   // 6 units, within 2 * 3
      {"日本語テキスト", 4, "日本語テ" + kMax},
      {"日本語テ", 4, "日本語テ"},
      {"abc🚀", 3, "abc" + kMax},    // a supplementary character is above DEL
      {"ab🚀c", 3, "ab🚀" + kDel},    // never cut inside a surrogate pair
      {"ab🚀", 3, "ab🚀"},            // 4 units but nothing after the cut
      {"ab\xFF", 1, std::nullopt},  // not UTF-8
  };
  for (const Case& c : cases) {
    EXPECT_EQ(TruncateMaxString(c.in, c.prefix), c.out) << c.in << " / " << c.prefix;
    if (c.out) {
      EXPECT_GE(*c.out, c.in);  // bytewise: a bound for the value
    }
  }
  EXPECT_EQ(internal::TruncateMinString("ab🚀cd", 3), "ab🚀");
  EXPECT_EQ(internal::TruncateMinString("abc", 0), "");
  EXPECT_EQ(internal::TruncateMinString("a\xC3", 5), std::nullopt);
}

TEST(FileStatsTest, SeveralRowGroupsCombine) {
  parquet::WriterOptions options;
  options.max_rows_per_row_group = 2;
  const Written w = Write(Ddl("i int, s string, d date"),
                          {R"({"i":50,"s":"m","d":"2020-01-01"})", R"({"i":7,"s":null})",
                           R"({"i":null,"s":"z","d":"2019-05-05"})", R"({"i":3,"s":"c"})",
                           R"({"i":null,"s":"k","d":"2021-12-31"})"},
                          {}, options);
  ASSERT_EQ(w.meta.row_groups.size(), 3u);
  EXPECT_EQ(Stats(w),
            R"({"numRecords":5,"minValues":{"i":3,"s":"c","d":"2019-05-05"},)"
            R"("maxValues":{"i":50,"s":"z","d":"2021-12-31"},"nullCount":{"i":2,"s":1,"d":2},)"
            R"("tightBounds":true})");
}

TEST(FileStatsTest, ColumnMappingKeysArePhysicalNames) {
  auto schema = dialects::spark::ReadJson(R"({"type":"struct","fields":[
    {"name":"id","type":"long","nullable":true,"metadata":{
      "delta.columnMapping.id":1,"delta.columnMapping.physicalName":"col-1"}},
    {"name":"info","type":{"type":"struct","fields":[
      {"name":"title","type":"string","nullable":true,"metadata":{
        "delta.columnMapping.id":3,"delta.columnMapping.physicalName":"col-3"}}]},
     "nullable":true,"metadata":{
      "delta.columnMapping.id":2,"delta.columnMapping.physicalName":"col-2"}}]})");
  ASSERT_TRUE(schema.has_value()) << schema.error().message();
  data::ParquetPlanOptions plan_options;
  plan_options.schema.use_physical_names = true;
  const Written w = Write(schema->value, {R"({"id":4,"info":{"title":"t"}})"}, plan_options);
  EXPECT_EQ(Stats(w), R"({"numRecords":1,"minValues":{"col-1":4,"col-2":{"col-3":"t"}},)"
                      R"("maxValues":{"col-1":4,"col-2":{"col-3":"t"}},)"
                      R"("nullCount":{"col-1":0,"col-2":{"col-3":0}},"tightBounds":true})");
  // delta.dataSkippingStatsColumns names logical columns.
  EXPECT_EQ(Stats(w, Options([](StatsOptions& o) {
                    o.stats_columns = std::vector<std::string>{"info.title"};
                  })),
            R"({"numRecords":1,"minValues":{"col-2":{"col-3":"t"}},)"
            R"("maxValues":{"col-2":{"col-3":"t"}},"nullCount":{"col-2":{"col-3":0}},)"
            R"("tightBounds":true})");
}

TEST(FileStatsTest, AFieldTheFileLeavesOutIsNullInEveryRow) {
  auto schema = dialects::spark::ReadJson(R"({"type":"struct","fields":[
    {"name":"a","type":"integer","nullable":true,"metadata":{}},
    {"name":"v","type":"void","nullable":true,"metadata":{}}]})");
  ASSERT_TRUE(schema.has_value()) << schema.error().message();
  EXPECT_EQ(Stats(Write(schema->value, {R"({"a":1})", R"({"a":2})"})),
            R"({"numRecords":2,"minValues":{"a":1},"maxValues":{"a":2},)"
            R"("nullCount":{"a":0,"v":2},"tightBounds":true})");
}

// ---- Footers the writer would not produce --------------------------------------------------

Written TwoGroups() {
  parquet::WriterOptions options;
  options.max_rows_per_row_group = 1;
  return Write(Ddl("i int, s string"), {R"({"i":1,"s":"a"})", R"({"i":2,"s":"b"})"}, {}, options);
}

TEST(FileStatsTest, AChunkWithoutStatisticsLeavesItsColumnOut) {
  Written w = TwoGroups();
  ASSERT_EQ(w.meta.row_groups.size(), 2u);
  w.meta.row_groups[1].columns[0].meta_data->statistics.reset();
  EXPECT_EQ(Stats(w), R"({"numRecords":2,"minValues":{"s":"a"},"maxValues":{"s":"b"},)"
                      R"("nullCount":{"s":0},"tightBounds":true})");
  // Statistics without bounds for a chunk that has values: the bounds are unknown.
  w = TwoGroups();
  w.meta.row_groups[0].columns[1].meta_data->statistics->min_value.reset();
  EXPECT_EQ(Stats(w), R"({"numRecords":2,"minValues":{"i":1},"maxValues":{"i":2},)"
                      R"("nullCount":{"i":0,"s":0},"tightBounds":true})");
}

TEST(FileStatsTest, DeprecatedBoundsOnlyWhereTheirOrderHolds) {
  Written w = TwoGroups();
  for (parquet::RowGroup& rg : w.meta.row_groups) {
    for (parquet::ColumnChunk& chunk : rg.columns) {
      parquet::Statistics& st = *chunk.meta_data->statistics;
      st.min = std::exchange(st.min_value, std::nullopt);
      st.max = std::exchange(st.max_value, std::nullopt);
    }
  }
  // Signed integers were compared right; strings were compared as signed bytes.
  EXPECT_EQ(Stats(w), R"({"numRecords":2,"minValues":{"i":1},"maxValues":{"i":2},)"
                      R"("nullCount":{"i":0,"s":0},"tightBounds":true})");
  // A column order other than TYPE_ORDER leaves min_value/max_value meaningless.
  w = TwoGroups();
  w.meta.column_orders = {true, false};
  EXPECT_EQ(Stats(w), R"({"numRecords":2,"minValues":{"i":1},"maxValues":{"i":2},)"
                      R"("nullCount":{"i":0,"s":0},"tightBounds":true})");
}

TEST(FileStatsTest, FootersThatDoNotFitAreErrors) {
  Written w = TwoGroups();
  w.meta.row_groups[0].columns[0].meta_data->statistics->min_value = "abc";
  auto r = FileStatsJson(w.meta, w.plan->parquet_schema());
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error().code(), ErrorCode::kInvalidArgument);
  EXPECT_NE(r.error().message().find("column i, row group 0"), std::string::npos)
      << r.error().message();

  w = TwoGroups();
  w.meta.row_groups[1].columns[1].meta_data->statistics->null_count = -1;
  r = FileStatsJson(w.meta, w.plan->parquet_schema());
  ASSERT_FALSE(r.has_value());
  EXPECT_NE(r.error().message().find("null_count -1"), std::string::npos) << r.error().message();

  w = TwoGroups();
  w.meta.row_groups[1].columns.pop_back();
  r = FileStatsJson(w.meta, w.plan->parquet_schema());
  ASSERT_FALSE(r.has_value());
  EXPECT_NE(r.error().message().find("row group 1 has 1 column chunks"), std::string::npos);

  w = TwoGroups();
  w.meta.row_groups[0].columns[1].meta_data->path_in_schema = {"t"};
  EXPECT_FALSE(FileStatsJson(w.meta, w.plan->parquet_schema()).has_value());

  StatsOptions bad;
  bad.stats_columns = std::vector<std::string>{"`i"};
  r = FileStatsJson(TwoGroups().meta, w.plan->parquet_schema(), bad);
  ASSERT_FALSE(r.has_value());
  EXPECT_NE(r.error().message().find("unclosed backquote"), std::string::npos);
}

// A footer another writer could have written, with the encodings sluice's writer does not use.
struct ForeignColumn {
  parquet::SchemaElement element;
  std::string min, max;
};

parquet::SchemaElement Leaf(std::string name, parquet::PhysicalType type,
                            std::optional<parquet::LogicalType> logical = std::nullopt,
                            std::optional<int32_t> length = std::nullopt) {
  parquet::SchemaElement e;
  e.name = std::move(name);
  e.type = type;
  e.repetition = parquet::Repetition::kOptional;
  e.logical_type = logical;
  e.type_length = length;
  return e;
}

parquet::LogicalType Logical(parquet::LogicalType::Kind kind) {
  parquet::LogicalType t;
  t.kind = kind;
  return t;
}

template <class T>
std::string Le(T v) {
  std::string s(sizeof(T), '\0');
  std::memcpy(s.data(), &v, sizeof(T));
  return s;
}

TEST(FileStatsTest, ForeignEncodingsDecodeByTheirAnnotations) {
  using parquet::LogicalType;
  using parquet::PhysicalType;
  LogicalType u32 = Logical(LogicalType::Kind::kInteger);
  u32.is_signed = false;
  LogicalType u64 = u32;
  u64.bit_width = 64;
  LogicalType dec = Logical(LogicalType::Kind::kDecimal);
  dec.decimal_precision = 20;
  dec.decimal_scale = 2;
  LogicalType ts_millis = Logical(LogicalType::Kind::kTimestamp);
  ts_millis.adjusted_to_utc = true;
  ts_millis.unit = parquet::TimeUnit::kMillis;
  LogicalType ntz_nanos = Logical(LogicalType::Kind::kTimestamp);
  ntz_nanos.unit = parquet::TimeUnit::kNanos;
  LogicalType time = Logical(LogicalType::Kind::kTime);
  const std::vector<ForeignColumn> columns = {
      {Leaf("u32", PhysicalType::kInt32, u32), Le<uint32_t>(1), Le<uint32_t>(0xFFFFFFFF)},
      {Leaf("u64", PhysicalType::kInt64, u64), Le<uint64_t>(0), Le<uint64_t>(UINT64_MAX)},
      {Leaf("dec", PhysicalType::kFixedLenByteArray, dec, 9),
       std::string("\xFF\xFF\xFF\xFF\xFF\xFF\xFF\xFF\x6A", 9),
       std::string("\x00\x11\x22\x10\xF4\x7D\xE9\x81\x15", 9)},
      {Leaf("half", PhysicalType::kFixedLenByteArray, Logical(LogicalType::Kind::kFloat16), 2),
       Le<uint16_t>(0xBC00), Le<uint16_t>(0x3C00)},
      {Leaf("ts", PhysicalType::kInt64, ts_millis), Le<int64_t>(-1), Le<int64_t>(1000)},
      {Leaf("ntz", PhysicalType::kInt64, ntz_nanos), Le<int64_t>(-1),
       Le<int64_t>(86400000000000 + 999999999)},
      {Leaf("d", PhysicalType::kInt32, Logical(LogicalType::Kind::kDate)), Le<int32_t>(-800000),
       Le<int32_t>(0)},
      {Leaf("legacy_ts", PhysicalType::kInt96), std::string(12, '\0'), std::string(12, '\1')},
      {Leaf("t", PhysicalType::kInt64, time), Le<int64_t>(0), Le<int64_t>(5)},
      {Leaf("id", PhysicalType::kFixedLenByteArray, Logical(LogicalType::Kind::kUuid), 16),
       std::string(16, '\0'), std::string(16, '\1')},
  };
  parquet::FileMetaData meta;
  parquet::SchemaElement root;
  root.name = "schema";
  root.num_children = static_cast<int32_t>(columns.size());
  meta.schema.push_back(root);
  parquet::RowGroup rg;
  rg.num_rows = 2;
  for (const ForeignColumn& c : columns) {
    meta.schema.push_back(c.element);
    parquet::ColumnMetaData cm;
    cm.type = *c.element.type;
    cm.path_in_schema = {c.element.name};
    cm.num_values = 2;
    cm.statistics.emplace();
    cm.statistics->null_count = 0;
    cm.statistics->min_value = c.min;
    cm.statistics->max_value = c.max;
    parquet::ColumnChunk chunk;
    chunk.meta_data = cm;
    rg.columns.push_back(chunk);
  }
  meta.row_groups.push_back(rg);
  auto schema = parquet::ParquetSchema::FromElements(meta.schema);
  ASSERT_TRUE(schema.has_value()) << schema.error().message();
  auto json =
      FileStatsJson(meta, schema->value, Options([](StatsOptions& o) { o.tight_bounds = false; }));
  ASSERT_TRUE(json.has_value()) << json.error().message();
  // Unsigned integers by value; a decimal in fixed bytes; a half float's minimum; timestamps in
  // any unit to milliseconds; a date before year 1 left out; INT96, time and uuid without bounds.
  EXPECT_EQ(*json, R"({"numRecords":2,"minValues":{"u32":1,"u64":0,"dec":-1.50,"half":-1,)"
                   R"("ts":"1969-12-31T23:59:59.999Z","ntz":"1969-12-31T23:59:59.999"},)"
                   R"("maxValues":{"u32":4294967295,"u64":18446744073709551615,)"
                   R"("dec":12345678901234567.89,"ts":"1970-01-01T00:00:01.000Z",)"
                   R"("ntz":"1970-01-02T00:00:00.999","d":"1970-01-01"},)"
                   R"("nullCount":{"u32":0,"u64":0,"dec":0,"half":0,"ts":0,"ntz":0,"d":0,)"
                   R"("legacy_ts":0,"t":0,"id":0}})");
}

// ---- Options -------------------------------------------------------------------------------

TEST(StatsOptionsTest, ReadsTheTableProperties) {
  auto o = StatsOptions::FromConfiguration({});
  ASSERT_TRUE(o.has_value());
  EXPECT_EQ(o->num_indexed_cols, 32);
  EXPECT_EQ(o->string_prefix_length, 32);
  EXPECT_FALSE(o->stats_columns.has_value());

  o = StatsOptions::FromConfiguration(
      {{"delta.dataSkippingNumIndexedCols", "-1"},
       {"delta.dataSkippingStringPrefixLength", "+8"},
       {"delta.dataSkippingStatsColumns", " a, `c1.`.x ,`c3,`, `we``ird` "},
       {"delta.appendOnly", "true"}});
  ASSERT_TRUE(o.has_value()) << o.error().message();
  EXPECT_EQ(o->num_indexed_cols, -1);
  EXPECT_EQ(o->string_prefix_length, 8);
  ASSERT_TRUE(o->stats_columns.has_value());
  EXPECT_EQ(*o->stats_columns, (std::vector<std::string>{"a", "`c1.`.x", "`c3,`", "`we``ird`"}));
  EXPECT_EQ(*ParseColumnPath("`c1.`.x"), (std::vector<std::string>{"c1.", "x"}));
  EXPECT_EQ(*ParseColumnPath("`we``ird`"), (std::vector<std::string>{"we`ird"}));
  EXPECT_EQ(*ParseColumnPath(" a . b "), (std::vector<std::string>{"a", "b"}));

  o = StatsOptions::FromConfiguration({{"delta.dataSkippingStatsColumns", "  "}});
  ASSERT_TRUE(o.has_value());
  EXPECT_EQ(o->stats_columns, std::vector<std::string>{});
}

TEST(StatsOptionsTest, BadValuesNameTheKeyAndValue) {
  const std::vector<std::pair<std::string, std::string>> bad = {
      {"delta.dataSkippingNumIndexedCols", "-2"},
      {"delta.dataSkippingNumIndexedCols", " 5"},
      {"delta.dataSkippingNumIndexedCols", "abc"},
      {"delta.dataSkippingNumIndexedCols", "99999999999"},
      {"delta.dataSkippingNumIndexedCols", ""},
      {"delta.dataSkippingNumIndexedCols", "+-3"},
      {"delta.dataSkippingStringPrefixLength", "-1"},
      {"delta.dataSkippingStringPrefixLength", "1.5"},
      {"delta.dataSkippingStatsColumns", "a,,b"},
      {"delta.dataSkippingStatsColumns", "`a"},
      {"delta.dataSkippingStatsColumns", "a b"},
      {"delta.dataSkippingStatsColumns", "a."},
  };
  for (const auto& [key, value] : bad) {
    auto o = StatsOptions::FromConfiguration({{key, value}});
    ASSERT_FALSE(o.has_value()) << key << "=" << value;
    EXPECT_EQ(o.error().code(), ErrorCode::kInvalidArgument);
    EXPECT_NE(o.error().message().find(key), std::string::npos) << o.error().message();
    EXPECT_NE(o.error().message().find("'" + value + "'"), std::string::npos)
        << o.error().message();
  }
}

// ---- Parsing -------------------------------------------------------------------------------

TEST(ParseStatsTest, ReadsWhatFileStatsJsonWrites) {
  const std::string json = Stats("a struct<b: int>, s string", {R"({"a":{"b":3},"s":"x"})"});
  auto parsed = ParseStats(json);
  ASSERT_TRUE(parsed.has_value()) << parsed.error().message();
  EXPECT_EQ(parsed->num_records, 1);
  EXPECT_EQ(ToJson(parsed->min_values), R"({"a":{"b":3},"s":"x"})");
  EXPECT_EQ(ToJson(parsed->max_values), R"({"a":{"b":3},"s":"x"})");
  EXPECT_EQ(ToJson(parsed->null_count), R"({"a":{"b":0},"s":0})");
  EXPECT_EQ(parsed->tight_bounds, true);

  parsed = ParseStats(R"({"numRecords":0,"futureField":[1,2]})");
  ASSERT_TRUE(parsed.has_value());
  EXPECT_EQ(parsed->num_records, 0);
  EXPECT_EQ(parsed->min_values.size(), 0u);
  EXPECT_FALSE(parsed->tight_bounds.has_value());
  parsed = ParseStats("{}");
  ASSERT_TRUE(parsed.has_value());
  EXPECT_FALSE(parsed->num_records.has_value());
}

TEST(ParseStatsTest, HostileInputIsAClearError) {
  const std::vector<std::pair<std::string, std::string>> bad = {
      {"", ""},
      {"[]", "not a JSON object"},
      {R"({"numRecords":-1})", "numRecords"},
      {R"({"numRecords":1.5})", "numRecords"},
      {R"({"numRecords":"3"})", "numRecords"},
      {R"({"numRecords":99999999999999999999})", "numRecords"},
      {R"({"minValues":[]})", "minValues is not an object"},
      {R"({"maxValues":{"a":{"b":[1]}}})", "maxValues of 'b' is an array"},
      {R"({"nullCount":{"a":"x"}})", "nullCount of 'a'"},
      {R"({"nullCount":{"a":{"b":-3}}})", "nullCount of 'b'"},
      {R"({"tightBounds":1})", "tightBounds"},
      {R"({"numRecords":1,"numRecords":2})", ""},
      {R"({"numRecords":1)", ""},
      {std::string(100000, '[') + std::string(100000, ']'), ""},
      {"{\"minValues\":" + std::string(5000, '{'), ""},
  };
  for (const auto& [text, what] : bad) {
    auto parsed = ParseStats(text);
    ASSERT_FALSE(parsed.has_value()) << text.substr(0, 60);
    EXPECT_EQ(parsed.error().code(), ErrorCode::kParseError);
    EXPECT_NE(parsed.error().message().find("stats: "), std::string::npos);
    EXPECT_NE(parsed.error().message().find(what), std::string::npos) << parsed.error().message();
  }
  auto parsed = ParseStats("{\n  \"tightBounds\": 7}");
  ASSERT_FALSE(parsed.has_value());
  EXPECT_NE(parsed.error().message().find("line 2"), std::string::npos) << parsed.error().message();
}

}  // namespace
}  // namespace sluice::table
