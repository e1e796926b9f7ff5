// Reading the Parquet files of the Delta golden tables (written by Spark) and the rest of the
// shared conformance data: every file reads, and what we read agrees with what the tables' logs
// say about the files (each add's numRecords, minValues, maxValues and nullCount; each commit's
// numOutputRows; the checkpoint's size) and with the values the tables were generated with.
// Skips when the shared data is absent.
#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "sluice/base/file_system.h"
#include "sluice/base/json.h"
#include "sluice/base/json_writer.h"
#include "sluice/base/strings.h"
#include "sluice/parquet/file_reader.h"
#include "sluice_test_paths.h"

namespace sluice::parquet {
namespace {

namespace fs = std::filesystem;
using ::testing::ElementsAre;

fs::path GoldenDir() { return fs::path(SLUICE_SHARED_DIR) / "conformance" / "delta-golden"; }

#define SKIP_WITHOUT_GOLDEN_TABLES()                                      \
  if (!fs::is_directory(GoldenDir())) {                                   \
    GTEST_SKIP() << "no Delta golden tables at " << GoldenDir().string(); \
  }

struct FileRows {
  std::vector<std::string> text;
  std::vector<JsonValue> rows;
  int64_t footer_rows = 0;
};

Result<FileRows> Read(const fs::path& file) {
  SLUICE_ASSIGN_OR_RETURN(auto reader, FileReader::Open(LocalFileSystem(), file.string()));
  FileRows out;
  out.footer_rows = reader->num_rows();
  SLUICE_TRY(reader->ReadAllRows({}, [&](std::string_view row) -> Status {
    out.text.emplace_back(row);
    SLUICE_ASSIGN_OR_RETURN(JsonValue v, ParseJson(row));
    out.rows.push_back(std::move(v));
    return Ok();
  }));
  return out;
}

std::vector<fs::path> ParquetFiles(const fs::path& dir) {
  std::vector<fs::path> files;
  for (const auto& e : fs::recursive_directory_iterator(dir)) {
    if (e.is_regular_file() && e.path().extension() == ".parquet") files.push_back(e.path());
  }
  std::sort(files.begin(), files.end());
  return files;
}

// A JSON number's exact value, for comparing "0E-10" with "0.0000000000".
struct Decimal {
  bool negative = false;
  std::string digits;  // no leading or trailing zeros; empty for zero
  int64_t exponent = 0;

  static Decimal Parse(std::string_view t) {
    Decimal d;
    size_t i = 0;
    if (i < t.size() && t[i] == '-') {
      d.negative = true;
      ++i;
    }
    for (; i < t.size() && t[i] != 'e' && t[i] != 'E'; ++i) {
      if (t[i] == '.') continue;
      d.digits.push_back(t[i]);
    }
    const size_t point = t.find('.');
    const size_t end = std::min(t.find_first_of("eE"), t.size());
    if (point != std::string_view::npos) d.exponent -= static_cast<int64_t>(end - point - 1);
    if (end < t.size()) d.exponent += std::stoll(std::string(t.substr(end + 1)));
    while (!d.digits.empty() && d.digits.front() == '0') d.digits.erase(0, 1);
    while (!d.digits.empty() && d.digits.back() == '0') {
      d.digits.pop_back();
      ++d.exponent;
    }
    if (d.digits.empty()) d = Decimal();
    return d;
  }

