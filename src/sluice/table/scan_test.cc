// ScanTable on tables written by sluice's own writer (in memory), then changed commit by commit
// as other writers change them: deletion vectors, column mapping renames and drops, field ids,
// mergeSchema, time travel, and predicates that skip files.
#include "sluice/table/scan.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "sluice/base/file_system.h"
#include "sluice/base/string_sink_testing.h"
#include "sluice/dialects/spark/spark.h"
#include "sluice/table/column_mapping.h"
#include "sluice/table/deletion_vector.h"
#include "sluice/table/log_path.h"
#include "sluice/table/partition_path.h"
#include "sluice/table/scan_testing.h"
#include "sluice/table/transaction.h"
#include "sluice/table/write.h"

namespace sluice::table {
namespace {

using ::sluice::testing::StringSink;

using testing::CanonicalRows;
using testing::ScanRows;
using testing::SplitLines;

schema::SchemaPtr Ddl(std::string_view ddl) {
  auto s = dialects::spark::ReadDdl(ddl);
  EXPECT_TRUE(s.has_value()) << s.error().ToString();
  return s->value;
}

constexpr std::string_view kRowsDdl = "id INT, name STRING, score DECIMAL(5,2)";
const char* kSixRows =
    "{\"id\":0,\"name\":\"a\",\"score\":1.50}\n{\"id\":1,\"name\":\"b\",\"score\":null}\n"
    "{\"id\":2,\"name\":\"c\",\"score\":3.00}\n{\"id\":3,\"name\":\"d\",\"score\":4.25}\n"
    "{\"id\":4,\"name\":\"e\",\"score\":5.00}\n{\"id\":5,\"name\":\"f\",\"score\":6.75}\n";

class ScanTest : public ::testing::Test {
 protected:
  // Write `jsonl` into the table (created on the first call) and return the version.
  int64_t Write(const std::string& jsonl, TableWriteOptions options) {
    const std::string input = "in/" + std::to_string(inputs_++) + ".jsonl";
    EXPECT_TRUE(fs_->WriteFile(input, jsonl).has_value());
    StringSink quarantine;
    auto r = WriteTable(fs_, root_, {input}, options, quarantine);
    EXPECT_TRUE(r.has_value()) << r.error().ToString();
    if (!r.has_value()) return -1;
    EXPECT_EQ(r->outcome, WriteOutcome::kCommitted) << r->rejection;
    EXPECT_EQ(quarantine.text, "");
    return r->version;
  }
  int64_t Write(const std::string& jsonl, std::string_view ddl) {
    TableWriteOptions o;
    o.data_schema = Ddl(ddl);
    return Write(jsonl, o);
  }

  // kSixRows, two rows a file, one append each.
  void WriteInThreeFiles() {
    std::vector<std::string> lines = SplitLines(kSixRows);
    for (size_t i = 0; i < lines.size(); i += 2) {
      Write(lines[i] + "\n" + lines[i + 1] + "\n", kRowsDdl);
    }
  }

  std::vector<std::string> Rows(const ScanOptions& options = {}, ScanStats* stats = nullptr) {
    auto rows = ScanRows(fs_, root_, options, stats);
    EXPECT_TRUE(rows.has_value()) << rows.error().ToString();
    return rows.has_value() ? *rows : std::vector<std::string>{};
  }

  Snapshot Latest() {
    auto s = LoadSnapshot(*fs_, root_);
    EXPECT_TRUE(s.has_value()) << s.error().ToString();
    return *s;
  }

  // Commit `actions` staged on a transaction by `stage`.
  void Commit(const std::function<void(Transaction&)>& stage) {
    auto txn = Transaction::Begin(fs_, root_);
    ASSERT_TRUE(txn.has_value()) << txn.error().ToString();
    stage(*txn);
    auto done = txn->Commit();
    ASSERT_TRUE(done.has_value()) << done.error().ToString();
  }

