#include "sluice/report/compat_render.h"

#include <gtest/gtest.h>

namespace sluice::report {
namespace {

using evolution::CheckDirection;
using evolution::CompatibilityMode;
using evolution::CompatibilityReport;
using evolution::Incompatibility;
using evolution::SchemaType;

const CompatContext kContext{{"v1.avsc", "v2.avsc"}, "v3.avsc"};

// A transitive check that failed against both earlier versions, once each way.
CompatibilityReport Failed() {
  CompatibilityReport r;
  r.mode = CompatibilityMode::kFullTransitive;
  r.type = SchemaType::kAvro;
  r.compatible = false;
  r.checked_versions = {1, 0};
  r.incompatibilities.push_back({"READER_FIELD_MISSING_DEFAULT_VALUE", "/fields/1",
                                 "rating has no default", "give rating a default",
                                 CheckDirection::kBackward, 1});
  r.incompatibilities.push_back(
      {"TYPE_MISMATCH", "", "long, not int", "", CheckDirection::kForward, 0});
  return r;
}

CompatibilityReport Passed() {
  CompatibilityReport r;
  r.mode = CompatibilityMode::kBackward;
  r.type = SchemaType::kTable;
  r.checked_versions = {1};
  return r;
}

std::string MustRender(const CompatibilityReport& r, Format f) {
  auto text = Render(r, kContext, f);
  EXPECT_TRUE(text.has_value()) << text.error().ToString();
  return text.value_or("");
}

TEST(CompatRenderTest, TextNamesEachVersionAndDirection) {
  EXPECT_EQ(MustRender(Failed(), Format::kText),
            "FULL_TRANSITIVE (avro): v3.avsc is NOT compatible\n"
            "  READER_FIELD_MISSING_DEFAULT_VALUE at /fields/1 (new schema reading data written "
            "with v2.avsc)\n"
            "    rating has no default\n"
            "    fix: give rating a default\n"
            "  TYPE_MISMATCH at the top level (v1.avsc reading data written with the new schema)\n"
            "    long, not int\n"
            "2 incompatibilities; checked against v2.avsc, v1.avsc\n");
  EXPECT_EQ(MustRender(Passed(), Format::kText),
            "BACKWARD (table): v3.avsc is compatible\n"
            "0 incompatibilities; checked against v2.avsc\n");
}

TEST(CompatRenderTest, TextWhenNothingWasChecked) {
  CompatibilityReport none;
  none.mode = CompatibilityMode::kNone;
  EXPECT_EQ(MustRender(none, Format::kText),
            "NONE: v3.avsc is compatible (mode NONE checks nothing)\n");
  CompatibilityReport first;
  first.mode = CompatibilityMode::kBackward;
  EXPECT_EQ(MustRender(first, Format::kText),
            "BACKWARD: v3.avsc is compatible (no earlier versions)\n");
}

TEST(CompatRenderTest, Json) {
  EXPECT_EQ(MustRender(Failed(), Format::kJson),
            R"json({
  "mode": "FULL_TRANSITIVE",
  "type": "avro",
  "candidate": "v3.avsc",
  "compatible": false,
  "checked": [
    "v2.avsc",
    "v1.avsc"
  ],
  "incompatibilities": [
    {
      "kind": "READER_FIELD_MISSING_DEFAULT_VALUE",
      "location": "/fields/1",
      "message": "rating has no default",
      "hint": "give rating a default",
      "direction": "backward",
      "against": "v2.avsc"
    },
    {
      "kind": "TYPE_MISMATCH",
      "location": "",
      "message": "long, not int",
      "hint": "",
      "direction": "forward",
      "against": "v1.avsc"
    }
  ]
}
)json");
  EXPECT_EQ(MustRender(Passed(), Format::kJson),
            R"json({
  "mode": "BACKWARD",
  "type": "table",
  "candidate": "v3.avsc",
  "compatible": true,
  "checked": [
    "v2.avsc"
  ],
  "incompatibilities": []
}
)json");
}

TEST(CompatRenderTest, GithubAnnotatesTheCandidate) {
  EXPECT_EQ(MustRender(Failed(), Format::kGithub),
            "::error file=v3.avsc,title=sluice compat READER_FIELD_MISSING_DEFAULT_VALUE::"
            "READER_FIELD_MISSING_DEFAULT_VALUE at /fields/1 (against v2.avsc, backward): rating "
            "has no default Fix: give rating a default\n"
            "::error file=v3.avsc,title=sluice compat TYPE_MISMATCH::TYPE_MISMATCH at  (against "
            "v1.avsc, forward): long, not int\n"
            "FULL_TRANSITIVE: NOT compatible\n");
  EXPECT_EQ(MustRender(Passed(), Format::kGithub), "BACKWARD: compatible\n");
}

TEST(CompatRenderTest, AVersionOutsideTheContextIsAQuestionMark) {
  CompatibilityReport r = Failed();
  r.checked_versions = {7};
  r.incompatibilities.resize(1);
  r.incompatibilities[0].version_index = 7;
  EXPECT_EQ(MustRender(r, Format::kText),
            "FULL_TRANSITIVE (avro): v3.avsc is NOT compatible\n"
            "  READER_FIELD_MISSING_DEFAULT_VALUE at /fields/1 (new schema reading data written "
            "with ?)\n"
            "    rating has no default\n"
            "    fix: give rating a default\n"
            "1 incompatibility; checked against ?\n");
}

TEST(CompatRenderTest, ReservedFormatsAreUnimplemented) {
  for (Format f : {Format::kSlack, Format::kHtml}) {
    auto text = Render(Failed(), kContext, f);
    ASSERT_FALSE(text.has_value());
    EXPECT_EQ(text.error().code(), ErrorCode::kUnimplemented);
  }
}

}  // namespace
}  // namespace sluice::report
