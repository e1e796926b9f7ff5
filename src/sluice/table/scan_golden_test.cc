// ScanTable on the Delta golden tables (Spark-written, in the shared conformance data) at every
// version, against the rows tests/table/golden/ says a reader must get back. Skips when the
// shared data is absent.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "sluice/base/file_system.h"
#include "sluice/table/scan.h"
#include "sluice/table/scan_testing.h"
#include "sluice/table/snapshot.h"
#include "sluice_test_paths.h"

namespace sluice::table {
namespace {

namespace fs = std::filesystem;
using testing::CanonicalRows;
using testing::ReadLines;
using testing::ScanRows;

fs::path GoldenTables() { return fs::path(SLUICE_SHARED_DIR) / "conformance" / "delta-golden"; }
fs::path Expected() { return fs::path(SLUICE_SOURCE_DIR) / "tests" / "table" / "golden"; }

#define SKIP_WITHOUT_GOLDEN()                                                                  \
  do {                                                                                         \
    if (!fs::exists(GoldenTables())) GTEST_SKIP() << "no golden tables at " << GoldenTables(); \
  } while (false)

TEST(ScanGoldenTest, EveryTableAtEveryVersionHoldsItsExpectedRows) {
  SKIP_WITHOUT_GOLDEN();
  int compared = 0;
  for (const auto& entry : fs::directory_iterator(Expected())) {
    if (!entry.is_directory()) continue;
    const std::string name = entry.path().filename().string();
    if (name == "checkpoint") continue;  // its adds name made-up files (see the next test)
    const std::string root = (GoldenTables() / name).string();
    auto listing = ListLog(*LocalFileSystem(), root);
    ASSERT_TRUE(listing.has_value()) << name << ": " << listing.error().ToString();
    for (int64_t v = 0; v <= listing->latest_version; ++v) {
      fs::path expected = entry.path() / ("rows@" + std::to_string(v) + ".jsonl");
      if (!fs::exists(expected)) {
        ASSERT_EQ(v, listing->latest_version) << name << ": no rows for version " << v;
        expected = entry.path() / "rows.jsonl";
      }
      ScanOptions options;
      options.at.version = v;
      // The README's note: the generator wrote zone-less partition timestamps in Pacific time.
      if (name == "data-reader-partition-values") options.partition_timezone = "-07:00";
      ScanStats stats;
      auto rows = ScanRows(LocalFileSystem(), root, options, &stats);
      ASSERT_TRUE(rows.has_value()) << name << "@" << v << ": " << rows.error().ToString();
      EXPECT_EQ(CanonicalRows(*rows), CanonicalRows(ReadLines(expected.string())))
          << name << " at version " << v;
      EXPECT_EQ(stats.version, v);
      EXPECT_EQ(stats.rows_returned, rows->size());
      ++compared;
    }
  }
  EXPECT_GE(compared, 12);
}

TEST(ScanGoldenTest, TheLatestVersionIsTheDefault) {
  SKIP_WITHOUT_GOLDEN();
  auto rows = ScanRows(LocalFileSystem(), (GoldenTables() / "type-widening").string());
  ASSERT_TRUE(rows.has_value()) << rows.error().ToString();
  EXPECT_EQ(CanonicalRows(*rows),
            CanonicalRows(ReadLines((Expected() / "type-widening" / "rows.jsonl").string())));
}

TEST(ScanGoldenTest, ColumnMappingNameModeReturnsLogicalNamesInSchemaOrder) {
  SKIP_WITHOUT_GOLDEN();
  auto rows =
      ScanRows(LocalFileSystem(), (GoldenTables() / "table-with-columnmapping-mode-name").string());
  ASSERT_TRUE(rows.has_value()) << rows.error().ToString();
  ASSERT_FALSE(rows->empty());
  auto first = ParseJson(rows->front());
  ASSERT_TRUE(first.has_value());
  std::vector<std::string> keys;
  for (const JsonMember& m : first->members()) keys.push_back(m.key);
  EXPECT_EQ(keys, (std::vector<std::string>{"ByteType",         "ShortType",
                                            "IntegerType",      "LongType",
                                            "FloatType",        "DoubleType",
                                            "decimal",          "BooleanType",
                                            "StringType",       "BinaryType",
                                            "DateType",         "TimestampType",
                                            "nested_struct",    "array_of_prims",
                                            "array_of_arrays",  "array_of_map_of_arrays",
                                            "array_of_structs", "struct_of_arrays_maps_of_structs",
                                            "map_of_prims",     "map_of_rows",
                                            "map_of_arrays",    "map_of_maps"}));
  EXPECT_EQ(rows->front().find("col-"), std::string::npos) << rows->front();
}

TEST(ScanGoldenTest, TypeWideningReadsOldFilesInTheWidenedTypes) {
  SKIP_WITHOUT_GOLDEN();
  const std::string root = (GoldenTables() / "type-widening").string();
  ScanOptions at1;
  at1.at.version = 1;
  auto narrow = ScanRows(LocalFileSystem(), root, at1);
  ASSERT_TRUE(narrow.has_value()) << narrow.error().ToString();
  ASSERT_EQ(narrow->size(), 1u);
  // Version 1: the narrow types, as written.
  EXPECT_NE(narrow->front().find("\"float_double\":3.4,"), std::string::npos) << narrow->front();
  EXPECT_NE(narrow->front().find("\"date_timestamp_ntz\":\"2024-09-09\""), std::string::npos);

  ScanOptions at2;
  at2.at.version = 2;
  at2.where = "byte_long = 1";
  auto wide = ScanRows(LocalFileSystem(), root, at2);
  ASSERT_TRUE(wide.has_value()) << wide.error().ToString();
  ASSERT_EQ(wide->size(), 1u);
  // The same file at version 2: every value in its widened type's text.
  EXPECT_EQ(wide->front(),
            "{\"byte_long\":1,\"int_long\":2,\"float_double\":3.4000000953674316,"
            "\"byte_double\":5,\"short_double\":6,\"int_double\":7,"
            "\"decimal_decimal_same_scale\":123.45,\"decimal_decimal_greater_scale\":67.89000,"
            "\"byte_decimal\":1.0,\"short_decimal\":2.0,\"int_decimal\":3.0,"
            "\"long_decimal\":4.0,\"date_timestamp_ntz\":\"2024-09-09T00:00:00\"}");
}

TEST(ScanGoldenTest, PartitionTimestampsWithoutAZoneAreReadInTheGivenZone) {
  SKIP_WITHOUT_GOLDEN();
  const std::string root = (GoldenTables() / "data-reader-partition-values").string();
  ScanOptions utc;
  utc.columns = {"as_timestamp"};
  utc.where = "as_timestamp IS NOT NULL";
  auto as_utc = ScanRows(LocalFileSystem(), root, utc);
  ASSERT_TRUE(as_utc.has_value()) << as_utc.error().ToString();
  ASSERT_EQ(as_utc->size(), 2u);
  EXPECT_EQ(as_utc->front(), "{\"as_timestamp\":\"2021-09-08T11:11:11Z\"}");
  ScanOptions pacific = utc;
  pacific.partition_timezone = "-07:00";
  auto as_pacific = ScanRows(LocalFileSystem(), root, pacific);
  ASSERT_TRUE(as_pacific.has_value()) << as_pacific.error().ToString();
  ASSERT_EQ(as_pacific->size(), 2u);
  EXPECT_EQ(as_pacific->front(), "{\"as_timestamp\":\"2021-09-08T18:11:11Z\"}");

  ScanOptions named = utc;
  named.partition_timezone = "America/Los_Angeles";
  auto refused = ScanRows(LocalFileSystem(), root, named);
  ASSERT_FALSE(refused.has_value());
  EXPECT_NE(refused.error().message().find("America/Los_Angeles"), std::string::npos);
}

TEST(ScanGoldenTest, PartitionPredicatesSkipFilesUnread) {
  SKIP_WITHOUT_GOLDEN();
  const std::string root = (GoldenTables() / "basic-decimal-table").string();
  ScanOptions options;
  options.where = "part = 234.00000";
  ScanStats stats;
  auto rows = ScanRows(LocalFileSystem(), root, options, &stats);
  ASSERT_TRUE(rows.has_value()) << rows.error().ToString();
  ASSERT_EQ(rows->size(), 1u);
  EXPECT_EQ(CanonicalRows(*rows),
            CanonicalRows({"{\"part\":234.00000,\"col1\":1.00,\"col2\":2.00000,"
                           "\"col3\":3.0000000000}"}));
  EXPECT_EQ(stats.files_read, 1u);
  EXPECT_EQ(stats.files_pruned, 3u);
  EXPECT_EQ(stats.files_pruned_by_stats, 0u);
}

TEST(ScanGoldenTest, StatsUnderColumnMappingAreFoundByPhysicalNamesNestedToo) {
  SKIP_WITHOUT_GOLDEN();
  const std::string root = (GoldenTables() / "table-with-columnmapping-mode-name").string();
  ScanOptions options;
  options.where = "nested_struct.ac.aca = 4 AND IntegerType >= 4";
  options.columns = {"IntegerType"};
  ScanStats stats;
  auto rows = ScanRows(LocalFileSystem(), root, options, &stats);
  ASSERT_TRUE(rows.has_value()) << rows.error().ToString();
  EXPECT_EQ(*rows, (std::vector<std::string>{"{\"IntegerType\":4}"}));
  EXPECT_EQ(stats.files_pruned_by_stats, 1u);
  EXPECT_EQ(stats.files_read, 1u);
}

TEST(ScanGoldenTest, ACheckpointTableWhoseFilesAreMissingFailsNamingTheFile) {
  SKIP_WITHOUT_GOLDEN();
  const std::string root = (GoldenTables() / "checkpoint").string();
  auto rows = ScanRows(LocalFileSystem(), root);
  ASSERT_FALSE(rows.has_value());
  EXPECT_NE(rows.error().message().find(root + "/15"), std::string::npos)
      << rows.error().ToString();
}

}  // namespace
}  // namespace sluice::table
