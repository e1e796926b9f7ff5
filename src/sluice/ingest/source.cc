#include <filesystem>
#include <utility>

#include "sluice/ingest/inference.h"
#include "sluice/ingest/source_internal.h"
#include "sluice/table/history.h"
#include "sluice/table/snapshot.h"

namespace sluice::ingest {

namespace {

// A checkpoint restored from an older copy does not know batches the table holds of it: it
// would plan other files under those batch numbers, and the table would skip them as done.
Status CheckNotOlderThanTable(const IngestOptions& options, Checkpoint& checkpoint) {
  auto snapshot = table::LoadSnapshot(*options.fs, options.table);
  if (!snapshot.has_value()) {
    if (snapshot.error().code() == ErrorCode::kNotFound) return Ok();
    return Fail(snapshot.error());
  }
  auto it = snapshot->app_versions.find(checkpoint.id());
  if (it == snapshot->app_versions.end()) return Ok();
  SLUICE_ASSIGN_OR_RETURN(int64_t next, checkpoint.NextBatchId());
  if (it->second < next) return Ok();
  return InvalidArgument("the checkpoint " + options.checkpoint + " knows batches up to " +
                         std::to_string(next - 1) + ", but the table " + options.table +
                         " holds its batch " + std::to_string(it->second) +
                         ": it is an older copy. Restore the newest checkpoint");
}

}  // namespace

std::string NormalPath(std::string_view path) {
  if (path.empty()) return std::string();
  std::string out = std::filesystem::path(path).lexically_normal().string();
  // lexically_normal keeps a trailing separator ("ckpt/" stays so), which would make the folder
  // and its contents compare unequal to the same folder named without one.
  while (out.size() > 1 && out.back() == '/') out.pop_back();
  return out;
}

IngestOptions WithNormalPaths(const IngestOptions& options) {
  IngestOptions out = options;
  if (!options.source.starts_with("kafka://")) out.source = NormalPath(options.source);
  for (std::string* path :
       {&out.table, &out.checkpoint, &out.schema_location, &out.quarantine, &out.report}) {
    *path = NormalPath(*path);
  }
  return out;
}

Result<std::unique_ptr<Checkpoint>> OpenCheckpoint(const IngestOptions& options,
                                                   const std::string& kind) {
  if (options.source.empty() || options.table.empty() || options.checkpoint.empty()) {
    return InvalidArgument("an ingest needs a source, a table and a checkpoint");
  }
  SLUICE_ASSIGN_OR_RETURN(
      std::unique_ptr<Checkpoint> checkpoint,
      Checkpoint::Open(options.checkpoint, {kind, options.source, options.table}));
  SLUICE_TRY(CheckNotOlderThanTable(options, *checkpoint));
  // A checkpoint that has written nothing yet (new, or left by a refused start) must not
  // write again what another checkpoint of this source wrote. Kafka needs no such guard: the
  // table holds each partition's offsets, whichever member or checkpoint wrote them.
  SLUICE_ASSIGN_OR_RETURN(int64_t next, checkpoint->NextBatchId());
  if (kind != "folder" || next > 0 || options.allow_new_checkpoint) return checkpoint;
  auto history = table::TableHistory(*options.fs, options.table);
  if (!history.has_value()) {
    if (history.error().code() == ErrorCode::kNotFound) return checkpoint;
    return Fail(history.error());
  }
  for (const table::HistoryEntry& e : *history) {
    if (e.operation != "STREAMING UPDATE") continue;
    const JsonValue* source = e.operation_parameters.Find("source");
    const JsonValue* query = e.operation_parameters.Find("queryId");
    if (source == nullptr || !source->is_string() || source->as_string() != options.source) {
      continue;
    }
    if (query != nullptr && query->is_string() && query->as_string() == checkpoint->id()) continue;
    return InvalidArgument(
        "the table " + options.table + " holds batches ingested from " + options.source +
        " by checkpoint " + (query != nullptr && query->is_string() ? query->as_string() : "?") +
        " (version " + std::to_string(e.version) + "), but " + options.checkpoint +
        " is a new checkpoint: its files would be written again. Restore that checkpoint, or "
        "pass --allow-new-checkpoint to ingest everything again");
  }
  return checkpoint;
}

Result<SchemaVersion> EnsureSchema(const IngestOptions& options, SchemaLocation& location,
                                   const std::function<Result<schema::SchemaPtr>()>& infer) {
  SLUICE_ASSIGN_OR_RETURN(std::optional<SchemaVersion> latest, location.Latest());
  if (options.schema) {
    SLUICE_ASSIGN_OR_RETURN(schema::SchemaPtr given, WithRescuedColumn(*options.schema, options));
    if (latest && latest->schema->Equals(*given)) return std::move(*latest);
    if (latest && latest->reason.starts_with("batch ")) {
      // The given schema evolved since (addNewColumns with a schema): keep the evolved one
      // unless the user changed the given schema itself.
      SLUICE_ASSIGN_OR_RETURN(auto versions, location.All());
      for (const SchemaVersion& v : versions) {
        if (v.reason == "given" && v.schema->Equals(*given)) return std::move(*latest);
      }
    }
    return location.Write(*given, "given");
  }
  if (latest) return std::move(*latest);
  SLUICE_ASSIGN_OR_RETURN(schema::SchemaPtr inferred, infer());
  SLUICE_ASSIGN_OR_RETURN(schema::SchemaPtr ready, WithRescuedColumn(*inferred, options));
  return location.Write(*ready, "inferred");
}

}  // namespace sluice::ingest
