// The folder source end to end on the local file system (the checkpoint is SQLite on disk):
// seed 004's landing folder, every evolution mode, restarts, a lost checkpoint, unreadable and
// half-written files, a table changed under the ingest.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <set>
#include <thread>

#include "sluice/base/json.h"
#include "sluice/base/temp_dir_testing.h"
#include "sluice/data/avro_container.h"
#include "sluice/dialects/avro/avro_schema.h"
#include "sluice/dialects/spark/spark.h"
#include "sluice/ingest/checkpoint.h"
#include "sluice/ingest/ingest.h"
#include "sluice/ingest/schema_location.h"
#include "sluice/table/history.h"
#include "sluice/table/scan.h"
#include "sluice/table/snapshot.h"
#include "sluice/table/write.h"
#include "sluice_test_paths.h"

namespace sluice::ingest {
namespace {

namespace fs = std::filesystem;

class FolderIngestTest : public ::testing::Test {
 protected:
  void SetUp() override {
    fs::create_directories(root_ / "land");
    options_.source = (root_ / "land").string();
    options_.table = (root_ / "table").string();
    options_.checkpoint = (root_ / "ckpt").string();
    options_.threads = 1;
  }

  // Lands a file as a careful writer does: written under a hidden name, then renamed, so a
  // watching ingest never sees it half-written.
  void Land(const std::string& name, const std::string& text) {
    const fs::path path = root_ / "land" / name;
    const fs::path hidden = path.parent_path() / ("." + path.filename().string() + ".tmp");
    fs::create_directories(path.parent_path());
    std::ofstream(hidden) << text;
    // Distinct modification times keep the discovery order the landing order.
    auto t = fs::file_time_type::clock::now() + std::chrono::seconds(++landed_ - 1000);
    fs::last_write_time(hidden, t);
    fs::rename(hidden, path);
  }

  IngestRun Run(const IngestOptions& options) {
    auto run = RunFolderIngest(options, {});
    EXPECT_TRUE(run.has_value()) << run.error().message();
    return run.has_value() ? *run : IngestRun{};
  }
  IngestRun Run() { return Run(options_); }

  // The run wrote one batch of `records`, all of them, in the table's only commit.
  void ExpectOneBatchInOneCommit(const IngestRun& run, size_t records) {
    ASSERT_EQ(run.batches.size(), 1u);
    EXPECT_EQ(run.batches[0].records_in, records);
    EXPECT_EQ(run.batches[0].written, records);
    EXPECT_EQ(Rows().size(), records);
    auto history = table::TableHistory(*LocalFileSystem(), options_.table);
    ASSERT_TRUE(history.has_value());
    EXPECT_EQ(history->size(), 1u);
  }

  // The table's rows, each as a map of column to JSON text.
  std::vector<std::map<std::string, std::string>> Rows() {
    std::vector<std::map<std::string, std::string>> out;
    auto scanned = table::ScanTable(
        LocalFileSystem(), options_.table, {}, [&](std::string_view row) -> Status {
          auto json = ParseJson(row);
          if (!json.has_value()) return Fail(json.error());
          std::map<std::string, std::string> m;
          for (const JsonMember& member : json->members()) {
            m[member.key] = member.value.is_string() ? member.value.as_string()
                            : member.value.is_null() ? "null"
                                                     : member.value.number_text();
          }
          out.push_back(std::move(m));
          return Ok();
        });
    EXPECT_TRUE(scanned.has_value()) << scanned.error().message();
    return out;
  }

  std::vector<std::string> Columns() {
    auto snapshot = table::LoadSnapshot(*LocalFileSystem(), options_.table);
    std::vector<std::string> out;
    if (!snapshot.has_value()) return out;
    for (const schema::Field& f : snapshot->schema->fields()) out.push_back(f.name());
    return out;
  }

  std::string ReadFile(const fs::path& p) {
    std::ifstream in(p);
    return std::string(std::istreambuf_iterator<char>(in), {});
  }

