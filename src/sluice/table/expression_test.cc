// Expression cases as data, in the manner of DuckDB's sqllogictest: every `*.test` file in
// testdata/expressions/ holds expressions, the schema and row they run on, and what must come
// of them, so that a new case is two lines in a file, not new C++.
//
// A file is a list of lines; blank lines and lines starting with '#' are skipped. Every other
// line is `directive value`, the value being everything after the first space:
//   schema <Spark DDL>     the schema for the cases after it (until the next `schema`);
//                          default: no columns
//   row <JSON object>      the row for the cases after it (until the next `row`); default {}
//   expr <expression>      a case: the expression; `{{N*text}}` in it stands for N copies of
//                          text (for hostile sizes); the next line is its expectation:
//   true | false | null    what Evaluate returns
//   error: <text>          parsing, binding or evaluating fails with a message containing text
//   sql <text>             optional, after the expectation: ToSql of the parsed expression
//   bound <text>           optional, after the expectation: BoundExpression::ToSql
//
// Every case that parses also checks that ToSql reads back: parsing ToSql's text gives the
// same text again, and, when the case evaluates, the same result. A failure names the file and
// the line of the case.
#include "sluice/table/expression.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sluice/base/file_system.h"
#include "sluice/base/json.h"
#include "sluice/base/strings.h"
#include "sluice/dialects/spark/spark.h"
#include "sluice_test_paths.h"

