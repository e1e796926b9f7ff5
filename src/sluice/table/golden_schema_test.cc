// The Delta golden tables' schema at every version, as sluice reads it from the log, against the
// schemas written out by hand in tests/table/golden/<table>/schema@<version>.ddl (see the README
// there). Skips without the shared conformance data.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>

#include "sluice/dialects/spark/spark.h"
#include "sluice/table/snapshot.h"
#include "sluice_test_paths.h"

namespace sluice::table {
namespace {

namespace fs = std::filesystem;

TEST(GoldenSchemas, EveryVersionOfEveryGoldenTableHasTheExpectedSchema) {
  fs::path tables = fs::path(SLUICE_SHARED_DIR) / "conformance" / "delta-golden";
  fs::path expected = fs::path(SLUICE_SOURCE_DIR) / "tests" / "table" / "golden";
  if (!fs::exists(tables)) GTEST_SKIP() << "no delta-golden data";
  auto local = NewLocalFileSystem();
  int compared = 0;
  for (const auto& dir : fs::directory_iterator(expected)) {
    if (!dir.is_directory()) continue;
    for (const auto& file : fs::directory_iterator(dir.path())) {
      std::string name = file.path().filename().string();
      if (!name.starts_with("schema@") || !name.ends_with(".ddl")) continue;
      int64_t version = std::stoll(name.substr(7, name.size() - 11));
      std::ifstream in(file.path());
      std::string ddl((std::istreambuf_iterator<char>(in)), {});
      auto want = dialects::spark::ReadDdl(ddl);
      ASSERT_TRUE(want.has_value()) << file.path() << ": " << want.error().ToString();
      std::string table = (tables / dir.path().filename()).string();
      auto got = LoadSnapshot(*local, table, {.version = version});
      ASSERT_TRUE(got.has_value()) << table << "@" << version << ": " << got.error().ToString();
      // Types, names and nullability; Delta's storage metadata is not part of the DDL.
      EXPECT_TRUE(got->schema->struct_type()->Equals(*want->value->struct_type(), false))
          << table << "@" << version << "\n  got  " << got->schema->struct_type()->ToString()
          << "\n  want " << want->value->struct_type()->ToString();
      ++compared;
    }
  }
  EXPECT_GE(compared, 20);
}

}  // namespace
}  // namespace sluice::table
