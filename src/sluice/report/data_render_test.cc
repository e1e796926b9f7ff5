#include "sluice/report/data_render.h"

#include <gtest/gtest.h>

#include "sluice/base/json.h"
#include "sluice/dialects/spark/spark.h"

namespace sluice::report {
namespace {

using data::FailFastStop;
using data::ValidateReport;
using data::ViolationCount;
using data::ViolationKind;

// Two files, a rescued record, a malformed one and a type mismatch in each file.
ValidateReport Permissive() {
  ValidateReport r;
  r.files = {"a.jsonl", "b.jsonl"};
  r.format = "jsonl";
  r.mode = "permissive";
  r.records_in = 7;
  r.valid = 5;
  r.rescued = 2;
  r.quarantined = 2;
  r.malformed = 1;
  r.bytes = 631;
  r.violations.push_back(ViolationCount{"", ViolationKind::kMalformed, 1, {{0, 4}}});
  r.violations.push_back(
      ViolationCount{"order_amount", ViolationKind::kTypeMismatch, 2, {{0, 3}, {1, 3}}});
  return r;
}

ValidateReport Stopped() {
  ValidateReport r;
  r.files = {"a.jsonl"};
  r.format = "csv";
  r.mode = "failfast";
  r.records_in = 2;
  r.valid = 1;
  r.quarantined = 1;
  r.bytes = 90;
  r.stopped = FailFastStop{"a.jsonl", 2, 45, "id", "id: null_not_allowed"};
  r.violations.push_back(ViolationCount{"id", ViolationKind::kNullNotAllowed, 1, {{0, 2}}});
  return r;
}

std::string MustRender(const ValidateReport& r, Format f) {
  auto text = Render(r, f);
  EXPECT_TRUE(text.has_value()) << text.error().ToString();
  return text.value_or("");
}

TEST(ValidateRenderTest, JsonAccountsForEveryRecord) {
  EXPECT_EQ(MustRender(Permissive(), Format::kJson),
            R"json({
  "files": [
    "a.jsonl",
    "b.jsonl"
  ],
  "format": "jsonl",
  "mode": "permissive",
  "records_in": 7,
  "valid": 5,
  "rescued": 2,
  "with_new_columns": 0,
  "quarantined": 2,
  "malformed": 1,
  "bytes": 631,
  "invariant": {
    "holds": true,
    "statement": "records_in (7) = valid (5) + quarantined (2); rescued (2) <= valid (5)"
  },
  "stopped": null,
  "violations": [
    {
      "path": "",
      "kind": "malformed",
      "count": 1,
      "lines": [
        4
      ],
      "at": [
        "a.jsonl:4"
      ]
    },
    {
      "path": "order_amount",
      "kind": "type_mismatch",
      "count": 2,
      "lines": [
        3,
        3
      ],
      "at": [
        "a.jsonl:3",
        "b.jsonl:3"
      ]
    }
  ]
}
)json");
}

TEST(ValidateRenderTest, JsonOfAFailFastStop) {
  ValidateReport r = Stopped();
  // A broken invariant is reported, not hidden; a file index past the inputs shows as "?".
  r.valid = 0;
  r.violations[0].lines.push_back({9, 7});
  EXPECT_EQ(MustRender(r, Format::kJson),
            R"json({
  "files": [
    "a.jsonl"
  ],
  "format": "csv",
  "mode": "failfast",
  "records_in": 2,
  "valid": 0,
  "rescued": 0,
  "with_new_columns": 0,
  "quarantined": 1,
  "malformed": 0,
  "bytes": 90,
  "invariant": {
    "holds": false,
    "statement": "records_in (2) = valid (0) + quarantined (1); rescued (0) <= valid (0)"
  },
  "stopped": {
    "file": "a.jsonl",
    "line": 2,
    "offset": 45,
    "path": "id",
    "message": "id: null_not_allowed"
  },
  "violations": [
    {
      "path": "id",
      "kind": "null_not_allowed",
      "count": 1,
      "lines": [
        2,
        7
      ],
      "at": [
        "a.jsonl:2",
        "?:7"
      ]
    }
  ]
}
)json");
}

