#include "sluice/ingest/inference.h"

#include <utility>

#include "sluice/data/auto_loader.h"
#include "sluice/data/parquet_source.h"
#include "sluice/ingest/schema_evolution.h"

namespace sluice::ingest {
namespace {

Result<schema::SchemaPtr> AppendRescued(const schema::Schema& schema, const std::string& column) {
  if (column.empty() || schema.struct_type()->FindField(column) != nullptr) {
    return schema::Schema::FromStruct(schema.struct_type());
  }
  std::vector<schema::Field> fields = schema.fields();
  fields.emplace_back(column, schema::Type::String(), true);
  return schema::Schema::Make(std::move(fields));
}

}  // namespace

Result<schema::SchemaPtr> InferSchemaOf(const IngestOptions& options,
                                        const std::vector<std::string>& files,
                                        data::RecordFormat format) {
  if (format == data::RecordFormat::kCsv && files.size() > 1) {
    // Auto Loader reads each CSV file by its own header: infer file by file, merge by name.
    schema::SchemaPtr merged;
    EvolveOptions eo;
    eo.widen = true;
    eo.conflicts_become_string = true;
    eo.case_sensitive = options.auto_loader.case_sensitive;
    eo.rescued_column = options.auto_loader.rescued_data_column;
    for (const std::string& f : files) {
      SLUICE_ASSIGN_OR_RETURN(schema::SchemaPtr one, InferSchemaOf(options, {f}, format));
      if (merged == nullptr) {
        merged = std::move(one);
        continue;
      }
      SLUICE_ASSIGN_OR_RETURN(SchemaEvolution next, EvolveSchema(*merged, *one, eo));
      merged = std::move(next.schema);
    }
    return merged;
  }
  data::InferRunOptions ro;
  ro.fs = options.fs;
  ro.format = format;
  ro.threads = options.threads;
  ro.csv = options.csv;
  const bool text = format == data::RecordFormat::kJsonLines ||
                    format == data::RecordFormat::kJson || format == data::RecordFormat::kCsv;
  // Malformed records are quarantined when read; they say nothing about the schema.
  ro.json.mode = data::ParseMode::kDropMalformed;
  ro.json.auto_loader = options.auto_loader;
  ro.csv_infer.infer_schema = options.auto_loader.infer_column_types;
  ro.csv_infer.null_value = options.csv.null_value;
  ro.csv_infer.auto_loader = options.auto_loader;
  schema::SchemaPtr typed;
  if (format == data::RecordFormat::kParquet) {
    // Auto Loader merges Parquet files that disagree on a column's type to the widest type
    // (as it merges Avro files), where Spark's mergeSchema, InferFiles' rule, refuses them.
    SLUICE_ASSIGN_OR_RETURN(auto merged,
                            data::MergeParquetSchemas(*options.fs, files, nullptr,
                                                      data::ParquetSchemaMerge::kAutoLoader));
    typed = std::move(merged.value);
  } else {
    SLUICE_ASSIGN_OR_RETURN(data::InferResult inferred, data::InferFiles(files, ro));
    if (text) {
      return inferred.schema;  // hints and the rescued column are applied by the inference
    }
    typed = std::move(inferred.schema);
  }
  // Typed files: their own schemas, then hints (which win over the merged types) and the
  // rescued column, as Auto Loader does.
  SLUICE_ASSIGN_OR_RETURN(auto hints, data::ParseSchemaHints(options.auto_loader.schema_hints));
  SLUICE_ASSIGN_OR_RETURN(schema::SchemaPtr hinted, data::ApplySchemaHints(*typed, hints));
  return AppendRescued(*hinted, options.auto_loader.rescued_data_column);
}

Result<BatchSchemas> InferBatchSchemas(const IngestOptions& options,
                                       const std::vector<std::string>& files,
                                       data::RecordFormat format) {
  BatchSchemas out;
  SLUICE_ASSIGN_OR_RETURN(auto hints, data::ParseSchemaHints(options.auto_loader.schema_hints));
  if (hints.empty()) {
    SLUICE_ASSIGN_OR_RETURN(out.hinted, InferSchemaOf(options, files, format));
    return out;
  }
  // One inference without the hints, which are then applied to its result: the files are
  // read once. Hints land before the rescued column there; evolution places it last anyway.
  IngestOptions plain = options;
  plain.auto_loader.schema_hints.clear();
  SLUICE_ASSIGN_OR_RETURN(out.unhinted, InferSchemaOf(plain, files, format));
  SLUICE_ASSIGN_OR_RETURN(out.hinted, data::ApplySchemaHints(*out.unhinted, hints));
  return out;
}

Result<schema::SchemaPtr> WithRescuedColumn(const schema::Schema& schema,
                                            const IngestOptions& options) {
  // Type mismatches go to the rescued-data column in every mode; `none` keeps one only when it
  // is named, as Auto Loader's rescuedDataColumn option.
  const bool rescues =
      EffectiveMode(options) != EvolutionMode::kNone || options.rescued_column_given;
  return AppendRescued(schema, rescues ? options.auto_loader.rescued_data_column : "");
}

}  // namespace sluice::ingest