  // -1, 0, 1.
  friend int Compare(const Decimal& a, const Decimal& b) {
    if (a.negative != b.negative) return a.negative ? -1 : 1;
    const int sign = a.negative ? -1 : 1;
    if (a.digits.empty() || b.digits.empty()) {
      return a.digits.empty() == b.digits.empty() ? 0 : (a.digits.empty() ? -sign : sign);
    }
    const int64_t ma = static_cast<int64_t>(a.digits.size()) + a.exponent;
    const int64_t mb = static_cast<int64_t>(b.digits.size()) + b.exponent;
    if (ma != mb) return ma < mb ? -sign : sign;
    const int c = a.digits.compare(b.digits);
    return c == 0 ? 0 : (c < 0 ? -sign : sign);
  }
};

// Delta's statistics hold timestamps to the millisecond: compare ours at that precision.
std::string StatText(std::string s) {
  if (s.size() >= 19 && s[10] == 'T') {
    const bool z = s.back() == 'Z';
    if (z) s.pop_back();
    std::string frac;
    if (s.size() > 19 && s[19] == '.') frac = s.substr(20);
    s.resize(19);
    frac.resize(3, '0');
    s += "." + frac.substr(0, 3) + (z ? "Z" : "");
  }
  return s;
}

int CompareScalars(const JsonValue& a, const JsonValue& b) {
  if (a.is_number() && b.is_number()) {
    return Compare(Decimal::Parse(a.number_text()), Decimal::Parse(b.number_text()));
  }
  if (a.is_string() && b.is_string()) {
    const std::string x = StatText(a.as_string()), y = StatText(b.as_string());
    return x == y ? 0 : (x < y ? -1 : 1);
  }
  ADD_FAILURE() << "cannot compare " << ToJson(a) << " with " << ToJson(b);
  return 0;
}

// The value at `path` in a row; null when a struct on the way is.
JsonValue At(const JsonValue& row, const std::vector<std::string>& path) {
  const JsonValue* v = &row;
  for (const std::string& k : path) {
    if (!v->is_object()) return JsonValue();
    v = v->Find(k);
    if (v == nullptr) {
      ADD_FAILURE() << "no field " << k << " in " << ToJson(row);
      return JsonValue();
    }
  }
  return *v;
}

// Check one column's min, max and null count (stats nest objects for struct fields).
void CheckStats(const std::vector<JsonValue>& rows, const JsonValue& stats,
                std::vector<std::string>& path, const JsonValue* min, const JsonValue* max,
                const JsonValue* nulls, int* checked) {
  if (stats.is_object()) {
    for (const JsonMember& m : stats.members()) {
      path.push_back(m.key);
      CheckStats(rows, m.value, path, min ? min->Find(m.key) : nullptr,
                 max ? max->Find(m.key) : nullptr, nulls ? nulls->Find(m.key) : nullptr, checked);
      path.pop_back();
    }
    return;
  }
  SCOPED_TRACE(JoinStrings(path, "."));
  std::optional<JsonValue> lo, hi;
  int64_t null_count = 0;
  for (const JsonValue& row : rows) {
    JsonValue v = At(row, path);
    if (v.is_null()) {
      ++null_count;
      continue;
    }
    if (!v.is_number() && !v.is_string()) continue;  // lists and maps: a null count only
    if (!lo || CompareScalars(v, *lo) < 0) lo = v;
    if (!hi || CompareScalars(v, *hi) > 0) hi = v;
  }
  if (nulls != nullptr && nulls->is_number()) {
    EXPECT_EQ(null_count, nulls->as_int64().value_or(-1));
    ++*checked;
  }
  if (min != nullptr && !min->is_null() && !min->is_object()) {
    ASSERT_TRUE(lo.has_value());
    EXPECT_EQ(CompareScalars(*lo, *min), 0) << ToJson(*lo) << " vs " << ToJson(*min);
    ++*checked;
  }
  if (max != nullptr && !max->is_null() && !max->is_object()) {
    ASSERT_TRUE(hi.has_value());
    EXPECT_EQ(CompareScalars(*hi, *max), 0) << ToJson(*hi) << " vs " << ToJson(*max);
    ++*checked;
  }
}

std::string UrlDecode(std::string_view s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '%' && i + 2 < s.size()) {
      out.push_back(static_cast<char>(std::stoi(std::string(s.substr(i + 1, 2)), nullptr, 16)));
      i += 2;
    } else {
      out.push_back(s[i]);
    }
  }
  return out;
}

TEST(GoldenReadTest, EveryFileReadsAllItsRows) {
  SKIP_WITHOUT_GOLDEN_TABLES();
  // The golden tables, and the other Parquet files of the shared conformance data (DuckDB's).
  const auto files = ParquetFiles(GoldenDir().parent_path());
  EXPECT_GE(files.size(), 27u);
  for (const fs::path& file : files) {
    SCOPED_TRACE(file.string());
    auto rows = Read(file);
    ASSERT_TRUE(rows.has_value()) << rows.error().ToString();
    EXPECT_EQ(static_cast<int64_t>(rows->rows.size()), rows->footer_rows);
    for (const JsonValue& row : rows->rows) EXPECT_TRUE(row.is_object());
  }
}

