#include "sluice/report/table_info_render.h"

#include <gtest/gtest.h>

#include "sluice/base/json.h"
#include "sluice/dialects/spark/spark.h"
#include "sluice/report/diff_render.h"

namespace sluice::report {
namespace {

using table::FindingSeverity;
using table::HistoryEntry;
using table::TableCheckReport;

constexpr int64_t kTime = 1796379072000;  // 2026-12-04T10:11:12Z

schema::SchemaPtr Ddl(std::string_view ddl) {
  auto s = dialects::spark::ReadDdl(ddl);
  EXPECT_TRUE(s.has_value());
  return s->value;
}

HistoryEntry Append() {
  HistoryEntry e;
  e.version = 3;
  e.timestamp_ms = kTime;
  e.operation = "WRITE";
  e.operation_parameters.Set("mode", JsonValue::String("Append"));
  e.rows_added = 120;
  e.files_added = 2;
  return e;
}

HistoryEntry SchemaEvolution() {
  HistoryEntry e;
  e.version = 4;
  e.timestamp_ms = kTime + 1000;
  e.operation = "ADD COLUMNS";
  e.metadata_changed = true;
  schema::SchemaPtr before = Ddl("id INT, name STRING");
  schema::SchemaPtr after = Ddl("id BIGINT, name STRING, city STRING");
  e.schema_change = table::SchemaChange{before, after, evolution::Diff(*before, *after)};
  e.property_changes = {{"a", std::nullopt, "1"}, {"b", "x", "y"}, {"c", "gone", std::nullopt}};
  e.partition_change = std::make_pair(std::vector<std::string>{}, std::vector<std::string>{"city"});
  return e;
}

std::string MustRender(const std::vector<HistoryEntry>& h, Format f, bool color = false) {
  auto text = Render(h, HistoryContext{"tbl"}, f, RenderOptions{.color = color});
  EXPECT_TRUE(text.has_value()) << text.error().ToString();
  return text.value_or("");
}

TEST(TableHistoryRenderTest, TextHeadlineSaysWhenWhatAndHowMuch) {
  EXPECT_EQ(MustRender({Append()}, Format::kText),
            "tbl: 1 version\n"
            "version 3  2026-12-04 10:11:12Z  WRITE (Append)  +120 rows  2 files\n");
}

TEST(TableHistoryRenderTest, TextShowsTheSchemaChangeAsSluiceDiffPrintsIt) {
  HistoryEntry e = SchemaEvolution();
  std::string text = MustRender({e, Append()}, Format::kText);
  // The change lines are sluice diff's own, two more spaces in.
  auto diff = Render(e.schema_change->diff, DiffContext{"a", "b"}, Format::kText);
  ASSERT_TRUE(diff.has_value());
  std::string lines;
  size_t start = diff->find('\n') + 1;                   // past "a -> b"
  size_t end = diff->rfind('\n', diff->size() - 2) + 1;  // before the summary
  for (size_t pos = start; pos < end;) {
    size_t nl = diff->find('\n', pos);
    lines += "  " + diff->substr(pos, nl + 1 - pos);
    pos = nl + 1;
  }
  EXPECT_EQ(text,
            "tbl: 2 versions\n"
            "version 4  2026-12-04 10:11:13Z  ADD COLUMNS\n"
            "  partition columns: (none) -> city\n"
            "  set a = 1\n"
            "  set b = y (was x)\n"
            "  unset c (was gone)\n"
            "  schema: 2 changes: 0 breaking, 2 compatible, 0 cosmetic\n" +
                lines + "version 3  2026-12-04 10:11:12Z  WRITE (Append)  +120 rows  2 files\n");
  EXPECT_NE(lines.find("    ~ id    type_widened  int32 -> int64"), std::string::npos) << lines;
  EXPECT_NE(lines.find("    + city  field_added"), std::string::npos) << lines;
}

TEST(TableHistoryRenderTest, TextSaysWhatItCannotTell) {
  HistoryEntry created;
  created.version = 0;
  created.created = true;
  created.metadata_changed = created.protocol_changed = true;
  created.protocol_after = table::Protocol{};
  schema::SchemaPtr s = Ddl("id INT, name STRING");
  created.schema_change = table::SchemaChange{nullptr, s, {}};
  HistoryEntry unknown = created;
  unknown.version = 7;
  unknown.created = false;
  unknown.previous_unknown = true;
  unknown.protocol_changed = false;
  std::string text = MustRender({unknown, created}, Format::kText);
  EXPECT_NE(text.find("version 7  1970-01-01 00:00:00Z  (no commitInfo)\n"
                      "  schema: set; the schema before this version is no longer in the log\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("  protocol: (1,2)\n  schema: created with 2 columns\n"), std::string::npos)
      << text;
}

TEST(TableHistoryRenderTest, JsonHoldsEveryFieldAndTheDiffReportShape) {
  std::string text = MustRender({SchemaEvolution(), Append()}, Format::kJson);
  auto doc = ParseJson(text);
  ASSERT_TRUE(doc.has_value()) << text;
  EXPECT_EQ(doc->Find("table")->as_string(), "tbl");
  const auto& versions = doc->Find("versions")->items();
  ASSERT_EQ(versions.size(), 2u);
  const JsonValue& v4 = versions[0];
  EXPECT_EQ(v4.Find("version")->as_int64(), 4);
  EXPECT_EQ(v4.Find("timestamp")->as_string(), "2026-12-04T10:11:13.000Z");
  EXPECT_TRUE(v4.Find("rows_added")->is_null());
  EXPECT_TRUE(v4.Find("protocol")->is_null());
  const JsonValue* change = v4.Find("schema_change");
  ASSERT_TRUE(change != nullptr && change->is_object());
  EXPECT_EQ(change->Find("columns")->as_int64(), 3);
  EXPECT_EQ(change->Find("changes")->items()[0].Find("kind")->as_string(), "type_widened");
  EXPECT_EQ(change->Find("summary")->Find("compatible")->as_int64(), 2);
  const auto& props = v4.Find("property_changes")->items();
  ASSERT_EQ(props.size(), 3u);
  EXPECT_TRUE(props[0].Find("from")->is_null());
  EXPECT_TRUE(props[2].Find("to")->is_null());
  EXPECT_EQ(v4.Find("partition_columns")->Find("to")->items()[0].as_string(), "city");
  const JsonValue& v3 = versions[1];
  EXPECT_EQ(v3.Find("rows_added")->as_int64(), 120);
  EXPECT_EQ(v3.Find("operation_parameters")->Find("mode")->as_string(), "Append");
  EXPECT_TRUE(v3.Find("schema_change")->is_null());
}

TEST(TableHistoryRenderTest, OtherFormatsAreUnimplemented) {
  auto r = Render(std::vector<HistoryEntry>{}, HistoryContext{"t"}, Format::kGithub);
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error().code(), ErrorCode::kUnimplemented);
}

TableCheckReport Report() {
  TableCheckReport r;
  r.root = "tbl";
  r.version = 2;
  r.commits_checked = 3;
  r.live_files = 2;
  r.files_checked = 1;
  r.findings.push_back({"missing_file", FindingSeverity::kError, std::nullopt, "a.parquet",
                        "a live file of the table is not there"});
  r.findings.push_back({"missing_checkpoint", FindingSeverity::kWarning, 10,
                        "_delta_log/_last_checkpoint", "it names a checkpoint that is not there"});
  r.notes.push_back("something was not checked");
  return r;
}

TEST(TableCheckRenderTest, TextListsFindingsNotesAndASummary) {
  auto text = Render(Report(), Format::kText);
  ASSERT_TRUE(text.has_value());
  EXPECT_EQ(*text,
            "tbl: version 2, 3 commits checked, 2 live files (1 read)\n"
            "error   missing_file        a.parquet: a live file of the table is not there\n"
            "warning missing_checkpoint  _delta_log/_last_checkpoint: it names a checkpoint that "
            "is not there\n"
            "note: something was not checked\n"
            "2 findings: 1 error, 1 warning\n");
  TableCheckReport clean;
  clean.root = "tbl";
  clean.rows = 5;
  auto ok = Render(clean, Format::kText);
  ASSERT_TRUE(ok.has_value());
  EXPECT_EQ(*ok,
            "tbl: version -1, 0 commits checked, 0 live files (0 read), 5 rows\n"
            "clean: no findings\n");
}

TEST(TableCheckRenderTest, ColourOnlyWhenAsked) {
  auto plain = Render(Report(), Format::kText);
  auto painted = Render(Report(), Format::kText, RenderOptions{.color = true});
  ASSERT_TRUE(plain.has_value() && painted.has_value());
  EXPECT_EQ(plain->find('\x1b'), std::string::npos);
  EXPECT_NE(painted->find("\x1b[31merror  \x1b[0m"), std::string::npos) << *painted;
}

TEST(TableCheckRenderTest, JsonHoldsFindingsWithRuleSeverityVersionAndFile) {
  auto text = Render(Report(), Format::kJson);
  ASSERT_TRUE(text.has_value());
  auto doc = ParseJson(*text);
  ASSERT_TRUE(doc.has_value()) << *text;
  EXPECT_FALSE(doc->Find("clean")->as_bool());
  EXPECT_EQ(doc->Find("errors")->as_int64(), 1);
  EXPECT_EQ(doc->Find("warnings")->as_int64(), 1);
  EXPECT_TRUE(doc->Find("rows")->is_null());
  EXPECT_TRUE(doc->Find("checkpoint_version")->is_null());
  const auto& findings = doc->Find("findings")->items();
  ASSERT_EQ(findings.size(), 2u);
  EXPECT_EQ(findings[0].Find("rule")->as_string(), "missing_file");
  EXPECT_EQ(findings[0].Find("severity")->as_string(), "error");
  EXPECT_TRUE(findings[0].Find("version")->is_null());
  EXPECT_EQ(findings[1].Find("version")->as_int64(), 10);
  EXPECT_EQ(findings[1].Find("file")->as_string(), "_delta_log/_last_checkpoint");
  EXPECT_EQ(doc->Find("notes")->items().size(), 1u);
}

}  // namespace
}  // namespace sluice::report