  std::shared_ptr<MemoryFileSystem> fs_ = std::make_shared<MemoryFileSystem>();
  std::string root_ = "t";
  int inputs_ = 0;
};

TEST_F(ScanTest, ATableSluiceWroteReadsBackAsItsInput) {
  const std::string input =
      "{\"id\":1,\"amount\":12.50,\"day\":\"2024-09-09\",\"at\":\"2024-09-09T12:34:56.5Z\","
      "\"tags\":[\"x\",\"y\"],\"attrs\":{\"k\":1,\"l\":null},\"addr\":{\"city\":\"Oslo\",\"zip\":"
      "null},\"flag\":true,\"big\":9223372036854775807,\"ratio\":0.1}\n"
      "{\"id\":2,\"amount\":-0.05,\"day\":null,\"at\":null,\"tags\":[],\"attrs\":{},"
      "\"addr\":null,\"flag\":null,\"big\":-1,\"ratio\":null}\n";
  Write(input,
        "id INT, amount DECIMAL(10,2), day DATE, at TIMESTAMP, tags ARRAY<STRING>, "
        "attrs MAP<STRING, BIGINT>, addr STRUCT<city: STRING, zip: STRING>, flag BOOLEAN, "
        "big BIGINT, ratio DOUBLE");
  ScanStats stats;
  std::vector<std::string> rows = Rows({}, &stats);
  EXPECT_EQ(CanonicalRows(rows), CanonicalRows(SplitLines(input)));
  ASSERT_EQ(rows.size(), 2u);
  // Schema order and the record form, to the byte.
  EXPECT_EQ(rows[0],
            "{\"id\":1,\"amount\":12.50,\"day\":\"2024-09-09\",\"at\":\"2024-09-09T12:34:56.5Z\","
            "\"tags\":[\"x\",\"y\"],\"attrs\":{\"k\":1,\"l\":null},\"addr\":{\"city\":\"Oslo\","
            "\"zip\":null},\"flag\":true,\"big\":9223372036854775807,\"ratio\":0.1}");
  EXPECT_EQ(stats.files_read, 1u);
  EXPECT_EQ(stats.rows_returned, 2u);
  EXPECT_EQ(stats.version, 0);
}

TEST_F(ScanTest, ProjectionKeepsSchemaOrderAndSelectsStructFields) {
  Write(
      "{\"id\":1,\"s\":{\"a\":1,\"b\":\"x\",\"c\":true},\"z\":9}\n{\"id\":2,\"s\":null,\"z\":8}\n",
      "id INT, s STRUCT<a: INT, b: STRING, c: BOOLEAN>, z INT");
  ScanOptions o;
  o.columns = {"z", "s.b", "ID"};
  EXPECT_EQ(Rows(o), (std::vector<std::string>{"{\"id\":1,\"s\":{\"b\":\"x\"},\"z\":9}",
                                               "{\"id\":2,\"s\":null,\"z\":8}"}));
  o.columns = {"s.nope"};
  auto bad = ScanRows(fs_, root_, o);
  ASSERT_FALSE(bad.has_value());
  EXPECT_NE(bad.error().message().find("no field 'nope' in s; the fields there are a, b, c"),
            std::string::npos)
      << bad.error().message();
  o.columns = {"z.x"};
  bad = ScanRows(fs_, root_, o);
  ASSERT_FALSE(bad.has_value());
  EXPECT_NE(bad.error().message().find("z is not a struct"), std::string::npos);
}

TEST_F(ScanTest, ANameAfterAnArraySelectsFieldsOfItsStructElements) {
  Write(
      "{\"items\":[[{\"sku\":\"a\",\"qty\":2}],[]],\"m\":{\"k\":{\"x\":1}}}\n"
      "{\"items\":null,\"m\":null}\n",
      "items ARRAY<ARRAY<STRUCT<sku: STRING, qty: INT>>>, m MAP<STRING, STRUCT<x: INT>>");
  ScanOptions o;
  o.columns = {"items.qty"};
  EXPECT_EQ(Rows(o),
            (std::vector<std::string>{"{\"items\":[[{\"qty\":2}],[]]}", "{\"items\":null}"}));
  o.columns = {"m.x"};
  auto bad = ScanRows(fs_, root_, o);
  ASSERT_FALSE(bad.has_value());
  EXPECT_NE(bad.error().message().find("m is not a struct"), std::string::npos);
}

TEST_F(ScanTest, WhereKeepsOnlyTrueRowsAndMayReadColumnsTheOutputLeavesOut) {
  Write(kSixRows, kRowsDdl);
  ScanOptions o;
  o.columns = {"name"};
  o.where = "score > 4 OR id = 0";
  ScanStats stats;
  EXPECT_EQ(Rows(o, &stats), (std::vector<std::string>{"{\"name\":\"a\"}", "{\"name\":\"d\"}",
                                                       "{\"name\":\"e\"}", "{\"name\":\"f\"}"}));
  EXPECT_EQ(stats.rows_filtered, 2u);  // score NULL is not TRUE
  o.where = "nope > 1";
  auto bad = ScanRows(fs_, root_, o);
  ASSERT_FALSE(bad.has_value());
  EXPECT_NE(bad.error().message().find("where"), std::string::npos);
  EXPECT_NE(bad.error().message().find("nope"), std::string::npos);
}

TEST_F(ScanTest, LimitStopsReadingFiles) {
  WriteInThreeFiles();
  ASSERT_EQ(Latest().files.size(), 3u);
  ScanOptions s;
  s.limit = 3;
  ScanStats stats;
  std::vector<std::string> rows = Rows(s, &stats);
  EXPECT_EQ(rows.size(), 3u);
  EXPECT_EQ(stats.files_read, 2u);
  s.limit = 0;
  EXPECT_TRUE(Rows(s, &stats).empty());
  EXPECT_EQ(stats.files_read, 0u);
}

TEST_F(ScanTest, StatsSkipFilesWhoseRangeCannotHoldTheRows) {
  WriteInThreeFiles();  // ids 0-1, 2-3, 4-5
  struct Case {
    std::string where;
    uint64_t pruned;
    size_t rows;
  };
  const std::vector<Case> cases = {
      {"id >= 4", 2, 2},
      {"4 <= id", 2, 2},
      {"id = 3", 2, 1},
      {"id < 2 AND name <> 'q'", 2, 2},
      {"id > 5", 3, 0},
      {"id BETWEEN 2 AND 3", 2, 2},
      {"id IN (0, 5)", 1, 2},
      {"name = 'c'", 2, 1},
      {"name >= 'e'", 2, 2},
      {"score > 6.5", 2, 1},
      {"score IS NULL", 2, 1},
      {"id IS NULL", 3, 0},
      {"id IS NOT NULL", 0, 6},
      // Not prunable by these rules: every file read, the rows still filtered.
      {"id + 1 > 5", 0, 1},
      {"id = 0 OR id = 5", 0, 2},
      {"id <> 3", 0, 5},
      {"CAST(id AS STRING) = '4'", 0, 1},
  };
  for (const Case& c : cases) {
    ScanOptions s;
    s.where = c.where;
    ScanStats stats;
    EXPECT_EQ(Rows(s, &stats).size(), c.rows) << c.where;
    EXPECT_EQ(stats.files_pruned, c.pruned) << c.where;
    EXPECT_EQ(stats.files_pruned_by_stats, c.pruned) << c.where;
    EXPECT_EQ(stats.files_read + stats.files_pruned, 3u) << c.where;
  }
}

TEST_F(ScanTest, PartitionValuesFillTheirColumnsAndPruneWholeFiles) {
  TableWriteOptions o;
  o.data_schema = Ddl("id INT, region STRING, day DATE");
  o.partition_by = {"region", "day"};
  Write(
      "{\"id\":1,\"region\":\"eu\",\"day\":\"2024-01-01\"}\n"
      "{\"id\":2,\"region\":\"us\",\"day\":\"2024-01-01\"}\n"
      "{\"id\":3,\"region\":\"eu\",\"day\":\"2024-01-02\"}\n"
      "{\"id\":4,\"region\":null,\"day\":\"2024-01-02\"}\n",
      o);
  ASSERT_EQ(Latest().files.size(), 4u);
  // Partition columns at their schema positions, typed.
  EXPECT_EQ(CanonicalRows(Rows()),
            CanonicalRows({"{\"id\":1,\"region\":\"eu\",\"day\":\"2024-01-01\"}",
                           "{\"id\":2,\"region\":\"us\",\"day\":\"2024-01-01\"}",
                           "{\"id\":3,\"region\":\"eu\",\"day\":\"2024-01-02\"}",
                           "{\"id\":4,\"region\":null,\"day\":\"2024-01-02\"}"}));
  ScanOptions s;
  s.where = "region = 'eu' AND id > 2";
  ScanStats stats;
  EXPECT_EQ(Rows(s, &stats),
            (std::vector<std::string>{"{\"id\":3,\"region\":\"eu\",\"day\":\"2024-01-02\"}"}));
  EXPECT_EQ(stats.files_pruned, 3u);  // us, null, and eu/01-01 by stats (id <= 1)
  EXPECT_EQ(stats.files_pruned_by_stats, 1u);
  EXPECT_EQ(stats.files_read, 1u);

  s.where = "day > '2024-01-01' AND region IS NULL";
  EXPECT_EQ(Rows(s, &stats),
            (std::vector<std::string>{"{\"id\":4,\"region\":null,\"day\":\"2024-01-02\"}"}));
  EXPECT_EQ(stats.files_pruned, 3u);
  EXPECT_EQ(stats.files_pruned_by_stats, 0u);

  // A conjunct mixing partition and data columns prunes nothing by partitions.
  s.where = "region = 'eu' OR id = 2";
  EXPECT_EQ(Rows(s, &stats).size(), 3u);
  EXPECT_EQ(stats.files_pruned, 0u);

  // Only partition columns: the files' rows are counted, not read.
  s = {};
  s.columns = {"region"};
  EXPECT_EQ(Rows(s, &stats).size(), 4u);
  EXPECT_EQ(stats.files_read, 4u);
}

TEST_F(ScanTest, TimeTravelByVersionAndByTimestamp) {
  Write("{\"id\":1}\n", "id INT");
  Write("{\"id\":2}\n", "id INT");
  TableWriteOptions overwrite;
  overwrite.mode = WriteMode::kOverwrite;
  overwrite.data_schema = Ddl("id INT");
  Write("{\"id\":3}\n", overwrite);
  for (int64_t v = 0; v <= 2; ++v) {
    ASSERT_TRUE(fs_->SetModifiedTime(LogFilePath(root_, CommitFileName(v)), 1000 * (v + 1)));
  }
  auto at = [&](std::optional<int64_t> version, std::optional<int64_t> ms) {
    ScanOptions o;
    o.at.version = version;
    o.at.timestamp_ms = ms;
    return CanonicalRows(Rows(o));
  };
  EXPECT_EQ(at(0, std::nullopt), CanonicalRows({"{\"id\":1}"}));
  EXPECT_EQ(at(1, std::nullopt), CanonicalRows({"{\"id\":1}", "{\"id\":2}"}));
  EXPECT_EQ(at(std::nullopt, std::nullopt), CanonicalRows({"{\"id\":3}"}));
  EXPECT_EQ(at(std::nullopt, 2500), CanonicalRows({"{\"id\":1}", "{\"id\":2}"}));
  EXPECT_EQ(at(std::nullopt, 1000), CanonicalRows({"{\"id\":1}"}));
  ScanOptions before;
  before.at.timestamp_ms = 999;
  EXPECT_FALSE(ScanRows(fs_, root_, before).has_value());
  ScanOptions missing;
  missing.at.version = 7;
  auto r = ScanRows(fs_, root_, missing);
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error().code(), ErrorCode::kNotFound);
}

// Turn deletion vectors on, then re-add the table's one file with `dv`.
void ReAddWithDeletionVector(Transaction& txn, const DeletionVectorDescriptor& dv) {
  const Snapshot& s = *txn.snapshot();
  Protocol p;
  p.min_reader_version = 3;
  p.min_writer_version = 7;
  p.reader_features = std::vector<std::string>{"deletionVectors"};
  p.writer_features = std::vector<std::string>{"deletionVectors"};
  txn.SetProtocol(p);
  Metadata m = s.metadata;
  m.configuration["delta.enableDeletionVectors"] = "true";
  txn.SetMetadata(m);
  AddFile add = s.files.at(0);
  RemoveFile remove;
  remove.path = add.path;
  remove.deletion_timestamp = 1;
  remove.deletion_vector = add.deletion_vector;
  remove.size = add.size;
  txn.RemoveFile(remove);
  add.deletion_vector = DeletionVectorDescriptorToJson(dv);
  txn.AddFile(add);
}

TEST_F(ScanTest, RowsInAnInlineOrOnDiskDeletionVectorAreNeverReturned) {
  Write(kSixRows, kRowsDdl);
  auto inline_dv = MakeInlineDeletionVector(RowIndexSet::Of({1, 3}));
  ASSERT_TRUE(inline_dv.has_value()) << inline_dv.error().ToString();
  Commit([&](Transaction& t) { ReAddWithDeletionVector(t, *inline_dv); });
  ScanStats stats;
  EXPECT_EQ(CanonicalRows(Rows({}, &stats)),
            CanonicalRows({"{\"id\":0,\"name\":\"a\",\"score\":1.50}",
                           "{\"id\":2,\"name\":\"c\",\"score\":3.00}",
                           "{\"id\":4,\"name\":\"e\",\"score\":5.00}",
                           "{\"id\":5,\"name\":\"f\",\"score\":6.75}"}));
  EXPECT_EQ(stats.rows_deleted, 2u);

  // A DV file with another table's DV before ours, at an offset.
  DeletionVectorFileBuilder builder;
  ASSERT_TRUE(builder.Add(RowIndexSet::Of({0})).has_value());
  auto on_disk = builder.Add(RowIndexSet::OfRanges({{0, 2}, {5, 6}}));
  ASSERT_TRUE(on_disk.has_value()) << on_disk.error().ToString();
  auto uuid_path = EncodeDeletionVectorUuidPath("", "d2c639aa-8816-431a-aaf6-d3fe2512ff61");
  ASSERT_TRUE(uuid_path.has_value());
  on_disk->path_or_inline_dv = *uuid_path;
  auto file = DeletionVectorFilePath(root_, *on_disk);
  ASSERT_TRUE(file.has_value()) << file.error().ToString();
  ASSERT_TRUE(fs_->WriteFile(*file, builder.bytes()).has_value());
  Commit([&](Transaction& t) { ReAddWithDeletionVector(t, *on_disk); });
  EXPECT_EQ(CanonicalRows(Rows({}, &stats)),
            CanonicalRows({"{\"id\":2,\"name\":\"c\",\"score\":3.00}",
                           "{\"id\":3,\"name\":\"d\",\"score\":4.25}",
                           "{\"id\":4,\"name\":\"e\",\"score\":5.00}"}));
  EXPECT_EQ(stats.rows_deleted, 3u);

  // The DV file gone: the error names it.
  ASSERT_TRUE(fs_->RemoveFile(*file).has_value());
  auto gone = ScanRows(fs_, root_);
  ASSERT_FALSE(gone.has_value());
  EXPECT_NE(gone.error().message().find(*file), std::string::npos) << gone.error().message();
}

// Rewrite every field's column mapping metadata with `edit` (name, physical name), top-level
// and in structs.
schema::TypePtr EditFields(const schema::TypePtr& type,
                           const std::function<void(schema::Field&)>& edit) {
  if (!type->is_struct()) return type;
  std::vector<schema::Field> fields;
  for (schema::Field f : type->fields()) {
    f.set_type(EditFields(f.type(), edit));
    edit(f);
    fields.push_back(std::move(f));
  }
  return *schema::Type::Struct(std::move(fields));
}

std::string EditSchema(const std::string& schema_string,
                       const std::function<void(schema::Field&)>& edit) {
  auto s = dialects::spark::ReadJson(schema_string);
  EXPECT_TRUE(s.has_value());
  auto edited = schema::Schema::FromStruct(EditFields(s->value->struct_type(), edit));
  return dialects::spark::WriteJson(**edited).value;
}

void SetMeta(schema::Field& f, std::string_view key, JsonValue v) {
  JsonValue meta = f.metadata();
  meta.Set(std::string(key), std::move(v));
  f.set_metadata(std::move(meta));
}

TEST_F(ScanTest, ColumnMappingIdModeFindsColumnsByFieldIdWhateverTheirNames) {
  TableWriteOptions o;
  o.data_schema = Ddl("id INT, s STRUCT<a: INT, b: STRING>, gone STRING");
  o.properties["delta.columnMapping.mode"] = "id";
  Write("{\"id\":1,\"s\":{\"a\":10,\"b\":\"x\"},\"gone\":\"g\"}\n", o);
  // Another writer renames every physical name (its files would carry the new names) and the
  // logical name of `id`, and drops `gone`: sluice's file still holds the old names, and only
  // the field ids tie its columns to the table's.
  Commit([&](Transaction& t) {
    Metadata m = t.snapshot()->metadata;
    m.schema_string = EditSchema(m.schema_string, [](schema::Field& f) {
      SetMeta(f, kPhysicalNameKey, JsonValue::String("renamed-" + f.name()));
      if (f.name() == "id") f.set_name("key");
    });
    auto dropped = dialects::spark::ReadJson(m.schema_string);
    ASSERT_TRUE(dropped.has_value());
    std::vector<schema::Field> kept;
    for (const schema::Field& f : dropped->value->fields()) {
      if (f.name() != "gone") kept.push_back(f);
    }
    m.schema_string = dialects::spark::WriteJson(**schema::Schema::Make(kept)).value;
    t.SetMetadata(m);
  });
  EXPECT_EQ(Rows(), (std::vector<std::string>{"{\"key\":1,\"s\":{\"a\":10,\"b\":\"x\"}}"}));

  // The same ids moved to other columns: each reads the column its id names.
  Commit([&](Transaction& t) {
    Metadata m = t.snapshot()->metadata;
    m.schema_string = EditSchema(m.schema_string, [](schema::Field& f) {
      if (f.name() == "a" || f.name() == "b") {
        const JsonValue* id = f.metadata().Find(kColumnIdKey);
        ASSERT_NE(id, nullptr);
        f.set_name(f.name() == "a" ? "b_by_id" : "a_by_id");
      }
    });
    t.SetMetadata(m);
  });
  EXPECT_EQ(Rows(),
            (std::vector<std::string>{"{\"key\":1,\"s\":{\"b_by_id\":10,\"a_by_id\":\"x\"}}"}));
}

TEST_F(ScanTest, ColumnMappingNameModeReadsRenamesDropsAndNewColumns) {
  TableWriteOptions o;
  o.data_schema = Ddl("id INT, s STRUCT<a: INT, b: STRING>, gone STRING");
  o.properties["delta.columnMapping.mode"] = "name";
  Write("{\"id\":1,\"s\":{\"a\":10,\"b\":\"x\"},\"gone\":\"g\"}\n", o);
  Commit([&](Transaction& t) {
    Metadata m = t.snapshot()->metadata;
    m.schema_string = EditSchema(m.schema_string, [](schema::Field& f) {
      if (f.name() == "a") f.set_name("alpha");
    });
    auto s = dialects::spark::ReadJson(m.schema_string);
    ASSERT_TRUE(s.has_value());
    std::vector<schema::Field> fields;
    for (const schema::Field& f : s->value->fields()) {
      if (f.name() != "gone") fields.push_back(f);
    }
    schema::Field added("added", schema::Type::Int64());
    SetMeta(added, kColumnIdKey, JsonValue::Int(100));
    SetMeta(added, kPhysicalNameKey, JsonValue::String("col-added"));
    fields.insert(fields.begin(), added);
    m.schema_string = dialects::spark::WriteJson(**schema::Schema::Make(fields)).value;
    m.configuration[std::string(kMaxColumnIdKey)] = "100";
    t.SetMetadata(m);
  });
  EXPECT_EQ(
      Rows(),
      (std::vector<std::string>{"{\"added\":null,\"id\":1,\"s\":{\"alpha\":10,\"b\":\"x\"}}"}));
  ScanOptions p;
  p.columns = {"s.alpha"};
  p.where = "s.alpha = 10";
  EXPECT_EQ(Rows(p), (std::vector<std::string>{"{\"s\":{\"alpha\":10}}"}));
}

TEST_F(ScanTest, ColumnsAddedByMergeSchemaReadAsNullInOlderFiles) {
  Write("{\"id\":1}\n", "id INT");
  TableWriteOptions merge;
  merge.merge_schema = true;
  merge.data_schema = Ddl("id INT, extra STRUCT<x: INT>");
  Write("{\"id\":2,\"extra\":{\"x\":5}}\n", merge);
  EXPECT_EQ(CanonicalRows(Rows()),
            CanonicalRows({"{\"id\":1,\"extra\":null}", "{\"id\":2,\"extra\":{\"x\":5}}"}));
  ScanOptions o;
  o.columns = {"extra.x"};
  EXPECT_EQ(CanonicalRows(Rows(o)), CanonicalRows({"{\"extra\":null}", "{\"extra\":{\"x\":5}}"}));
}

TEST_F(ScanTest, TypeWideningReadsOlderFilesInTheNewTypes) {
  Write("{\"i\":7,\"f\":3.4,\"d\":\"2024-09-09\",\"m\":{\"1\":1.5},\"k\":{\"3.4\":1}}\n",
        "i INT, f FLOAT, d DATE, m MAP<INT, DECIMAL(4,1)>, k MAP<FLOAT, SMALLINT>");
  Commit([&](Transaction& t) {
    Metadata m = t.snapshot()->metadata;
    auto wide =
        Ddl("i BIGINT, f DOUBLE, d TIMESTAMP_NTZ, m MAP<BIGINT, DECIMAL(8,3)>, k MAP<DOUBLE, INT>");
    m.schema_string = dialects::spark::WriteJson(*wide).value;
    t.SetMetadata(m);
    Protocol p = t.snapshot()->protocol;
    p.min_reader_version = 3;
    p.min_writer_version = 7;
    p.reader_features = std::vector<std::string>{"timestampNtz", "typeWidening"};
    p.writer_features = std::vector<std::string>{"timestampNtz", "typeWidening"};
    t.SetProtocol(p);
  });
  EXPECT_EQ(Rows(), (std::vector<std::string>{
                        "{\"i\":7,\"f\":3.4000000953674316,\"d\":\"2024-09-09T00:00:00\","
                        "\"m\":{\"1\":1.500},\"k\":{\"3.4000000953674316\":1}}"}));
}

TEST_F(ScanTest, AColumnTheFileCannotHoldInTheTablesTypeIsAnErrorNamingFileAndColumn) {
  Write("{\"id\":1,\"s\":\"x\"}\n", "id INT, s STRING");
  const std::string file = root_ + "/" + Latest().files.at(0).path;
  Commit([&](Transaction& t) {
    Metadata m = t.snapshot()->metadata;
    m.schema_string = dialects::spark::WriteJson(*Ddl("id SMALLINT, s INT")).value;
    t.SetMetadata(m);
  });
  auto r = ScanRows(fs_, root_);
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error().code(), ErrorCode::kInvalidArgument);
  EXPECT_NE(r.error().message().find(file), std::string::npos) << r.error().message();
  EXPECT_NE(r.error().message().find("column s: string cannot be read as int32"), std::string::npos)
      << r.error().message();
}

