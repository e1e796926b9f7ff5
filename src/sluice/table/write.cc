#include "sluice/table/write.h"

#include <fmt/format.h>

#include <mutex>
#include <set>
#include <thread>

#include "sluice/base/json_writer.h"
#include "sluice/data/parquet_source.h"
#include "sluice/dialects/spark/spark.h"
#include "sluice/table/column_mapping.h"
#include "sluice/table/partition_values.h"
#include "sluice/table/properties.h"
#include "sluice/table/protocol.h"
#include "sluice/table/write_internal.h"

namespace sluice::table {
namespace {

using data::ViolationKind;

// Quarantine lines collected during a pass: a pass whose schema changes is run again, and only
// the last pass's quarantine is kept.
class BufferSink final : public ByteSink {
 public:
  Status Write(std::string_view bytes) override {
    std::lock_guard<std::mutex> lock(mu_);
    text_.append(bytes);
    return Ok();
  }
  const std::string& text() const { return text_; }

 private:
  std::mutex mu_;
  std::string text_;
};

bool IsRetype(ViolationKind k) {
  switch (k) {
    case ViolationKind::kTypeMismatch:
    case ViolationKind::kOutOfRange:
    case ViolationKind::kDecimalPrecision:
    case ViolationKind::kStringTooLong:
    case ViolationKind::kInvalidDate:
    case ViolationKind::kInvalidTimestamp:
      return true;
    case ViolationKind::kMalformed:
    case ViolationKind::kNullNotAllowed:
    case ViolationKind::kMissingRequired:
    case ViolationKind::kUnknownField:
    case ViolationKind::kCaseMismatch:
    case ViolationKind::kDuplicateKey:
    case ViolationKind::kNewColumn:
      return false;
  }
  return false;
}

bool IsNotNull(ViolationKind k) {
  return k == ViolationKind::kNullNotAllowed || k == ViolationKind::kMissingRequired;
}

// The (validated) schema of the inputs: --schema, Parquet footers, Avro writer schemas, or
// inferred by Spark's rules.
Result<schema::SchemaPtr> InputSchema(const std::shared_ptr<FileSystem>& fs,
                                      const std::vector<std::string>& inputs,
                                      const TableWriteOptions& options) {
  if (options.data_schema) return options.data_schema;
  data::InferRunOptions ro;
  ro.fs = fs;
  ro.format = options.format;
  ro.threads = options.threads;
  ro.csv = options.csv;
  if (options.format == data::RecordFormat::kCsv) ro.csv_infer.infer_schema = true;
  // Malformed records go to quarantine, not into a _corrupt_record column as Spark's reader
  // would put them: they are no part of the data's schema.
  ro.json.mode = data::ParseMode::kDropMalformed;
  SLUICE_ASSIGN_OR_RETURN(data::InferResult inferred, data::InferFiles(inputs, ro));
  return inferred.schema;
}

struct PassResult {
  data::ValidateReport report;
  std::unique_ptr<DataFileSink> files;
  std::string quarantine;
};

struct Target {
  schema::SchemaPtr schema;  // logical, with column mapping metadata
  std::vector<std::string> partitions;
  StringMap configuration;
  bool physical_names = false;
  bool tight_bounds = false;
};

Result<PassResult> RunPass(const std::shared_ptr<FileSystem>& fs, const std::string& root,
                           const std::vector<std::string>& inputs, const Target& target,
                           const TableWriteOptions& options, const TableConstraints& constraints,
                           const TableConstraints* replace_where) {
  const bool rescue = options.parse_mode == data::ParseMode::kPermissive &&
                      !options.rescued_column.empty() &&
                      target.schema->struct_type()->FindField(options.rescued_column) != nullptr;
  schema::SchemaPtr validate = target.schema;
  if (rescue) {
    std::vector<schema::Field> fields;
    for (const schema::Field& f : target.schema->fields()) {
      if (f.name() != options.rescued_column) fields.push_back(f);
    }
    SLUICE_ASSIGN_OR_RETURN(validate, schema::Schema::Make(std::move(fields)));
  }
  PassResult out;
  auto quarantine = std::make_unique<BufferSink>();
  DataFileOptions fo;
  fo.fs = fs;
  fo.root = root;
  fo.schema = target.schema;
  fo.partition_columns = target.partitions;
  fo.physical_names = target.physical_names;
  fo.configuration = target.configuration;
  fo.tight_bounds = target.tight_bounds;
  fo.max_rows_per_file = options.max_rows_per_file;
  fo.constraints = &constraints;
  fo.replace_where = replace_where;
  fo.on_violation = options.on_violation;
  fo.quarantine = quarantine.get();
  fo.writer.row_group_bytes = options.row_group_bytes;
  const unsigned threads =
      options.threads == 0 ? std::max(1u, std::thread::hardware_concurrency()) : options.threads;
  fo.writer.threads = static_cast<int>(std::min(threads, 4u));
  fo.parallel_files = std::min(threads, 8u);
  if (options.codec) {
    fo.writer.columns.codec = *options.codec;
  } else if (auto it = target.configuration.find("delta.parquet.compression.codec");
             it != target.configuration.end()) {
    if (it->second == "zstd") fo.writer.columns.codec = parquet::Codec::kZstd;
    if (it->second == "gzip") fo.writer.columns.codec = parquet::Codec::kGzip;
    if (it->second == "uncompressed" || it->second == "none") {
      fo.writer.columns.codec = parquet::Codec::kUncompressed;
    }
  }
  SLUICE_ASSIGN_OR_RETURN(out.files, DataFileSink::Open(std::move(fo)));
  data::ValidateRunOptions ro;
  ro.fs = fs;
  ro.format = options.format;
  ro.mode = options.parse_mode;
  ro.threads = options.threads;
  ro.csv = options.csv;
  ro.rescued_column = rescue ? options.rescued_column : "";
  ro.ignore_unknown_fields = options.ignore_unknown_fields;
  ro.match_fields_ignoring_case = !options.case_sensitive;
  ro.progress = options.progress;
  ro.stage = out.files->stage();
  Result<data::ValidateReport> report =
      data::ValidateFiles(inputs, validate, ro, *out.files, *quarantine);
  if (!report.has_value()) {
    if (out.files->failure()) {
      out.quarantine = quarantine->text();
      return out;  // a constraint stopped the pass: the caller rejects the write
    }
    out.files->Abort();
    return Fail(report.error());
  }
  out.report = std::move(*report);
  Status finished = out.files->Finish();
  if (!finished.has_value()) {
    if (out.files->failure()) return out;
    out.files->Abort();
    return Fail(finished.error());
  }
  out.quarantine = quarantine->text();
  return out;
}

// What a finished pass says about the data's fit to the table's schema.
struct Findings {
  std::set<std::string> retyped;         // paths whose values do not fit
  bool new_columns = false;              // keys the schema lacks
  std::set<std::string> unknown_fields;  // their paths
  bool case_mismatch = false;
  std::vector<std::string> not_null;  // paths where NOT NULL was broken
};

Findings Analyze(const data::ValidateReport& report) {
  Findings f;
  for (const data::ViolationCount& v : report.violations) {
    if (IsRetype(v.kind)) f.retyped.insert(v.path);
    if (v.kind == ViolationKind::kUnknownField) {
      f.new_columns = true;
      f.unknown_fields.insert(v.path);
    }
    if (v.kind == ViolationKind::kCaseMismatch) f.case_mismatch = true;
    if (IsNotNull(v.kind)) f.not_null.push_back(v.path);
  }
  return f;
}

std::string PartitionList(const std::vector<std::string>& columns) {
  std::string out = "[";
  for (size_t i = 0; i < columns.size(); ++i) {
    if (i > 0) out += ",";
    JsonWriter w;
    w.String(columns[i]);
    out += w.str();
  }
  return out + "]";
}

Result<schema::SchemaPtr> ParseSchemaString(const std::string& text) {
  SLUICE_ASSIGN_OR_RETURN(auto parsed, dialects::spark::ReadJson(text));
  return parsed.value;
}

void Reject(TableWriteResult& result, std::string why) {
  result.outcome = WriteOutcome::kRejected;
  if (result.rejection.empty()) result.rejection = std::move(why);
}

std::string ViolationText(const evolution::TableViolation& v) {
  std::string out =
      v.error_class.empty() ? v.message : fmt::format("[{}] {}", v.error_class, v.message);
  if (!v.path.empty()) out += fmt::format(" (at {})", v.path.ToString());
  return out;
}

constexpr std::string_view kReplaceWhereName = "replaceWhere";

// replaceWhere as sluice supports it: a predicate over partition columns only (Delta's
// original form; Delta 1.1+ also takes data columns, rewriting the files it splits).
Result<std::unique_ptr<TableConstraints>> ReplaceWherePredicate(const std::string& predicate,
                                                                const Metadata& metadata,
                                                                const schema::Schema& schema) {
  std::vector<schema::Field> partitions;
  for (const std::string& p : metadata.partition_columns) {
    if (const schema::Field* f = schema.struct_type()->FindField(p)) partitions.push_back(*f);
  }
  SLUICE_ASSIGN_OR_RETURN(schema::SchemaPtr partition_schema,
                          schema::Schema::Make(std::move(partitions)));
  Metadata only;
  only.configuration[std::string("delta.constraints.") + std::string(kReplaceWhereName)] =
      predicate;
  Result<TableConstraints> compiled = TableConstraints::Compile(only, *partition_schema);
  if (!compiled.has_value()) {
    if (!TableConstraints::Compile(only, schema).has_value()) return Fail(compiled.error());
    return Unimplemented(fmt::format(
        "--replace-where '{}' reads columns that are not partition columns; sluice replaces "
        "whole partitions only (partition columns: {})",
        predicate, PartitionList(metadata.partition_columns)));
  }
  auto out = std::make_unique<TableConstraints>(std::move(*compiled));
  return out;
}

// Whether a file's partition holds the predicate (it is then replaced).
Result<bool> PartitionHolds(const TableConstraints& predicate, const AddFile& file,
                            const Snapshot& snapshot) {
  JsonValue row = JsonValue::Object();
  for (const std::string& column : snapshot.metadata.partition_columns) {
    const schema::Field* f = snapshot.schema->struct_type()->FindField(column);
    if (f == nullptr) continue;
    auto it = file.partition_values.find(PhysicalName(*f));
    std::optional<std::string_view> text;
    if (it != file.partition_values.end() && it->second) text = *it->second;
    SLUICE_ASSIGN_OR_RETURN(JsonValue value, ParsePartitionValue(column, *f->type(), text));
    row.Set(column, std::move(value));
  }
  SLUICE_ASSIGN_OR_RETURN(std::optional<ConstraintViolation> outside, predicate.Check(row));
  return !outside.has_value();
}

// One write, step by step: plan the table's schema and metadata (from the data for a new table
// or overwriteSchema, from the table otherwise), meet typed data with Delta's rules, validate and
// write the files (a second pass when JSON or CSV records change the schema), refuse what the
// rules refuse, commit.
class TableWriter {
 public:
  TableWriter(std::shared_ptr<FileSystem> fs, const std::string& root,
              const std::vector<std::string>& inputs, const TableWriteOptions& options,
              ByteSink& quarantine)
      : fs_(std::move(fs)),
        root_(root),
        inputs_(inputs),
        options_(options),
        quarantine_(quarantine) {}

