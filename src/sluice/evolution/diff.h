// Diff of two schemas down to nested paths: every field added, removed, retyped, re-nulled,
// moved or re-documented, plus rename candidates as hints (never applied).
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sluice/schema/schema.h"

namespace sluice::evolution {

enum class ChangeKind : uint8_t {
  kFieldAdded,
  kFieldRemoved,
  kTypeWidened,   // a lossless promotion, see IsWidening
  kTypeNarrowed,  // the reverse of a widening
  kTypeChanged,   // anything else
  kNullabilityRelaxed,
  kNullabilityTightened,
  kFieldMoved,   // position among the fields both versions share
  kCaseChanged,  // same field (matched ignoring case), new spelling
  kDocChanged,
  kDefaultChanged,
  kMetadataChanged,
};

/// "field_added", "type_widened", ...: the names used in JSON output and docs/cli.md.
std::string_view ChangeKindName(ChangeKind kind);

/// How a change weighs for a consumer of the data. kBreaking: readers or writers of the old shape
/// can fail or misread (removal, narrowing, incompatible retype, tightened nullability, a new
/// NOT NULL field). kCompatible: additive or lossless. kCosmetic: docs, defaults, metadata, order.
enum class ChangeSeverity : uint8_t { kBreaking, kCompatible, kCosmetic };
std::string_view ChangeSeverityName(ChangeSeverity severity);

struct Change {
  schema::FieldPath path;
  ChangeKind kind;
  /// The old and new sides in words: type strings ("int32", "float32 not null"), "nullable" /
  /// "not null", 1-based positions, doc text, JSON of defaults and metadata. Absent for the
  /// side that does not exist (from of an added field, to of a removed one).
  std::optional<std::string> from;
  std::optional<std::string> to;
  /// For added fields: whether the new field is NOT NULL (it decides the severity).
  bool required = false;

  ChangeSeverity severity() const;
};

/// A removal and an addition under the same parent that may be one field renamed.
struct RenameHint {
  schema::FieldPath from;
  schema::FieldPath to;
  std::string reason;  // "same type, similar name" / "same type, same position"
};

struct DiffOptions {
  /// Match field names exactly. By default names match ignoring ASCII case, as Spark and Delta
  /// do, and case-only renames are reported as kCaseChanged.
  bool case_sensitive = false;
};

struct SchemaDiff {
  std::vector<Change> changes;
  std::vector<RenameHint> hints;

  bool empty() const { return changes.empty(); }
  std::map<ChangeKind, int> CountByKind() const;
  int CountBySeverity(ChangeSeverity severity) const;
};

/// Compare `before` with `after`. Fields are matched by name under each parent (structs inside
/// arrays and maps included); changes come in the order of `before`'s fields, with additions
/// after the fields they follow.
SchemaDiff Diff(const schema::Schema& before, const schema::Schema& after,
                const DiffOptions& options = {});

/// True if every value of `from` is exactly representable in `to`: int8 < int16 < int32 < int64,
/// int8/16/32 -> float64, float32 -> float64, decimal(p,s) -> decimal(p',s') with s' >= s and
/// p'-s' >= p-s, date -> timestamp_ntz, char(n)/varchar(n) -> varchar(m >= n) or string,
/// time and timestamp units to a finer unit, and null (void) -> any type.
bool IsWidening(const schema::Type& from, const schema::Type& to);

}  // namespace sluice::evolution