TEST(ValidateRenderTest, TextSummary) {
  EXPECT_EQ(MustRender(Permissive(), Format::kText),
            "7 records: 5 valid (2 rescued), 2 quarantined (1 malformed)\n");
  EXPECT_EQ(MustRender(Stopped(), Format::kText),
            "2 records: 1 valid (0 rescued), 1 quarantined (0 malformed)\n"
            "stopped (failfast) at a.jsonl:2 (byte 45) field id: id: null_not_allowed\n");
  ValidateReport malformed = Stopped();
  malformed.stopped->path.clear();
  malformed.stopped->message = "the record is not a JSON object";
  EXPECT_EQ(MustRender(malformed, Format::kText),
            "2 records: 1 valid (0 rescued), 1 quarantined (0 malformed)\n"
            "stopped (failfast) at a.jsonl:2 (byte 45): the record is not a JSON object\n");
}

TEST(ValidateRenderTest, TextNamesTheNewColumnsAContractAllows) {
  ValidateReport r = Permissive();
  r.with_new_columns = 3;
  r.violations.push_back(ViolationCount{"loyalty_tier", ViolationKind::kNewColumn, 3, {{0, 1}}});
  r.violations.push_back(ViolationCount{"address.zip", ViolationKind::kNewColumn, 1, {{0, 2}}});
  EXPECT_EQ(MustRender(r, Format::kText),
            "7 records: 5 valid (2 rescued), 2 quarantined (1 malformed)\n"
            "3 valid records carry new columns the contract allows (loyalty_tier, address.zip), "
            "kept in the rescued column\n");
  EXPECT_NE(MustRender(r, Format::kJson).find("\"with_new_columns\": 3,"), std::string::npos);
}

TEST(ValidateRenderTest, GithubAndReservedFormatsAreUnimplemented) {
  for (Format f : {Format::kGithub, Format::kSlack, Format::kHtml}) {
    auto text = Render(Permissive(), f);
    ASSERT_FALSE(text.has_value());
    EXPECT_EQ(text.error().code(), ErrorCode::kUnimplemented);
  }
}

TEST(InferRenderTest, TextAndJsonSummaries) {
  data::InferResult r;
  r.records = 7;
  r.malformed = 1;
  r.schema = dialects::spark::ReadDdl("id BIGINT, tags ARRAY<STRING>")->value;
  auto text = Render(r, Format::kText);
  ASSERT_TRUE(text.has_value());
  EXPECT_EQ(*text, "inferred from 7 records (1 malformed)\n");
  auto json = Render(r, Format::kJson);
  ASSERT_TRUE(json.has_value());
  auto parsed = ParseJson(*json);
  ASSERT_TRUE(parsed.has_value()) << *json;
  EXPECT_EQ(parsed->Find("records")->as_int64(), 7);
  EXPECT_EQ(parsed->Find("malformed")->as_int64(), 1);
  // The schema is Spark's StructType JSON, an object a reader can load as it is.
  const JsonValue* schema = parsed->Find("schema");
  ASSERT_NE(schema, nullptr);
  EXPECT_EQ(schema->Find("type")->as_string(), "struct");
  EXPECT_EQ(schema->Find("fields")->items()[1].Find("name")->as_string(), "tags");
  for (Format f : {Format::kGithub, Format::kSlack, Format::kHtml}) {
    auto other = Render(r, f);
    ASSERT_FALSE(other.has_value());
    EXPECT_EQ(other.error().code(), ErrorCode::kUnimplemented);
    EXPECT_EQ(other.error().message(), "an inference summary cannot be rendered as " +
                                           std::string(FormatName(f)) + ": not implemented");
  }
}

}  // namespace
}  // namespace sluice::report
