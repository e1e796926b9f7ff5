#include "sluice/table/checkpoint.h"

#include <fmt/format.h>

#include "sluice/base/json.h"
#include "sluice/base/json_writer.h"
#include "sluice/data/parquet_sink.h"
#include "sluice/dialects/spark/spark.h"
#include "sluice/table/log_path.h"

namespace sluice::table {
namespace {

// The columns Delta Spark writes (the golden tables' _last_checkpoint names the same), plus
// add.clusteringProvider.
constexpr std::string_view kCheckpointDdl =
    "txn STRUCT<appId: STRING, version: BIGINT, lastUpdated: BIGINT>, "
    "add STRUCT<path: STRING, partitionValues: MAP<STRING, STRING>, size: BIGINT, "
    "modificationTime: BIGINT, dataChange: BOOLEAN, tags: MAP<STRING, STRING>, "
    "deletionVector: STRUCT<storageType: STRING, pathOrInlineDv: STRING, offset: INT, "
    "sizeInBytes: INT, cardinality: BIGINT, maxRowIndex: BIGINT>, baseRowId: BIGINT, "
    "defaultRowCommitVersion: BIGINT, clusteringProvider: STRING, stats: STRING>, "
    "remove STRUCT<path: STRING, deletionTimestamp: BIGINT, dataChange: BOOLEAN, "
    "extendedFileMetadata: BOOLEAN, partitionValues: MAP<STRING, STRING>, size: BIGINT, "
    "deletionVector: STRUCT<storageType: STRING, pathOrInlineDv: STRING, offset: INT, "
    "sizeInBytes: INT, cardinality: BIGINT, maxRowIndex: BIGINT>, baseRowId: BIGINT, "
    "defaultRowCommitVersion: BIGINT>, "
    "metaData STRUCT<id: STRING, name: STRING, description: STRING, "
    "format: STRUCT<provider: STRING, options: MAP<STRING, STRING>>, schemaString: STRING, "
    "partitionColumns: ARRAY<STRING>, configuration: MAP<STRING, STRING>, createdTime: BIGINT>, "
    "protocol STRUCT<minReaderVersion: INT, minWriterVersion: INT, "
    "readerFeatures: ARRAY<STRING>, writerFeatures: ARRAY<STRING>>, "
    "domainMetadata STRUCT<domain: STRING, configuration: STRING, removed: BOOLEAN>";

struct CheckpointSchema {
  std::shared_ptr<const data::ParquetRecordPlan> plan;
  std::string json;
};

Result<const CheckpointSchema*> Schema() {
  static const Result<CheckpointSchema> schema = []() -> Result<CheckpointSchema> {
    SLUICE_ASSIGN_OR_RETURN(auto parsed, dialects::spark::ReadDdl(kCheckpointDdl));
    CheckpointSchema out;
    out.json = dialects::spark::WriteJson(*parsed.value).value;
    SLUICE_ASSIGN_OR_RETURN(out.plan, data::ParquetRecordPlan::Compile(parsed.value));
    return out;
  }();
  if (!schema.has_value()) return Fail(schema.error());
  return &*schema;
}

// The checkpoint's rows: protocol, metaData, txns, domains, tombstones (without stats and
// tags, as the protocol asks), live files.
std::string Rows(const Snapshot& s, size_t* count, size_t* adds) {
  std::string out;
  auto row = [&](const Action& a) {
    out += ActionToJson(a);
    out += '\n';
    ++*count;
  };
  row(s.protocol);
  row(s.metadata);
  for (const auto& [app, version] : s.app_versions) row(Txn{app, version, std::nullopt});
  for (const auto& [name, domain] : s.domains) row(domain);
  for (const RemoveFile& r : s.tombstones) {
    RemoveFile copy = r;
    copy.stats.reset();
    copy.tags.reset();
    row(copy);
  }
  for (const AddFile& a : s.files) row(a);
  *adds = s.files.size();
  return out;
}

}  // namespace

const std::string& CheckpointSchemaJson() {
  static const std::string empty;
  Result<const CheckpointSchema*> schema = Schema();
  return schema.has_value() ? (*schema)->json : empty;
}

Status WriteCheckpoint(FileSystem& fs, const Snapshot& snapshot) {
  SLUICE_ASSIGN_OR_RETURN(const CheckpointSchema* schema, Schema());
  size_t count = 0;
  size_t adds = 0;
  std::string rows = Rows(snapshot, &count, &adds);
  std::string path = LogFilePath(snapshot.root, CheckpointFileName(snapshot.version));
  SLUICE_ASSIGN_OR_RETURN(auto file, fs.OpenWritable(path));
  SLUICE_ASSIGN_OR_RETURN(auto sink, data::ParquetRecordSink::Open(schema->plan, std::move(file)));
  Status appended = sink->AppendLines(rows);
  if (!appended.has_value()) {
    return Fail(appended.error().WithContext(fmt::format("{}: writing the checkpoint", path)));
  }
  SLUICE_TRY(sink->Close());

  JsonWriter w;
  w.BeginObject();
  w.Key("version").Int(snapshot.version);
  w.Key("size").Int(static_cast<int64_t>(count));
  w.Key("sizeInBytes").Int(sink->bytes_written());
  w.Key("numOfAddFiles").Int(static_cast<int64_t>(adds));
  SLUICE_ASSIGN_OR_RETURN(JsonValue schema_json, ParseJson(schema->json));
  w.Key("checkpointSchema").Value(schema_json);
  w.EndObject();
  return fs.WriteFile(LogFilePath(snapshot.root, kLastCheckpoint), w.str());
}

Status WriteCheckpointFile(FileSystem& fs, const std::string& path,
                           const std::vector<Action>& actions) {
  SLUICE_ASSIGN_OR_RETURN(const CheckpointSchema* schema, Schema());
  SLUICE_ASSIGN_OR_RETURN(auto file, fs.OpenWritable(path));
  SLUICE_ASSIGN_OR_RETURN(auto sink, data::ParquetRecordSink::Open(schema->plan, std::move(file)));
  for (const Action& a : actions) {
    Status appended = sink->Append(ActionToJson(a));
    if (!appended.has_value()) {
      return Fail(appended.error().WithContext(fmt::format("{}: writing a checkpoint", path)));
    }
  }
  return sink->Close();
}

Status WriteCheckpointAt(FileSystem& fs, std::string_view root, int64_t version) {
  SLUICE_ASSIGN_OR_RETURN(Snapshot snapshot, LoadSnapshot(fs, root, {.version = version}));
  return WriteCheckpoint(fs, snapshot);
}

}  // namespace sluice::table
