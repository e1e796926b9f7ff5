#include <gtest/gtest.h>

#include <chrono>
#include <string>

#include "sluice/dialects/contract/yaml_internal.h"

namespace sluice::dialects::contract::internal {
namespace {

using std::chrono::steady_clock;

double SecondsSince(steady_clock::time_point start) {
  return std::chrono::duration<double>(steady_clock::now() - start).count();
}

TEST(YamlTest, KeepsScalarTextAsWritten) {
  auto doc = ParseYaml("version: 1.10\nname: no\nquoted: \"true\"\nempty:\n");
  ASSERT_TRUE(doc.has_value()) << doc.error().ToString();
  ASSERT_TRUE(doc->is_map());
  EXPECT_EQ(doc->Find("version")->text, "1.10");
  EXPECT_FALSE(doc->Find("version")->quoted);
  EXPECT_EQ(doc->Find("name")->text, "no");
  EXPECT_TRUE(doc->Find("quoted")->quoted);
  EXPECT_TRUE(doc->Find("empty")->is_null());
}

TEST(YamlTest, RecordsLineAndColumnOfNodes) {
  auto doc = ParseYaml("a:\n  b: [1, 2]\n");
  ASSERT_TRUE(doc.has_value());
  const YamlNode* b = doc->Find("a")->Find("b");
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(b->line, 2);
  EXPECT_EQ(b->column, 6);
  EXPECT_EQ(b->items[1].column, 10);
}

TEST(YamlTest, EmptyDocumentIsNull) {
  for (std::string_view text : {"", "\n\n", "# only a comment\n", "---\n"}) {
    auto doc = ParseYaml(text);
    ASSERT_TRUE(doc.has_value()) << text;
    EXPECT_TRUE(doc->is_null()) << text;
  }
}

TEST(YamlTest, SyntaxErrorsNameLineAndColumn) {
  auto doc = ParseYaml("a: 1\nb: [1, 2\n");
  ASSERT_FALSE(doc.has_value());
  EXPECT_EQ(doc.error().code(), ErrorCode::kParseError);
  EXPECT_NE(doc.error().message().find("line "), std::string::npos) << doc.error().message();
  EXPECT_NE(doc.error().message().find("column "), std::string::npos);
}

TEST(YamlTest, RejectsInvalidUtf8WithPosition) {
  auto doc = ParseYaml("a: ok\nb: caf\xC3\x28\n");
  ASSERT_FALSE(doc.has_value());
  EXPECT_EQ(doc.error().code(), ErrorCode::kParseError);
  EXPECT_NE(doc.error().message().find("invalid UTF-8"), std::string::npos);
  EXPECT_NE(doc.error().message().find("line 2, column 7"), std::string::npos)
      << doc.error().message();
}

TEST(YamlTest, RejectsControlCharactersIncludingNul) {
  std::string text = "a: 1\nb: x";
  text += '\0';
  text += "\nc: 3\n";
  auto doc = ParseYaml(text);
  ASSERT_FALSE(doc.has_value());
  EXPECT_NE(doc.error().message().find("control character 0x00"), std::string::npos);
  EXPECT_FALSE(ParseYaml("a: \x1b[31m\n").has_value());
}

TEST(YamlTest, AcceptsUtf8AndByteOrderMark) {
  auto doc = ParseYaml("\xEF\xBB\xBFname: Zürich — 東京\n");
  ASSERT_TRUE(doc.has_value()) << doc.error().ToString();
  EXPECT_EQ(doc->Find("name")->text, "Zürich — 東京");
}

TEST(YamlTest, RejectsDuplicateKeys) {
  auto doc = ParseYaml("a: 1\nb: 2\na: 3\n");
  ASSERT_FALSE(doc.has_value());
  EXPECT_NE(doc.error().message().find("duplicate key \"a\""), std::string::npos);
  EXPECT_NE(doc.error().message().find("line 3"), std::string::npos) << doc.error().message();
}

TEST(YamlTest, RejectsNonScalarKeys) {
  auto doc = ParseYaml("? [a, b]\n: 1\n");
  ASSERT_FALSE(doc.has_value());
  EXPECT_NE(doc.error().message().find("keys must be scalars"), std::string::npos);
}

TEST(YamlTest, RejectsMoreThanOneDocument) {
  auto doc = ParseYaml("a: 1\n---\nb: 2\n");
  ASSERT_FALSE(doc.has_value());
  EXPECT_NE(doc.error().message().find("one YAML document"), std::string::npos);
}

TEST(YamlTest, RejectsStrayFlowIndicatorsWithoutHanging) {
  // yaml-cpp 0.7's LoadAll loops forever, allocating, on these.
  for (std::string_view text : {",", ",\na: 1\n", "a: 1\n,\n", "[a],\nb: 1\n", ", x",
                                "required_columns:\n  - {name: a, type: int}\n,\n"}) {
    auto start = steady_clock::now();
    auto doc = ParseYaml(text);
    EXPECT_FALSE(doc.has_value()) << text;
    EXPECT_LT(SecondsSince(start), 1.0) << text;
  }
}

TEST(YamlTest, RejectsDeepFlowNestingQuickly) {
  for (char open : {'[', '{'}) {
    std::string text(100'000, open);
    auto start = steady_clock::now();
    auto doc = ParseYaml(text);
    ASSERT_FALSE(doc.has_value());
    EXPECT_NE(doc.error().message().find("nest deeper"), std::string::npos)
        << doc.error().message();
    EXPECT_LT(SecondsSince(start), 1.0);
  }
  std::string balanced = std::string(100'000, '[') + std::string(100'000, ']');
  EXPECT_FALSE(ParseYaml(balanced).has_value());
  std::string maps;
  for (int i = 0; i < 100'000; ++i) maps += "{a: ";
  EXPECT_FALSE(ParseYaml(maps).has_value());
}

TEST(YamlTest, RejectsDeepBlockNesting) {
  std::string dashes;
  for (int i = 0; i < 100'000; ++i) dashes += "- ";
  dashes += "x\n";
  auto doc = ParseYaml(dashes);
  ASSERT_FALSE(doc.has_value());
  EXPECT_NE(doc.error().message().find("nest deeper"), std::string::npos);

  std::string indented;
  for (int i = 0; i < 2'000; ++i) indented += std::string(static_cast<size_t>(i), ' ') + "a:\n";
  EXPECT_FALSE(ParseYaml(indented).has_value());
}

TEST(YamlTest, RejectsDeepNestingHiddenFromTheScanner) {
  // The pre-scan is an estimate; the tree walk enforces the limit whatever the scanner thought.
  YamlLimits limits;
  limits.max_depth = 1000;  // scanner lets it through ...
  std::string text = std::string(400, '[') + std::string(400, ']');
  auto doc = ParseYaml(text, limits);
  ASSERT_TRUE(doc.has_value()) << doc.error().ToString();
  limits.max_depth = 300;  // ... the default refuses it
  EXPECT_FALSE(ParseYaml(text, limits).has_value());
}

TEST(YamlTest, AcceptsNestingUpToTheLimit) {
  std::string text = std::string(250, '[') + std::string(250, ']');
  EXPECT_TRUE(ParseYaml(text).has_value());
}

TEST(YamlTest, BracketsInsideScalarsAndCommentsDoNotCount) {
  std::string text = "pattern: '^[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[$'\n";
  text += "# [[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[\n";
  text += "doc: |\n  [[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[\n  more\n";
  text += "plain: a[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[\n";
  YamlLimits limits;
  limits.max_depth = 20;
  auto doc = ParseYaml(text, limits);
  ASSERT_TRUE(doc.has_value()) << doc.error().ToString();
  EXPECT_EQ(doc->Find("doc")->text, "[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[\nmore\n");
}

TEST(YamlTest, RejectsAliasBombs) {
  // "Billion laughs": nine levels of nine aliases expand to 10^9 nodes.
  std::string text =
      "a: &a [\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\"]\n";
  char prev = 'a';
  for (char c = 'b'; c <= 'j'; ++c) {
    text += std::string(1, c) + ": &" + c + " [";
    for (int i = 0; i < 9; ++i) text += std::string(i ? "," : "") + "*" + prev;
    text += "]\n";
    prev = c;
  }
  auto start = steady_clock::now();
  auto doc = ParseYaml(text);
  ASSERT_FALSE(doc.has_value());
  EXPECT_NE(doc.error().message().find("aliases expand"), std::string::npos)
      << doc.error().message();
  EXPECT_LT(SecondsSince(start), 5.0);
}

TEST(YamlTest, RejectsAliasesThatMultiplyLargeScalars) {
  std::string text = "big: &big \"" + std::string(1 << 20, 'x') + "\"\nmany: [";
  for (int i = 0; i < 200; ++i) text += std::string(i ? "," : "") + "*big";
  text += "]\n";
  auto doc = ParseYaml(text);
  ASSERT_FALSE(doc.has_value());
  EXPECT_NE(doc.error().message().find("bytes"), std::string::npos) << doc.error().message();
}

TEST(YamlTest, AcceptsModestAliasUse) {
  auto doc = ParseYaml("base: &base {type: long}\na: *base\nb: *base\n");
  ASSERT_TRUE(doc.has_value()) << doc.error().ToString();
  EXPECT_EQ(doc->Find("b")->Find("type")->text, "long");
}

TEST(YamlTest, RejectsSelfReferencingAlias) {
  auto doc = ParseYaml("&a [*a]\n");
  ASSERT_FALSE(doc.has_value());
}

TEST(YamlTest, ReadsYaml11BooleansAsPyYamlDoes) {
  bool v = false;
  EXPECT_TRUE(ParseYamlBool("yes", &v) && v);
  EXPECT_TRUE(ParseYamlBool("Off", &v) && !v);
  EXPECT_TRUE(ParseYamlBool("TRUE", &v) && v);
  EXPECT_FALSE(ParseYamlBool("tRUE", &v));
  EXPECT_FALSE(ParseYamlBool("1", &v));
}

TEST(YamlTest, ConvertsToJsonWithYamlTyping) {
  auto doc = ParseYaml(
      "{a: 1, b: true, c: ~, d: \"1\", e: 1.5, f: +1, g: .5, h: 0x1f, i: x y,"
      " j: [1, two], k: 1e3}");
  ASSERT_TRUE(doc.has_value()) << doc.error().ToString();
  JsonValue j = YamlToJson(*doc);
  EXPECT_EQ(j.Find("a")->number_text(), "1");
  EXPECT_TRUE(j.Find("b")->as_bool());
  EXPECT_TRUE(j.Find("c")->is_null());
  EXPECT_EQ(j.Find("d")->as_string(), "1");
  EXPECT_EQ(j.Find("e")->number_text(), "1.5");
  EXPECT_EQ(j.Find("f")->number_text(), "1");
  EXPECT_EQ(j.Find("g")->number_text(), "0.5");
  EXPECT_EQ(j.Find("h")->number_text(), "31");
  EXPECT_EQ(j.Find("i")->as_string(), "x y");
  EXPECT_EQ(j.Find("j")->items()[1].as_string(), "two");
  EXPECT_EQ(j.Find("k")->number_text(), "1e3");
}

TEST(YamlTest, ScalarsWrittenByYamlScalarReadBackUnchanged) {
  const std::string cases[] = {"plain",
                               "two words",
                               "true",
                               "no",
                               "null",
                               "~",
                               "",
                               " lead",
                               "trail ",
                               "a: b",
                               "a #b",
                               "#x",
                               "- x",
                               "[x]",
                               "{x}",
                               "1.0",
                               "0x1f",
                               "1_000",
                               "12:30",
                               "it's",
                               "say \"hi\"",
                               "line\nbreak",
                               "tab\there",
                               "back\\slash",
                               "ünïcode",
                               "*alias",
                               "&anchor",
                               "!tag",
                               "%percent",
                               "@at",
                               "`tick`",
                               "key:",
                               "a:b",
                               ".inf",
                               "y",
                               "decimal(10, 2)",
                               "struct<a: int>",
                               "array<struct<a:int>>",
                               "1.2.0",
                               "nel\xC2\x85here",
                               "ls\xE2\x80\xA8ps\xE2\x80\xA9",
                               "\xEF\xBB\xBF"
                               "bom",
                               "c1\xC2\x9F",
                               "bell\x07"};
  for (const std::string& s : cases) {
    std::string yaml = "k: " + YamlScalar(s) + "\n";
    auto doc = ParseYaml(yaml);
    ASSERT_TRUE(doc.has_value()) << yaml << doc.error().ToString();
    const YamlNode* k = doc->Find("k");
    ASSERT_NE(k, nullptr);
    ASSERT_TRUE(k->is_scalar()) << yaml;
    EXPECT_EQ(k->text, s) << yaml;
    // What YAML would type as something else must be quoted.
    JsonValue j = YamlToJson(*k);
    EXPECT_TRUE(j.is_string()) << yaml;
  }
}

TEST(YamlTest, FlowOptionsReadBack) {
  auto doc = ParseYaml("{format: uuid, minimum: 0, note: \"a, b\", list: [x, \"y]\"]}");
  ASSERT_TRUE(doc.has_value());
  JsonValue j = YamlToJson(*doc);
  std::string flow = JsonToYamlFlow(j);
  auto again = ParseYaml(flow);
  ASSERT_TRUE(again.has_value()) << flow;
  EXPECT_TRUE(YamlToJson(*again).Equals(j)) << flow;
}

}  // namespace
}  // namespace sluice::dialects::contract::internal
