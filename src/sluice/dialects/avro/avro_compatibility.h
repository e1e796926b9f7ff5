// Avro schema compatibility: can a reader schema decode every datum written with a writer schema?
// The rules, the reported incompatibilities, their messages and their locations are those of
// Apache Avro's Java `org.apache.avro.SchemaCompatibility` (apache/avro main, the checker
// Confluent's registry wraps), including its quirks:
//
//  - Named types match by unqualified name, or by a reader alias equal to the writer's full name,
//    so a namespace-only change is compatible.
//  - Promotions: int to long, float or double; long to float or double; float to double; string
//    to and from bytes. Nothing else.
//  - A reader field with no writer field needs a field default. If it has none but its type is an
//    enum with an enum-level default, Java checks that enum against the writer *record*, which is
//    always a TYPE_MISMATCH (`reader type: ENUM not compatible with writer type: RECORD`).
//  - Logical types are ignored (decimal precision and scale, timestamp units), as in Java and
//    Confluent (AVRO-2078 and AVRO-3408 are open). Default values are not checked here; Parse has
//    already checked them against their types.
//  - Results are memoised per (reader node, writer node), with the pair taken as "compatible" while
//    it is being computed, which is how Java terminates on recursive schemas. A memoised result is
//    reused as is, so an incompatibility reached twice through a shared named type is reported
//    twice with the location of its first computation, exactly as Java does. Inside unions Java
//    checks branches with a fresh location, and only the MISSING_UNION_BRANCH is reported.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "sluice/base/result.h"
#include "sluice/dialects/avro/avro_schema.h"

namespace sluice::dialects::avro {

/// Java's SchemaIncompatibilityType, in Java's order.
enum class AvroIncompatibilityKind : uint8_t {
  kNameMismatch,
  kFixedSizeMismatch,
  kMissingEnumSymbols,
  kReaderFieldMissingDefaultValue,
  kTypeMismatch,
  kMissingUnionBranch,
};

/// Java's spelling of the kind: "NAME_MISMATCH", "READER_FIELD_MISSING_DEFAULT_VALUE", ...
std::string_view AvroIncompatibilityKindName(AvroIncompatibilityKind kind);

/// One reason the reader cannot decode the writer's data, as Java's `Incompatibility` has it.
struct AvroIncompatibility {
  AvroIncompatibilityKind kind = AvroIncompatibilityKind::kTypeMismatch;
  /// Java's getLocation(): a JSON pointer such as "/fields/2/type", "/" for the root.
  std::string location;
  /// Java's getMessage(): "reader type: INT not compatible with writer type: STRING",
  /// "expected: com.acme.User", "expected: 8, found: 4", "[C, D]", the field name, or
  /// "reader union lacking writer type: LONG".
  std::string message;
  /// Java's reader and writer fragments. They point into the schemas that were checked and are
  /// valid as long as those live.
  const AvroNode* reader = nullptr;
  const AvroNode* writer = nullptr;
  /// Short descriptions of the fragments: "int", "record com.acme.User", "union [null, string]".
  /// Empty unless AvroCompatibilityOptions::explain.
  std::string reader_type;
  std::string writer_type;
  /// What to change, in plain words. Empty unless AvroCompatibilityOptions::explain.
  std::string hint;
};

/// The outcome of a check. `compatible` is Java's COMPATIBLE verdict: there is no incompatibility.
struct AvroCompatibility {
  bool compatible = true;
  /// Every incompatibility in Java's order, up to AvroCompatibilityOptions::max_incompatibilities.
  std::vector<AvroIncompatibility> incompatibilities;
  /// How many incompatibilities Java's list holds (saturating); more than the vector's size only
  /// when it was truncated. Memoised results reused through shared named types can make Java's
  /// list grow exponentially with nesting, so the list is kept as a shared tree and cut here.
  uint64_t incompatibility_count = 0;

  bool truncated() const { return incompatibility_count > incompatibilities.size(); }
};

/// Bounds for hostile input. The defaults are far above what real schemas need.
struct AvroCompatibilityOptions {
  /// Incompatibilities listed in the result; the count is still exact (saturating).
  size_t max_incompatibilities = 10'000;
  /// Nested (reader, writer) comparisons on the current path. Java would overflow its stack.
  size_t max_depth = 2'000;
  /// Distinct (reader node, writer node) pairs compared in one check.
  size_t max_pairs = 2'000'000;
  /// Fill reader_type, writer_type and hint. Without them the result holds exactly what Java's
  /// checker reports (kinds, messages, locations, fragments), which is cheaper to build.
  bool explain = true;
};

/// Check that `reader` can decode all data written with `writer`, with Java's rules, and report
/// every incompatibility. Errors (kInvalidArgument, with the location): a reader field that
/// matches more than one writer field through its name and aliases (Java throws
/// AvroRuntimeException), or a pair beyond the depth or size bounds of `options`.
/// Thread-safe: the schemas are only read.
Result<AvroCompatibility> CheckCompatibility(const AvroSchema& reader, const AvroSchema& writer,
                                             const AvroCompatibilityOptions& options = {});

/// The same for two nodes, e.g. a field's type in each schema; locations are relative to them.
Result<AvroCompatibility> CheckCompatibility(const AvroNode& reader, const AvroNode& writer,
                                             const AvroCompatibilityOptions& options = {});

/// Java's schemaNameEquals: the unqualified names are equal, or the reader's aliases (full
/// names) contain the writer's full name. For named nodes only.
bool AvroSchemaNameEquals(const AvroNode& reader, const AvroNode& writer);

}  // namespace sluice::dialects::avro