  sluice::testing::ScopedTempDir tmp_{"sluice_ingest"};
  const std::filesystem::path& root_ = tmp_.path();
  IngestOptions options_;
  int landed_ = 0;
};

TEST_F(FolderIngestTest, Seed004NewColumnJoinsWithoutStoppingAndMismatchesAreRescued) {
  options_.auto_loader.infer_column_types = true;
  Land("orders-001.json",
       "{\"order_id\":1,\"customer\":\"ann\",\"amount\":10.5}\n"
       "{\"order_id\":2,\"customer\":\"bob\",\"amount\":20.0}\n");
  IngestRun first = Run();
  ASSERT_EQ(first.batches.size(), 1u);
  EXPECT_EQ(first.batches[0].written, 2u);
  EXPECT_EQ(first.schema_version, 0);
  EXPECT_EQ(Columns(),
            (std::vector<std::string>{"amount", "customer", "order_id", "_rescued_data"}));

  Land("orders-002.json",
       "{\"order_id\":3,\"customer\":\"cy\",\"amount\":5.0,\"coupon\":\"X1\"}\n"
       "{\"order_id\":\"four\",\"customer\":\"di\",\"amount\":7.0}\n"
       "{broken\n");
  IngestRun second = Run();
  ASSERT_FALSE(second.stopped);
  ASSERT_EQ(second.batches.size(), 1u);
  const BatchReport& b = second.batches[0];
  EXPECT_EQ(b.records_in, 3u);
  EXPECT_EQ(b.written, 2u);
  EXPECT_EQ(b.rescued, 1u);
  EXPECT_EQ(b.quarantined, 1u);
  EXPECT_TRUE(b.invariant_holds());
  EXPECT_EQ(b.added_columns, std::vector<std::string>{"coupon"});
  EXPECT_EQ(second.schema_version, 1);
  auto cols = Columns();
  EXPECT_NE(std::find(cols.begin(), cols.end(), "coupon"), cols.end());

  auto rows = Rows();
  ASSERT_EQ(rows.size(), 4u);
  int rescued = 0;
  for (auto& r : rows) {
    if (r["customer"] == "cy") {
      EXPECT_EQ(r["coupon"], "X1");
    }
    if (r["customer"] == "di") {
      EXPECT_EQ(r["order_id"], "null");
      EXPECT_NE(r["_rescued_data"].find("\"order_id\":\"four\""), std::string::npos);
      ++rescued;
    }
  }
  EXPECT_EQ(rescued, 1);
  // The malformed line is in the quarantine, once; a third run reads nothing.
  std::string quarantine = ReadFile(root_ / "ckpt" / "quarantine.jsonl");
  EXPECT_NE(quarantine.find("{broken"), std::string::npos);
  EXPECT_EQ(Run().batches.size(), 0u);
  EXPECT_EQ(ReadFile(root_ / "ckpt" / "quarantine.jsonl"), quarantine);
  EXPECT_EQ(Rows().size(), 4u);

  // The commit says what the batch did.
  auto snapshot = table::LoadSnapshot(*LocalFileSystem(), options_.table);
  ASSERT_TRUE(snapshot.has_value());
  EXPECT_EQ(snapshot->app_versions.at(second.checkpoint_id), 1);
}

TEST_F(FolderIngestTest, StringsUnlessInferColumnTypesAndHintsWin) {
  options_.auto_loader.schema_hints = "amount DECIMAL(10,2)";
  Land("a.json", "{\"id\":1,\"amount\":2.5,\"tags\":{\"k\":\"v\"}}\n");
  Run();
  auto snapshot = table::LoadSnapshot(*LocalFileSystem(), options_.table);
  ASSERT_TRUE(snapshot.has_value());
  EXPECT_EQ(dialects::spark::WriteDdl(*snapshot->schema).value,
            "amount DECIMAL(10,2),id STRING,tags STRUCT<k: STRING>,_rescued_data STRING");
}

TEST_F(FolderIngestTest, FailOnNewColumnsStopsAndWritesNothingOfTheBatch) {
  options_.evolution_mode = EvolutionMode::kFailOnNewColumns;
  Land("1.json", "{\"id\":\"1\"}\n");
  ASSERT_EQ(Run().batches.size(), 1u);
  Land("2.json", "{\"id\":\"2\",\"extra\":\"x\"}\n");
  IngestRun stopped = Run();
  ASSERT_TRUE(stopped.stopped);
  EXPECT_EQ(stopped.stopped->kind, IngestStop::Kind::kNewColumns);
  EXPECT_EQ(stopped.stopped->columns, std::vector<std::string>{"extra"});
  EXPECT_EQ(Rows().size(), 1u);
  // The file is not consumed: after switching to addNewColumns it is read.
  options_.evolution_mode = EvolutionMode::kAddNewColumns;
  IngestRun resumed = Run();
  ASSERT_EQ(resumed.batches.size(), 1u);
  EXPECT_EQ(resumed.batches[0].added_columns, std::vector<std::string>{"extra"});
  EXPECT_EQ(Rows().size(), 2u);
}

TEST_F(FolderIngestTest, RescueModeKeepsTheSchemaAndRescuesNewColumns) {
  options_.evolution_mode = EvolutionMode::kRescue;
  Land("1.json", "{\"id\":\"1\"}\n");
  Run();
  Land("2.json", "{\"id\":\"2\",\"extra\":\"x\"}\n");
  IngestRun run = Run();
  ASSERT_EQ(run.batches.size(), 1u);
  EXPECT_EQ(run.batches[0].rescued, 1u);
  EXPECT_EQ(run.schema_version, 0);
  EXPECT_EQ(Columns(), (std::vector<std::string>{"id", "_rescued_data"}));
  bool found = false;
  for (auto& r : Rows()) {
    if (r["id"] == "2") found = r["_rescued_data"].find("\"extra\":\"x\"") != std::string::npos;
  }
  EXPECT_TRUE(found);
}

TEST_F(FolderIngestTest, NoneModeWithASchemaIgnoresNewColumnsAndQuarantinesMismatches) {
  auto schema = dialects::spark::ReadDdl("id BIGINT, name STRING");
  ASSERT_TRUE(schema.has_value());
  options_.schema = schema->value;  // mode defaults to none with a schema
  Land("1.json", "{\"id\":1,\"name\":\"a\",\"extra\":true}\n{\"id\":\"x\",\"name\":\"b\"}\n");
  IngestRun run = Run();
  ASSERT_EQ(run.batches.size(), 1u);
  EXPECT_EQ(run.batches[0].written, 1u);
  EXPECT_EQ(run.batches[0].quarantined, 1u);
  EXPECT_EQ(Columns(), (std::vector<std::string>{"id", "name"}));
  EXPECT_NE(ReadFile(root_ / "ckpt" / "quarantine.jsonl").find("type_mismatch"), std::string::npos);
}

TEST_F(FolderIngestTest, TypeWideningModeWidensAlongAutoLoadersTable) {
  auto schema = dialects::spark::ReadDdl("id INT, amount INT");
  ASSERT_TRUE(schema.has_value());
  options_.schema = schema->value;
  options_.evolution_mode = EvolutionMode::kAddNewColumnsWithTypeWidening;
  options_.auto_loader.infer_column_types = true;
  // JSON numbers without a fraction infer as BIGINT: INT widens to it.
  Land("1.json", "{\"id\":1,\"amount\":3000000000}\n");
  IngestRun first = Run();
  ASSERT_EQ(first.batches.size(), 1u);
  EXPECT_EQ(first.batches[0].widened_columns, (std::vector<std::string>{"amount", "id"}));
  // A string where a number was is no widening: rescued, the type kept.
  Land("2.json", "{\"id\":2,\"amount\":\"lots\",\"note\":\"big\"}\n");
  IngestRun second = Run();
  ASSERT_EQ(second.batches.size(), 1u);
  EXPECT_TRUE(second.batches[0].widened_columns.empty());
  EXPECT_EQ(second.batches[0].added_columns, std::vector<std::string>{"note"});
  EXPECT_EQ(second.batches[0].rescued, 1u);
  auto snapshot = table::LoadSnapshot(*LocalFileSystem(), options_.table);
  ASSERT_TRUE(snapshot.has_value());
  EXPECT_EQ(snapshot->schema->struct_type()->FindField("amount")->type()->kind(),
            schema::TypeKind::kInt64);
  bool big = false;
  for (auto& r : Rows()) big = big || r["amount"] == "3000000000";
  EXPECT_TRUE(big);
}

TEST_F(FolderIngestTest, ALostCheckpointIsRefusedRatherThanWritingTwice) {
  Land("1.json", "{\"id\":\"1\"}\n");
  Run();
  fs::remove_all(root_ / "ckpt");
  for (int attempt = 0; attempt < 2; ++attempt) {  // refused every time, not only the first
    auto again = RunFolderIngest(options_, {});
    ASSERT_FALSE(again.has_value());
    EXPECT_NE(again.error().message().find("new checkpoint"), std::string::npos);
  }
  EXPECT_EQ(Rows().size(), 1u);
  options_.allow_new_checkpoint = true;
  Run();
  EXPECT_EQ(Rows().size(), 2u);
}

TEST_F(FolderIngestTest, OneProcessAtATimeHoldsACheckpoint) {
  auto first = Checkpoint::Open(options_.checkpoint, {"folder", options_.source, options_.table});
  ASSERT_TRUE(first.has_value());
  auto second = Checkpoint::Open(options_.checkpoint, {"folder", options_.source, options_.table});
  ASSERT_FALSE(second.has_value());
  EXPECT_EQ(second.error().code(), ErrorCode::kConflict);
  first->reset();
  EXPECT_TRUE(Checkpoint::Open(options_.checkpoint, {"folder", options_.source, options_.table})
                  .has_value());
}

TEST_F(FolderIngestTest, AFileGoneAfterItsBatchWasPlannedIsQuarantinedNotAStop) {
  Land("1.json", "{\"id\":\"1\"}\n");
  Land("2.json", "{\"id\":\"2\"}\n");
  {
    auto ckpt = Checkpoint::Open(options_.checkpoint, {"folder", options_.source, options_.table});
    ASSERT_TRUE(ckpt.has_value());
    Batch planned;
    for (const char* name : {"1.json", "2.json"}) {
      const std::string path = (root_ / "land" / name).string();
      auto info = LocalFileSystem()->Stat(path);
      ASSERT_TRUE(info.has_value());
      planned.files.push_back({path, info->size, info->modified_ms});
    }
    ASSERT_TRUE((*ckpt)->Plan(planned).has_value());
  }
  fs::remove(root_ / "land" / "2.json");
  auto schema = dialects::spark::ReadDdl("id STRING");
  options_.schema = schema->value;
  IngestRun run = Run();
  ASSERT_EQ(run.batches.size(), 1u);
  EXPECT_EQ(run.batches[0].unreadable_files, 1u);
  EXPECT_EQ(run.batches[0].written, 1u);
  EXPECT_NE(ReadFile(root_ / "ckpt" / "quarantine.jsonl").find("the file is gone"),
            std::string::npos);
}

TEST_F(FolderIngestTest, AFileChangedSinceItsBatchWasPlannedWaitsForALaterBatch) {
  Land("1.json", "{\"id\":\"1\"}\n");
  {
    auto ckpt = Checkpoint::Open(options_.checkpoint, {"folder", options_.source, options_.table});
    ASSERT_TRUE(ckpt.has_value());
    Batch planned;
    const std::string path = (root_ / "land" / "1.json").string();
    planned.files.push_back({path, 9, 0});  // as it was when planned: shorter
    ASSERT_TRUE((*ckpt)->Plan(planned).has_value());
  }
  // The planned batch reads nothing of it and is dropped, not committed empty; the file is
  // found again, whole, by the next one.
  ExpectOneBatchInOneCommit(Run(), 1);
}

TEST_F(FolderIngestTest, TheIngestNeverReadsWhatItWritesInsideTheFolder) {
  options_.checkpoint = (root_ / "land" / "ckpt").string();
  options_.table = (root_ / "land" / "table").string();
  options_.report = (root_ / "land" / "reports.jsonl").string();
  Land("1.json", "{\"id\":\"1\"}\n{broken\n");
  ASSERT_EQ(Run().batches.size(), 1u);
  Land("2.json", "{\"id\":\"2\"}\n");
  IngestRun second = Run();
  ASSERT_EQ(second.batches.size(), 1u);
  EXPECT_EQ(second.batches[0].files.size(), 1u);
  EXPECT_TRUE(second.batches[0].added_columns.empty());
  EXPECT_EQ(Rows().size(), 2u);
}

TEST_F(FolderIngestTest, AnOlderCopyOfTheCheckpointIsRefused) {
  Land("1.json", "{\"id\":\"1\"}\n");
  Run();
  fs::copy(root_ / "ckpt", root_ / "ckpt.bak", fs::copy_options::recursive);
  Land("2.json", "{\"id\":\"2\"}\n");
  Run();
  fs::remove_all(root_ / "ckpt");
  fs::rename(root_ / "ckpt.bak", root_ / "ckpt");
  fs::remove(root_ / "ckpt" / "lock");
  Land("3.json", "{\"id\":\"3\"}\n");
  auto run = RunFolderIngest(options_, {});
  ASSERT_FALSE(run.has_value());
  EXPECT_NE(run.error().message().find("older copy"), std::string::npos);
  EXPECT_EQ(Rows().size(), 2u);
}

TEST_F(FolderIngestTest, ACheckpointOfAnotherSourceIsRefused) {
  Land("1.json", "{\"id\":\"1\"}\n");
  Run();
  IngestOptions other = options_;
  other.source = (root_ / "elsewhere").string();
  auto run = RunFolderIngest(other, {});
  ASSERT_FALSE(run.has_value());
  EXPECT_NE(run.error().message().find("belongs to the source"), std::string::npos);
}

TEST_F(FolderIngestTest, UnreadableFilesAreQuarantinedWholeAndTheRestIsWritten) {
  options_.format = data::RecordFormat::kParquet;
  Land("bad.parquet", "PAR1 this is not a parquet file at all PAR1");
  auto schema = dialects::spark::ReadDdl("id BIGINT");
  ASSERT_TRUE(schema.has_value());
  options_.schema = schema->value;
  IngestRun run = Run();
  ASSERT_EQ(run.batches.size(), 1u);
  EXPECT_EQ(run.batches[0].unreadable_files, 1u);
  std::string quarantine = ReadFile(root_ / "ckpt" / "quarantine.jsonl");
  EXPECT_NE(quarantine.find("unreadable_file"), std::string::npos);
  EXPECT_NE(quarantine.find("bad.parquet"), std::string::npos);
  EXPECT_EQ(Run().batches.size(), 0u);  // not read again
}

TEST_F(FolderIngestTest, HiddenAndYoungFilesWaitAndBatchesAreCut) {
  Land(".orders-3.json.tmp", "{\"id\":\"half\n");
  Land("_SUCCESS", "");
  Land("day=1/a.json", "{\"id\":\"1\"}\n");
  Land("day=2/b.json", "{\"id\":\"2\"}\n");
  Land("c.json", "{\"id\":\"3\"}\n");
  std::ofstream(root_ / "land" / "young.json") << "{\"id\":\"4\"}\n";  // modified now
  options_.min_file_age_ms = 60000;
  options_.max_files_per_batch = 2;
  IngestRun run = Run();
  ASSERT_EQ(run.batches.size(), 2u);
  EXPECT_EQ(run.batches[0].files.size(), 2u);
  EXPECT_EQ(run.batches[1].files.size(), 1u);
  EXPECT_EQ(Rows().size(), 3u);
  options_.min_file_age_ms = 0;
  EXPECT_EQ(Run().batches.size(), 1u);
  EXPECT_EQ(Rows().size(), 4u);
}

TEST_F(FolderIngestTest, CsvLandingReadsByHeader) {
  options_.format = data::RecordFormat::kCsv;
  options_.auto_loader.infer_column_types = true;
  Land("1.csv", "id,name\n1,ann\n2,bob\n");
  Land("2.csv", "name,id,city\ncy,3,Oslo\n");
  IngestRun run = Run();
  ASSERT_EQ(run.batches.size(), 1u);
  EXPECT_EQ(run.batches[0].written, 3u);
  bool oslo = false;
  for (auto& r : Rows()) oslo = oslo || (r["city"] == "Oslo" && r["id"] == "3");
  EXPECT_TRUE(oslo);
}

TEST_F(FolderIngestTest, ATableChangedUnderTheIngestStopsIt) {
  Land("1.json", "{\"id\":\"1\",\"n\":\"x\"}\n");
  Run();
  // Someone replaces the table's schema: `n` is now a number.
  auto data = root_ / "replacement.jsonl";
  std::ofstream(data) << "{\"id\":\"9\",\"n\":9}\n";
  table::TableWriteOptions w;
  w.mode = table::WriteMode::kOverwrite;
  w.overwrite_schema = true;
  DiscardSink none;
  auto replaced = table::WriteTable(LocalFileSystem(), options_.table, {data.string()}, w, none);
  ASSERT_TRUE(replaced.has_value());
  ASSERT_EQ(replaced->outcome, table::WriteOutcome::kCommitted);
  Land("2.json", "{\"id\":\"2\",\"n\":\"y\"}\n");
  IngestRun run = Run();
  ASSERT_TRUE(run.stopped);
  EXPECT_EQ(run.stopped->kind, IngestStop::Kind::kRejected);
  EXPECT_EQ(Rows().size(), 1u);  // the replacement's row only
}

TEST_F(FolderIngestTest, SchemaVersionsAreKeptInTheSchemaLocation) {
  options_.schema_location = (root_ / "schemas").string();
  Land("1.json", "{\"a\":\"1\"}\n");
  Run();
  Land("2.json", "{\"a\":\"2\",\"b\":\"3\"}\n");
  Run();
  SchemaLocation location(LocalFileSystem(), options_.schema_location);
  auto all = location.All();
  ASSERT_TRUE(all.has_value());
  ASSERT_EQ(all->size(), 2u);
  EXPECT_EQ((*all)[0].reason, "inferred");
  EXPECT_EQ((*all)[1].reason, "batch 1 added b");
  EXPECT_TRUE(fs::exists(root_ / "schemas" / "_schemas" / "1"));
}

}  // namespace
}  // namespace sluice::ingest