  Result<TableWriteResult> Run() {
    SLUICE_TRY(CheckOptions());
    SLUICE_ASSIGN_OR_RETURN(Transaction txn, Transaction::Begin(fs_, root_));
    txn_.emplace(std::move(txn));
    snapshot_ = txn_->snapshot();
    result_.read_version = txn_->read_version();
    if (AlreadyCommitted()) return result_;
    if (options_.check_snapshot) SLUICE_TRY(options_.check_snapshot(snapshot_));
    if (OverwritesAppendOnly()) return result_;
    typed_ = options_.data_schema != nullptr || options_.format == data::RecordFormat::kParquet ||
             options_.format == data::RecordFormat::kAvro;
    if (snapshot_ == nullptr || options_.overwrite_schema) {
      SLUICE_TRY(PlanFromData());
    } else {
      SLUICE_ASSIGN_OR_RETURN(bool ok, PlanOnTable());
      if (!ok) return result_;
    }
    SLUICE_TRY(SetTarget());
    if (!result_.created && !options_.overwrite_schema && typed_) {
      // Typed data meets the table by Delta's rules before anything is written.
      SLUICE_ASSIGN_OR_RETURN(schema::SchemaPtr incoming, InputSchema(fs_, inputs_, options_));
      SLUICE_ASSIGN_OR_RETURN(bool ok, Meet(*incoming));
      if (!ok) return result_;
    }
    SLUICE_ASSIGN_OR_RETURN(bool written, WriteFiles());
    if (!written || Refused()) return result_;
    return Commit();
  }