TEST_F(ScanTest, BrokenFilesAndLogValuesAreErrorsNamingThem) {
  TableWriteOptions o;
  o.data_schema = Ddl("id INT, p INT");
  o.partition_by = {"p"};
  Write("{\"id\":1,\"p\":1}\n", o);
  const AddFile add = Latest().files.at(0);
  const std::string file = root_ + "/" + add.path;
  auto bytes = fs_->ReadFile(file);
  ASSERT_TRUE(bytes.has_value());

  // A data file that is not Parquet.
  ASSERT_TRUE(fs_->WriteFile(file, "not parquet at all").has_value());
  auto r = ScanRows(fs_, root_);
  ASSERT_FALSE(r.has_value());
  EXPECT_NE(r.error().message().find(file), std::string::npos) << r.error().message();
  // Cut short.
  ASSERT_TRUE(fs_->WriteFile(file, bytes->substr(0, bytes->size() / 2)).has_value());
  r = ScanRows(fs_, root_);
  ASSERT_FALSE(r.has_value());
  EXPECT_NE(r.error().message().find(file), std::string::npos) << r.error().message();
  ASSERT_TRUE(fs_->WriteFile(file, *bytes).has_value());

  // A deletion vector whose bitmap does not hold the cardinality the log gives.
  auto dv = MakeInlineDeletionVector(RowIndexSet::Of({0}));
  ASSERT_TRUE(dv.has_value());
  dv->cardinality = 5;
  Commit([&](Transaction& t) { ReAddWithDeletionVector(t, *dv); });
  r = ScanRows(fs_, root_);
  ASSERT_FALSE(r.has_value());
  EXPECT_NE(r.error().message().find(file), std::string::npos) << r.error().message();
  EXPECT_NE(r.error().message().find("cardinality"), std::string::npos) << r.error().message();

  // A partition value that is no INT.
  Commit([&](Transaction& t) {
    AddFile live = t.snapshot()->files.at(0);
    RemoveFile remove;
    remove.path = live.path;
    remove.deletion_vector = live.deletion_vector;
    remove.deletion_timestamp = 1;
    t.RemoveFile(remove);
    live.partition_values["p"] = "one";
    live.deletion_vector.reset();
    t.AddFile(live);
  });
  r = ScanRows(fs_, root_);
  ASSERT_FALSE(r.has_value());
  EXPECT_NE(r.error().message().find(add.path), std::string::npos) << r.error().message();
  EXPECT_NE(r.error().message().find("`one` is no int32 value"), std::string::npos)
      << r.error().message();
}