namespace sluice::ingest {
namespace {

TEST_F(FolderIngestTest, ParquetAndAvroLandingsKeepTheirFilesTypes) {
  // Parquet files as sluice writes them (any writer's would do), then Avro container files.
  auto pq = root_ / "orders.jsonl";
  std::ofstream(pq) << "{\"id\":1,\"amount\":2.5}\n{\"id\":2,\"amount\":4.0}\n";
  auto ddl = root_ / "orders.ddl";
  std::ofstream(ddl) << "id BIGINT, amount DOUBLE\n";
  std::string cmd = std::string(SLUICE_BINARY) + " validate -q --schema " + ddl.string() + " " +
                    pq.string() + " --rescued-column '' -o " +
                    (root_ / "land" / "a.parquet").string();
  ASSERT_EQ(std::system(cmd.c_str()), 0);
  options_.format = data::RecordFormat::kParquet;
  IngestRun run = Run();
  ASSERT_EQ(run.batches.size(), 1u);
  EXPECT_EQ(run.batches[0].written, 2u);
  auto snapshot = table::LoadSnapshot(*LocalFileSystem(), options_.table);
  ASSERT_TRUE(snapshot.has_value());
  EXPECT_EQ(dialects::spark::WriteDdl(*snapshot->schema).value,
            "id BIGINT,amount DOUBLE,_rescued_data STRING");

  IngestOptions avro = options_;
  avro.source = (root_ / "avro").string();
  avro.table = (root_ / "avro_table").string();
  avro.checkpoint = (root_ / "avro_ckpt").string();
  avro.format = data::RecordFormat::kAvro;
  fs::create_directories(avro.source);
  auto schema = dialects::avro::Parse(
      R"({"type":"record","name":"Order","fields":[{"name":"id","type":"long"},)"
      R"({"name":"coupon","type":["null","string"],"default":null}]})");
  ASSERT_TRUE(schema.has_value());
  std::vector<JsonValue> records;
  for (const char* text : {R"({"id":1,"coupon":null})", R"({"id":2,"coupon":{"string":"K"}})"}) {
    records.push_back(*ParseJson(text));
  }
  auto file = data::WriteAvroContainer(*schema, records, data::AvroCodec::kDeflate);
  ASSERT_TRUE(file.has_value()) << file.error().message();
  std::ofstream(fs::path(avro.source) / "o.avro", std::ios::binary) << *file;
  IngestRun avro_run = Run(avro);
  ASSERT_EQ(avro_run.batches.size(), 1u);
  EXPECT_EQ(avro_run.batches[0].written, 2u);
  auto avro_snapshot = table::LoadSnapshot(*LocalFileSystem(), avro.table);
  ASSERT_TRUE(avro_snapshot.has_value());
  EXPECT_EQ(dialects::spark::WriteDdl(*avro_snapshot->schema).value,
            "id BIGINT,coupon STRING,_rescued_data STRING");
}

TEST_F(FolderIngestTest, TheCommitAndTheReportFileAccountForEveryRecord) {
  options_.report = (root_ / "reports.jsonl").string();
  Land("1.json", "{\"id\":\"1\"}\n{oops\n{\"id\":\"2\",\"id\":\"3\"}\n");
  IngestRun run = Run();
  ASSERT_EQ(run.batches.size(), 1u);
  const BatchReport& b = run.batches[0];
  EXPECT_EQ(b.records_in, 3u);
  EXPECT_TRUE(b.invariant_holds());
  // The report file holds the same report, once.
  std::string reports = ReadFile(root_ / "reports.jsonl");
  auto parsed = ParseJson(reports.substr(0, reports.find('\n')));
  ASSERT_TRUE(parsed.has_value());
  auto back = BatchReportFromJson(*parsed);
  ASSERT_TRUE(back.has_value());
  EXPECT_EQ(*back, b);
  EXPECT_EQ(std::count(reports.begin(), reports.end(), '\n'), 1);
  // The commit's operationMetrics carry the accounting.
  auto history = table::TableHistory(*LocalFileSystem(), options_.table);
  ASSERT_TRUE(history.has_value());
  const table::HistoryEntry& e = history->front();
  EXPECT_EQ(e.operation, "STREAMING UPDATE");
  auto metric = [&](const char* key) {
    const JsonValue* v = e.operation_metrics.Find(key);
    return v != nullptr && v->is_string() ? v->as_string() : std::string("?");
  };
  EXPECT_EQ(metric("numSourceRows"), std::to_string(b.records_in));
  EXPECT_EQ(metric("numOutputRows"), std::to_string(b.written));
  EXPECT_EQ(metric("numQuarantinedRows"), std::to_string(b.quarantined));
  EXPECT_EQ(e.operation_parameters.Find("epochId")->as_string(), "0");
  EXPECT_EQ(e.operation_parameters.Find("queryId")->as_string(), run.checkpoint_id);
}

// The machine's file system, with a hook run after a folder is listed: a writer that is still
// adding to a file the discovery has just seen.
class ListHookFileSystem final : public FileSystem {
 public:
  explicit ListHookFileSystem(std::function<void(std::string_view)> after_list)
      : base_(LocalFileSystem()), after_list_(std::move(after_list)) {}
  Result<std::string> ReadFile(std::string_view p, size_t max) override {
    return base_->ReadFile(p, max);
  }
  Status WriteFile(std::string_view p, std::string_view d) override {
    return base_->WriteFile(p, d);
  }
  Status CreateFileExclusive(std::string_view p, std::string_view d) override {
    return base_->CreateFileExclusive(p, d);
  }
  Result<std::unique_ptr<SequentialFile>> OpenSequential(std::string_view p) override {
    return base_->OpenSequential(p);
  }
  Result<std::unique_ptr<RandomAccessFile>> OpenRandomAccess(std::string_view p) override {
    return base_->OpenRandomAccess(p);
  }
  Result<std::unique_ptr<WritableFile>> OpenWritable(std::string_view p,
                                                     const WriteOptions& o) override {
    return base_->OpenWritable(p, o);
  }
  Result<bool> Exists(std::string_view p) override { return base_->Exists(p); }
  Result<FileInfo> Stat(std::string_view p) override { return base_->Stat(p); }
  Result<std::vector<std::string>> ListDir(std::string_view p) override {
    return base_->ListDir(p);
  }
  Result<std::vector<FileInfo>> ListFiles(std::string_view p) override {
    auto out = base_->ListFiles(p);
    if (after_list_) after_list_(p);
    return out;
  }
  Status CreateDirs(std::string_view p) override { return base_->CreateDirs(p); }
  Status RemoveFile(std::string_view p) override { return base_->RemoveFile(p); }
  Status Rename(std::string_view a, std::string_view b) override { return base_->Rename(a, b); }
  Status AppendAt(std::string_view p, uint64_t off, std::string_view d) override {
    return base_->AppendAt(p, off, d);
  }

