#include "sluice/base/sqlite_db.h"

#include <gtest/gtest.h>

#include <string>

#include "sluice/base/file_system.h"
#include "sluice/base/temp_dir_testing.h"

namespace sluice {
namespace {

using Mode = SqliteDb::Mode;

TEST(SqliteDbTest, ParametersGoInAndColumnsComeBackAsText) {
  testing::ScopedTempDir tmp("sluice_sqlite");
  auto db = SqliteDb::Open(tmp.File("a.db"), "the test store", Mode::kDurable, 1000);
  ASSERT_TRUE(db.has_value()) << db.error().message();
  SqliteDb& d = **db;
  ASSERT_TRUE(d.Exec("CREATE TABLE t(n INTEGER, s TEXT, z TEXT)").has_value());
  const std::string with_nul("a\0b", 3);
  ASSERT_TRUE(
      d.Exec("INSERT INTO t VALUES(?, ?, ?)", {int64_t{-7}, std::string_view(with_nul), nullptr})
          .has_value());
  EXPECT_EQ(d.Changes(), 1);
  auto rows = d.Query("SELECT n, s, z FROM t WHERE n = ?", {int64_t{-7}});
  ASSERT_TRUE(rows.has_value()) << rows.error().message();
  ASSERT_EQ(rows->size(), 1u);
  EXPECT_EQ((*rows)[0][0], "-7");
  EXPECT_EQ((*rows)[0][1], with_nul);  // bytes after a NUL survive
  EXPECT_FALSE((*rows)[0][2].has_value());
  // A durable store is in WAL mode with full syncs.
  EXPECT_EQ(d.Query("PRAGMA journal_mode")->at(0)[0], "wal");
  EXPECT_EQ(d.Query("PRAGMA synchronous")->at(0)[0], "2");
}

TEST(SqliteDbTest, AFailedTransactionLeavesNothingAndTheNextOneWorks) {
  testing::ScopedTempDir tmp("sluice_sqlite");
  auto db = SqliteDb::Open(tmp.File("a.db"), "the test store", Mode::kDurable, 1000);
  ASSERT_TRUE(db.has_value());
  SqliteDb& d = **db;
  ASSERT_TRUE(d.Exec("CREATE TABLE t(n INTEGER PRIMARY KEY)").has_value());
  Status failed = d.InTransaction([&]() -> Status {
    SLUICE_TRY(d.Exec("INSERT INTO t VALUES(1)"));
    return d.Exec("INSERT INTO t VALUES(1)");  // a duplicate key
  });
  ASSERT_FALSE(failed.has_value());
  EXPECT_NE(failed.error().message().find("the test store " + tmp.File("a.db")), std::string::npos)
      << failed.error().message();
  EXPECT_TRUE(d.Query("SELECT n FROM t")->empty());
  ASSERT_TRUE(d.InTransaction([&] { return d.Exec("INSERT INTO t VALUES(2)"); }).has_value());
  EXPECT_EQ(d.Query("SELECT n FROM t")->size(), 1u);
}

TEST(SqliteDbTest, ReadOnlyReadsAnotherConnectionsCommitsAndWritesNothing) {
  testing::ScopedTempDir tmp("sluice_sqlite");
  const std::string path = tmp.File("a.db");
  auto writer = SqliteDb::Open(path, "the test store", Mode::kDurable, 1000);
  ASSERT_TRUE(writer.has_value());
  ASSERT_TRUE((*writer)->Exec("CREATE TABLE t(n INTEGER)").has_value());
  ASSERT_TRUE((*writer)->Exec("INSERT INTO t VALUES(5)").has_value());
  auto reader = SqliteDb::Open(path, "the test store", Mode::kReadOnly, 1000);
  ASSERT_TRUE(reader.has_value()) << reader.error().message();
  EXPECT_EQ((*reader)->Query("SELECT n FROM t")->at(0)[0], "5");
  EXPECT_FALSE((*reader)->Exec("INSERT INTO t VALUES(6)").has_value());
  ASSERT_TRUE((*writer)->Exec("INSERT INTO t VALUES(7)").has_value());
  EXPECT_EQ((*reader)->Query("SELECT n FROM t")->size(), 2u);
}

TEST(SqliteDbTest, WhatCannotBeOpenedIsNamedWithItsPath) {
  testing::ScopedTempDir tmp("sluice_sqlite");
  // A missing file opened read-only.
  auto missing = SqliteDb::Open(tmp.File("none.db"), "the checkpoint", Mode::kReadOnly, 1000);
  ASSERT_FALSE(missing.has_value());
  EXPECT_NE(missing.error().message().find("cannot open the checkpoint " + tmp.File("none.db")),
            std::string::npos)
      << missing.error().message();
  // A file that is not a database fails on its first statement, not later.
  const std::string junk = tmp.File("junk.db");
  ASSERT_TRUE(LocalFileSystem()->WriteFile(junk, std::string(4096, 'x')).has_value());
  auto garbage = SqliteDb::Open(junk, "the alert outbox", Mode::kDurable, 1000);
  ASSERT_FALSE(garbage.has_value());
  EXPECT_NE(garbage.error().message().find("the alert outbox " + junk), std::string::npos)
      << garbage.error().message();
}

}  // namespace
}  // namespace sluice
