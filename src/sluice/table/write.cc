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

// The (validated) schema of the inputs: --schema, Parquet footers, or inferred by Spark's rules.
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
  ro.progress = options.progress;
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
  std::set<std::string> retyped;  // paths whose values do not fit
  bool new_columns = false;       // keys the schema lacks
  bool case_mismatch = false;
  std::vector<std::string> not_null;  // paths where NOT NULL was broken
};

Findings Analyze(const data::ValidateReport& report) {
  Findings f;
  for (const data::ViolationCount& v : report.violations) {
    if (IsRetype(v.kind)) f.retyped.insert(v.path);
    if (v.kind == ViolationKind::kUnknownField) f.new_columns = true;
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

}  // namespace

Result<TableWriteResult> WriteTable(std::shared_ptr<FileSystem> fs, const std::string& root,
                                    const std::vector<std::string>& inputs,
                                    const TableWriteOptions& options, ByteSink& quarantine) {
  if (options.overwrite_schema && options.mode != WriteMode::kOverwrite) {
    return InvalidArgument("overwriteSchema replaces the schema only with an overwrite, as Delta");
  }
  if (options.replace_where && options.mode != WriteMode::kOverwrite) {
    return InvalidArgument("replaceWhere applies to overwrites only");
  }
  if (options.replace_where && options.overwrite_schema) {
    return InvalidArgument(
        "[DELTA_REPLACE_WHERE_WITH_OVERWRITE_SCHEMA] overwriteSchema cannot be used with "
        "replaceWhere");
  }
  SLUICE_ASSIGN_OR_RETURN(Transaction txn, Transaction::Begin(fs, root));
  TableWriteResult result;
  result.read_version = txn.read_version();
  const Snapshot* snapshot = txn.snapshot();
  if (options.txn && snapshot != nullptr) {
    auto it = snapshot->app_versions.find(options.txn->app_id);
    if (it != snapshot->app_versions.end() && it->second >= options.txn->version) {
      result.outcome = WriteOutcome::kSkipped;
      result.version = snapshot->version;
      result.schema = snapshot->schema;
      return result;
    }
  }

  Target target;
  Protocol protocol;
  Metadata metadata;
  bool metadata_changed = false;
  bool typed = options.data_schema != nullptr || options.format == data::RecordFormat::kParquet;
  if (snapshot == nullptr || options.overwrite_schema) {
    SLUICE_ASSIGN_OR_RETURN(schema::SchemaPtr data_schema, InputSchema(fs, inputs, options));
    SLUICE_ASSIGN_OR_RETURN(
        schema::SchemaPtr nullable,
        schema::Schema::FromStruct(schema::AsNullable(data_schema->struct_type())));
    if (snapshot == nullptr) {
      result.created = true;
      StringMap properties = options.properties;
      if (options.type_widening) properties["delta.enableTypeWidening"] = "true";
      SLUICE_ASSIGN_OR_RETURN(auto created, NewTableMetadata(*nullable, options.partition_by,
                                                             properties, options.constraints));
      protocol = std::move(created.first);
      metadata = std::move(created.second);
      result.verdict = evolution::MergeVerdict::kEvolved;
      for (const schema::Field& f : nullable->fields()) {
        result.changes.push_back({evolution::TableChangeKind::kColumnAdded,
                                  schema::FieldPath::Of(f.name()), "",
                                  dialects::spark::DataTypeSql(*f.type()), ""});
      }
    } else {
      SLUICE_TRY(CheckWritable(snapshot->protocol, snapshot->metadata, *snapshot->schema));
      SLUICE_ASSIGN_OR_RETURN(evolution::MergeResult merge,
                              evolution::Merge(*snapshot->schema, *nullable,
                                               {.format = evolution::TableFormat::kDelta,
                                                .mode = evolution::TableWriteMode::kOverwrite}));
      result.verdict = merge.verdict;
      result.changes = std::move(merge.changes);
      metadata = snapshot->metadata;
      metadata.partition_columns = options.partition_by;
      SLUICE_ASSIGN_OR_RETURN(ColumnMappingMode mode, MappingModeOf(metadata));
      schema::SchemaPtr stored = nullable;
      if (mode != ColumnMappingMode::kNone) {
        int64_t max_id = 0;
        if (auto it = metadata.configuration.find(kMaxColumnIdKey);
            it != metadata.configuration.end()) {
          max_id = std::strtoll(it->second.c_str(), nullptr, 10);
        }
        SLUICE_ASSIGN_OR_RETURN(stored, AssignColumnMapping(*nullable, &max_id, false));
        metadata.configuration[std::string(kMaxColumnIdKey)] = std::to_string(max_id);
      }
      metadata.schema_string = dialects::spark::WriteJson(*stored).value;
      protocol = RequiredProtocol(NeedsOf(metadata, *stored), &snapshot->protocol);
    }
    metadata_changed = true;
  } else {
    SLUICE_TRY(CheckWritable(snapshot->protocol, snapshot->metadata, *snapshot->schema));
    protocol = snapshot->protocol;
    metadata = snapshot->metadata;
    if (!options.partition_by.empty() && options.partition_by != metadata.partition_columns) {
      Reject(result, fmt::format("Partition columns do not match the partition columns of the "
                                 "table. Given: {} Table: {}",
                                 PartitionList(options.partition_by),
                                 PartitionList(metadata.partition_columns)));
      return result;
    }
    if (options.type_widening && !PropertyTrue(metadata, "delta.enableTypeWidening")) {
      metadata.configuration["delta.enableTypeWidening"] = "true";
      protocol = RequiredProtocol(NeedsOf(metadata, *snapshot->schema), &protocol);
      metadata_changed = true;
    }
  }
  SLUICE_ASSIGN_OR_RETURN(target.schema, ParseSchemaString(metadata.schema_string));
  target.partitions = metadata.partition_columns;
  target.configuration = metadata.configuration;
  SLUICE_ASSIGN_OR_RETURN(ColumnMappingMode mapping, MappingModeOf(metadata));
  target.physical_names = mapping != ColumnMappingMode::kNone;
  target.tight_bounds = Supports(protocol, "deletionVectors");

  // An existing table met by typed data: Delta's rules decide before anything is written.
  const bool type_widening = PropertyTrue(metadata, "delta.enableTypeWidening");
  evolution::MergeOptions merge_options{.format = evolution::TableFormat::kDelta,
                                        .mode = options.merge_schema
                                                    ? evolution::TableWriteMode::kMerge
                                                    : evolution::TableWriteMode::kEnforce,
                                        .type_widening = type_widening,
                                        .column_mapping = mapping != ColumnMappingMode::kNone};
  auto apply_merge = [&](const schema::Schema& incoming) -> Result<bool> {
    SLUICE_ASSIGN_OR_RETURN(evolution::MergeResult merge,
                            evolution::Merge(*target.schema, incoming, merge_options));
    result.verdict = merge.verdict;
    result.changes = merge.changes;
    result.violations = merge.violations;
    if (merge.verdict == evolution::MergeVerdict::kRejected) {
      Reject(result, ViolationText(merge.violations.front()));
      return false;
    }
    if (merge.verdict == evolution::MergeVerdict::kEvolved) {
      SLUICE_ASSIGN_OR_RETURN(
          auto evolved, EvolvedMetadata(protocol, metadata, *target.schema, *merge.schema, 0));
      protocol = std::move(evolved.first);
      metadata = std::move(evolved.second);
      metadata_changed = true;
      SLUICE_ASSIGN_OR_RETURN(target.schema, ParseSchemaString(metadata.schema_string));
      target.configuration = metadata.configuration;
    }
    return true;
  };
  if (!result.created && !options.overwrite_schema && typed) {
    SLUICE_ASSIGN_OR_RETURN(schema::SchemaPtr incoming, InputSchema(fs, inputs, options));
    SLUICE_ASSIGN_OR_RETURN(bool ok, apply_merge(*incoming));
    if (!ok) return result;
  }

  SLUICE_ASSIGN_OR_RETURN(TableConstraints constraints,
                          TableConstraints::Compile(metadata, *target.schema));
  std::unique_ptr<TableConstraints> replace_where;
  if (options.replace_where) {
    SLUICE_ASSIGN_OR_RETURN(
        replace_where, ReplaceWherePredicate(*options.replace_where, metadata, *target.schema));
  }
  SLUICE_ASSIGN_OR_RETURN(PassResult pass, RunPass(fs, root, inputs, target, options, constraints,
                                                   replace_where.get()));
  // JSON and CSV: values that do not fit, or keys the table lacks, are the data's schema
  // differing from the table's; Delta's rules decide on the schema the records show.
  if (!result.created && !options.overwrite_schema && !typed && !pass.files->failure()) {
    Findings findings = Analyze(pass.report);
    const bool rescued_column =
        options.parse_mode == data::ParseMode::kPermissive &&
        target.schema->struct_type()->FindField(options.rescued_column) != nullptr;
    bool retype_issue = !findings.retyped.empty() && !rescued_column &&
                        options.parse_mode != data::ParseMode::kDropMalformed;
    bool column_issue = findings.new_columns && (options.merge_schema || !rescued_column);
    if (retype_issue || column_issue) {
      pass.files->Abort();
      SLUICE_ASSIGN_OR_RETURN(schema::SchemaPtr inferred, InputSchema(fs, inputs, options));
      SLUICE_ASSIGN_OR_RETURN(
          schema::SchemaPtr incoming,
          OverlayDataSchema(*target.schema, *inferred,
                            retype_issue ? findings.retyped : std::set<std::string>{}));
      schema::SchemaPtr before = target.schema;
      result.report = pass.report;
      SLUICE_ASSIGN_OR_RETURN(bool ok, apply_merge(*incoming));
      if (!ok) return result;
      if (target.schema->Equals(*before)) {
        Reject(result, fmt::format("the records do not fit the table's schema and the write "
                                   "would not change it; see the report ({} quarantined)",
                                   pass.report.quarantined));
        result.report = std::move(pass.report);
        return result;
      }
      SLUICE_ASSIGN_OR_RETURN(TableConstraints again,
                              TableConstraints::Compile(metadata, *target.schema));
      constraints = std::move(again);
      SLUICE_ASSIGN_OR_RETURN(
          pass, RunPass(fs, root, inputs, target, options, constraints, replace_where.get()));
    }
  }
  result.report = pass.report;
  result.schema = target.schema;
  auto reject_pass = [&](std::string why) {
    pass.files->Abort();
    Reject(result, std::move(why));
    return result;
  };
  if (pass.files->failure()) {
    result.constraint_failure = pass.files->failure();
    if (pass.files->failure()->name == kReplaceWhereName) {
      std::string values;
      for (const auto& [column, value] : pass.files->failure()->values) {
        values += fmt::format("\n - {} : {}", column, value);
      }
      return reject_pass(fmt::format(
          "[DELTA_REPLACE_WHERE_MISMATCH] Written data does not conform to partial table "
          "overwrite condition or constraint '{}'. A row with values:{}",
          *options.replace_where, values));
    }
    return reject_pass(pass.files->failure()->Message());
  }
  if (pass.report.stopped) {
    const data::FailFastStop& s = *pass.report.stopped;
    return reject_pass(fmt::format("failfast: {} line {}: {}{}", s.file, s.line,
                                   s.path.empty() ? "" : s.path + ": ", s.message));
  }
  Findings findings = Analyze(pass.report);
  if (!findings.not_null.empty() && options.on_violation == OnViolation::kFail) {
    return reject_pass(fmt::format(
        "[DELTA_NOT_NULL_CONSTRAINT_VIOLATED] NOT NULL constraint violated for column: {}.",
        findings.not_null.front()));
  }
  if (!findings.retyped.empty() && options.parse_mode == data::ParseMode::kPermissive &&
      target.schema->struct_type()->FindField(options.rescued_column) == nullptr) {
    return reject_pass(fmt::format("values of {} do not fit the table's type; see the report",
                                   *findings.retyped.begin()));
  }

  // Commit.
  if (metadata_changed) {
    txn.SetMetadata(metadata);
    txn.SetProtocol(protocol);
  }
  uint64_t removed = 0;
  if (options.mode == WriteMode::kOverwrite && snapshot != nullptr) {
    txn.ReadAllFiles();
    for (const AddFile& f : snapshot->files) {
      if (replace_where) {
        SLUICE_ASSIGN_OR_RETURN(bool inside, PartitionHolds(*replace_where, f, *snapshot));
        if (!inside) continue;
      }
      RemoveFile r;
      r.path = f.path;
      r.data_change = true;
      r.extended_file_metadata = true;
      r.partition_values = f.partition_values;
      r.size = f.size;
      r.deletion_vector = f.deletion_vector;
      txn.RemoveFile(std::move(r));
      ++removed;
    }
  }
  for (const AddFile& a : pass.files->adds()) txn.AddFile(a);
  if (options.txn) txn.SetTxn(*options.txn);
  CommitOptions co;
  co.operation = "WRITE";
  co.operation_parameters.Set(
      "mode", JsonValue::String(result.created                          ? "ErrorIfExists"
                                : options.mode == WriteMode::kOverwrite ? "Overwrite"
                                                                        : "Append"));
  co.operation_parameters.Set("partitionBy",
                              JsonValue::String(PartitionList(metadata.partition_columns)));
  if (options.merge_schema) co.operation_parameters.Set("mergeSchema", JsonValue::String("true"));
  if (options.replace_where) {
    co.operation_parameters.Set("predicate",
                                JsonValue::String("[\"" + *options.replace_where + "\"]"));
  }
  if (options.overwrite_schema) {
    co.operation_parameters.Set("overwriteSchema", JsonValue::String("true"));
  }
  co.operation_metrics.Set("numFiles",
                           JsonValue::String(std::to_string(pass.files->adds().size())));
  co.operation_metrics.Set("numOutputRows", JsonValue::String(std::to_string(pass.files->rows())));
  co.operation_metrics.Set("numOutputBytes",
                           JsonValue::String(std::to_string(pass.files->bytes())));
  if (removed > 0) {
    co.operation_metrics.Set("numRemovedFiles", JsonValue::String(std::to_string(removed)));
  }
  Result<CommitResult> committed = txn.Commit(co);
  if (!committed.has_value()) {
    pass.files->Abort();
    return Fail(committed.error());
  }
  if (!pass.quarantine.empty()) SLUICE_TRY(quarantine.Write(pass.quarantine));
  result.commit = *committed;
  result.version = committed->version;
  result.rows_written = pass.files->rows();
  result.files_added = pass.files->adds().size();
  result.files_removed = removed;
  result.bytes_written = pass.files->bytes();
  result.constraint_quarantined = pass.files->quarantined();
  return result;
}

}  // namespace sluice::table