 private:
  Status CheckOptions() const {
    if (options_.overwrite_schema && options_.mode != WriteMode::kOverwrite) {
      return InvalidArgument(
          "overwriteSchema replaces the schema only with an overwrite, as Delta");
    }
    if (options_.replace_where && options_.mode != WriteMode::kOverwrite) {
      return InvalidArgument("replaceWhere applies to overwrites only");
    }
    if (options_.replace_where && options_.overwrite_schema) {
      return InvalidArgument(
          "[DELTA_REPLACE_WHERE_WITH_OVERWRITE_SCHEMA] overwriteSchema cannot be used with "
          "replaceWhere");
    }
    // Checked whether or not the write creates the table, so that a typo never waits for one.
    SLUICE_TRY(SplitTableProperties(options_.properties));
    return Ok();
  }

  // An idempotent writer's version the table holds already: nothing to do.
  bool AlreadyCommitted() {
    if (options_.txns.empty() || snapshot_ == nullptr) return false;
    for (const Txn& t : options_.txns) {
      auto it = snapshot_->app_versions.find(t.app_id);
      if (it == snapshot_->app_versions.end() || it->second < t.version) return false;
    }
    result_.outcome = WriteOutcome::kSkipped;
    result_.version = snapshot_->version;
    result_.schema = snapshot_->schema;
    return true;
  }

