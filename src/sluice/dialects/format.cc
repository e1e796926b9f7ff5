#include "sluice/dialects/format.h"

#include <fmt/format.h>

#include "sluice/base/json.h"
#include "sluice/base/strings.h"
#include "sluice/dialects/avro/avro_convert.h"
#include "sluice/dialects/avro/avro_schema.h"
#include "sluice/dialects/contract/contract.h"
#include "sluice/dialects/contract/dcs.h"
#include "sluice/dialects/jsonschema/json_schema_convert.h"
#include "sluice/dialects/parquet/parquet_schema.h"
#include "sluice/dialects/spark/spark.h"
#include "sluice/dialects/sql/sql.h"
#include "sluice/schema/canonical.h"
#include "sluice/schema/tree.h"

namespace sluice::dialects {

using schema::Converted;
using schema::SchemaPtr;

const std::vector<FormatInfo>& AllFormats() {
  static const std::vector<FormatInfo> kFormats = {
      {Format::kSparkJson, "spark-json", true, true,
       "Spark StructType JSON (df.schema.json(), Delta schemaString)"},
      {Format::kSparkDdl, "spark-ddl", true, true, "Spark DDL column list (StructType.toDDL)"},
      {Format::kAvro, "avro", true, true, "Avro schema JSON (.avsc)"},
      {Format::kAvroCanonical, "avro-canonical", false, true, "Avro Parsing Canonical Form"},
      {Format::kJsonSchema, "json-schema", true, true, "JSON Schema (draft 7, 2019-09, 2020-12)"},
      {Format::kContract, "contract", true, true,
       "YAML contract: required_columns + allowed_* policy"},
      {Format::kOdcs, "odcs", true, true, "Open Data Contract Standard v3 YAML"},
      {Format::kDcs, "dcs", true, false, "Data Contract Specification YAML (legacy; read only)"},
      {Format::kParquet, "parquet", true, true,
       "Parquet: a file's footer schema; written as the message type"},
      {Format::kSqlSpark, "sql-spark", false, true, "Spark SQL CREATE TABLE ... USING DELTA"},
      {Format::kSqlDuckDb, "sql-duckdb", false, true, "DuckDB CREATE TABLE"},
      {Format::kSqlPostgres, "sql-postgres", false, true, "PostgreSQL CREATE TABLE"},
      {Format::kTree, "tree", false, true, "Indented tree (the default on a terminal)"},
      {Format::kCanonical, "canonical", false, true,
       "sluice's canonical form (what sha256 hashes)"},
  };
  return kFormats;
}

std::string_view FormatName(Format format) {
  for (const auto& f : AllFormats()) {
    if (f.format == format) return f.name;
  }
  return "unknown";
}

std::vector<std::string> FormatNames(bool readable_only) {
  std::vector<std::string> out;
  for (const auto& f : AllFormats()) {
    if (!readable_only || f.readable) out.emplace_back(f.name);
  }
  return out;
}

Result<Format> ParseFormatName(std::string_view name) {
  // Names are lower case; any spelling is accepted, as every enum value on the command line is.
  const std::string lower = AsciiLower(name);
  for (const auto& f : AllFormats()) {
    if (f.name == lower) return f.format;
  }
  return InvalidArgument(fmt::format("unknown format \"{}\"; formats are: {}",
                                     EscapeForMessage(name, 40),
                                     JoinStrings(FormatNames(false), ", ")));
}

namespace {

bool IsReadable(Format f) {
  for (const auto& info : AllFormats()) {
    if (info.format == f) return info.readable;
  }
  return false;
}

// Decide among the JSON languages by the keys the document uses.
Result<Format> DetectJson(std::string_view content) {
  JsonParseOptions opt;
  auto doc = ParseJson(content, opt);
  if (!doc.has_value()) return Fail(doc.error());
  if (doc->is_string() || doc->is_array()) return Format::kAvro;  // "int", unions
  if (!doc->is_object()) return InvalidArgument("not a schema: a JSON document of another kind");
  const JsonValue* type = doc->Find("type");
  if (doc->Find("$schema") != nullptr || doc->Find("properties") != nullptr ||
      doc->Find("$defs") != nullptr || doc->Find("definitions") != nullptr) {
    return Format::kJsonSchema;
  }
  if (type != nullptr && type->is_string()) {
    const std::string& t = type->as_string();
    if (t == "struct" && doc->Find("fields") != nullptr) return Format::kSparkJson;
    if (t == "record" || t == "enum" || t == "fixed" || t == "array" || t == "map" ||
        t == "error" || t == "null" || t == "boolean" || t == "int" || t == "long" ||
        t == "float" || t == "double" || t == "bytes" || t == "string") {
      if (doc->Find("items") != nullptr && t == "array" && doc->Find("items")->is_object() &&
          doc->Find("items")->Find("type") != nullptr &&
          doc->Find("items")->Find("type")->is_string() &&
          doc->Find("items")->Find("type")->as_string() == "object") {
        return Format::kJsonSchema;
      }
      return Format::kAvro;
    }
    if (t == "object" || t == "integer" || t == "number") return Format::kJsonSchema;
  }
  if (type != nullptr && type->is_array()) {
    // ["object","null"] is JSON Schema; Avro would write a union at the type position.
    for (const auto& item : type->items()) {
      if (item.is_string() && (item.as_string() == "object" || item.as_string() == "integer" ||
                               item.as_string() == "number")) {
        return Format::kJsonSchema;
      }
    }
  }
  return InvalidArgument(
      "cannot tell which schema language this JSON is; pass --from spark-json, avro or "
      "json-schema");
}

}  // namespace

Result<Format> DetectFormat(std::string_view path, std::string_view content) {
  std::string lower = AsciiLower(path);
  if (EndsWith(lower, ".avsc")) return Format::kAvro;
  if (EndsWith(lower, ".ddl")) return Format::kSparkDdl;
  if (EndsWith(lower, ".parquet") || parquet::LooksLikeParquet(content)) return Format::kParquet;
  bool yaml = EndsWith(lower, ".yaml") || EndsWith(lower, ".yml");
  std::string_view body = TrimWhitespace(content);
  if (body.empty()) return InvalidArgument("empty schema file");
  if (contract::LooksLikeDcs(content)) return Format::kDcs;
  if (contract::LooksLikeOdcs(content)) return Format::kOdcs;
  if (contract::LooksLikeSeedContract(content)) return Format::kContract;
  if (yaml) {
    return InvalidArgument(
        "YAML that is neither an ODCS contract (apiVersion, kind: DataContract) nor a seed "
        "contract (required_columns); pass --from odcs or --from contract");
  }
  if (EndsWith(lower, ".schema.json")) return Format::kJsonSchema;
  char first = body.front();
  if (first == '{' || first == '[' || first == '"') return DetectJson(body);
  return Format::kSparkDdl;
}

Result<Converted<SchemaPtr>> ReadSchema(std::string_view content, Format format) {
  switch (format) {
    case Format::kSparkJson:
      return spark::ReadJson(content);
    case Format::kSparkDdl:
      return spark::ReadDdl(content);
    case Format::kAvro:
      return avro::ReadSchema(content);
    case Format::kJsonSchema:
      return jsonschema::ReadSchema(content);
    case Format::kContract:
      return contract::ReadSeedSchema(content);
    case Format::kOdcs:
      return contract::ReadOdcsSchema(content);
    case Format::kDcs: {
      // A DCS file's first model, as ODCS's first object.
      SLUICE_ASSIGN_OR_RETURN(contract::Contract c, contract::ParseDcs(content));
      SLUICE_ASSIGN_OR_RETURN(const contract::ContractObject* object, c.Object());
      std::vector<schema::LossyNote> notes = c.notes;
      notes.insert(notes.end(), object->notes.begin(), object->notes.end());
      return Converted<SchemaPtr>{object->schema, std::move(notes)};
    }
    case Format::kParquet:
      return parquet::ReadSchema(content);
    case Format::kAvroCanonical:
    case Format::kSqlSpark:
    case Format::kSqlDuckDb:
    case Format::kSqlPostgres:
    case Format::kTree:
    case Format::kCanonical:
      break;
  }
  return InvalidArgument(fmt::format("{} is an output format only", FormatName(format)));
}

Result<Converted<std::string>> WriteSchema(const schema::Schema& s, Format format,
                                           const WriteOptions& options) {
  switch (format) {
    case Format::kSparkJson:
      return spark::WriteJson(s);
    case Format::kSparkDdl:
      return spark::WriteDdl(s);
    case Format::kTree: {
      schema::TreeOptions t;
      t.unicode = options.unicode_tree;
      return Converted<std::string>{schema::RenderTree(s, t), {}};
    }
    case Format::kCanonical:
      return Converted<std::string>{schema::CanonicalForm(s), {}};
    case Format::kAvro:
      return avro::WriteSchema(s);
    case Format::kAvroCanonical: {
      SLUICE_ASSIGN_OR_RETURN(Converted<avro::WrittenSchema> written, avro::WriteAndParse(s));
      return Converted<std::string>{avro::ParsingCanonicalForm(written.value.parsed),
                                    std::move(written.notes)};
    }
    case Format::kJsonSchema:
      return jsonschema::WriteSchema(s);
    case Format::kContract:
      return contract::WriteSeedContract(s);
    case Format::kOdcs:
      return contract::WriteOdcs(s);
    case Format::kDcs:
      return InvalidArgument("dcs is read only: write odcs instead");
    case Format::kParquet:
      return parquet::WriteSchema(s);
    case Format::kSqlSpark:
    case Format::kSqlDuckDb:
    case Format::kSqlPostgres: {
      sql::CreateTableOptions o;
      o.table_name = options.table_name;
      sql::SqlDialect d = format == Format::kSqlSpark    ? sql::SqlDialect::kSpark
                          : format == Format::kSqlDuckDb ? sql::SqlDialect::kDuckDb
                                                         : sql::SqlDialect::kPostgres;
      return sql::WriteCreateTable(s, d, o);
    }
  }
  return Internal("unhandled format");
}

Result<Converted<std::string>> Convert(std::string_view content, Format from, Format to,
                                       const WriteOptions& options) {
  if (!IsReadable(from)) {
    return InvalidArgument(fmt::format("{} is an output format only", FormatName(from)));
  }
  if (from == Format::kAvro && (to == Format::kAvro || to == Format::kAvroCanonical)) {
    // Avro to Avro keeps what the model cannot hold (enums, fixed, aliases, named types).
    SLUICE_ASSIGN_OR_RETURN(avro::AvroSchema parsed, avro::Parse(content));
    std::string text =
        to == Format::kAvro ? avro::WriteJson(parsed, 2) : avro::ParsingCanonicalForm(parsed);
    return Converted<std::string>{std::move(text), {}};
  }
  SLUICE_ASSIGN_OR_RETURN(Converted<SchemaPtr> read, ReadSchema(content, from));
  SLUICE_ASSIGN_OR_RETURN(Converted<std::string> written, WriteSchema(*read.value, to, options));
  read.notes.insert(read.notes.end(), written.notes.begin(), written.notes.end());
  return Converted<std::string>{std::move(written.value), std::move(read.notes)};
}

Result<Converted<std::string>> AvroCanonicalForm(std::string_view content, Format from) {
  return Convert(content, from, Format::kAvroCanonical);
}

}  // namespace sluice::dialects
