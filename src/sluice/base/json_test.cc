#include "sluice/base/json.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <cstring>
#include <memory>
#include <string>

#include "sluice/base/json_writer.h"

namespace sluice {
namespace {

TEST(JsonParseTest, KeepsMemberOrderAndNumberText) {
  auto v =
      ParseJson(R"({"b": 1, "a": [true, null, "x"], "n": 12.50, "big": 123456789012345678901})");
  ASSERT_TRUE(v.has_value()) << v.error().ToString();
  ASSERT_TRUE(v->is_object());
  ASSERT_EQ(v->members().size(), 4u);
  EXPECT_EQ(v->members()[0].key, "b");
  EXPECT_EQ(v->members()[1].key, "a");
  EXPECT_EQ(v->Find("n")->number_text(), "12.50");
  EXPECT_EQ(v->Find("big")->number_text(), "123456789012345678901");
  EXPECT_FALSE(v->Find("big")->as_int64().has_value());
  EXPECT_EQ(v->Find("b")->as_int64(), 1);
  EXPECT_EQ(v->Find("a")->items()[2].as_string(), "x");
  EXPECT_EQ(ToJson(*v), R"({"b":1,"a":[true,null,"x"],"n":12.50,"big":123456789012345678901})");
}

TEST(JsonParseTest, RecordsOffsetsOfValues) {
  std::string text = R"({"a": {"b": 7}})";
  auto v = ParseJson(text);
  ASSERT_TRUE(v.has_value());
  const JsonValue* b = v->Find("a")->Find("b");
  EXPECT_EQ(text.substr(b->offset(), 1), "7");
}

TEST(JsonParseTest, DecodesEscapesAndSurrogatePairs) {
  auto v = ParseJson(R"(["a\"b\\c\/\n\t", "\u00e9\ud83d\ude00"])");
  ASSERT_TRUE(v.has_value()) << v.error().ToString();
  EXPECT_EQ(v->items()[0].as_string(), "a\"b\\c/\n\t");
  EXPECT_EQ(v->items()[1].as_string(), "\xc3\xa9\xf0\x9f\x98\x80");
}

TEST(JsonParseTest, ErrorsNameLineColumnAndOffset) {
  auto v = ParseJson("{\n  \"a\": 1,\n  \"b\" 2\n}");
  ASSERT_FALSE(v.has_value());
  EXPECT_EQ(v.error().code(), ErrorCode::kParseError);
  EXPECT_NE(v.error().message().find("line 3, column 7"), std::string::npos) << v.error().message();
  EXPECT_NE(v.error().message().find("expected ':'"), std::string::npos);
}

TEST(JsonParseTest, RejectsHostileInput) {
  const char* cases[] = {
      "",      "   ",        "{",       "[1,",       "\"abc",       "{\"a\":}",
      "01",    "1.",         "-",       "1e",        "tru",         "nul",
      "[1 2]", "{\"a\" 1}",  "\"\\x\"", "\"\\u12\"", "\"\\ud800\"", "\"\\udc00x\"",
      "[1]x",  "{\"a\":1,}", "[1,]",    "\"\x01\"",  "NaN",         "{'a':1}",
  };
  for (const char* c : cases) {
    auto v = ParseJson(c);
    EXPECT_FALSE(v.has_value()) << "accepted: " << c;
    if (!v.has_value()) {
      EXPECT_EQ(v.error().code(), ErrorCode::kParseError);
    }
  }
}

TEST(JsonParseTest, RejectsInvalidUtf8WithOffset) {
  std::string text = "[\"ok\", \"bad\xff\"]";
  auto v = ParseJson(text);
  ASSERT_FALSE(v.has_value());
  EXPECT_NE(v.error().message().find("offset 11"), std::string::npos) << v.error().message();
  EXPECT_NE(v.error().message().find("UTF-8"), std::string::npos);
}

TEST(JsonParseTest, LimitsNestingDepthWithoutCrashing) {
  std::string deep(100000, '[');
  auto v = ParseJson(deep);
  ASSERT_FALSE(v.has_value());
  EXPECT_NE(v.error().message().find("nesting deeper than 512"), std::string::npos);
  std::string ok = std::string(100, '[') + std::string(100, ']');
  EXPECT_TRUE(ParseJson(ok).has_value());
}

TEST(JsonParseTest, DuplicateKeysRejectedUnlessAllowed) {
  auto v = ParseJson(R"({"a":1,"a":2})");
  ASSERT_FALSE(v.has_value());
  EXPECT_NE(v.error().message().find("duplicate key \"a\""), std::string::npos);
  JsonParseOptions opt;
  opt.allow_duplicate_keys = true;
  auto w = ParseJson(R"({"a":1,"a":2})", opt);
  ASSERT_TRUE(w.has_value());
  EXPECT_EQ(w->Find("a")->as_int64(), 2);
}

TEST(JsonParseTest, DuplicateKeysFoundInLargeObjects) {
  std::string text = "{";
  for (int i = 0; i < 1000; ++i) text += "\"k" + std::to_string(i) + "\":1,";
  text += "\"k500\":2}";
  auto v = ParseJson(text);
  ASSERT_FALSE(v.has_value());
  EXPECT_NE(v.error().message().find("duplicate key \"k500\""), std::string::npos);
}

TEST(JsonParseTest, TrailingCommasWhenAllowed) {
  JsonParseOptions opt;
  opt.allow_trailing_commas = true;
  auto v = ParseJson(R"({"a":[1,2,],"b":{"c":1,},})", opt);
  ASSERT_TRUE(v.has_value()) << v.error().ToString();
  EXPECT_EQ(v->Find("a")->size(), 2u);
  EXPECT_FALSE(ParseJson("[,]", opt).has_value());
}

TEST(JsonValueTest, EqualsIgnoresMemberOrderAndNumberSpelling) {
  auto a = ParseJson(R"({"x":1.0,"y":[1,2]})");
  auto b = ParseJson(R"({"y":[1,2],"x":1})");
  ASSERT_TRUE(a && b);
  EXPECT_TRUE(a->Equals(*b));
  auto c = ParseJson(R"({"y":[2,1],"x":1})");
  EXPECT_FALSE(a->Equals(*c));
}

TEST(JsonWriterTest, PrettyAndSortedOutput) {
  auto v = ParseJson(R"({"b":[1,{}],"a":"é"})");
  ASSERT_TRUE(v.has_value());
  JsonFormat f;
  f.indent = 2;
  f.sort_keys = true;
  EXPECT_EQ(ToJson(*v, f), "{\n  \"a\": \"é\",\n  \"b\": [\n    1,\n    {}\n  ]\n}");
  JsonFormat ascii;
  ascii.ascii_only = true;
  EXPECT_EQ(ToJson(*v, ascii), R"({"b":[1,{}],"a":"\u00e9"})");
}

TEST(JsonWriterTest, PythonNumbersAndAsciiEscapesMatchJsonDumps) {
  auto v = ParseJson(R"([1.50, 10, 1e16, 0.00001, "😀", "\u0001"])");
  ASSERT_TRUE(v.has_value());
  JsonFormat f;
  f.python_numbers = true;
  f.ascii_only = true;
  // json.dumps([1.5, 10, 1e16, 1e-05, "😀", "\x01"]) in Python 3.
  EXPECT_EQ(ToJson(*v, f), R"([1.5,10,1e+16,1e-05,"\ud83d\ude00","\u0001"])");
}

TEST(JsonWriterTest, StreamingWriterBalancesSeparators) {
  JsonWriter w;
  w.BeginObject().Key("a").Int(1).Key("b").BeginArray().String("x").Bool(false).Null().EndArray();
  w.Key("c").Double(2.0).EndObject();
  EXPECT_EQ(w.str(), R"({"a":1,"b":["x",false,null],"c":2.0})");
}

// Plain bytes are copied in runs found eight at a time: every byte value at every position of
// strings of every length up to 40 is written as a byte-by-byte escaper writes it.
TEST(JsonWriterTest, StringsEscapeEveryByteWhereverItIs) {
  // Bytes of 0x80 and above are kept as they are: ascii_only is tested on ASCII only here.
  auto expected = [](std::string_view s) {
    std::string out = "\"";
    for (size_t i = 0; i < s.size(); ++i) {
      const unsigned char c = static_cast<unsigned char>(s[i]);
      const char* named = c == '"'    ? "\\\""
                          : c == '\\' ? "\\\\"
                          : c == '\n' ? "\\n"
                          : c == '\r' ? "\\r"
                          : c == '\t' ? "\\t"
                          : c == '\b' ? "\\b"
                          : c == '\f' ? "\\f"
                                      : nullptr;
      if (named != nullptr) {
        out += named;
      } else if (c < 0x20) {
        char buf[8];
        std::snprintf(buf, sizeof buf, "\\u%04x", c);
        out += buf;
      } else {
        out += static_cast<char>(c);
      }
    }
    return out + "\"";
  };
  for (size_t len = 1; len <= 40; ++len) {
    for (size_t at = 0; at < len; ++at) {
      for (int b = 0; b < 256; ++b) {
        std::string s(len, 'x');
        s[at] = static_cast<char>(b);
        auto copy = std::make_unique<char[]>(s.size());
        std::memcpy(copy.get(), s.data(), s.size());
        const std::string_view view(copy.get(), s.size());
        std::string got;
        AppendJsonString(got, view);
        ASSERT_EQ(got, expected(s)) << "byte " << b << " at " << at << " of " << len;
        if (b < 0x80) {
          got.clear();
          AppendJsonString(got, view, /*ascii_only=*/true);
          ASSERT_EQ(got, expected(s)) << "byte " << b << " at " << at << " of " << len;
        }
      }
    }
  }
  std::string got;
  AppendJsonString(got, "caf\xc3\xa9 \xf0\x9f\x98\x80 ok", /*ascii_only=*/true);
  EXPECT_EQ(got, "\"caf\\u00e9 \\ud83d\\ude00 ok\"");
}

}  // namespace
}  // namespace sluice
