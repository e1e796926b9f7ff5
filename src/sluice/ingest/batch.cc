#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <utility>

#include "sluice/base/json_writer.h"
#include "sluice/base/strings.h"
#include "sluice/ingest/batch_internal.h"
#include "sluice/ingest/inference.h"
#include "sluice/ingest/schema_evolution.h"
#include "sluice/table/history.h"
#include "sluice/table/write.h"

namespace sluice::ingest {
namespace {

std::string JoinPaths(const std::vector<std::string>& paths) {
  std::string out;
  for (const std::string& p : paths) out += (out.empty() ? "" : ", ") + p;
  return out;
}

bool Adds(EvolutionMode mode) {
  return mode == EvolutionMode::kAddNewColumns ||
         mode == EvolutionMode::kAddNewColumnsWithTypeWidening;
}

Result<uint64_t> SizeOf(FileSystem& fs, const std::string& path) {
  auto info = fs.Stat(path);
  if (!info.has_value()) {
    if (info.error().code() == ErrorCode::kNotFound) return uint64_t{0};
    return Fail(info.error());
  }
  return info->size;
}

Status CreateParentDirs(FileSystem& fs, const std::string& path) {
  const size_t slash = path.rfind('/');
  if (slash == std::string::npos || slash == 0) return Ok();
  return fs.CreateDirs(path.substr(0, slash));
}

std::string WithTableVersion(const std::string& report_json, int64_t version, bool recovered) {
  auto parsed = ParseJson(report_json);
  if (!parsed.has_value() || !parsed->is_object()) return report_json;
  parsed->Set("tableVersion", version < 0 ? JsonValue::Null() : JsonValue::Int(version));
  if (recovered) parsed->Set("status", JsonValue::String("recovered"));
  return ToJson(*parsed);
}

}  // namespace

int64_t NowMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

void CrashPoint(const char* where) {
  static const long target = [] {
    const char* v = std::getenv("SLUICE_INGEST_CRASH_AT");
    return v == nullptr ? 0L : std::strtol(v, nullptr, 10);
  }();
  static std::atomic<long> passed{0};
  if (target <= 0) return;
  if (++passed == target) {
    (void)where;
    ::kill(::getpid(), SIGKILL);
  }
}

std::string QuarantinePath(const IngestOptions& options) {
  return options.quarantine.empty() ? options.checkpoint + "/quarantine.jsonl" : options.quarantine;
}

EvolutionMode EffectiveMode(const IngestOptions& options) {
  if (options.evolution_mode) return *options.evolution_mode;
  return options.schema ? EvolutionMode::kNone : EvolutionMode::kAddNewColumns;
}

BatchRunner::BatchRunner(const IngestOptions& options, Checkpoint& checkpoint,
                         SchemaLocation& location, SchemaVersion current)
    : options_(options),
      checkpoint_(checkpoint),
      location_(location),
      current_(std::move(current)),
      mode_(EffectiveMode(options)) {}

// Auto Loader's rules on the batch's records; a new schema version when they add or widen.
Result<std::optional<IngestStop>> BatchRunner::Evolve(const BatchInput& input,
                                                      BatchReport& report) {
  if (mode_ == EvolutionMode::kRescue || mode_ == EvolutionMode::kNone) return std::nullopt;
  BatchSchemas incoming{input.batch_schema, nullptr};
  if (incoming.hinted == nullptr) {
    SLUICE_ASSIGN_OR_RETURN(incoming, InferBatchSchemas(options_, input.paths, input.format));
  }
  EvolveOptions eo;
  eo.widen = mode_ == EvolutionMode::kAddNewColumnsWithTypeWidening;
  eo.case_sensitive = options_.auto_loader.case_sensitive;
  eo.rescued_column = options_.auto_loader.rescued_data_column;
  SLUICE_ASSIGN_OR_RETURN(SchemaEvolution evolved,
                          EvolveSchema(*current_.schema, *incoming.hinted, eo));
  if (incoming.unhinted != nullptr) {
    // The hints fix the types they name (new columns included, and nothing they name is
    // widened); fields the data holds beyond a hinted type, such as a new field in the value
    // of a map a hint gave, are new columns as any other.
    EvolveOptions add_only = eo;
    add_only.widen = false;
    SLUICE_ASSIGN_OR_RETURN(SchemaEvolution more,
                            EvolveSchema(*evolved.schema, *incoming.unhinted, add_only));
    evolved.schema = std::move(more.schema);
    evolved.added.insert(evolved.added.end(), more.added.begin(), more.added.end());
  }
  if (!evolved.changed()) return std::nullopt;
  if (mode_ == EvolutionMode::kFailOnNewColumns) {
    IngestStop stop;
    stop.kind = IngestStop::Kind::kNewColumns;
    stop.before = current_.schema;
    stop.after = evolved.schema;
    stop.columns = evolved.added;
    stop.message = "[UNKNOWN_FIELD_EXCEPTION.NEW_FIELDS_IN_FILE] new columns " +
                   JoinPaths(evolved.added) + " in batch " + std::to_string(report.batch) +
                   " (schemaEvolutionMode failOnNewColumns): nothing of it was written";
    return std::optional<IngestStop>(std::move(stop));
  }
  std::string reason = "batch " + std::to_string(report.batch);
  if (!evolved.added.empty()) reason += " added " + JoinPaths(evolved.added);
  if (!evolved.widened.empty()) {
    reason += (evolved.added.empty() ? " widened " : "; widened ") + JoinPaths(evolved.widened);
  }
  SLUICE_ASSIGN_OR_RETURN(current_, location_.Write(*evolved.schema, std::move(reason)));
  CrashPoint("schema version written");
  report.added_columns = std::move(evolved.added);
  report.widened_columns = std::move(evolved.widened);
  return std::nullopt;
}

// Whether a pass over the batch with the current schema shows what the mode would evolve:
// keys the schema lacks (new columns), and with widening, values that do not fit their type.
bool BatchRunner::ShowsEvolution(const data::ValidateReport& validated) const {
  for (const data::ViolationCount& v : validated.violations) {
    if (v.kind == data::ViolationKind::kUnknownField) return true;
    if (mode_ == EvolutionMode::kAddNewColumnsWithTypeWidening &&
        (v.kind == data::ViolationKind::kTypeMismatch ||
         v.kind == data::ViolationKind::kOutOfRange ||
         v.kind == data::ViolationKind::kDecimalPrecision)) {
      return true;
    }
  }
  return false;
}

table::TableWriteOptions BatchRunner::WriteOptions(const Batch& batch,
                                                   const BatchInput& input) const {
  table::TableWriteOptions w;
  w.mode = table::WriteMode::kAppend;
  w.merge_schema = Adds(mode_);
  w.type_widening = mode_ == EvolutionMode::kAddNewColumnsWithTypeWidening;
  w.data_schema = current_.schema;
  w.partition_by = options_.partition_by;
  for (const auto& [k, v] : options_.table_properties) w.properties[k] = v;
  w.format = input.format;
  w.csv = options_.csv;
  w.threads = options_.threads;
  w.rescued_column = options_.auto_loader.rescued_data_column;
  w.ignore_unknown_fields = mode_ == EvolutionMode::kNone && !options_.rescued_column_given;
  w.case_sensitive = true;  // Auto Loader's readerCaseSensitive: another case is rescued
  w.quarantine_mismatches = true;
  w.txns.push_back(table::Txn{checkpoint_.id(), batch.id, std::nullopt});
  for (const table::Txn& t : input.txns) w.txns.push_back(t);
  w.check_snapshot = input.check_snapshot;
  w.operation = "STREAMING UPDATE";
  w.operation_parameters = {{"outputMode", "Append"},
                            {"queryId", checkpoint_.id()},
                            {"epochId", std::to_string(batch.id)},
                            {"source", options_.source}};
  w.validation_metrics = true;
  return w;
}

// Nothing readable (every file quarantined whole, every message undecodable): no commit, the
// lines are delivered all the same.
Result<BatchOutcome> BatchRunner::WriteNothing(const Batch& batch, const BatchInput& input,
                                               BatchReport report) {
  report.schema_version = current_.version;
  report.records_in = report.quarantined = input.source_quarantined;
  report.malformed = input.source_malformed;
  report.bytes = input.bytes.value_or(0);
  SLUICE_TRY(checkpoint_.Stage(batch.id, current_.version, input.source_quarantine,
                               ToJson(BatchReportToJson(report))));
  CrashPoint("batch staged");
  // Offsets read (Kafka) are committed even when nothing of them is written, so the messages
  // are not read and quarantined again; a table that does not exist yet cannot hold them (the
  // group's committed offsets do).
  SLUICE_ASSIGN_OR_RETURN(table::Transaction txn,
                          table::Transaction::Begin(options_.fs, options_.table));
  if (!input.txns.empty() && txn.snapshot() != nullptr) {
    if (input.check_snapshot) SLUICE_TRY(input.check_snapshot(txn.snapshot()));
    txn.SetTxn(table::Txn{checkpoint_.id(), batch.id, std::nullopt});
    for (const table::Txn& t : input.txns) txn.SetTxn(t);
    table::CommitOptions co;
    co.operation = "STREAMING UPDATE";
    for (const auto& [k, v] : WriteOptions(batch, input).operation_parameters) {
      co.operation_parameters.Set(k, JsonValue::String(v));
    }
    // The metrics a batch's commit always has (docs/ingest.md), none of them left out because
    // nothing was written.
    auto metric = [&](const char* name, uint64_t value) {
      co.operation_metrics.Set(name, JsonValue::String(std::to_string(value)));
    };
    metric("numFiles", 0);
    metric("numOutputRows", 0);
    metric("numOutputBytes", 0);
    metric("numSourceRows", report.records_in);
    metric("numRescuedRows", 0);
    metric("numQuarantinedRows", report.quarantined);
    SLUICE_ASSIGN_OR_RETURN(table::CommitResult committed, txn.Commit(co));
    report.table_version = committed.version;
    CrashPoint("committed");
  }
  report.duration_ms = NowMs() - report.started_ms;
  Batch b = batch;
  b.quarantine = input.source_quarantine;
  b.report = ToJson(BatchReportToJson(report));
  SLUICE_TRY(Deliver(b, report.table_version));
  BatchOutcome out;
  out.report = std::move(report);
  return out;
}

Result<BatchOutcome> BatchRunner::Write(const Batch& batch, const BatchInput& input) {
  BatchOutcome out;
  BatchReport report;
  report.batch = batch.id;
  report.source = options_.source;
  for (const BatchFile& f : batch.files) report.files.push_back(f.path);
  report.ranges = batch.ranges;
  report.started_ms = NowMs();
  report.unreadable_files = input.unreadable_files;
  if (input.paths.empty()) return WriteNothing(batch, input, std::move(report));
  // A mode that may evolve reads the batch with the current schema first and infers the
  // batch's schema only when that pass shows new columns (or, widening, values that do not
  // fit): most batches change nothing, and pay for one pass. A source that knows the batch's
  // schema (Kafka) evolves up front.
  const bool may_evolve = mode_ != EvolutionMode::kRescue && mode_ != EvolutionMode::kNone;
  bool probe = may_evolve && input.batch_schema == nullptr;
  if (may_evolve && !probe) {
    SLUICE_ASSIGN_OR_RETURN(out.stop, Evolve(input, report));
    if (out.stop) {
      SLUICE_TRY(checkpoint_.Drop(batch.id));
      return out;
    }
  }
  for (;;) {
    report.schema_version = current_.version;
    bool evolve = false;
    std::string staged_quarantine;
    table::TableWriteOptions w = WriteOptions(batch, input);
    w.before_commit = [&](std::string_view quarantine,
                          const data::ValidateReport& validated) -> Status {
      if (probe && ShowsEvolution(validated)) {
        evolve = true;
        return Fail(ErrorCode::kInternal, "the batch's schema evolves: written again");
      }
      staged_quarantine = input.source_quarantine;
      staged_quarantine.append(input.annotate_quarantine ? input.annotate_quarantine(quarantine)
                                                         : std::string(quarantine));
      report.records_in = validated.records_in + input.source_quarantined;
      report.rescued = validated.rescued;
      report.malformed = validated.malformed + input.source_malformed;
      report.bytes = input.bytes.value_or(validated.bytes);
      // Rows a CHECK constraint quarantines are among the valid ones here; the commit's result
      // says how many, and their quarantine lines are staged with the others.
      report.quarantined = validated.quarantined + input.source_quarantined;
      report.written = validated.valid;
      SLUICE_TRY(checkpoint_.Stage(batch.id, current_.version, staged_quarantine,
                                   ToJson(BatchReportToJson(report))));
      CrashPoint("batch staged");
      return Ok();
    };
    // What WriteTable would write to its quarantine after the commit is dropped: the batch's
    // lines were staged in the checkpoint before it and are delivered from there.
    DiscardSink discard;
    Result<table::TableWriteResult> written =
        table::WriteTable(options_.fs, options_.table, input.paths, w, discard);
    if (!written.has_value() && evolve) {
      probe = false;
      SLUICE_ASSIGN_OR_RETURN(out.stop, Evolve(input, report));
      if (out.stop) {
        SLUICE_TRY(checkpoint_.Drop(batch.id));
        return out;
      }
      continue;
    }
    if (!written.has_value()) return Fail(written.error());
    return Finish(batch, std::move(*written), std::move(report), std::move(staged_quarantine));
  }
}

Result<BatchOutcome> BatchRunner::Finish(const Batch& batch, table::TableWriteResult result,
                                         BatchReport report, std::string staged_quarantine) {
  BatchOutcome out;
  if (result.outcome == table::WriteOutcome::kRejected) {
    IngestStop refused;
    refused.kind = IngestStop::Kind::kRejected;
    refused.message =
        "the table refused batch " + std::to_string(batch.id) + ": " + result.rejection;
    refused.before = result.schema;
    refused.after = current_.schema;
    out.stop = std::move(refused);
    return out;
  }
  if (result.outcome == table::WriteOutcome::kSkipped) {
    SLUICE_ASSIGN_OR_RETURN(std::optional<BatchReport> recovered, Recover(batch));
    if (recovered) out.report = std::move(recovered);
    return out;
  }
  CrashPoint("committed");
  report.table_version = result.version;
  report.written = result.rows_written;
  report.quarantined += result.constraint_quarantined;
  report.duration_ms = NowMs() - report.started_ms;
  Batch committed = batch;
  committed.quarantine = std::move(staged_quarantine);
  committed.report = ToJson(BatchReportToJson(report));
  SLUICE_TRY(Deliver(committed, result.version));
  out.report = std::move(report);
  return out;
}

Status BatchRunner::Deliver(const Batch& batch, int64_t table_version) {
  const std::string qpath = QuarantinePath(options_);
  int64_t qoff = batch.quarantine_offset;
  int64_t roff = batch.report_offset;
  if (batch.state != BatchState::kCommitted) {
    SLUICE_ASSIGN_OR_RETURN(uint64_t qsize, SizeOf(*options_.fs, qpath));
    uint64_t rsize = 0;
    if (!options_.report.empty()) {
      SLUICE_ASSIGN_OR_RETURN(rsize, SizeOf(*options_.fs, options_.report));
    }
    qoff = static_cast<int64_t>(qsize);
    roff = static_cast<int64_t>(rsize);
    SLUICE_TRY(checkpoint_.MarkCommitted(batch.id, table_version, qoff, roff));
    CrashPoint("marked committed");
  }
  if (!batch.quarantine.empty()) {
    // As the table and checkpoint folders are, the quarantine's folder is made when absent.
    SLUICE_TRY(CreateParentDirs(*options_.fs, qpath));
    SLUICE_TRY(options_.fs->AppendAt(qpath, static_cast<uint64_t>(qoff), batch.quarantine));
    CrashPoint("quarantine delivered");
  }
  if (!options_.report.empty()) {
    SLUICE_TRY(CreateParentDirs(*options_.fs, options_.report));
    SLUICE_TRY(
        options_.fs->AppendAt(options_.report, static_cast<uint64_t>(roff), batch.report + "\n"));
  }
  return checkpoint_.MarkDone(batch.id);
}

Result<std::optional<int64_t>> BatchRunner::CommittedVersion(int64_t batch) {
  auto snapshot = table::LoadSnapshot(*options_.fs, options_.table);
  if (!snapshot.has_value()) {
    if (snapshot.error().code() == ErrorCode::kNotFound) return std::optional<int64_t>();
    return Fail(snapshot.error());
  }
  auto it = snapshot->app_versions.find(checkpoint_.id());
  if (it == snapshot->app_versions.end() || it->second < batch) return std::optional<int64_t>();
  // Which commit it was: the one whose commitInfo names this checkpoint and batch.
  SLUICE_ASSIGN_OR_RETURN(std::vector<table::HistoryEntry> history,
                          table::TableHistory(*options_.fs, options_.table));
  const std::string epoch = std::to_string(batch);
  for (const table::HistoryEntry& e : history) {
    const JsonValue* query = e.operation_parameters.Find("queryId");
    const JsonValue* epoch_id = e.operation_parameters.Find("epochId");
    if (query != nullptr && query->is_string() && query->as_string() == checkpoint_.id() &&
        epoch_id != nullptr && epoch_id->is_string() && epoch_id->as_string() == epoch) {
      return std::optional<int64_t>(e.version);
    }
  }
  return std::optional<int64_t>(-1);  // committed, its commitInfo gone (log cleanup)
}

Result<std::optional<BatchReport>> BatchRunner::Recover(const Batch& batch) {
  Batch b = batch;
  if (b.state == BatchState::kPlanned) {
    SLUICE_ASSIGN_OR_RETURN(std::optional<int64_t> committed, CommittedVersion(b.id));
    if (!committed) return std::optional<BatchReport>();
    b.table_version = *committed;
  }
  if (b.report.empty()) {
    // Committed without a staged report cannot happen (it is staged before the commit); a
    // report that says only what the checkpoint knows keeps the books honest anyway.
    BatchReport minimal;
    minimal.batch = b.id;
    minimal.source = options_.source;
    for (const BatchFile& f : b.files) minimal.files.push_back(f.path);
    minimal.ranges = b.ranges;
    b.report = ToJson(BatchReportToJson(minimal));
  }
  b.report = WithTableVersion(b.report, b.table_version, true);
  SLUICE_TRY(Deliver(b, b.table_version));
  SLUICE_ASSIGN_OR_RETURN(JsonValue json, ParseJson(b.report));
  SLUICE_ASSIGN_OR_RETURN(BatchReport report, BatchReportFromJson(json));
  return std::optional<BatchReport>(std::move(report));
}

}  // namespace sluice::ingest