TEST_F(ScanTest, AReaderFeatureSluiceDoesNotKnowIsRefusedByName) {
  Write("{\"id\":1}\n", "id INT");
  Commit([&](Transaction& t) {
    Protocol p;
    p.min_reader_version = 3;
    p.min_writer_version = 7;
    p.reader_features = std::vector<std::string>{"futureReaderThing"};
    p.writer_features = std::vector<std::string>{"futureReaderThing"};
    t.SetProtocol(p);
  });
  auto r = ScanRows(fs_, root_);
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error().code(), ErrorCode::kUnimplemented);
  EXPECT_NE(r.error().message().find("futureReaderThing"), std::string::npos)
      << r.error().message();
  ScanOptions before;
  before.at.version = 0;
  EXPECT_TRUE(ScanRows(fs_, root_, before).has_value());
}

TEST_F(ScanTest, AddPathsAreDecodedOnce) {
  Write("{\"id\":1,\"p\":\"a b:c\"}\n", [] {
    TableWriteOptions o;
    o.data_schema = Ddl("id INT, p STRING");
    o.partition_by = {"p"};
    return o;
  }());
  const std::string logged = Latest().files.at(0).path;
  EXPECT_NE(logged.find("%"), std::string::npos) << logged;
  EXPECT_EQ(Rows(), (std::vector<std::string>{"{\"id\":1,\"p\":\"a b:c\"}"}));
}

