// Data contracts: the seed YAML contract (`required_columns` + change policy), ODCS v3 (Open
// Data Contract Standard, bitol-io) and the legacy Data Contract Specification (DCS, dcs.h). All
// read into one Contract value: schemas in the logical model, the change policy, the contract's
// identity, and per-column facts the model has no slot for (ODCS logicalType, physicalType,
// primaryKey, ...) that a contract checker needs.
//
// Every function here is thread-safe and never throws: yaml-cpp's exceptions are caught in the
// adapter. Errors are kParseError for YAML syntax ("line L, column C: ...") and
// kInvalidArgument for a contract whose structure cannot be read, naming the key path
// ("required_columns[2].type: ...") and the line and column.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sluice/base/json.h"
#include "sluice/base/result.h"
#include "sluice/schema/conversion.h"
#include "sluice/schema/field_path.h"
#include "sluice/schema/schema.h"

namespace sluice::dialects::contract {

/// Which changes a producer may make without breaking the contract. The defaults, used when a
/// contract does not say (and always for ODCS, which has no such keys), are those of a Delta
/// table written with mergeSchema: new columns allowed, type changes and removals not.
struct ChangePolicy {
  bool allow_new_columns = true;      // seed key `allowed_new_columns`
  bool allow_type_changes = false;    // seed key `allowed_type_changes`
  bool allow_column_removal = false;  // seed key `allowed_column_removal`

  bool operator==(const ChangePolicy&) const = default;
};

/// kDcs is the legacy Data Contract Specification that datacontract-cli read before ODCS (dcs.h).
enum class ContractFormat : uint8_t { kSeed, kOdcs, kDcs };

/// What a contract says about one column (or array element) beyond its schema::Field.
struct ColumnSpec {
  /// Where the column is in the object's schema: `address.city`, `tags[]` for array items.
  schema::FieldPath path;
  /// ODCS `logicalType` as written (lower-cased); for DCS, the logicalType its `type` maps to;
  /// the seed format has none.
  std::optional<std::string> logical_type;
  /// ODCS `physicalType` as written; for the seed format and DCS, the column's `type` text.
  std::optional<std::string> physical_type;
  std::optional<std::string> physical_name;
  std::optional<std::string> business_name;
  std::optional<std::string> description;
  std::optional<std::string> classification;
  /// ODCS and DCS `required`; for the seed format, `nullable: false`.
  bool required = false;
  bool unique = false;
  bool primary_key = false;
  std::optional<int64_t> primary_key_position;
  bool partitioned = false;
  std::optional<int64_t> partition_key_position;
  bool critical_data_element = false;
  std::vector<std::string> tags;
  /// `logicalTypeOptions` (minimum, maximum, format, timezone, ...) as a JSON object; null when
  /// absent.
  JsonValue logical_type_options;
  /// `quality` rules as a JSON array; null when absent.
  JsonValue quality;
  /// Every other key of the property (examples, customProperties, encryptedName, ...) as a JSON
  /// object, so nothing the file says is lost. For DCS: pii, enum, references, $ref, precision,
  /// scale, keys, values, config and the extension keys; `logical_type_options` holds its
  /// minLength, maxLength, pattern, format, minimum, maximum, exclusiveMinimum, exclusiveMaximum.
  JsonValue other = JsonValue::Object();
  /// The keys the element wrote, in document order (ODCS and DCS; empty for the seed format), so
  /// a contract diff can tell `required: false` from no `required` at all.
  std::vector<std::string> keys;
};

/// One schema object of a contract: a table, view, topic or file.
struct ContractObject {
  std::string name;
  /// The object's columns; SchemaInfo.name is the object name, SchemaInfo.doc its description.
  schema::SchemaPtr schema;
  /// One entry per property and array `items`, in document order, parents before children.
  std::vector<ColumnSpec> columns;
  std::optional<std::string> physical_name;
  std::optional<std::string> physical_type;  // table, view, topic, file
  std::optional<std::string> business_name;
  std::optional<std::string> description;
  JsonValue quality;                      // JSON array, null when absent
  JsonValue other = JsonValue::Object();  // the object's remaining keys
  /// What the reader could not carry over exactly for this object: guessed or disagreeing
  /// types, ignored keys. Paths are field paths within `schema`.
  std::vector<schema::LossyNote> notes;

  /// The spec of the column at `path`, or nullptr.
  const ColumnSpec* FindColumn(const schema::FieldPath& path) const;
};

/// A parsed contract. A value type; the schemas inside are shared and immutable.
struct Contract {
  ContractFormat format = ContractFormat::kSeed;
  /// ODCS `apiVersion` ("v3.1.0"); empty for the seed format.
  std::string api_version;
  std::string id;
  std::string name;
  /// The contract's own version as written: `1.0` stays "1.0", `1.10` stays "1.10".
  std::string version;
  std::string status;
  ChangePolicy policy;
  /// The schema objects in document order. The seed format has exactly one, named after the
  /// optional top-level `name` key (else empty). An ODCS contract may have none.
  std::vector<ContractObject> objects;
  /// Document-level notes: lint-level problems (a missing `status`), ignored keys.
  std::vector<schema::LossyNote> notes;
  /// The document's top-level keys that the fields above do not hold (ODCS: servers,
  /// slaProperties, team, description, ...; DCS: info, terms, servers, servicelevels, quality,
  /// definitions, ...) as a JSON object. Empty for the seed format.
  JsonValue other = JsonValue::Object();

