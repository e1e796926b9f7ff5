// Compatibility modes over version histories, with Confluent Schema Registry's semantics, for
// every schema type sluice checks: Avro (Avro's own resolution rules), JSON Schema (Confluent's
// JSON Schema diff), and table schemas (Delta's or Iceberg's in-place evolution rules). One API
// for the CLI and the registry server.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "sluice/base/result.h"
#include "sluice/schema/schema.h"

namespace sluice::dialects::avro {
class AvroSchema;
}  // namespace sluice::dialects::avro

namespace sluice::evolution {

enum class CompatibilityMode : uint8_t {
  kNone,
  kBackward,
  kBackwardTransitive,
  kForward,
  kForwardTransitive,
  kFull,
  kFullTransitive,
};

/// "BACKWARD", "FULL_TRANSITIVE", ... (Confluent's names).
std::string_view CompatibilityModeName(CompatibilityMode mode);
/// Parse a mode name, ignoring case as Confluent does; kInvalidArgument lists the valid names.
Result<CompatibilityMode> ParseCompatibilityMode(std::string_view name);

enum class SchemaType : uint8_t {
  kAvro,        // Avro schema JSON; Avro's reader/writer resolution
  kJsonSchema,  // JSON Schema; Confluent's JSON Schema diff
  kTable,       // any schema language, as a Delta table schema; Delta's evolution rules
  kIceberg,     // any schema language, as an Iceberg table schema; Iceberg's evolution rules
};

/// "avro", "json-schema", "table", "iceberg".
std::string_view SchemaTypeName(SchemaType type);
/// Also accepts "json" and "delta".
Result<SchemaType> ParseSchemaType(std::string_view name);

/// JSON Schema policy: Confluent's STRICT (the default) or LENIENT compatible sets.
enum class JsonSchemaPolicy : uint8_t { kStrict, kLenient };

struct CompatibilityOptions {
  JsonSchemaPolicy json_policy = JsonSchemaPolicy::kStrict;
  /// Table schemas: allow Delta's type widening (delta.enableTypeWidening).
  bool type_widening = false;
  /// Stop at the first earlier version that fails, as the registry does for transitive modes;
  /// otherwise every version in scope is checked and every incompatibility reported.
  bool stop_at_first_failure = false;
};

/// Which way a pair was checked: kBackward means the new schema reads data written with the old
/// one; kForward means the old schema reads data written with the new one.
enum class CheckDirection : uint8_t { kBackward, kForward };
std::string_view CheckDirectionName(CheckDirection direction);

struct Incompatibility {
  /// The checker's own name for it: Avro's TYPE_MISMATCH, Confluent's
  /// PROPERTY_REMOVED_FROM_CLOSED_CONTENT_MODEL, Delta's column_dropped, ...
  std::string kind;
  /// Where: Avro's "/fields/2/type", JSON Schema's "#/properties/a", or a field path.
  std::string location;
  std::string message;
  /// What to change to make it compatible, in plain words; may be empty.
  std::string hint;
  CheckDirection direction = CheckDirection::kBackward;
  /// The earlier version it was found against: an index into the history (0 = oldest).
  size_t version_index = 0;
};

struct CompatibilityReport {
  CompatibilityMode mode = CompatibilityMode::kBackward;
  SchemaType type = SchemaType::kAvro;
  bool compatible = true;
  /// History indexes checked, in the order checked (newest first).
  std::vector<size_t> checked_versions;
  std::vector<Incompatibility> incompatibilities;
};

/// One schema version, parsed once in the form its type's checker needs. Immutable; cheap to
/// share between checks.
class ParsedSchema {
 public:
  /// Parse `text`: Avro and JSON Schema texts directly; table types read any schema language
  /// the format registry knows (detected from `path`'s extension and the content).
  static Result<std::shared_ptr<const ParsedSchema>> Parse(SchemaType type, std::string_view text,
                                                           std::string_view path = {});
  /// A table schema already in the model: `type` is kTable or kIceberg (anything else is taken
  /// as kTable).
  static std::shared_ptr<const ParsedSchema> FromModel(SchemaType type, schema::SchemaPtr model);
  /// An Avro schema already parsed (by a caller that needed its parsed form first): no second
  /// parse of its text.
  static std::shared_ptr<const ParsedSchema> FromAvro(dialects::avro::AvroSchema avro);

  SchemaType type() const { return type_; }

  ~ParsedSchema();
  class Impl;
  const Impl& impl() const { return *impl_; }
  ParsedSchema(SchemaType type, std::unique_ptr<Impl> impl);

 private:
  SchemaType type_;
  std::unique_ptr<Impl> impl_;
};

using ParsedSchemaPtr = std::shared_ptr<const ParsedSchema>;

/// Can `reader` read everything written with `writer`? Both must be of the same type.
/// Every incompatibility is returned (direction and version index left for the caller).
std::vector<Incompatibility> CheckCanRead(const ParsedSchema& reader, const ParsedSchema& writer,
                                          const CompatibilityOptions& options = {});

/// Check `candidate` against `history` (oldest first) in `mode`, as Confluent does: NONE checks
/// nothing; BACKWARD, FORWARD and FULL check the latest version; the transitive modes check every
/// version, newest first. An empty history is always compatible (a subject's first version).
CompatibilityReport CheckCompatibility(CompatibilityMode mode,
                                       const std::vector<ParsedSchemaPtr>& history,
                                       const ParsedSchema& candidate,
                                       const CompatibilityOptions& options = {});

}  // namespace sluice::evolution
