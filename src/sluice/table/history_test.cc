#include "sluice/table/history.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "sluice/base/file_system.h"
#include "sluice/table/log_path.h"
#include "sluice/table/transaction.h"
#include "sluice_test_paths.h"

namespace sluice::table {
namespace {

constexpr std::string_view kIdSchema =
    R"({"type":"struct","fields":[{"name":"id","type":"long","nullable":true,"metadata":{}}]})";
constexpr std::string_view kIdNameSchema =
    R"({"type":"struct","fields":[{"name":"id","type":"long","nullable":true,"metadata":{}},)"
    R"({"name":"name","type":"string","nullable":true,"metadata":{}}]})";

Metadata TestMetadata(std::string_view schema = kIdSchema) {
  Metadata m;
  m.id = "t1";
  m.schema_string = std::string(schema);
  m.created_time = 1;
  return m;
}

AddFile Add(std::string path, std::optional<int64_t> rows, int64_t size = 10) {
  AddFile a;
  a.path = std::move(path);
  a.size = size;
  a.modification_time = 1;
  if (rows) a.stats = "{\"numRecords\":" + std::to_string(*rows) + "}";
  return a;
}

void Put(MemoryFileSystem& fs, int64_t version, const std::vector<Action>& actions,
         int64_t modified_ms = 1000) {
  std::string path = LogFilePath("t", CommitFileName(version));
  ASSERT_TRUE(fs.WriteFile(path, CommitText(actions)));
  ASSERT_TRUE(fs.SetModifiedTime(path, modified_ms));
}

CommitInfo Info(std::string operation, std::string extra = "") {
  auto v = ParseJson(R"({"timestamp":5,"operation":")" + operation +
                     R"(","operationParameters":{"mode":"Append"})" + extra + "}");
  EXPECT_TRUE(v.has_value());
  return CommitInfo{*v};
}

const HistoryEntry& At(const std::vector<HistoryEntry>& h, int64_t version) {
  for (const HistoryEntry& e : h) {
    if (e.version == version) return e;
  }
  ADD_FAILURE() << "no entry for version " << version;
  return h.front();
}

