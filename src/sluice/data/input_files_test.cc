#include "sluice/data/input_files.h"

#include <gtest/gtest.h>

namespace sluice::data {
namespace {

using Files = std::vector<std::string>;

TEST(GlobMatchTest, StarsSetsAndAlternatives) {
  EXPECT_TRUE(*GlobMatch("*.json", "orders.json"));
  EXPECT_FALSE(*GlobMatch("*.json", "orders.jsonl"));
  EXPECT_TRUE(*GlobMatch("part-?????.csv", "part-00001.csv"));
  EXPECT_FALSE(*GlobMatch("part-?????.csv", "part-0001.csv"));
  EXPECT_TRUE(*GlobMatch("*.{csv,tsv}", "a.tsv"));
  EXPECT_FALSE(*GlobMatch("*.{csv,tsv}", "a.json"));
  EXPECT_TRUE(*GlobMatch("day=2026-0[1-9]-*", "day=2026-08-15"));
  EXPECT_FALSE(*GlobMatch("[!a]*", "abc"));
  EXPECT_TRUE(*GlobMatch("[!a]*", "bcd"));
  EXPECT_TRUE(*GlobMatch("a\\*b", "a*b"));
  EXPECT_FALSE(*GlobMatch("a\\*b", "axb"));
  EXPECT_TRUE(*GlobMatch("*", ""));
  EXPECT_TRUE(*GlobMatch("{a,{b,c}}x", "cx"));
  EXPECT_EQ(GlobMatch("[abc", "a").error().code(), ErrorCode::kInvalidArgument);
  EXPECT_EQ(GlobMatch("{a,b", "a").error().code(), ErrorCode::kInvalidArgument);
}

// A hostile pattern neither blows up (braces) nor takes exponential time (stars).
TEST(GlobMatchTest, HostilePatternsAreBounded) {
  std::string braces;
  for (int i = 0; i < 20; ++i) braces += "{a,b}";
  EXPECT_EQ(GlobMatch(braces, "ab").error().code(), ErrorCode::kInvalidArgument);
  std::string stars;
  for (int i = 0; i < 2000; ++i) stars += "*a";
  stars += "b";
  EXPECT_FALSE(*GlobMatch(stars, std::string(5000, 'a')));
}

TEST(ListInputFilesTest, FoldersAreReadAsSparkReadsThem) {
  MemoryFileSystem fs;
  for (const char* p : {"/land/b.json", "/land/a.json", "/land/_SUCCESS", "/land/.a.json.crc",
                        "/land/date=2026-08-15/c.json", "/land/_delta_log/0.json",
                        "/land/notes.txt", "/other.jsonl"}) {
    ASSERT_TRUE(fs.WriteFile(p, "{}").has_value());
  }
  auto all = ListInputFiles(fs, {"/land"});
  ASSERT_TRUE(all.has_value()) << all.error().message();
  EXPECT_EQ(*all, (Files{"/land/a.json", "/land/b.json", "/land/date=2026-08-15/c.json",
                         "/land/notes.txt"}));
  auto json = ListInputFiles(fs, {"/other.jsonl", "/land/", "-"}, "*.json");
  ASSERT_TRUE(json.has_value());
  EXPECT_EQ(*json, (Files{"/other.jsonl", "/land/a.json", "/land/b.json",
                          "/land/date=2026-08-15/c.json", "-"}));
}

TEST(ListInputFilesTest, MissingAndEmptyAreErrors) {
  MemoryFileSystem fs;
  ASSERT_TRUE(fs.WriteFile("/land/_SUCCESS", "").has_value());
  EXPECT_EQ(ListInputFiles(fs, {"/none"}).error().code(), ErrorCode::kNotFound);
  auto empty = ListInputFiles(fs, {"/land"});
  ASSERT_FALSE(empty.has_value());
  EXPECT_EQ(empty.error().code(), ErrorCode::kInvalidArgument);
  EXPECT_NE(empty.error().message().find("/land"), std::string::npos);
  ASSERT_TRUE(fs.WriteFile("/land/a.csv", "").has_value());
  auto unmatched = ListInputFiles(fs, {"/land"}, "*.json");
  ASSERT_FALSE(unmatched.has_value());
  EXPECT_NE(unmatched.error().message().find("--pattern"), std::string::npos);
}

}  // namespace
}  // namespace sluice::data