  // Delta's WriteIntoDelta refuses an overwrite of an append-only table before writing anything
  // (DeltaLog.assertRemovable), whatever files it would remove.
  bool OverwritesAppendOnly() {
    if (options_.mode != WriteMode::kOverwrite || snapshot_ == nullptr ||
        !PropertyTrue(snapshot_->metadata, "delta.appendOnly")) {
      return false;
    }
    Reject(result_,
           "[DELTA_CANNOT_MODIFY_APPEND_ONLY] This table is configured to only allow appends. If "
           "you would like to permit updates or deletes, use 'ALTER TABLE <table_name> SET "
           "TBLPROPERTIES (delta.appendOnly=false)'.");
    result_.verdict = evolution::MergeVerdict::kRejected;
    result_.schema = snapshot_->schema;
    return true;
  }

  // A new table (df.write.save) or overwriteSchema: the data's schema, all nullable as Delta
  // makes it, becomes the table's.
  Status PlanFromData() {
    SLUICE_ASSIGN_OR_RETURN(schema::SchemaPtr data_schema, InputSchema(fs_, inputs_, options_));
    SLUICE_ASSIGN_OR_RETURN(
        schema::SchemaPtr nullable,
        schema::Schema::FromStruct(schema::AsNullable(data_schema->struct_type())));
    metadata_changed_ = true;
    if (snapshot_ == nullptr) {
      result_.created = true;
      StringMap properties = options_.properties;
      if (options_.type_widening) properties["delta.enableTypeWidening"] = "true";
      SLUICE_ASSIGN_OR_RETURN(auto created, NewTableMetadata(*nullable, options_.partition_by,
                                                             properties, options_.constraints));
      protocol_ = std::move(created.first);
      metadata_ = std::move(created.second);
      result_.verdict = evolution::MergeVerdict::kEvolved;
      for (const schema::Field& f : nullable->fields()) {
        result_.changes.push_back({evolution::TableChangeKind::kColumnAdded,
                                   schema::FieldPath::Of(f.name()), "",
                                   dialects::spark::DataTypeSql(*f.type()), ""});
      }
      return Ok();
    }
    SLUICE_TRY(CheckWritable(snapshot_->protocol, snapshot_->metadata, *snapshot_->schema));
    SLUICE_ASSIGN_OR_RETURN(evolution::MergeResult merge,
                            evolution::Merge(*snapshot_->schema, *nullable,
                                             {.format = evolution::TableFormat::kDelta,
                                              .mode = evolution::TableWriteMode::kOverwrite}));
    result_.verdict = merge.verdict;
    result_.changes = std::move(merge.changes);
    metadata_ = snapshot_->metadata;
    SLUICE_ASSIGN_OR_RETURN(metadata_.partition_columns,
                            ResolvePartitionColumns(*nullable, options_.partition_by));
    SLUICE_ASSIGN_OR_RETURN(ColumnMappingMode mode, MappingModeOf(metadata_));
    schema::SchemaPtr stored = nullable;
    if (mode != ColumnMappingMode::kNone) {
      // The new schema's fields get new ids and physical names above the old ones.
      SLUICE_ASSIGN_OR_RETURN(int64_t max_id, MaxColumnIdOf(metadata_));
      SLUICE_ASSIGN_OR_RETURN(stored, AssignColumnMapping(*nullable, &max_id, false));
      metadata_.configuration[std::string(kMaxColumnIdKey)] = std::to_string(max_id);
    }
    metadata_.schema_string = dialects::spark::WriteJson(*stored).value;
    protocol_ = RequiredProtocol(NeedsOf(metadata_, *stored), &snapshot_->protocol);
    // The new schema may turn on a feature sluice does not honour.
    SLUICE_TRY(CheckWritable(protocol_, metadata_, *stored));
    return Ok();
  }