TEST(TableHistory, ListsEveryVersionNewestFirstWithWhatEachCommitDid) {
  MemoryFileSystem fs;
  Put(fs, 0, {Info("CREATE TABLE"), Protocol{}, TestMetadata()}, 1000);
  Put(fs, 1,
      {Info("WRITE", R"(,"readVersion":0,"isBlindAppend":true,"engineInfo":"e/1")"), Add("a", 3),
       Add("b", 4, 25)},
      2000);
  Metadata added = TestMetadata(kIdNameSchema);
  added.configuration["delta.appendOnly"] = "true";
  Put(fs, 2, {Info("ADD COLUMNS"), added}, 3000);
  Metadata unset = added;
  unset.configuration.erase("delta.appendOnly");
  unset.configuration["k"] = "v";
  unset.partition_columns = {"id"};
  Put(fs, 3, {Info("SET TBLPROPERTIES"), unset, RemoveFile{.path = "a"}}, 3000);
  Protocol upgraded{.min_reader_version = 1, .min_writer_version = 3};
  Put(fs, 4, {Info("UPGRADE PROTOCOL"), upgraded, unset}, 2500);

  auto h = TableHistory(fs, "t");
  ASSERT_TRUE(h.has_value()) << h.error().ToString();
  ASSERT_EQ(h->size(), 5u);
  std::vector<int64_t> versions;
  for (const HistoryEntry& e : *h) versions.push_back(e.version);
  EXPECT_EQ(versions, (std::vector<int64_t>{4, 3, 2, 1, 0}));

  const HistoryEntry& v0 = At(*h, 0);
  EXPECT_EQ(v0.operation, "CREATE TABLE");
  EXPECT_TRUE(v0.created);
  EXPECT_TRUE(v0.protocol_changed);
  EXPECT_FALSE(v0.protocol_before);
  ASSERT_TRUE(v0.schema_change);
  EXPECT_EQ(v0.schema_change->before, nullptr);
  ASSERT_EQ(v0.schema_change->diff.changes.size(), 1u);
  EXPECT_EQ(v0.schema_change->diff.changes[0].kind, evolution::ChangeKind::kFieldAdded);
  EXPECT_EQ(v0.rows_added, 0);

  const HistoryEntry& v1 = At(*h, 1);
  EXPECT_EQ(v1.rows_added, 7);
  EXPECT_EQ(v1.files_added, 2);
  EXPECT_EQ(v1.bytes_added, 35);
  EXPECT_EQ(v1.read_version, 0);
  EXPECT_EQ(v1.is_blind_append, true);
  EXPECT_EQ(v1.engine_info, "e/1");
  EXPECT_EQ(v1.commit_info_timestamp_ms, 5);
  EXPECT_EQ(v1.timestamp_ms, 2000);
  EXPECT_FALSE(v1.metadata_changed);
  EXPECT_FALSE(v1.schema_change);
  ASSERT_NE(v1.operation_parameters.Find("mode"), nullptr);

  const HistoryEntry& v2 = At(*h, 2);
  EXPECT_TRUE(v2.metadata_changed);
  EXPECT_FALSE(v2.created);
  ASSERT_TRUE(v2.schema_change);
  ASSERT_NE(v2.schema_change->before, nullptr);
  EXPECT_EQ(v2.schema_change->before->fields().size(), 1u);
  EXPECT_EQ(v2.schema_change->after->fields().size(), 2u);
  ASSERT_EQ(v2.schema_change->diff.changes.size(), 1u);
  EXPECT_EQ(v2.schema_change->diff.changes[0].path.ToString(), "name");
  EXPECT_EQ(v2.schema_change->diff.changes[0].kind, evolution::ChangeKind::kFieldAdded);
  ASSERT_EQ(v2.property_changes.size(), 1u);
  EXPECT_EQ(v2.property_changes[0].key, "delta.appendOnly");
  EXPECT_FALSE(v2.property_changes[0].before);
  EXPECT_EQ(v2.property_changes[0].after, "true");

  const HistoryEntry& v3 = At(*h, 3);
  EXPECT_FALSE(v3.schema_change);
  ASSERT_EQ(v3.property_changes.size(), 2u);
  EXPECT_EQ(v3.property_changes[0].key, "delta.appendOnly");
  EXPECT_EQ(v3.property_changes[0].before, "true");
  EXPECT_FALSE(v3.property_changes[0].after);
  EXPECT_EQ(v3.property_changes[1].key, "k");
  ASSERT_TRUE(v3.partition_change);
  EXPECT_TRUE(v3.partition_change->first.empty());
  EXPECT_EQ(v3.partition_change->second, (std::vector<std::string>{"id"}));
  EXPECT_EQ(v3.files_removed, 1);
  EXPECT_EQ(v3.files_added, 0);

  // A metaData written again unchanged is no change; the protocol is.
  const HistoryEntry& v4 = At(*h, 4);
  EXPECT_FALSE(v4.metadata_changed);
  EXPECT_TRUE(v4.protocol_changed);
  ASSERT_TRUE(v4.protocol_before);
  EXPECT_EQ(v4.protocol_before->min_writer_version, 2);
  EXPECT_EQ(v4.protocol_after->min_writer_version, 3);
  // File times that go backwards are raised so that timestamps grow with versions.
  EXPECT_EQ(At(*h, 3).timestamp_ms, 3001);
  EXPECT_EQ(v4.timestamp_ms, 3002);
}

TEST(TableHistory, RowsComeFromNumOutputRowsWhenAddsHaveNoStats) {
  MemoryFileSystem fs;
  Put(fs, 0, {Protocol{}, TestMetadata()});
  Put(fs, 1,
      {Info("WRITE", R"(,"operationMetrics":{"numOutputRows":"12"})"), Add("a", std::nullopt)});
  Put(fs, 2, {Info("WRITE"), Add("b", std::nullopt)});
  auto h = TableHistory(fs, "t");
  ASSERT_TRUE(h.has_value()) << h.error().ToString();
  EXPECT_EQ(At(*h, 1).rows_added, 12);
  EXPECT_FALSE(At(*h, 2).rows_added);
  EXPECT_EQ(At(*h, 0).operation, "");  // no commitInfo
}

TEST(TableHistory, InCommitTimestampsWinOverFileTimes) {
  MemoryFileSystem fs;
  Metadata ict = TestMetadata();
  ict.configuration["delta.enableInCommitTimestamps"] = "true";
  Put(fs, 0, {Info("CREATE TABLE", R"(,"inCommitTimestamp":1700000000123)"), Protocol{}, ict});
  Put(fs, 1, {Info("WRITE", R"(,"inCommitTimestamp":1700000000456)"), Add("a", 1)});
  auto h = TableHistory(fs, "t");
  ASSERT_TRUE(h.has_value());
  EXPECT_EQ(At(*h, 0).timestamp_ms, 1700000000123);
  EXPECT_EQ(At(*h, 1).timestamp_ms, 1700000000456);
}

