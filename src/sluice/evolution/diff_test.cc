#include "sluice/evolution/diff.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "sluice/base/file_system.h"
#include "sluice/base/json.h"
#include "sluice/base/json_writer.h"
#include "sluice/base/strings.h"
#include "sluice/dialects/format.h"
#include "sluice/dialects/spark/spark.h"
#include "sluice_test_paths.h"

namespace sluice::evolution {
namespace {

using schema::SchemaPtr;

SchemaPtr Ddl(std::string_view ddl) {
  auto r = dialects::spark::ReadDdl(ddl);
  EXPECT_TRUE(r.has_value()) << ddl << ": " << (r ? "" : r.error().ToString());
  return r.has_value() ? r->value : nullptr;
}

// ---------------------------------------------------------------------------------------------
// Data-driven cases: one file per case in testdata/diff (format described in its README.md).

std::string SourcePath(std::string_view relative) {
  return std::string(SLUICE_SOURCE_DIR) + "/" + std::string(relative);
}

// A schema given as a DDL string, a Spark StructType JSON object, or {"file": path} with the
// path relative to the source tree and the format detected as `sluice diff` detects it.
SchemaPtr ReadCaseSchema(const JsonValue& v) {
  if (v.is_string()) return Ddl(v.as_string());
  if (const JsonValue* file = v.Find("file"); file != nullptr) {
    std::string path = SourcePath(file->as_string());
    auto text = NewLocalFileSystem()->ReadFile(path);
    EXPECT_TRUE(text.has_value()) << (text ? "" : text.error().ToString());
    if (!text.has_value()) return nullptr;
    auto format = dialects::DetectFormat(path, *text);
    EXPECT_TRUE(format.has_value()) << (format ? "" : format.error().ToString());
    if (!format.has_value()) return nullptr;
    auto r = dialects::ReadSchema(*text, *format);
    EXPECT_TRUE(r.has_value()) << (r ? "" : r.error().ToString());
    return r.has_value() ? r->value : nullptr;
  }
  auto r = dialects::spark::ReadJson(ToJson(v));
  EXPECT_TRUE(r.has_value()) << (r ? "" : r.error().ToString());
  return r.has_value() ? r->value : nullptr;
}

// "path kind from -> to [severity]", "-" for a side that does not exist.
std::string RenderChange(const Change& c) {
  return c.path.ToString() + " " + std::string(ChangeKindName(c.kind)) + " " +
         c.from.value_or("-") + " -> " + c.to.value_or("-") + " [" +
         std::string(ChangeSeverityName(c.severity())) + "]";
}

// "from -> to (reason)".
std::string RenderHint(const RenameHint& h) {
  return h.from.ToString() + " -> " + h.to.ToString() + " (" + h.reason + ")";
}

std::string ExpectedLines(const JsonValue& expect, std::string_view key) {
  const JsonValue* list = expect.Find(key);
  EXPECT_TRUE(list != nullptr && list->is_array())
      << "expect." << key << " is required (use [] for none)";
  std::vector<std::string> lines;
  if (list != nullptr && list->is_array()) {
    for (const JsonValue& line : list->items()) lines.push_back(line.as_string());
  }
  return JoinStrings(lines, "\n");
}

template <typename T, typename RenderFn>
std::string GotLines(const std::vector<T>& items, RenderFn render) {
  std::vector<std::string> lines;
  for (const T& item : items) lines.push_back(render(item));
  return JoinStrings(lines, "\n");
}

void RunCase(const JsonValue& c) {
  ASSERT_NE(c.Find("rule"), nullptr) << "every case says what it pins";
  const JsonValue* before_v = c.Find("before");
  const JsonValue* after_v = c.Find("after");
  const JsonValue* expect = c.Find("expect");
  ASSERT_TRUE(before_v != nullptr && after_v != nullptr && expect != nullptr);
  SchemaPtr before = ReadCaseSchema(*before_v);
  SchemaPtr after = ReadCaseSchema(*after_v);
  ASSERT_TRUE(before != nullptr && after != nullptr);
  DiffOptions options;
  if (const JsonValue* cs = c.Find("case_sensitive"); cs != nullptr) {
    ASSERT_TRUE(cs->is_bool());
    options.case_sensitive = cs->as_bool();
  }
  SchemaDiff d = Diff(*before, *after, options);
  EXPECT_EQ(GotLines(d.changes, RenderChange), ExpectedLines(*expect, "changes"));
  EXPECT_EQ(GotLines(d.hints, RenderHint), ExpectedLines(*expect, "hints"));
}

TEST(SchemaDiffCasesTest, EveryCaseInTestdataHolds) {
  std::string dir = SourcePath("src/sluice/evolution/testdata/diff");
  auto fs = NewLocalFileSystem();
  auto names = fs->ListDir(dir);
  ASSERT_TRUE(names.has_value()) << names.error().ToString();
  int cases = 0;
  for (const std::string& name : *names) {
    if (!EndsWith(name, ".json")) continue;
    SCOPED_TRACE(name);
    auto text = fs->ReadFile(dir + "/" + name);
    ASSERT_TRUE(text.has_value()) << text.error().ToString();
    auto doc = ParseJson(*text);
    ASSERT_TRUE(doc.has_value()) << doc.error().ToString();
    RunCase(*doc);
    ++cases;
  }
  // An empty or unreadable folder must not pass.
  EXPECT_GE(cases, 20);
}

// ---------------------------------------------------------------------------------------------
// Code paths the cases do not reach.

TEST(SchemaDiffTest, IsWideningTable) {
  using schema::Type;
  EXPECT_TRUE(IsWidening(*Type::Null(), *Type::String()));
  EXPECT_TRUE(IsWidening(*Type::Int16(), *Type::Float64()));
  EXPECT_FALSE(IsWidening(*Type::Int64(), *Type::Float64()));
  EXPECT_FALSE(IsWidening(*Type::Int32(), *Type::Float32()));
  EXPECT_TRUE(IsWidening(*Type::Timestamp(schema::TimeUnit::kMillis), *Type::Timestamp()));
  EXPECT_FALSE(IsWidening(*Type::Date(), *Type::Timestamp()));
  EXPECT_TRUE(IsWidening(**Type::Char(3), **Type::Varchar(3)));
  EXPECT_FALSE(IsWidening(**Type::Varchar(3), **Type::Char(5)));
}

TEST(SchemaDiffTest, SeverityOfEachKindAndTheCounts) {
  auto change = [](ChangeKind kind, bool required = false) {
    return Change{schema::FieldPath().Child("a"), kind, std::nullopt, std::nullopt, required};
  };
  SchemaDiff d;
  d.changes = {change(ChangeKind::kFieldAdded),         change(ChangeKind::kFieldAdded, true),
               change(ChangeKind::kFieldRemoved),       change(ChangeKind::kTypeWidened),
               change(ChangeKind::kTypeNarrowed),       change(ChangeKind::kTypeChanged),
               change(ChangeKind::kNullabilityRelaxed), change(ChangeKind::kNullabilityTightened),
               change(ChangeKind::kFieldMoved),         change(ChangeKind::kCaseChanged),
               change(ChangeKind::kDocChanged),         change(ChangeKind::kDefaultChanged),
               change(ChangeKind::kMetadataChanged)};
  std::string severities;
  for (const Change& c : d.changes) {
    severities += std::string(ChangeSeverityName(c.severity())) + " ";
  }
  EXPECT_EQ(severities,
            "compatible breaking breaking compatible breaking breaking compatible breaking "
            "cosmetic compatible cosmetic cosmetic cosmetic ");
  EXPECT_EQ(d.CountBySeverity(ChangeSeverity::kBreaking), 5);
  EXPECT_EQ(d.CountBySeverity(ChangeSeverity::kCompatible), 4);
  EXPECT_EQ(d.CountBySeverity(ChangeSeverity::kCosmetic), 4);
  EXPECT_EQ(d.CountByKind()[ChangeKind::kFieldAdded], 2);
  EXPECT_EQ(d.CountByKind().size(), 12u);
}

TEST(SchemaDiffTest, WideSchemasDiffInLinearTime) {
  // 50,000 columns, every one renamed by case and the last moved to the front: the matching
  // must not compare every pair.
  std::vector<schema::Field> before;
  std::vector<schema::Field> after;
  for (int i = 0; i < 50000; ++i) {
    before.emplace_back("col_" + std::to_string(i), schema::Type::Int32());
  }
  after.emplace_back("COL_49999", schema::Type::Int32());
  for (int i = 0; i < 49999; ++i) {
    after.emplace_back("COL_" + std::to_string(i), schema::Type::Int32());
  }
  auto a = schema::Schema::Make(before);
  auto b = schema::Schema::Make(after);
  ASSERT_TRUE(a && b);
  SchemaDiff d = Diff(**a, **b);
  auto counts = d.CountByKind();
  EXPECT_EQ(counts[ChangeKind::kCaseChanged], 50000);
  EXPECT_EQ(counts[ChangeKind::kFieldMoved], 1);
}

}  // namespace
}  // namespace sluice::evolution
