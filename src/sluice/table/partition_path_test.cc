#include "sluice/table/partition_path.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "sluice/base/strings.h"
#include "sluice_test_paths.h"

namespace sluice::table {
namespace {

namespace fs = std::filesystem;

TEST(PartitionPath, EscapesWhatHiveEscapes) {
  EXPECT_EQ(EscapePartitionPathName("2021-09-08 11:11:11"), "2021-09-08 11%3A11%3A11");
  EXPECT_EQ(EscapePartitionPathName("a/b=c%d"), "a%2Fb%3Dc%25d");
  EXPECT_EQ(EscapePartitionPathName("\"#'*?\\{[]^"), "%22%23%27%2A%3F%5C%7B%5B%5D%5E");
  EXPECT_EQ(EscapePartitionPathName(std::string("\x01\n\x1F\x7F", 4)), "%01%0A%1F%7F");
  EXPECT_EQ(EscapePartitionPathName(std::string("\0", 1)), "%00");
  // Kept: spaces, other punctuation, non-ASCII.
  EXPECT_EQ(EscapePartitionPathName("a b}<>|!@$&()+,;~`-_.é日本"), "a b}<>|!@$&()+,;~`-_.é日本");
}

TEST(PartitionPath, UnescapesLikeHiveDoes) {
  EXPECT_EQ(UnescapePartitionPathName("2021-09-08 11%3A11%3a11"), "2021-09-08 11:11:11");
  // A '%' without two hex digits stays.
  EXPECT_EQ(UnescapePartitionPathName("100%"), "100%");
  EXPECT_EQ(UnescapePartitionPathName("%zz%4"), "%zz%4");
  EXPECT_EQ(UnescapePartitionPathName("%41%"), "A%");
}

TEST(PartitionPath, NamesDirectoriesWithTheDefaultPartitionForNull) {
  EXPECT_EQ(PartitionDirectoryName("as_int", "1"), "as_int=1");
  EXPECT_EQ(PartitionDirectoryName("as_int", std::nullopt), "as_int=__HIVE_DEFAULT_PARTITION__");
  EXPECT_EQ(PartitionDirectoryName("as_int", ""), "as_int=__HIVE_DEFAULT_PARTITION__");
  EXPECT_EQ(PartitionDirectoryName("a=b", "c/d"), "a%3Db=c%2Fd");

  auto values = ParseJson(R"({"b":null,"a":"x:y","c":""})");
  ASSERT_TRUE(values);
  auto dir = PartitionDirectory({"a", "b", "c"}, *values);
  ASSERT_TRUE(dir) << dir.error().ToString();
  EXPECT_EQ(*dir, "a=x%3Ay/b=__HIVE_DEFAULT_PARTITION__/c=__HIVE_DEFAULT_PARTITION__/");
  auto none = PartitionDirectory({}, JsonValue::Object());
  ASSERT_TRUE(none);
  EXPECT_EQ(*none, "");

  auto missing = PartitionDirectory({"a", "z"}, *values);
  ASSERT_FALSE(missing);
  EXPECT_NE(missing.error().message().find("partition column `z` is missing"), std::string::npos);
  auto number = ParseJson(R"({"a":1})");
  ASSERT_TRUE(number);
  auto typed = PartitionDirectory({"a"}, *number);
  ASSERT_FALSE(typed);
  EXPECT_NE(typed.error().message().find("partitionValues.a at byte 5"), std::string::npos)
      << typed.error().message();
}

TEST(PartitionPath, ParsesDirectoriesBack) {
  auto parsed = ParsePartitionDirectory("a=x%3Ay/b=__HIVE_DEFAULT_PARTITION__/c%3Dd=%25/");
  ASSERT_TRUE(parsed) << parsed.error().ToString();
  ASSERT_EQ(parsed->size(), 3u);
  EXPECT_EQ((*parsed)[0], (std::pair<std::string, std::optional<std::string>>{"a", "x:y"}));
  EXPECT_EQ((*parsed)[1].first, "b");
  EXPECT_FALSE((*parsed)[1].second);
  EXPECT_EQ((*parsed)[2], (std::pair<std::string, std::optional<std::string>>{"c=d", "%"}));
  auto empty = ParsePartitionDirectory("");
  ASSERT_TRUE(empty);
  EXPECT_TRUE(empty->empty());
  for (std::string_view bad : {"a", "a=1/b", "=1", "a=1//b=2"}) {
    auto r = ParsePartitionDirectory(bad);
    ASSERT_FALSE(r) << bad;
    EXPECT_EQ(r.error().code(), ErrorCode::kInvalidArgument);
  }
}

TEST(PartitionPath, EncodesAddPathsAsDeltaDoes) {
  EXPECT_EQ(EncodeAddPath("as_timestamp=2021-09-08 11%3A11%3A11/part-0.parquet"),
            "as_timestamp=2021-09-08%2011%253A11%253A11/part-0.parquet");
  EXPECT_EQ(EncodeAddPath("a=b/c:d/e@f;g,h$i&j+k!l~m*n'o(p)q.parquet"),
            "a=b/c:d/e@f;g,h$i&j+k!l~m*n'o(p)q.parquet");
  // A ':' in the first segment would read as a scheme.
  EXPECT_EQ(EncodeAddPath("a:b/c:d"), "a%3Ab/c:d");
  EXPECT_EQ(EncodeAddPath("x:y"), "x%3Ay");
  EXPECT_EQ(EncodeAddPath("#?\"<>[]\\^`{|}"), "%23%3F%22%3C%3E%5B%5D%5C%5E%60%7B%7C%7D");
  EXPECT_EQ(EncodeAddPath(std::string("a\nb\x7F", 4)), "a%0Ab%7F");
  // Non-ASCII stays, but for controls and spaces (java.net.URI's "other" characters).
  EXPECT_EQ(EncodeAddPath("é/日本"), "é/日本");
  EXPECT_EQ(EncodeAddPath("a\u00A0b\u2028c\u0085"), "a%C2%A0b%E2%80%A8c%C2%85");
  EXPECT_EQ(EncodeAddPath("\xFF\xC3"), "%FF%C3");
}

TEST(PartitionPath, DecodesAddPathsOnce) {
  auto decoded = DecodeAddPath("as_timestamp=2021-09-08%2011%253A11%253A11/part-0.parquet");
  ASSERT_TRUE(decoded);
  EXPECT_EQ(*decoded, "as_timestamp=2021-09-08 11%3A11%3A11/part-0.parquet");
  auto plain = DecodeAddPath("é/a+b");
  ASSERT_TRUE(plain);
  EXPECT_EQ(*plain, "é/a+b");
  for (std::string_view bad : {"a%", "a%2", "a%2g/b", "%%41", "a%00b"}) {
    auto r = DecodeAddPath(bad);
    ASSERT_FALSE(r) << bad;
    EXPECT_EQ(r.error().code(), ErrorCode::kInvalidArgument);
  }
  EXPECT_NE(DecodeAddPath("abc%2g").error().message().find("offset 3"), std::string::npos);
}

TEST(PartitionPath, HostileValuesRoundTrip) {
  const std::vector<std::string> values = {"%",
                                           "/",
                                           "=",
                                           "a=b/c",
                                           "\n",
                                           "100%25",
                                           "é日本",
                                           " lead",
                                           "..",
                                           ".",
                                           "\\",
                                           "%3A",
                                           "a\tb",
                                           "{x}[y]",
                                           "^#?",
                                           "'\"",
                                           "__HIVE_DEFAULT",
                                           std::string("\x01\x7F", 2)};
  for (const std::string& v : values) {
    const std::string dir = PartitionDirectoryName("col/=%", v);
    EXPECT_EQ(dir.find('/'), std::string::npos) << v;
    auto parsed = ParsePartitionDirectory(dir);
    ASSERT_TRUE(parsed) << v;
    ASSERT_EQ(parsed->size(), 1u);
    EXPECT_EQ((*parsed)[0].first, "col/=%");
    EXPECT_EQ((*parsed)[0].second, v);
    const std::string file = dir + "/part-0.parquet";
    auto decoded = DecodeAddPath(EncodeAddPath(file));
    ASSERT_TRUE(decoded) << v;
    EXPECT_EQ(*decoded, file);
  }
  auto parsed = ParsePartitionDirectory(PartitionDirectoryName("c", ""));
  ASSERT_TRUE(parsed);
  EXPECT_FALSE((*parsed)[0].second);
}

// The golden tables' add actions: the directory built from partitionValues, encoded, is the
// logged path, and the logged path, decoded, is the file on disk.
class GoldenPartitionPaths : public testing::TestWithParam<std::string> {};

TEST_P(GoldenPartitionPaths, RoundTrip) {
  const fs::path root = fs::path(SLUICE_SHARED_DIR) / "conformance" / "delta-golden" / GetParam();
  const fs::path log = root / "_delta_log" / "00000000000000000000.json";
  if (!fs::exists(log)) GTEST_SKIP() << "no golden table at " << root;
  std::ifstream in(log);
  std::vector<std::string> columns;
  int adds = 0;
  for (std::string line; std::getline(in, line);) {
    auto action = ParseJson(line);
    ASSERT_TRUE(action) << action.error().ToString();
    if (const JsonValue* meta = action->Find("metaData")) {
      for (const JsonValue& c : meta->Find("partitionColumns")->items()) {
        columns.push_back(c.as_string());
      }
    }
    const JsonValue* add = action->Find("add");
    if (add == nullptr) continue;
    ++adds;
    const std::string path = add->Find("path")->as_string();
    const std::string file = path.substr(path.rfind('/') + 1);
    auto dir = PartitionDirectory(columns, *add->Find("partitionValues"));
    ASSERT_TRUE(dir) << dir.error().ToString();
    EXPECT_EQ(EncodeAddPath(*dir + file), path);

    auto decoded = DecodeAddPath(path);
    ASSERT_TRUE(decoded) << decoded.error().ToString();
    EXPECT_TRUE(fs::exists(root / *decoded)) << *decoded;

    auto parsed = ParsePartitionDirectory(decoded->substr(0, decoded->rfind('/')));
    ASSERT_TRUE(parsed) << parsed.error().ToString();
    ASSERT_EQ(parsed->size(), columns.size());
    for (size_t i = 0; i < columns.size(); ++i) {
      EXPECT_EQ((*parsed)[i].first, columns[i]);
      const JsonValue* logged = add->Find("partitionValues")->Find(columns[i]);
      if (logged->is_null()) {
        EXPECT_FALSE((*parsed)[i].second) << columns[i];
      } else {
        EXPECT_EQ((*parsed)[i].second, logged->as_string()) << columns[i];
      }
    }
  }
  EXPECT_GT(adds, 0);
  EXPECT_FALSE(columns.empty());
}

INSTANTIATE_TEST_SUITE_P(DeltaGolden, GoldenPartitionPaths,
                         testing::Values("data-reader-partition-values", "basic-decimal-table"),
                         [](const auto& info) {
                           std::string name = info.param;
                           for (char& c : name) {
                             if (c == '-') c = '_';
                           }
                           return name;
                         });

}  // namespace
}  // namespace sluice::table