 private:
  std::shared_ptr<FileSystem> base_;
  std::function<void(std::string_view)> after_list_;
};

// A file that grows between the look that found it and the batch that reads it is left for a
// later look: no empty commit, no report for a batch of nothing, every record written once.
TEST_F(FolderIngestTest, AFileStillBeingWrittenIsReadWholeByALaterBatch) {
  Land("1.json", "{\"id\":\"1\"}\n");
  int lists = 0;
  const fs::path file = root_ / "land" / "1.json";
  options_.fs = std::make_shared<ListHookFileSystem>([&](std::string_view listed) {
    if (listed != options_.source || ++lists != 1) return;
    std::ofstream(file, std::ios::app) << "{\"id\":\"2\"}\n";
    fs::last_write_time(file, fs::last_write_time(file) + std::chrono::seconds(5));
  });
  ExpectOneBatchInOneCommit(Run(), 2);
}

TEST_F(FolderIngestTest, WatchPicksUpFilesThatArriveWhileItRuns) {
  std::atomic<bool> stop{false};
  RunControl control;
  control.watch = true;
  control.interval_ms = 50;
  control.stop = &stop;
  std::atomic<int> batches{0};
  control.on_batch = [&](const BatchReport&) { ++batches; };
  Land("1.json", "{\"id\":\"1\"}\n");
  Result<IngestRun> result = Fail(ErrorCode::kInternal, "not run");
  std::thread runner([&] { result = RunFolderIngest(options_, control); });
  auto wait_for = [&](int n) {
    for (int i = 0; i < 400 && batches.load() < n; ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(25));
    }
    return batches.load();
  };
  EXPECT_EQ(wait_for(1), 1);
  Land("2.json", "{\"id\":\"2\",\"late\":\"yes\"}\n");
  EXPECT_EQ(wait_for(2), 2);
  Land("3.json", "{\"id\":\"3\"}\n");
  EXPECT_EQ(wait_for(3), 3);
  stop = true;
  runner.join();
  ASSERT_TRUE(result.has_value()) << result.error().message();
  EXPECT_EQ(result->batches.size(), 3u);
  EXPECT_EQ(result->batches[1].added_columns, std::vector<std::string>{"late"});
  EXPECT_EQ(Rows().size(), 3u);
}

}  // namespace
}  // namespace sluice::ingest