namespace sluice::table {
namespace {

std::string CaseDir() {
  return std::string(SLUICE_SOURCE_DIR) + "/src/sluice/table/testdata/expressions";
}

struct Case {
  int line = 0;
  std::string schema;
  std::string row = "{}";
  std::string expr;
  std::string expect;
  std::optional<std::string> sql;
  std::optional<std::string> bound;
};

// `{{N*text}}` stands for N copies of text.
std::string Expand(std::string_view s) {
  std::string out;
  while (true) {
    const size_t open = s.find("{{");
    if (open == std::string_view::npos) break;
    const size_t close = s.find("}}", open);
    const size_t star = s.find('*', open);
    if (close == std::string_view::npos || star == std::string_view::npos || star > close) break;
    size_t n = 0;
    std::from_chars(s.data() + open + 2, s.data() + star, n);
    out += s.substr(0, open);
    const std::string_view text = s.substr(star + 1, close - star - 1);
    for (size_t i = 0; i < n; ++i) out += text;
    s.remove_prefix(close + 2);
  }
  out += s;
  return out;
}

bool ParseCases(const std::string& path, std::string_view text, std::vector<Case>* cases) {
  std::string schema;
  std::string row = "{}";
  std::vector<std::string_view> lines = SplitString(text, '\n');
  for (size_t i = 0; i < lines.size(); ++i) {
    std::string_view line = lines[i];
    if (line.empty() || line[0] == '#') continue;
    const size_t space = line.find(' ');
    const std::string_view directive = line.substr(0, space);
    const std::string_view value = space == std::string_view::npos ? "" : line.substr(space + 1);
    if (directive == "schema") {
      schema = std::string(value);
    } else if (directive == "row") {
      row = std::string(value);
    } else if (directive == "expr") {
      Case c;
      c.line = static_cast<int>(i + 1);
      c.schema = schema;
      c.row = row;
      c.expr = Expand(value);
      if (i + 1 >= lines.size() || lines[i + 1].empty()) {
        ADD_FAILURE() << path << ":" << i + 1 << ": a case without an expectation";
        return false;
      }
      c.expect = std::string(lines[++i]);
      while (i + 1 < lines.size() &&
             (lines[i + 1].starts_with("sql ") || lines[i + 1].starts_with("bound "))) {
        const std::string_view extra = lines[++i];
        if (extra.starts_with("sql ")) {
          c.sql = std::string(extra.substr(4));
        } else {
          c.bound = std::string(extra.substr(6));
        }
      }
      cases->push_back(std::move(c));
    } else {
      ADD_FAILURE() << path << ":" << i + 1 << ": unknown directive '" << directive << "'";
      return false;
    }
  }
  return true;
}

// The outcome of one expression: "true", "false", "null" or "error: <message>".
struct Outcome {
  std::string result;
  std::string sql;
  std::string bound;
};

Outcome Run(std::string_view expr, const schema::Schema& schema, const JsonValue& row) {
  Outcome o;
  auto parsed = ParseExpression(expr);
  if (!parsed.has_value()) {
    o.result = "error: " + parsed.error().message();
    return o;
  }
  o.sql = ToSql(**parsed);
  auto bound = Bind(**parsed, schema);
  if (!bound.has_value()) {
    o.result = "error: " + bound.error().message();
    return o;
  }
  o.bound = bound->ToSql();
  auto truth = bound->Evaluate(row);
  o.result =
      truth.has_value() ? std::string(TruthName(*truth)) : "error: " + truth.error().message();
  return o;
}

void CheckCase(const std::string& path, const Case& c) {
  const std::string where =
      path + ":" + std::to_string(c.line) + ": " + EscapeForMessage(c.expr, 120);
  schema::SchemaPtr schema;
  if (c.schema.empty()) {
    schema = *schema::Schema::Make({});
  } else {
    auto read = dialects::spark::ReadDdl(c.schema);
    ASSERT_TRUE(read.has_value()) << where << ": bad schema: " << read.error().ToString();
    schema = read->value;
  }
  auto row = ParseJson(c.row);
  ASSERT_TRUE(row.has_value()) << where << ": bad row: " << row.error().ToString();

  const Outcome o = Run(c.expr, *schema, *row);
  if (c.expect.starts_with("error: ")) {
    const std::string want = c.expect.substr(7);
    EXPECT_TRUE(o.result.starts_with("error: ") && o.result.find(want) != std::string::npos)
        << where << "\n  expected an error containing: " << want << "\n  got: " << o.result;
  } else {
    EXPECT_EQ(o.result, c.expect) << where;
  }
  if (c.sql) {
    EXPECT_EQ(o.sql, *c.sql) << where << " (sql)";
  }
  if (c.bound) {
    EXPECT_EQ(o.bound, *c.bound) << where << " (bound)";
  }

  // ToSql reads back as the same expression.
  if (!o.sql.empty()) {
    const Outcome again = Run(o.sql, *schema, *row);
    EXPECT_EQ(again.sql, o.sql) << where << ": ToSql does not read back";
    if (!o.result.starts_with("error: ")) {
      EXPECT_EQ(again.result, o.result) << where << ": ToSql reads back as another expression";
    }
  }
}

std::vector<std::string> CaseFileNames() {
  std::vector<std::string> names;
  auto listed = NewLocalFileSystem()->ListDir(CaseDir());
  if (!listed.has_value()) return names;
  for (const std::string& n : *listed) {
    if (EndsWith(n, ".test")) names.push_back(n);
  }
  std::sort(names.begin(), names.end());
  return names;
}

std::vector<Case> LoadCases(const std::string& name) {
  std::vector<Case> cases;
  const std::string path = CaseDir() + "/" + name;
  auto text = NewLocalFileSystem()->ReadFile(path);
  if (!text.has_value()) {
    ADD_FAILURE() << text.error().ToString();
    return cases;
  }
  ParseCases(path, *text, &cases);
  return cases;
}

class ExpressionCasesTest : public ::testing::TestWithParam<std::string> {};

TEST_P(ExpressionCasesTest, EveryCaseHolds) {
  const std::vector<Case> cases = LoadCases(GetParam());
  EXPECT_FALSE(cases.empty()) << "a case file without cases";
  for (const Case& c : cases) CheckCase(CaseDir() + "/" + GetParam(), c);
}

INSTANTIATE_TEST_SUITE_P(CaseFiles, ExpressionCasesTest, ::testing::ValuesIn(CaseFileNames()),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           std::string name = info.param.substr(0, info.param.rfind('.'));
                           for (char& c : name) {
                             if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
                           }
                           return name;
                         });

// An empty or unreadable folder must not pass as "no case failed".
TEST(ExpressionCasesFolderTest, HoldsTheCases) {
  size_t cases = 0;
  for (const std::string& name : CaseFileNames()) cases += LoadCases(name).size();
  EXPECT_GE(cases, 150u) << "in " << CaseDir();
}

}  // namespace
}  // namespace sluice::table
