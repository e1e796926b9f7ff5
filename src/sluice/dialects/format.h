// The format registry: every schema language sluice reads or writes, by name, with detection
// from a file's name and content. The CLI and any other front end go through here; adding a
// dialect means adding it to this table (see docs/architecture.md).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "sluice/base/result.h"
#include "sluice/schema/conversion.h"
#include "sluice/schema/schema.h"

namespace sluice::dialects {

enum class Format : uint8_t {
  kSparkJson,      // StructType JSON, Delta schemaString
  kSparkDdl,       // `a INT, b STRING NOT NULL`
  kAvro,           // Avro schema JSON (.avsc)
  kAvroCanonical,  // Avro Parsing Canonical Form (write only)
  kJsonSchema,     // JSON Schema draft 7 / 2019-09 / 2020-12
  kContract,       // the seed YAML contract (required_columns, allowed_* policy)
  kOdcs,           // Open Data Contract Standard v3 YAML
  kDcs,            // the legacy Data Contract Specification YAML (read only)
  kParquet,        // a Parquet file's footer, or the message type text
  kSqlSpark,       // CREATE TABLE ... USING DELTA (write only)
  kSqlDuckDb,      // DuckDB CREATE TABLE (write only)
  kSqlPostgres,    // PostgreSQL CREATE TABLE (write only)
  kTree,           // indented tree for terminals (write only)
  kCanonical,      // sluice's canonical form of the model (write only)
};

struct FormatInfo {
  Format format;
  std::string_view name;  // as given to --from / --as / --to
  bool readable;
  bool writable;
  std::string_view description;
};

/// Every format, in the order help texts list them.
const std::vector<FormatInfo>& AllFormats();

/// "spark-json" -> kSparkJson; kInvalidArgument listing the valid names otherwise.
Result<Format> ParseFormatName(std::string_view name);
std::string_view FormatName(Format format);
/// Names of the formats that can be read (`readable`) or all of them.
std::vector<std::string> FormatNames(bool readable_only);

/// Guess the format of a schema file from its extension and content: .avsc is Avro, .ddl is
/// Spark DDL, .yaml/.yml is a seed contract or ODCS (by content), .json is Spark JSON, Avro or
/// JSON Schema (by content), .parquet (or content ending in "PAR1", or starting `message`) is
/// Parquet. kInvalidArgument when nothing fits.
Result<Format> DetectFormat(std::string_view path, std::string_view content);

/// Read a schema in `format`. Errors name the offset or field path; notes say what the model
/// could not hold.
Result<schema::Converted<schema::SchemaPtr>> ReadSchema(std::string_view content, Format format);

struct WriteOptions {
  /// Table name for SQL output; defaults to the schema's name, else "my_table".
  std::string table_name;
  /// Draw trees with Unicode box characters.
  bool unicode_tree = true;
};

/// Write `schema` in `format`, with notes for everything the format cannot hold.
Result<schema::Converted<std::string>> WriteSchema(const schema::Schema& schema, Format format,
                                                   const WriteOptions& options = {});

}  // namespace sluice::dialects

namespace sluice::dialects {

/// Convert `content` from one format to another. Avro to Avro (and to its canonical form) goes
/// through Avro's own parsed form, so enums, fixed types and aliases survive; everything else
/// goes through the model.
Result<schema::Converted<std::string>> Convert(std::string_view content, Format from, Format to,
                                               const WriteOptions& options = {});

/// The Avro Parsing Canonical Form of a schema given in any readable format (Avro directly,
/// others through the model and the model-to-Avro mapping).
Result<schema::Converted<std::string>> AvroCanonicalForm(std::string_view content, Format from);

}  // namespace sluice::dialects