TEST(TableHistory, InCommitTimestampsCountOnlyWhereTheTableEnablesThem) {
  // As PROTOCOL.md's In-Commit Timestamps: the latest metaData says whether, and from which
  // version, they date the commits; the ones before keep their files' times.
  MemoryFileSystem fs;
  Put(fs, 0, {Info("CREATE TABLE", R"(,"inCommitTimestamp":7)"), Protocol{}, TestMetadata()}, 1000);
  auto off = TableHistory(fs, "t");
  ASSERT_TRUE(off.has_value());
  EXPECT_EQ(At(*off, 0).timestamp_ms, 1000);

  Metadata ict = TestMetadata();
  ict.configuration["delta.enableInCommitTimestamps"] = "true";
  ict.configuration["delta.inCommitTimestampEnablementVersion"] = "1";
  ict.configuration["delta.inCommitTimestampEnablementTimestamp"] = "5000";
  Put(fs, 1, {Info("SET TBLPROPERTIES", R"(,"inCommitTimestamp":5000)"), ict}, 1100);
  auto on = TableHistory(fs, "t");
  ASSERT_TRUE(on.has_value());
  EXPECT_EQ(At(*on, 0).timestamp_ms, 1000);
  EXPECT_EQ(At(*on, 1).timestamp_ms, 5000);
}

// Tables written through Transaction, with a checkpoint every ten versions.
std::shared_ptr<MemoryFileSystem> TableWithCheckpoint(int64_t last_version) {
  auto fs = std::make_shared<MemoryFileSystem>();
  for (int64_t v = 0; v <= last_version; ++v) {
    auto txn = Transaction::Begin(fs, "t");
    EXPECT_TRUE(txn.has_value());
    if (v == 0) {
      txn->SetProtocol(Protocol{});
      txn->SetMetadata(TestMetadata());
    }
    txn->AddFile(Add("f" + std::to_string(v), 1));
    auto done = txn->Commit();
    EXPECT_TRUE(done.has_value()) << done.error().ToString();
  }
  return fs;
}

TEST(TableHistory, AfterLogCleanupStartsFromTheCheckpointState) {
  auto fs = TableWithCheckpoint(10);
  ASSERT_TRUE(fs->Exists(LogFilePath("t", CheckpointFileName(10))).value_or(false));
  // Version 11 adds a column; the commits up to the checkpoint are cleaned up.
  {
    auto txn = Transaction::Begin(fs, "t");
    ASSERT_TRUE(txn.has_value());
    txn->SetMetadata(TestMetadata(kIdNameSchema));
    ASSERT_TRUE(txn->Commit({.operation = "ADD COLUMNS"}).has_value());
  }
  for (int64_t v = 0; v <= 10; ++v) {
    ASSERT_TRUE(fs->RemoveFile(LogFilePath("t", CommitFileName(v))));
  }
  auto h = TableHistory(*fs, "t");
  ASSERT_TRUE(h.has_value()) << h.error().ToString();
  ASSERT_EQ(h->size(), 1u);
  const HistoryEntry& v11 = h->front();
  EXPECT_EQ(v11.version, 11);
  EXPECT_FALSE(v11.previous_unknown);
  ASSERT_TRUE(v11.schema_change);
  ASSERT_EQ(v11.schema_change->diff.changes.size(), 1u);
  EXPECT_EQ(v11.schema_change->diff.changes[0].path.ToString(), "name");
}

TEST(TableHistory, AMetadataWhosePredecessorWasCleanedUpIsMarkedUnknown) {
  MemoryFileSystem fs;
  Put(fs, 5, {Info("ADD COLUMNS"), TestMetadata(kIdNameSchema)});
  Put(fs, 6, {Info("WRITE"), Add("a", 1)});
  auto h = TableHistory(fs, "t");
  ASSERT_TRUE(h.has_value()) << h.error().ToString();
  ASSERT_EQ(h->size(), 2u);
  const HistoryEntry& v5 = At(*h, 5);
  EXPECT_TRUE(v5.previous_unknown);
  EXPECT_TRUE(v5.metadata_changed);
  EXPECT_FALSE(v5.created);
  ASSERT_TRUE(v5.schema_change);
  EXPECT_EQ(v5.schema_change->before, nullptr);
  EXPECT_TRUE(v5.schema_change->diff.empty());
  EXPECT_TRUE(v5.property_changes.empty());
}

TEST(TableHistory, ASchemaThatDoesNotParseIsReportedNotFatal) {
  MemoryFileSystem fs;
  Put(fs, 0, {Protocol{}, TestMetadata()});
  Put(fs, 1, {TestMetadata(R"({"type":"struct","fields":[{"name":"x","type":"nope"}]})")});
  auto h = TableHistory(fs, "t");
  ASSERT_TRUE(h.has_value()) << h.error().ToString();
  EXPECT_TRUE(At(*h, 1).schema_error);
  EXPECT_FALSE(At(*h, 1).schema_change);
}