TEST(GoldenReadTest, RowsAgreeWithTheDeltaLogStatistics) {
  SKIP_WITHOUT_GOLDEN_TABLES();
  int files_with_stats = 0, commits_with_counts = 0, checked = 0;
  for (const auto& table : fs::directory_iterator(GoldenDir())) {
    const fs::path log = table.path() / "_delta_log";
    // The checkpoint table's adds name files that were never written.
    if (!fs::is_directory(log) || table.path().filename() == "checkpoint") continue;
    for (const auto& commit : fs::directory_iterator(log)) {
      if (commit.path().extension() != ".json") continue;
      auto text = LocalFileSystem()->ReadFile(commit.path().string());
      ASSERT_TRUE(text.has_value());
      std::optional<int64_t> output_rows;
      int64_t added_rows = 0;
      for (std::string_view line : SplitString(*text, '\n')) {
        if (line.empty()) continue;
        auto action = ParseJson(line);
        ASSERT_TRUE(action.has_value());
        if (const JsonValue* info = action->Find("commitInfo")) {
          const JsonValue* metrics = info->Find("operationMetrics");
          const JsonValue* n = metrics ? metrics->Find("numOutputRows") : nullptr;
          if (n != nullptr) output_rows = std::stoll(n->as_string());
        }
        const JsonValue* add = action->Find("add");
        if (add == nullptr) continue;
        const fs::path file = table.path() / UrlDecode(add->Find("path")->as_string());
        SCOPED_TRACE(file.string());
        auto rows = Read(file);
        ASSERT_TRUE(rows.has_value()) << rows.error().ToString();
        added_rows += static_cast<int64_t>(rows->rows.size());
        const JsonValue* stats_text = add->Find("stats");
        if (stats_text == nullptr || !stats_text->is_string()) continue;
        auto stats = ParseJson(stats_text->as_string());
        ASSERT_TRUE(stats.has_value());
        ++files_with_stats;
        EXPECT_EQ(static_cast<int64_t>(rows->rows.size()),
                  stats->Find("numRecords")->as_int64().value_or(-1));
        const JsonValue* min = stats->Find("minValues");
        const JsonValue* max = stats->Find("maxValues");
        const JsonValue* nulls = stats->Find("nullCount");
        std::vector<std::string> path;
        if (nulls != nullptr) CheckStats(rows->rows, *nulls, path, min, max, nulls, &checked);
      }
      if (output_rows) {
        ++commits_with_counts;
        EXPECT_EQ(added_rows, *output_rows) << commit.path().string();
      }
    }
  }
  // basic-decimal-table (4 files), type-widening (2), table-with-columnmapping-mode-name (2).
  EXPECT_EQ(files_with_stats, 8);
  EXPECT_EQ(commits_with_counts, 6);
  EXPECT_GT(checked, 100);
}

std::vector<std::string> TableRows(const std::string& table) {
  std::vector<std::string> all;
  for (const fs::path& file : ParquetFiles(GoldenDir() / table)) {
    auto rows = Read(file);
    EXPECT_TRUE(rows.has_value()) << file.string() << ": " << rows.error().ToString();
    if (rows) all.insert(all.end(), rows->text.begin(), rows->text.end());
  }
  std::sort(all.begin(), all.end());
  return all;
}

TEST(GoldenReadTest, PrimitivesHoldTheGeneratedValues) {
  SKIP_WITHOUT_GOLDEN_TABLES();
  // GoldenTables.scala: for i in 0..9 (i, i.toLong, i.toByte, i.toShort, i % 2 == 0, i.toFloat,
  // i.toDouble, i.toString, Array(i.toByte, i.toByte), BigDecimal(i)), and a row of nulls.
  std::vector<std::string> expected;
  for (int i = 0; i < 10; ++i) {
    const std::string bytes(2, static_cast<char>(i));
    expected.push_back(fmt::format(
        R"({{"as_int":{0},"as_long":{0},"as_byte":{0},"as_short":{0},"as_boolean":{1},)"
        R"("as_float":{0},"as_double":{0},"as_string":"{0}","as_binary":"{2}","as_big_decimal":{0}}})",
        i, i % 2 == 0 ? "true" : "false", Base64Encode(bytes)));
  }
  expected.push_back(
      R"({"as_int":null,"as_long":null,"as_byte":null,"as_short":null,"as_boolean":null,)"
      R"("as_float":null,"as_double":null,"as_string":null,"as_binary":null,"as_big_decimal":null})");
  std::sort(expected.begin(), expected.end());
  EXPECT_EQ(TableRows("data-reader-primitives"), expected);
}

