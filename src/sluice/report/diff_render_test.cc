#include "sluice/report/diff_render.h"

#include <gtest/gtest.h>

namespace sluice::report {
namespace {

using evolution::Change;
using evolution::ChangeKind;
using evolution::SchemaDiff;

schema::FieldPath Path(std::string_view text) { return *schema::FieldPath::Parse(text); }

// One change of each severity and a rename hint; the doc text needs GitHub escaping.
SchemaDiff SmallDiff() {
  SchemaDiff d;
  d.changes.push_back(Change{Path("order_amount"), ChangeKind::kTypeChanged, "float64", "string"});
  d.changes.push_back(Change{Path("items[].qty"), ChangeKind::kFieldAdded, std::nullopt, "int32"});
  d.changes.push_back(Change{Path("note"), ChangeKind::kDocChanged, "old: 50%", "new, 60%"});
  d.hints.push_back({Path("cust"), Path("customer"), "same type, similar name"});
  return d;
}

const DiffContext kContext{"v1.json", "v2.json"};

std::string MustRender(const SchemaDiff& d, Format f) {
  auto text = Render(d, kContext, f);
  EXPECT_TRUE(text.has_value()) << text.error().ToString();
  return text.value_or("");
}

TEST(DiffRenderTest, TextAlignsColumnsAndEndsWithTheSummary) {
  EXPECT_EQ(MustRender(SmallDiff(), Format::kText),
            "v1.json -> v2.json\n"
            "  ~ order_amount  type_changed  float64 -> string     [breaking]\n"
            "  + items[].qty   field_added   int32                 [compatible]\n"
            "  ~ note          doc_changed   old: 50% -> new, 60%  [cosmetic]\n"
            "  hint: cust may have been renamed to customer (same type, similar name)\n"
            "3 changes: 1 breaking, 1 compatible, 1 cosmetic\n");
}

// A name is shown, never obeyed: a newline cannot split a change's line and an escape sequence
// cannot paint the terminal.
TEST(DiffRenderTest, TextEscapesControlCharactersInNames) {
  SchemaDiff d;
  d.changes.push_back(Change{schema::FieldPath::Of("a\nb\x1b[31m"), ChangeKind::kFieldAdded,
                             std::nullopt, "int32"});
  EXPECT_EQ(MustRender(d, Format::kText),
            "v1.json -> v2.json\n"
            "  + `a\\nb\\x1b[31m`  field_added  int32  [compatible]\n"
            "1 change: 0 breaking, 1 compatible, 0 cosmetic\n");
}

TEST(DiffRenderTest, TextOfNoChanges) {
  EXPECT_EQ(MustRender(SchemaDiff{}, Format::kText), "v1.json -> v2.json\nno changes\n");
}

TEST(DiffRenderTest, Json) {
  EXPECT_EQ(MustRender(SmallDiff(), Format::kJson),
            R"json({
  "old": "v1.json",
  "new": "v2.json",
  "identical": false,
  "changes": [
    {
      "path": "order_amount",
      "kind": "type_changed",
      "from": "float64",
      "to": "string",
      "severity": "breaking"
    },
    {
      "path": "items[].qty",
      "kind": "field_added",
      "from": null,
      "to": "int32",
      "severity": "compatible"
    },
    {
      "path": "note",
      "kind": "doc_changed",
      "from": "old: 50%",
      "to": "new, 60%",
      "severity": "cosmetic"
    }
  ],
  "hints": [
    {
      "kind": "rename_candidate",
      "from": "cust",
      "to": "customer",
      "reason": "same type, similar name"
    }
  ],
  "summary": {
    "total": 3,
    "breaking": 1,
    "compatible": 1,
    "cosmetic": 1,
    "by_kind": {
      "field_added": 1,
      "type_changed": 1,
      "doc_changed": 1
    }
  }
}
)json");
}

TEST(DiffRenderTest, JsonOfNoChanges) {
  EXPECT_EQ(MustRender(SchemaDiff{}, Format::kJson),
            R"json({
  "old": "v1.json",
  "new": "v2.json",
  "identical": true,
  "changes": [],
  "hints": [],
  "summary": {
    "total": 0,
    "breaking": 0,
    "compatible": 0,
    "cosmetic": 0,
    "by_kind": {}
  }
}
)json");
}

TEST(DiffRenderTest, GithubAnnotatesTheNewFileBySeverity) {
  DiffContext ctx{"old,1.json", "new:2.json"};
  auto text = Render(SmallDiff(), ctx, Format::kGithub);
  ASSERT_TRUE(text.has_value());
  EXPECT_EQ(*text,
            "::error file=new%3A2.json,title=sluice diff type_changed::order_amount: type_changed "
            "float64 -> string\n"
            "::warning file=new%3A2.json,title=sluice diff field_added::items[].qty: field_added "
            "int32\n"
            "::notice file=new%3A2.json,title=sluice diff doc_changed::note: doc_changed "
            "old: 50%25 -> new, 60%25\n"
            "::notice file=new%3A2.json,title=sluice diff rename candidate::cust may have been "
            "renamed to customer (same type, similar name)\n"
            "3 changes: 1 breaking, 1 compatible, 1 cosmetic\n");
}

TEST(DiffRenderTest, ReservedFormatsAreUnimplemented) {
  for (Format f : {Format::kSlack, Format::kHtml}) {
    auto text = Render(SmallDiff(), kContext, f);
    ASSERT_FALSE(text.has_value());
    EXPECT_EQ(text.error().code(), ErrorCode::kUnimplemented);
    EXPECT_EQ(text.error().message(), "a schema diff cannot be rendered as " +
                                          std::string(FormatName(f)) + ": not implemented");
  }
}

}  // namespace
}  // namespace sluice::report