  // An existing table keeps its schema unless the data changes it; false: refused.
  Result<bool> PlanOnTable() {
    SLUICE_TRY(CheckWritable(snapshot_->protocol, snapshot_->metadata, *snapshot_->schema));
    protocol_ = snapshot_->protocol;
    metadata_ = snapshot_->metadata;
    if (!options_.partition_by.empty()) {
      // Resolved against the table's columns, as Spark resolves names: `--partition-by ID`
      // names the table's `id`.
      Result<std::vector<std::string>> given =
          ResolvePartitionColumns(*snapshot_->schema, options_.partition_by);
      if (!given.has_value() || *given != metadata_.partition_columns) {
        Reject(result_, fmt::format("Partition columns do not match the partition columns of the "
                                    "table. Given: {} Table: {}",
                                    PartitionList(options_.partition_by),
                                    PartitionList(metadata_.partition_columns)));
        return false;
      }
    }
    if (options_.type_widening && !PropertyTrue(metadata_, "delta.enableTypeWidening")) {
      metadata_.configuration["delta.enableTypeWidening"] = "true";
      protocol_ = RequiredProtocol(NeedsOf(metadata_, *snapshot_->schema), &protocol_);
      metadata_changed_ = true;
    }
    return true;
  }

  Status SetTarget() {
    SLUICE_ASSIGN_OR_RETURN(target_.schema, ParseSchemaString(metadata_.schema_string));
    target_.partitions = metadata_.partition_columns;
    target_.configuration = metadata_.configuration;
    SLUICE_ASSIGN_OR_RETURN(ColumnMappingMode mapping, MappingModeOf(metadata_));
    target_.physical_names = mapping != ColumnMappingMode::kNone;
    target_.tight_bounds = Supports(protocol_, "deletionVectors");
    return Ok();
  }