TEST(GoldenReadTest, NestedMapsAndArraysHoldTheGeneratedValues) {
  SKIP_WITHOUT_GOLDEN_TABLES();
  std::vector<std::string> nested, maps, arrays;
  for (int i = 0; i < 10; ++i) {
    nested.push_back(fmt::format(
        R"({{"a":{{"aa":"{0}","ab":"{0}","ac":{{"aca":{0},"acb":{0}}}}},"b":{0}}})", i));
    maps.push_back(
        fmt::format(R"({{"i":{0},"a":[{{"key":{0},"value":{0}}}],"b":[{{"key":{0},"value":{0}}}],)"
                    R"("c":[{{"key":{0},"value":{1}}}],"d":[{{"key":{0},"value":{0}}}],)"
                    R"("e":[{{"key":"{0}","value":{0}}}],)"
                    R"("f":[{{"key":{0},"value":[{{"val":{0}}},{{"val":{0}}},{{"val":{0}}}]}}]}})",
                    i, i % 2 == 0 ? "true" : "false"));
    const std::string l3 = fmt::format("[[{0},{0},{0}],[{0},{0},{0}]]", i);
    arrays.push_back(fmt::format(
        R"({{"i":{0},"3d_int_list":[{1},{1}],"4d_int_list":[[{1},{1}],[{1},{1}]],)"
        R"("list_of_maps":[[{{"key":"{0}","value":{0}}}],[{{"key":"{0}","value":{0}}}]],)"
        R"("list_of_records":[{{"val":{0}}},{{"val":{0}}},{{"val":{0}}}]}})",
        i, l3));
  }
  std::sort(nested.begin(), nested.end());
  std::sort(maps.begin(), maps.end());
  std::sort(arrays.begin(), arrays.end());
  EXPECT_EQ(TableRows("data-reader-nested-struct"), nested);
  EXPECT_EQ(TableRows("data-reader-map"), maps);
  EXPECT_EQ(TableRows("data-reader-array-complex-objects"), arrays);
}

TEST(GoldenReadTest, DecimalsAndWidenedTypes) {
  SKIP_WITHOUT_GOLDEN_TABLES();
  EXPECT_THAT(TableRows("basic-decimal-table"),
              ElementsAre(R"({"col1":-999.99,"col2":-99999.99999,"col3":-9999999999.9999999999})",
                          R"({"col1":0.00,"col2":0.00000,"col3":0.0000000000})",
                          R"({"col1":1.00,"col2":2.00000,"col3":3.0000000000})",
                          R"({"col1":111.11,"col2":22222.22222,"col3":3333333333.3333333333})"));
  EXPECT_THAT(
      TableRows("type-widening"),
      ElementsAre(
          R"({"byte_long":1,"int_long":2,"float_double":3.4,"byte_double":5,"short_double":6,)"
          R"("int_double":7,"decimal_decimal_same_scale":123.45,"decimal_decimal_greater_scale":)"
          R"(67.89,"byte_decimal":1,"short_decimal":2,"int_decimal":3,"long_decimal":4,)"
          R"("date_timestamp_ntz":"2024-09-09"})",
          R"({"byte_long":9223372036854775807,"int_long":9223372036854775807,"float_double":)"
          R"(1.234567890123,"byte_double":1.234567890123,"short_double":1.234567890123,)"
          R"("int_double":1.234567890123,"decimal_decimal_same_scale":12345678901234.56,)"
          R"("decimal_decimal_greater_scale":12345678901.23456,"byte_decimal":123.4,)"
          R"("short_decimal":12345.6,"int_decimal":1234567890.1,"long_decimal":)"
          R"(123456789012345678.9,"date_timestamp_ntz":"2024-09-09T12:34:56.123456"})"));
}

TEST(GoldenReadTest, CheckpointHoldsTheActionsItsPointerCounts) {
  SKIP_WITHOUT_GOLDEN_TABLES();
  const fs::path log = GoldenDir() / "checkpoint" / "_delta_log";
  auto pointer = LocalFileSystem()->ReadFile((log / "_last_checkpoint").string());
  ASSERT_TRUE(pointer.has_value());
  auto p = ParseJson(*pointer);
  ASSERT_TRUE(p.has_value());
  auto rows = Read(log / "00000000000000000010.checkpoint.parquet");
  ASSERT_TRUE(rows.has_value()) << rows.error().ToString();
  EXPECT_EQ(static_cast<int64_t>(rows->rows.size()), p->Find("size")->as_int64().value_or(-1));
  int adds = 0;
  for (const JsonValue& row : rows->rows) adds += !row.Find("add")->is_null();
  EXPECT_EQ(adds, p->Find("numOfAddFiles")->as_int64().value_or(-1));
}

}  // namespace
}  // namespace sluice::parquet
