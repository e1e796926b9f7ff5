// FileStatsJson on the data files of the Delta golden tables (written by Spark) agrees with the
// stats Spark logged for them: the same numRecords, and every nullCount, minimum and maximum we
// write equal to Spark's. Spark's values we leave out must be ones a footer cannot give (see
// file_stats.h): FLOAT/DOUBLE maxima, bounds of INT96 timestamps (which have no order), null
// counts of arrays and maps with nulls or empty ones. Skips when the shared data is absent.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "sluice/base/file_system.h"
#include "sluice/base/json.h"
#include "sluice/base/json_writer.h"
#include "sluice/parquet/file_reader.h"
#include "sluice/table/file_stats.h"
#include "sluice_test_paths.h"

namespace sluice::table {
namespace {

namespace fs = std::filesystem;
using parquet::SchemaNode;

fs::path GoldenDir() { return fs::path(SLUICE_SHARED_DIR) / "conformance" / "delta-golden"; }

std::string UriDecode(std::string_view s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '%' && i + 2 < s.size()) {
      out += static_cast<char>(std::stoi(std::string(s.substr(i + 1, 2)), nullptr, 16));
      i += 2;
    } else {
      out += s[i];
    }
  }
  return out;
}

enum class Which { kMin, kMax, kNullCount };

struct Tally {
  int matched = 0;
  int left_out = 0;
};

// Walk the struct `node` with our object and Spark's for one statistic.
void Compare(const parquet::ParquetSchema& schema, const SchemaNode& node, const JsonValue* ours,
             const JsonValue* spark, Which which, const std::string& where, Tally& tally) {
  for (const SchemaNode& child : schema.children(node)) {
    if (child.element < 0) continue;
    const std::string& key = schema.elements()[static_cast<size_t>(child.element)].name;
    const JsonValue* o = ours != nullptr ? ours->Find(key) : nullptr;
    const JsonValue* s = spark != nullptr ? spark->Find(key) : nullptr;
    const std::string path = where + "." + key;
    if (child.kind == SchemaNode::Kind::kStruct) {
      Compare(schema, child, o, s, which, path, tally);
      continue;
    }
    if (o != nullptr) {
      ASSERT_NE(s, nullptr) << path << ": we wrote " << ToJson(*o) << ", Spark nothing";
      EXPECT_TRUE(o->Equals(*s)) << path << ": ours " << ToJson(*o) << ", Spark's " << ToJson(*s);
      ++tally.matched;
      continue;
    }
    if (s == nullptr) continue;
    bool may_leave_out = false;
    if (which == Which::kNullCount) {
      may_leave_out = child.kind == SchemaNode::Kind::kList || child.kind == SchemaNode::Kind::kMap;
    } else if (child.kind == SchemaNode::Kind::kLeaf) {
      const parquet::ColumnDescriptor& leaf = schema.leaves()[static_cast<size_t>(child.leaf)];
      may_leave_out = leaf.physical == parquet::PhysicalType::kInt96 ||
                      (which == Which::kMax && leaf.type->is_floating());
    }
    EXPECT_TRUE(may_leave_out) << path << ": Spark wrote " << ToJson(*s) << ", we nothing";
    ++tally.left_out;
  }
}

TEST(FileStatsGoldenTest, AgreesWithWhatSparkLogged) {
  if (!fs::is_directory(GoldenDir())) {
    GTEST_SKIP() << "no Delta golden tables at " << GoldenDir().string();
  }
  Tally tally;
  int files = 0;
  for (const auto& table : fs::directory_iterator(GoldenDir())) {
    const fs::path log = table.path() / "_delta_log";
    if (!fs::is_directory(log)) continue;
    std::vector<fs::path> commits;
    for (const auto& e : fs::directory_iterator(log)) {
      if (e.path().extension() == ".json") commits.push_back(e.path());
    }
    std::sort(commits.begin(), commits.end());
    for (const fs::path& commit : commits) {
      auto text = LocalFileSystem()->ReadFile(commit.string());
      ASSERT_TRUE(text.has_value()) << text.error().message();
      size_t start = 0;
      while (start < text->size()) {
        size_t end = text->find('\n', start);
        if (end == std::string::npos) end = text->size();
        const std::string_view line = std::string_view(*text).substr(start, end - start);
        start = end + 1;
        if (line.empty()) continue;
        auto action = ParseJson(line);
        ASSERT_TRUE(action.has_value()) << commit << ": " << action.error().message();
        const JsonValue* add = action->Find("add");
        const JsonValue* stats = add != nullptr ? add->Find("stats") : nullptr;
        if (stats == nullptr || !stats->is_string()) continue;
        const std::string file =
            (table.path() / UriDecode(add->Find("path")->as_string())).string();
        SCOPED_TRACE(file);

        auto reader = parquet::FileReader::Open(LocalFileSystem(), file);
        ASSERT_TRUE(reader.has_value()) << reader.error().message();
        StatsOptions options;
        options.num_indexed_cols = -1;  // these tables have fewer than 32 leaf fields
        options.tight_bounds = false;
        auto ours_text = FileStatsJson((*reader)->metadata(), (*reader)->parquet_schema(), options);
        ASSERT_TRUE(ours_text.has_value()) << ours_text.error().message();
        auto ours = ParseStats(*ours_text);
        auto spark = ParseStats(stats->as_string());
        ASSERT_TRUE(ours.has_value()) << ours.error().message();
        ASSERT_TRUE(spark.has_value()) << spark.error().message();

        EXPECT_EQ(ours->num_records, spark->num_records);
        const parquet::ParquetSchema& schema = (*reader)->parquet_schema();
        Compare(schema, schema.root(), &ours->min_values, &spark->min_values, Which::kMin,
                "minValues", tally);
        Compare(schema, schema.root(), &ours->max_values, &spark->max_values, Which::kMax,
                "maxValues", tally);
        Compare(schema, schema.root(), &ours->null_count, &spark->null_count, Which::kNullCount,
                "nullCount", tally);
        ++files;
      }
    }
  }
  // Four tables log stats: basic-decimal-table, table-with-columnmapping-mode-name and both
  // commits of type-widening.
  EXPECT_GE(files, 7);
  EXPECT_GT(tally.matched, 10 * tally.left_out) << tally.left_out << " values left out";
}

}  // namespace
}  // namespace sluice::table