TEST(TableHistory, ATornCommitIsAnErrorNamingTheFile) {
  MemoryFileSystem fs;
  Put(fs, 0, {Protocol{}, TestMetadata()});
  ASSERT_TRUE(fs.WriteFile(LogFilePath("t", CommitFileName(1)), "{\"add\":{\"path\":\"a\""));
  auto h = TableHistory(fs, "t");
  ASSERT_FALSE(h.has_value());
  EXPECT_NE(h.error().message().find("00000000000000000001.json"), std::string::npos)
      << h.error().message();
}

TEST(TableHistory, NoTableIsNotFound) {
  MemoryFileSystem fs;
  auto h = TableHistory(fs, "nothing");
  ASSERT_FALSE(h.has_value());
  EXPECT_EQ(h.error().code(), ErrorCode::kNotFound);
}

// The Delta golden tables, read where the shared conformance data is.
std::string Golden(std::string_view name) {
  return std::string(SLUICE_SHARED_DIR) + "/conformance/delta-golden/" + std::string(name);
}

TEST(TableHistoryGolden, TimeTravelSchemaChangesShowsPartAddedAtVersionOne) {
  const std::string root = Golden("time-travel-schema-changes-b");
  if (!std::filesystem::exists(root)) GTEST_SKIP() << "no golden tables at " << root;
  auto h = TableHistory(*LocalFileSystem(), root);
  ASSERT_TRUE(h.has_value()) << h.error().ToString();
  ASSERT_EQ(h->size(), 2u);
  const HistoryEntry& v1 = At(*h, 1);
  EXPECT_EQ(v1.operation, "WRITE");
  EXPECT_EQ(v1.operation_parameters.Find("mode")->as_string(), "Append");
  EXPECT_EQ(v1.read_version, 0);
  EXPECT_EQ(v1.files_added, 2);
  EXPECT_EQ(v1.commit_info_timestamp_ms, 1603724024783);
  ASSERT_TRUE(v1.schema_change);
  ASSERT_EQ(v1.schema_change->diff.changes.size(), 1u);
  const evolution::Change& c = v1.schema_change->diff.changes[0];
  EXPECT_EQ(c.path.ToString(), "part");
  EXPECT_EQ(c.kind, evolution::ChangeKind::kFieldAdded);
  EXPECT_EQ(c.to, "int64");
  EXPECT_TRUE(At(*h, 0).created);
}

TEST(TableHistoryGolden, TypeWideningShowsTheWidenedTypesAtVersionTwo) {
  const std::string root = Golden("type-widening");
  if (!std::filesystem::exists(root)) GTEST_SKIP() << "no golden tables at " << root;
  auto h = TableHistory(*LocalFileSystem(), root);
  ASSERT_TRUE(h.has_value()) << h.error().ToString();
  ASSERT_EQ(h->size(), 3u);

  // Version 1 turns type widening on: properties and protocol, not the schema.
  const HistoryEntry& v1 = At(*h, 1);
  EXPECT_EQ(v1.operation, "SET TBLPROPERTIES");
  EXPECT_FALSE(v1.schema_change);
  ASSERT_EQ(v1.property_changes.size(), 1u);
  EXPECT_EQ(v1.property_changes[0].key, "delta.enableTypeWidening");
  EXPECT_EQ(v1.property_changes[0].after, "true");
  ASSERT_TRUE(v1.protocol_changed);
  EXPECT_EQ(v1.protocol_after->min_reader_version, 3);
  EXPECT_EQ(v1.protocol_after->min_writer_version, 7);

  const HistoryEntry& v2 = At(*h, 2);
  EXPECT_EQ(v2.rows_added, 1);
  ASSERT_TRUE(v2.schema_change);
  std::map<std::string, std::pair<std::string, std::string>> retyped;
  for (const evolution::Change& c : v2.schema_change->diff.changes) {
    if (c.kind == evolution::ChangeKind::kTypeWidened ||
        c.kind == evolution::ChangeKind::kTypeChanged) {
      retyped[c.path.ToString()] = {c.from.value_or(""), c.to.value_or("")};
    }
  }
  EXPECT_EQ(retyped.size(), 13u);
  EXPECT_EQ(retyped["byte_long"], std::make_pair(std::string("int8"), std::string("int64")));
  EXPECT_EQ(retyped["float_double"],
            std::make_pair(std::string("float32"), std::string("float64")));
  EXPECT_EQ(retyped["decimal_decimal_greater_scale"],
            std::make_pair(std::string("decimal(10,2)"), std::string("decimal(20,5)")));
  EXPECT_EQ(retyped["date_timestamp_ntz"],
            std::make_pair(std::string("date"), std::string("timestamp_ntz")));
}

}  // namespace
}  // namespace sluice::table
