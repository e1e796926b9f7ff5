#include "sluice/report/merge_render.h"

#include <gtest/gtest.h>

namespace sluice::report {
namespace {

using evolution::MergeResult;
using evolution::MergeVerdict;
using evolution::TableChange;
using evolution::TableChangeKind;
using evolution::TableFormat;
using evolution::TableViolation;
using evolution::TableWriteMode;

schema::FieldPath Path(std::string_view text) { return *schema::FieldPath::Parse(text); }

MergeContext Context(TableWriteMode mode) {
  MergeContext ctx;
  ctx.table_name = "table.ddl";
  ctx.incoming_name = "data.ddl";
  ctx.options.mode = mode;
  ctx.schema_format = "spark-ddl";
  return ctx;
}

MergeResult Evolved() {
  MergeResult r;
  r.verdict = MergeVerdict::kEvolved;
  r.changes.push_back(TableChange{TableChangeKind::kColumnAdded, Path("tier"), "", "STRING",
                                  "appended as the last column, nullable"});
  r.changes.push_back(
      TableChange{TableChangeKind::kTypeWidened, Path("items[].qty"), "INT", "BIGINT", ""});
  r.changes.push_back(
      TableChange{TableChangeKind::kFilledWithNull, Path("note"), "STRING", "", ""});
  return r;
}

MergeResult Rejected() {
  MergeResult r;
  r.verdict = MergeVerdict::kRejected;
  r.violations.push_back(TableViolation{
      Path("amount"), "DELTA_FAILED_TO_MERGE_FIELDS", "DELTA_MERGE_INCOMPATIBLE_DATATYPE",
      "Failed to merge fields 'amount' and 'amount'", "cast amount to DOUBLE before writing"});
  r.violations.push_back(TableViolation{schema::FieldPath(), "", "", "names clash", ""});
  return r;
}

std::string MustRender(const MergeResult& r, const MergeContext& ctx, Format f) {
  auto text = Render(r, ctx, f);
  EXPECT_TRUE(text.has_value()) << text.error().ToString();
  return text.value_or("");
}

TEST(MergeRenderTest, TextListsChangesThenTheSchema) {
  MergeContext ctx = Context(TableWriteMode::kMerge);
  ctx.options.type_widening = true;
  ctx.schema_text = "tier STRING\n";
  const std::string changes =
      "data.ddl into table.ddl (Delta, mergeSchema, type widening): evolved\n"
      "  ~ tier  column_added  STRING  (appended as the last column, nullable)\n"
      "  ~ items[].qty  type_widened  INT -> BIGINT\n"
      "  ~ note  filled_with_null  STRING\n";
  EXPECT_EQ(MustRender(Evolved(), ctx, Format::kText), changes + "\ntier STRING\n");
  // The schema went to a file: the report alone.
  ctx.schema_in_text = false;
  EXPECT_EQ(MustRender(Evolved(), ctx, Format::kText), changes);
}

TEST(MergeRenderTest, TextOfARejectedWriteHasViolationsAndNoSchema) {
  MergeContext ctx = Context(TableWriteMode::kEnforce);
  ctx.options.format = TableFormat::kIceberg;
  EXPECT_EQ(MustRender(Rejected(), ctx, Format::kText),
            "data.ddl into table.ddl (Iceberg, enforcement): rejected\n"
            "  ! amount: [DELTA_FAILED_TO_MERGE_FIELDS] Failed to merge fields 'amount' and "
            "'amount'\n"
            "    fix: cast amount to DOUBLE before writing\n"
            "  ! (table): names clash\n");
  ctx.options.mode = TableWriteMode::kOverwrite;
  ctx.options.format = TableFormat::kDelta;
  EXPECT_EQ(MustRender(MergeResult{}, ctx, Format::kText),
            "data.ddl into table.ddl (Delta, overwriteSchema): unchanged\n\n");
}

TEST(MergeRenderTest, Json) {
  MergeContext ctx = Context(TableWriteMode::kMerge);
  ctx.schema_text = "tier STRING\n";
  MergeResult r = Evolved();
  r.changes.resize(1);
  EXPECT_EQ(MustRender(r, ctx, Format::kJson),
            R"json({
  "table": "table.ddl",
  "incoming": "data.ddl",
  "format": "delta",
  "mode": "merge",
  "type_widening": false,
  "verdict": "evolved",
  "violations": [],
  "changes": [
    {
      "path": "tier",
      "kind": "column_added",
      "from": "",
      "to": "STRING",
      "note": "appended as the last column, nullable"
    }
  ],
  "schema_format": "spark-ddl",
  "schema": "tier STRING\n"
}
)json");
  MergeContext iceberg = Context(TableWriteMode::kOverwrite);
  iceberg.options.format = TableFormat::kIceberg;
  iceberg.options.type_widening = true;
  r = Rejected();
  r.violations.resize(1);
  EXPECT_EQ(MustRender(r, iceberg, Format::kJson),
            R"json({
  "table": "table.ddl",
  "incoming": "data.ddl",
  "format": "iceberg",
  "mode": "overwrite",
  "type_widening": true,
  "verdict": "rejected",
  "violations": [
    {
      "path": "amount",
      "error_class": "DELTA_FAILED_TO_MERGE_FIELDS",
      "cause_class": "DELTA_MERGE_INCOMPATIBLE_DATATYPE",
      "message": "Failed to merge fields 'amount' and 'amount'",
      "hint": "cast amount to DOUBLE before writing"
    }
  ],
  "changes": [],
  "schema_format": "spark-ddl",
  "schema": ""
}
)json");
}

TEST(MergeRenderTest, GithubAndReservedFormatsAreUnimplemented) {
  for (Format f : {Format::kGithub, Format::kSlack, Format::kHtml}) {
    auto text = Render(Evolved(), Context(TableWriteMode::kMerge), f);
    ASSERT_FALSE(text.has_value());
    EXPECT_EQ(text.error().code(), ErrorCode::kUnimplemented);
  }
}

}  // namespace
}  // namespace sluice::report