  /// The object named `name`, or the first one when `name` is empty. kNotFound (listing the
  /// names there are) when there is no such object.
  Result<const ContractObject*> Object(std::string_view name = {}) const;
};

/// Read the seed YAML contract: `version` (number or string), `required_columns` (a list of
/// `name`, `type` in Spark's type syntax, `nullable` defaulting to true, optional
/// `description`), and the three `allowed_*` policy booleans. Columns keep their order. An
/// optional top-level `name` and `description` name and describe the schema.
Result<Contract> ParseSeedContract(std::string_view yaml);

/// Write a seed contract that ParseSeedContract reads back to the same schema and policy.
/// Column types use Spark's type names (`long`, `decimal(10,2)`, `array<struct<...>>`). What the
/// format cannot hold (defaults, metadata, docs and nullability inside nested types the Spark
/// type string drops) is reported as notes. kInvalidArgument for an empty version.
Result<schema::Converted<std::string>> WriteSeedContract(const schema::Schema& schema,
                                                         const ChangePolicy& policy = {},
                                                         std::string_view version = "1.0");

/// Read an ODCS v3 data contract (apiVersion v3.0.x or v3.1.0). Each `schema[]` object becomes a
/// ContractObject. Column types come from `logicalType`, refined by a recognised SQL
/// `physicalType` of the same family (VARCHAR(36) makes a string a varchar(36), INT makes an
/// integer an int32); when the two disagree the logicalType wins and a note says so. Checked
/// (kInvalidArgument with key path): the document is a mapping, `kind` is DataContract, every
/// object and property is a mapping with a `name`, known keys have the right YAML type, and
/// `logicalType` is one of ODCS's values. Lint-level problems (no `status`, no `version`, a null
/// description) are notes, not errors. A legacy Data Contract Specification file
/// (`dataContractSpecification:`) or ODCS v2 is kUnimplemented.
Result<Contract> ParseOdcs(std::string_view yaml);

struct OdcsWriteOptions {
  /// The contract `id`; empty means the object name.
  std::string id;
  std::string version = "1.0.0";
  std::string status = "draft";
  /// The contract `name`; empty means none is written.
  std::string name;
  /// The schema object's name; empty means SchemaInfo.name, else "my_table".
  std::string object_name;
  /// The object's `physicalType`; empty means none is written.
  std::string physical_type = "table";
};

/// Write a minimal ODCS v3.1.0 contract with one schema object holding `schema`: properties
/// with name, logicalType, physicalType (Spark SQL, or standard SQL for types Spark lacks),
/// required and description, objects as nested `properties`, arrays as `items`, maps as
/// `logicalType: object` with a `MAP<K, V>` physicalType. ParseOdcs reads it back to the same
/// fields; defaults and metadata, which ODCS cannot hold, are notes. kInvalidArgument for an
/// empty version or status.
Result<schema::Converted<std::string>> WriteOdcs(const schema::Schema& schema,
                                                 const OdcsWriteOptions& options = {});

/// ParseSeedContract, keeping the schema and the notes.
Result<schema::Converted<schema::SchemaPtr>> ReadSeedSchema(std::string_view yaml);

/// ParseOdcs, keeping the schema of the object named `object_name` (the first when empty) and
/// the document's and that object's notes. kNotFound when the contract has no such object.
Result<schema::Converted<schema::SchemaPtr>> ReadOdcsSchema(std::string_view yaml,
                                                            std::string_view object_name = {});

/// The ODCS logicalType of a model type: "integer" for int8 ... int64, "number" for floats and
/// decimals, "string" for strings, binary and uuid, "object" for structs and maps, "" for null.
std::string_view OdcsLogicalType(const schema::Type& type);

/// How ParseOdcs reads a `physicalType` (SQL names, case-insensitive: VARCHAR(36), BIGINT,
/// TIMESTAMP_NTZ, ARRAY<STRING>, ...).
struct OdcsPhysicalType {
  /// The ODCS logicalType the name belongs to ("string", "integer", ...), "json" for JSON and
  /// VARIANT, "null" for VOID, "" when the name is not recognised.
  std::string logical_type;
  /// The model type, or nullptr when the name does not pin one down (JSON, a bare STRUCT) or is
  /// not recognised.
  schema::TypePtr type;
  /// For timestamps: whether the name says which kind it is (TIMESTAMPTZ, TIMESTAMP_NTZ) rather
  /// than a bare TIMESTAMP, an instant in Spark and a wall-clock time in most databases.
  bool zone_explicit = false;
};
OdcsPhysicalType ReadOdcsPhysicalType(std::string_view text);

/// Cheap sniffing on the first few kilobytes: a top-level `apiVersion: v3...` or
/// `kind: DataContract` line.
bool LooksLikeOdcs(std::string_view text);

/// Cheap sniffing: a top-level `required_columns:` line and no ODCS markers.
bool LooksLikeSeedContract(std::string_view text);

}  // namespace sluice::dialects::contract