  // Delta's rules on the data's schema; the metadata evolves when they say so. false: refused.
  Result<bool> Meet(const schema::Schema& incoming) {
    SLUICE_ASSIGN_OR_RETURN(ColumnMappingMode mapping, MappingModeOf(metadata_));
    evolution::MergeOptions merge_options{
        .format = evolution::TableFormat::kDelta,
        .mode = options_.merge_schema ? evolution::TableWriteMode::kMerge
                                      : evolution::TableWriteMode::kEnforce,
        .type_widening = PropertyTrue(metadata_, "delta.enableTypeWidening"),
        .column_mapping = mapping != ColumnMappingMode::kNone};
    SLUICE_ASSIGN_OR_RETURN(evolution::MergeResult merge,
                            evolution::Merge(*target_.schema, incoming, merge_options));
    result_.verdict = merge.verdict;
    result_.changes = merge.changes;
    result_.violations = merge.violations;
    if (merge.verdict == evolution::MergeVerdict::kRejected) {
      Reject(result_, ViolationText(merge.violations.front()));
      return false;
    }
    if (merge.verdict == evolution::MergeVerdict::kEvolved) {
      SLUICE_ASSIGN_OR_RETURN(
          auto evolved, EvolvedMetadata(protocol_, metadata_, *target_.schema, *merge.schema, 0));
      protocol_ = std::move(evolved.first);
      metadata_ = std::move(evolved.second);
      metadata_changed_ = true;
      SLUICE_ASSIGN_OR_RETURN(target_.schema, ParseSchemaString(metadata_.schema_string));
      target_.configuration = metadata_.configuration;
    }
    return true;
  }

  Status Pass() {
    SLUICE_ASSIGN_OR_RETURN(constraints_, TableConstraints::Compile(metadata_, *target_.schema));
    if (options_.replace_where && replace_where_ == nullptr) {
      SLUICE_ASSIGN_OR_RETURN(replace_where_, ReplaceWherePredicate(*options_.replace_where,
                                                                    metadata_, *target_.schema));
    }
    SLUICE_ASSIGN_OR_RETURN(
        pass_, RunPass(fs_, root_, inputs_, target_, options_, constraints_, replace_where_.get()));
    return Ok();
  }

  // Validate and write the data files. JSON and CSV: values that do not fit, or keys the table
  // lacks, are the data's schema differing from the table's; Delta's rules decide on the schema
  // the records show, and a schema that changes takes a second pass. false: refused.
  Result<bool> WriteFiles() {
    SLUICE_TRY(Pass());
    if (result_.created || options_.overwrite_schema || typed_ || pass_.files->failure()) {
      return true;
    }
    Findings findings = Analyze(pass_.report);
    const bool rescued_column =
        options_.parse_mode == data::ParseMode::kPermissive &&
        target_.schema->struct_type()->FindField(options_.rescued_column) != nullptr;
    bool retype_issue = !findings.retyped.empty() && !rescued_column &&
                        options_.parse_mode != data::ParseMode::kDropMalformed;
    bool column_issue = findings.new_columns && (options_.merge_schema || !rescued_column);
    if (!retype_issue && !column_issue) return true;
    pass_.files->Abort();
    SLUICE_ASSIGN_OR_RETURN(schema::SchemaPtr inferred, InputSchema(fs_, inputs_, options_));
    SLUICE_ASSIGN_OR_RETURN(
        schema::SchemaPtr incoming,
        OverlayDataSchema(*target_.schema, *inferred,
                          retype_issue ? findings.retyped : std::set<std::string>{}));
    schema::SchemaPtr before = target_.schema;
    result_.report = pass_.report;
    SLUICE_ASSIGN_OR_RETURN(bool ok, Meet(*incoming));
    if (!ok) return false;
    if (target_.schema->Equals(*before)) {
      Reject(result_, fmt::format("the records do not fit the table's schema and the write "
                                  "would not change it; see the report ({} quarantined)",
                                  pass_.report.quarantined));
      return false;
    }
    SLUICE_TRY(Pass());
    // The evolved schema must hold every key the records hold: a key it still lacks would be
    // quarantined while the commit took only part of the change the data asks for.
    Findings after = Analyze(pass_.report);
    if (!after.unknown_fields.empty() && (options_.merge_schema || !rescued_column)) {
      pass_.files->Abort();
      result_.report = pass_.report;
      result_.verdict = evolution::MergeVerdict::kRejected;
      result_.changes.clear();
      Reject(result_, fmt::format("the records hold {}, which the table's schema lacks even after "
                                  "the schema change the write would make; nothing is committed",
                                  *after.unknown_fields.begin()));
      return false;
    }
    return true;
  }