namespace sluice::ingest {
namespace {

// Every malformed record kind the data plane knows, in one landing file: each is quarantined
// once, the good ones written, the books balanced, nothing crashes.
TEST_F(FolderIngestTest, HostileRecordsAreQuarantinedAndTheBooksBalance) {
  std::string text;
  text += "{\"id\":1,\"name\":\"ok\"}\n";
  text += "{\"id\":2,\"name\":\"trunc\n";                 // unterminated string
  text += "[1,2,3]\n";                                    // not an object
  text += "42\n";                                         // a bare number
  text += "\"just a string\"\n";                          // a bare string
  text += "{\"id\":3,\"name\":\"\xff\xfe bad utf8\"}\n";  // invalid UTF-8
  static constexpr char kNulKey[] = "{\"id\":4,\"na\0me\":\"nul\"}\n";
  text.append(kNulKey, sizeof kNulKey - 1);          // a NUL inside a key
  text += std::string(3000, '[') + "\n";             // nesting far too deep
  text += "{\"id\":1e999999,\"name\":\"huge\"}\n";   // a number out of every range
  text += "{\"id\":5,\"id\":6,\"name\":\"dup\"}\n";  // a repeated key
  text += "{\"id\":7,\"name\":\"x\"} trailing\n";    // garbage after the record
  text += "\n   \n";                                 // blank lines: no records
  text += "{\"id\":8,\"name\":\"crlf\"}\r\n";        // CRLF
  text += "{\"id\":9,\"name\":\"ok2\"}\n";
  Land("hostile.json", text);
  auto schema = dialects::spark::ReadDdl("id BIGINT, name STRING");
  ASSERT_TRUE(schema.has_value());
  options_.schema = schema->value;
  options_.rescued_column_given = true;  // none mode, rescuing what does not fit
  IngestRun run = Run();
  ASSERT_EQ(run.batches.size(), 1u);
  const BatchReport& b = run.batches[0];
  EXPECT_TRUE(b.invariant_holds()) << b.records_in << " " << b.written << " " << b.quarantined;
  EXPECT_GE(b.quarantined, 7u);
  EXPECT_GE(b.malformed, 6u);
  auto rows = Rows();
  EXPECT_EQ(rows.size(), b.written);
  std::set<std::string> names;
  for (auto& r : rows) names.insert(r["name"]);
  for (const char* good : {"ok", "ok2", "crlf"}) EXPECT_TRUE(names.contains(good)) << good;
  // Each quarantined record once, with its line.
  std::string quarantine = ReadFile(root_ / "ckpt" / "quarantine.jsonl");
  EXPECT_EQ(static_cast<uint64_t>(std::count(quarantine.begin(), quarantine.end(), '\n')),
            b.quarantined);
  EXPECT_NE(quarantine.find("\"line\":2"), std::string::npos);
  // A run over the same folder afterwards reads nothing and changes nothing.
  EXPECT_EQ(Run().batches.size(), 0u);
  EXPECT_EQ(ReadFile(root_ / "ckpt" / "quarantine.jsonl"), quarantine);
}

// A run that would never end (reading its own output again and again) is stopped after a few
// batches or 20 seconds, so that the test fails instead of hanging.
IngestRun RunAtMostBatches(const IngestOptions& options, int most) {
  std::atomic<bool> stop{false};
  RunControl control;
  int batches = 0;
  control.stop = &stop;
  control.on_batch = [&](const BatchReport&) {
    if (++batches >= most) stop = true;
  };
  std::atomic<bool> done{false};
  std::thread watchdog([&] {
    const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    while (!done && std::chrono::steady_clock::now() < until) {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    stop = true;
  });
  auto run = RunFolderIngest(options, control);
  done = true;
  watchdog.join();
  EXPECT_TRUE(run.has_value()) << run.error().message();
  return run.has_value() ? *run : IngestRun{};
}

TEST_F(FolderIngestTest, OwnPathsWithTrailingSlashesInsideTheFolderAreNotRead) {
  const std::string land = (root_ / "land").string();
  options_.checkpoint = land + "/ckpt/";
  options_.table = land + "/table//";
  options_.schema_location = land + "/./schemas/";
  options_.quarantine = land + "/./bad.jsonl";
  options_.report = land + "//reports.jsonl";
  Land("a.json", "{\"id\":\"1\"}\n{broken\n");
  IngestRun first = RunAtMostBatches(options_, 4);
  ASSERT_EQ(first.batches.size(), 1u);
  EXPECT_EQ(first.batches[0].files, std::vector<std::string>{land + "/a.json"});
  EXPECT_TRUE(fs::exists(root_ / "land" / "bad.jsonl"));
  EXPECT_TRUE(fs::exists(root_ / "land" / "schemas" / "_schemas" / "0"));
  // Nothing of its own is new to a second run.
  EXPECT_TRUE(RunAtMostBatches(options_, 4).batches.empty());
}

TEST_F(FolderIngestTest, ACheckpointKnowsItsTableWithOrWithoutATrailingSlash) {
  Land("1.json", "{\"id\":\"1\"}\n");
  ASSERT_EQ(Run().batches.size(), 1u);
  Land("2.json", "{\"id\":\"2\"}\n");
  IngestOptions slashed = options_;
  slashed.table += "/";
  slashed.checkpoint += "/";
  slashed.source += "/./";
  ASSERT_EQ(Run(slashed).batches.size(), 1u);
  EXPECT_EQ(Rows().size(), 2u);

  // A checkpoint that recorded its table with a trailing slash (before paths were normalised)
  // still belongs to the table named without one.
  IngestOptions old = options_;
  old.checkpoint = (root_ / "old_ckpt").string();
  old.table = (root_ / "old_table").string();
  ASSERT_TRUE(
      Checkpoint::Open(old.checkpoint, {"folder", old.source + "/", old.table + "/"}).has_value());
  EXPECT_EQ(Run(old).batches.size(), 1u);
}

// A file that changed after its batch was planned (a crash in between, then an append) is left
// for a later batch: the planned batch's report lists only what it read.
TEST_F(FolderIngestTest, TheReportListsOnlyTheFilesTheBatchRead) {
  options_.report = (root_ / "reports.jsonl").string();
  Land("a.json", "{\"id\":\"1\"}\n");
  Land("z.json", "{\"id\":\"2\"}\n");
  const std::string a = (root_ / "land" / "a.json").string();
  const std::string z = (root_ / "land" / "z.json").string();
  {
    auto ckpt = Checkpoint::Open(options_.checkpoint, {"folder", options_.source, options_.table});
    ASSERT_TRUE(ckpt.has_value());
    Batch planned;
    for (const std::string& path : {a, z}) {
      auto info = LocalFileSystem()->Stat(path);
      ASSERT_TRUE(info.has_value());
      planned.files.push_back({path, info->size, info->modified_ms});
    }
    ASSERT_TRUE((*ckpt)->Plan(planned).has_value());
  }
  std::ofstream(root_ / "land" / "a.json", std::ios::app) << "{\"id\":\"3\"}\n";
  IngestRun run = Run();
  ASSERT_EQ(run.batches.size(), 2u);
  EXPECT_EQ(run.batches[0].files, std::vector<std::string>{z});
  EXPECT_EQ(run.batches[0].records_in, 1u);
  EXPECT_EQ(run.batches[1].files, std::vector<std::string>{a});
  EXPECT_EQ(run.batches[1].records_in, 2u);
  // The report file says the same, and each commit's numFiles counts the data files it added.
  std::string reports = ReadFile(root_ / "reports.jsonl");
  auto first = ParseJson(reports.substr(0, reports.find('\n')));
  ASSERT_TRUE(first.has_value());
  auto back = BatchReportFromJson(*first);
  ASSERT_TRUE(back.has_value());
  EXPECT_EQ(back->files, std::vector<std::string>{z});
  auto history = table::TableHistory(*LocalFileSystem(), options_.table);
  ASSERT_TRUE(history.has_value());
  for (const table::HistoryEntry& e : *history) {
    const JsonValue* n = e.operation_metrics.Find("numFiles");
    ASSERT_NE(n, nullptr);
    EXPECT_EQ(n->as_string(), std::to_string(e.files_added));
  }
}

// Writes `jsonl` as the Parquet file `name` of the landing with the types of `ddl`.
void WriteParquet(const fs::path& root, const std::string& name, const std::string& ddl,
                  const std::string& jsonl) {
  const fs::path lines = root / (name + ".jsonl");
  const fs::path types = root / (name + ".ddl");
  std::ofstream(lines) << jsonl;
  std::ofstream(types) << ddl << "\n";
  std::string cmd = std::string(SLUICE_BINARY) + " validate -q --schema " + types.string() + " " +
                    lines.string() + " --rescued-column '' -o " + (root / "land" / name).string();
  ASSERT_EQ(std::system(cmd.c_str()), 0);
}

TEST_F(FolderIngestTest, ParquetFilesThatDisagreeOnATypeMergeToTheWidest) {
  WriteParquet(root_, "a.parquet", "id INT, d DATE, m DECIMAL(9,2), r FLOAT",
               "{\"id\":1,\"d\":\"2026-08-15\",\"m\":1.25,\"r\":0.5}\n");
  WriteParquet(root_, "b.parquet", "id BIGINT, d TIMESTAMP, m DECIMAL(12,3), r DOUBLE",
               "{\"id\":5000000000,\"d\":\"2026-08-16T10:00:00Z\",\"m\":123456789.125,"
               "\"r\":0.25}\n");
  options_.format = data::RecordFormat::kParquet;
  IngestRun run = Run();
  ASSERT_EQ(run.batches.size(), 1u);
  EXPECT_EQ(run.batches[0].written, 2u);
  EXPECT_EQ(run.batches[0].rescued, 0u);
  auto snapshot = table::LoadSnapshot(*LocalFileSystem(), options_.table);
  ASSERT_TRUE(snapshot.has_value());
  EXPECT_EQ(dialects::spark::WriteDdl(*snapshot->schema).value,
            "id BIGINT,d TIMESTAMP,m DECIMAL(12,3),r DOUBLE,_rescued_data STRING");
  std::set<std::string> ids;
  for (auto& r : Rows()) ids.insert(r["id"]);
  EXPECT_EQ(ids, (std::set<std::string>{"1", "5000000000"}));

  // Hints win over the merged type.
  IngestOptions hinted = options_;
  hinted.table = (root_ / "hinted").string();
  hinted.checkpoint = (root_ / "hinted_ckpt").string();
  hinted.auto_loader.schema_hints = "id DECIMAL(20,0), m DECIMAL(15,3)";
  ASSERT_EQ(Run(hinted).batches.size(), 1u);
  auto hinted_snapshot = table::LoadSnapshot(*LocalFileSystem(), hinted.table);
  ASSERT_TRUE(hinted_snapshot.has_value());
  EXPECT_EQ(dialects::spark::WriteDdl(*hinted_snapshot->schema).value,
            "id DECIMAL(20,0),d TIMESTAMP,m DECIMAL(15,3),r DOUBLE,_rescued_data STRING");
}

TEST_F(FolderIngestTest, ParquetTypesWithNoWiderOneStopTheRunNamingBothFiles) {
  WriteParquet(root_, "a.parquet", "id INT", "{\"id\":1}\n");
  WriteParquet(root_, "b.parquet", "id BOOLEAN", "{\"id\":true}\n");
  options_.format = data::RecordFormat::kParquet;
  auto run = RunFolderIngest(options_, {});
  ASSERT_FALSE(run.has_value());
  EXPECT_NE(run.error().message().find("a.parquet has int32"), std::string::npos)
      << run.error().message();
  EXPECT_NE(run.error().message().find("b.parquet has boolean"), std::string::npos);
}

// A JSON object infers as a struct; where the schema holds a map, its fields are the map's
// entries, and a new field in an entry's value is a new field of the map's value.
TEST_F(FolderIngestTest, ANewFieldInAMapValueIsAddedOrStopsTheRun) {
  auto schema = dialects::spark::ReadDdl("id BIGINT, m MAP<STRING, STRUCT<a: BIGINT>>");
  ASSERT_TRUE(schema.has_value());
  options_.schema = schema->value;
  options_.evolution_mode = EvolutionMode::kFailOnNewColumns;
  options_.auto_loader.infer_column_types = true;
  Land("1.json", "{\"id\":1,\"m\":{\"k\":{\"a\":1}}}\n");
  ASSERT_EQ(Run().batches.size(), 1u);
  Land("2.json", "{\"id\":2,\"m\":{\"k\":{\"a\":2},\"j\":{\"a\":3,\"b\":\"new\"}}}\n");
  IngestRun stopped = Run();
  ASSERT_TRUE(stopped.stopped);
  EXPECT_EQ(stopped.stopped->columns, std::vector<std::string>{"m{value}.b"});

  options_.evolution_mode = EvolutionMode::kAddNewColumns;
  IngestRun added = Run();
  ASSERT_EQ(added.batches.size(), 1u);
  EXPECT_EQ(added.batches[0].added_columns, std::vector<std::string>{"m{value}.b"});
  EXPECT_EQ(added.batches[0].rescued, 0u);
  auto snapshot = table::LoadSnapshot(*LocalFileSystem(), options_.table);
  ASSERT_TRUE(snapshot.has_value());
  EXPECT_EQ(dialects::spark::WriteDdl(*snapshot->schema).value,
            "id BIGINT,m MAP<STRING, STRUCT<a: BIGINT, b: STRING>>,_rescued_data STRING");
}

TEST_F(FolderIngestTest, ANewFieldInTheValueOfAMapAHintGaveIsAdded) {
  options_.auto_loader.schema_hints = "m MAP<STRING, STRUCT<a: BIGINT>>";
  options_.auto_loader.infer_column_types = true;
  Land("1.json", "{\"id\":1,\"m\":{\"k\":{\"a\":1}}}\n");
  ASSERT_EQ(Run().batches.size(), 1u);
  Land("2.json", "{\"id\":2,\"m\":{\"k\":{\"a\":2,\"b\":\"new\"}}}\n");
  IngestRun run = Run();
  ASSERT_EQ(run.batches.size(), 1u);
  EXPECT_EQ(run.batches[0].added_columns, std::vector<std::string>{"m{value}.b"});
  EXPECT_EQ(run.batches[0].rescued, 0u);
  auto snapshot = table::LoadSnapshot(*LocalFileSystem(), options_.table);
  ASSERT_TRUE(snapshot.has_value());
  // The hint's type is kept where it speaks (a stays BIGINT, never widened or replaced).
  EXPECT_EQ(dialects::spark::WriteDdl(*snapshot->schema).value,
            "id BIGINT,m MAP<STRING, STRUCT<a: BIGINT, b: STRING>>,_rescued_data STRING");
}

}  // namespace
}  // namespace sluice::ingest