TEST(ScanLocalTest, AbsolutePathsAndFileUrisNameFilesOutsideTheRoot) {
  namespace stdfs = std::filesystem;
  const stdfs::path dir = stdfs::temp_directory_path() / ("sluice_scan_" + RandomUuid());
  const std::string root = (dir / "t").string();
  stdfs::create_directories(dir / "in");
  const std::string input = (dir / "in" / "rows.jsonl").string();
  ASSERT_TRUE(LocalFileSystem()->WriteFile(input, "{\"id\":1}\n{\"id\":2}\n").has_value());
  StringSink quarantine;
  TableWriteOptions o;
  o.data_schema = Ddl("id INT");
  auto written = WriteTable(LocalFileSystem(), root, {input}, o, quarantine);
  ASSERT_TRUE(written.has_value()) << written.error().ToString();
  const std::string name = LoadSnapshot(*LocalFileSystem(), root)->files.at(0).path;
  stdfs::path current = stdfs::path(root) / name;
  int moves = 0;
  for (const std::string prefix : {"file://", "file:", ""}) {
    auto txn = Transaction::Begin(LocalFileSystem(), root);
    ASSERT_TRUE(txn.has_value());
    AddFile add = txn->snapshot()->files.at(0);
    RemoveFile remove;
    remove.path = add.path;
    remove.deletion_timestamp = 1;
    txn->RemoveFile(remove);
    // Moved to a folder beside the table (a space in its name), named by an absolute path.
    const stdfs::path moved = dir / ("moved " + std::to_string(++moves)) / name;
    stdfs::create_directories(moved.parent_path());
    stdfs::rename(current, moved);
    current = moved;
    add.path = prefix + EncodeAddPath(moved.string());
    txn->AddFile(add);
    ASSERT_TRUE(txn->Commit().has_value());
    auto rows = ScanRows(LocalFileSystem(), root);
    ASSERT_TRUE(rows.has_value()) << prefix << ": " << rows.error().ToString();
    EXPECT_EQ(*rows, (std::vector<std::string>{"{\"id\":1}", "{\"id\":2}"})) << prefix;
  }
  stdfs::remove_all(dir);
}

TEST_F(ScanTest, TableRowsGivesEveryRowParsed) {
  Write(kSixRows, kRowsDdl);
  int n = 0;
  Status s = TableRows(fs_, root_)([&](const JsonValue& row) -> Status {
    EXPECT_TRUE(row.is_object());
    EXPECT_NE(row.Find("score"), nullptr);
    ++n;
    return Ok();
  });
  EXPECT_TRUE(s.has_value());
  EXPECT_EQ(n, 6);
  // An error from the callback comes back as it is.
  s = TableRows(fs_, root_)([](const JsonValue&) -> Status { return NotFound("stop here"); });
  ASSERT_FALSE(s.has_value());
  EXPECT_EQ(s.error().message(), "stop here");
}

}  // namespace
}  // namespace sluice::table