  // What the finished pass shows that the rules refuse: a broken constraint or replaceWhere, a
  // failfast stop, NOT NULL, values that fit nowhere. The pass's files are removed then.
  bool Refused() {
    result_.report = pass_.report;
    result_.schema = target_.schema;
    std::string why;
    Findings findings = Analyze(pass_.report);
    if (const auto& failure = pass_.files->failure()) {
      result_.constraint_failure = failure;
      if (failure->name == kReplaceWhereName) {
        std::string values;
        for (const auto& [column, value] : failure->values) {
          values += fmt::format("\n - {} : {}", column, value);
        }
        why = fmt::format(
            "[DELTA_REPLACE_WHERE_MISMATCH] Written data does not conform to partial table "
            "overwrite condition or constraint '{}'. A row with values:{}",
            *options_.replace_where, values);
      } else {
        why = failure->Message();
      }
    } else if (pass_.report.stopped) {
      const data::FailFastStop& s = *pass_.report.stopped;
      why = fmt::format("failfast: {} line {}: {}{}", s.file, s.line,
                        s.path.empty() ? "" : s.path + ": ", s.message);
    } else if (!findings.not_null.empty() && options_.on_violation == OnViolation::kFail) {
      why = fmt::format(
          "[DELTA_NOT_NULL_CONSTRAINT_VIOLATED] NOT NULL constraint violated for column: {}.",
          findings.not_null.front());
    } else if (!findings.retyped.empty() && options_.parse_mode == data::ParseMode::kPermissive &&
               !options_.quarantine_mismatches &&
               target_.schema->struct_type()->FindField(options_.rescued_column) == nullptr) {
      why = fmt::format("values of {} do not fit the table's type; see the report",
                        *findings.retyped.begin());
    }
    if (why.empty()) return false;
    pass_.files->Abort();
    Reject(result_, std::move(why));
    return true;
  }

  // Overwrite: every live file (or, with replaceWhere, those of matching partitions) removed.
  Result<uint64_t> RemoveReplaced() {
    if (options_.mode != WriteMode::kOverwrite || snapshot_ == nullptr) return uint64_t{0};
    txn_->ReadAllFiles();
    uint64_t removed = 0;
    for (const AddFile& f : snapshot_->files) {
      if (replace_where_) {
        SLUICE_ASSIGN_OR_RETURN(bool inside, PartitionHolds(*replace_where_, f, *snapshot_));
        if (!inside) continue;
      }
      RemoveFile r;
      r.path = f.path;
      r.data_change = true;
      r.extended_file_metadata = true;
      r.partition_values = f.partition_values;
      r.size = f.size;
      r.deletion_vector = f.deletion_vector;
      txn_->RemoveFile(std::move(r));
      ++removed;
    }
    return removed;
  }

  CommitOptions CommitInfoOf(uint64_t removed) const {
    CommitOptions co;
    co.operation = options_.operation.empty() ? "WRITE" : options_.operation;
    if (options_.operation.empty()) {
      // A DataFrame write's parameters; a named operation (a stream's) brings its own.
      co.operation_parameters.Set(
          "mode", JsonValue::String(result_.created                          ? "ErrorIfExists"
                                    : options_.mode == WriteMode::kOverwrite ? "Overwrite"
                                                                             : "Append"));
      co.operation_parameters.Set("partitionBy",
                                  JsonValue::String(PartitionList(metadata_.partition_columns)));
    }
    if (options_.merge_schema) {
      co.operation_parameters.Set("mergeSchema", JsonValue::String("true"));
    }
    if (options_.replace_where) {
      co.operation_parameters.Set("predicate",
                                  JsonValue::String("[\"" + *options_.replace_where + "\"]"));
    }
    if (options_.overwrite_schema) {
      co.operation_parameters.Set("overwriteSchema", JsonValue::String("true"));
    }
    auto metric = [&](std::string_view key, uint64_t n) {
      co.operation_metrics.Set(std::string(key), JsonValue::String(std::to_string(n)));
    };
    metric("numFiles", pass_.files->adds().size());
    metric("numOutputRows", pass_.files->rows());
    metric("numOutputBytes", pass_.files->bytes());
    if (removed > 0) metric("numRemovedFiles", removed);
    if (options_.validation_metrics) {
      metric("numSourceRows", pass_.report.records_in);
      metric("numRescuedRows", pass_.report.rescued);
      metric("numQuarantinedRows", pass_.report.quarantined + pass_.files->quarantined());
    }
    for (const auto& [key, value] : options_.operation_parameters) {
      co.operation_parameters.Set(key, JsonValue::String(value));
    }
    for (const auto& [key, value] : options_.operation_metrics) {
      co.operation_metrics.Set(key, JsonValue::String(value));
    }
    return co;
  }

  Result<TableWriteResult> Commit() {
    if (metadata_changed_) {
      txn_->SetMetadata(metadata_);
      txn_->SetProtocol(protocol_);
    }
    SLUICE_ASSIGN_OR_RETURN(uint64_t removed, RemoveReplaced());
    for (const AddFile& a : pass_.files->adds()) txn_->AddFile(a);
    for (const Txn& t : options_.txns) txn_->SetTxn(t);
    if (options_.before_commit) {
      Status kept = options_.before_commit(pass_.quarantine, pass_.report);
      if (!kept.has_value()) {
        pass_.files->Abort();
        return Fail(kept.error());
      }
    }
    Result<CommitResult> committed = txn_->Commit(CommitInfoOf(removed));
    if (!committed.has_value()) {
      pass_.files->Abort();
      return Fail(committed.error());
    }
    // Quarantine lines only once the commit is in: a refused write leaves none.
    if (!pass_.quarantine.empty()) SLUICE_TRY(quarantine_.Write(pass_.quarantine));
    result_.commit = *committed;
    result_.version = committed->version;
    result_.rows_written = pass_.files->rows();
    result_.files_added = pass_.files->adds().size();
    result_.files_removed = removed;
    result_.bytes_written = pass_.files->bytes();
    result_.constraint_quarantined = pass_.files->quarantined();
    return result_;
  }

  std::shared_ptr<FileSystem> fs_;
  const std::string& root_;
  const std::vector<std::string>& inputs_;
  const TableWriteOptions& options_;
  ByteSink& quarantine_;
  std::optional<Transaction> txn_;
  const Snapshot* snapshot_ = nullptr;
  bool typed_ = false;
  TableWriteResult result_;
  Target target_;
  Protocol protocol_;
  Metadata metadata_;
  bool metadata_changed_ = false;
  TableConstraints constraints_;
  std::unique_ptr<TableConstraints> replace_where_;
  PassResult pass_;
};

}  // namespace

Result<TableWriteResult> WriteTable(std::shared_ptr<FileSystem> fs, const std::string& root,
                                    const std::vector<std::string>& inputs,
                                    const TableWriteOptions& options, ByteSink& quarantine) {
  TableWriter writer(std::move(fs), root, inputs, options, quarantine);
  return writer.Run();
}

}  // namespace sluice::table
