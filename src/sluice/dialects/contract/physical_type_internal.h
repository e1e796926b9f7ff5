// Reading the SQL type names ODCS contracts put in `physicalType` (VARCHAR(36), BIGINT,
// TIMESTAMP WITH TIME ZONE, ARRAY<STRING>, INTEGER[], ...), and the family each belongs to, so
// the ODCS reader can check it against the logicalType. Not for other modules.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "sluice/schema/type.h"

namespace sluice::dialects::contract::internal {

/// The ODCS logicalType a physical type belongs to, plus the families ODCS has no word for.
enum class TypeFamily : uint8_t {
  kUnknown,  // not recognised
  kString,   // text, char(n), varchar(n), uuid, binary
  kInteger,
  kNumber,  // floating point and decimals
  kBoolean,
  kDate,
  kTimestamp,
  kTime,
  kObject,  // struct and map
  kArray,
  kJson,  // JSON, JSONB, VARIANT: semi-structured, any shape
  kNull,  // VOID
};

struct PhysicalType {
  TypeFamily family = TypeFamily::kUnknown;
  /// The model type, or nullptr when the family is known but the shape is not (JSON, a bare
  /// STRUCT) or the name is not recognised.
  schema::TypePtr type;
  /// For timestamps: whether the name says which kind it is (TIMESTAMPTZ, TIMESTAMP_NTZ) rather
  /// than a bare TIMESTAMP, which is an instant in Spark and a wall-clock time in most databases.
  bool zone_explicit = false;
  /// Why a recognised name was read approximately or not at all ("precision 50 exceeds 38").
  std::string problem;
};

/// Read a physical type name; case-insensitive, whitespace-tolerant. Never fails: unknown names
/// give kUnknown.
PhysicalType ParsePhysicalType(std::string_view text);

/// The family of a model type.
TypeFamily FamilyOf(const schema::Type& type);

/// "string", "integer", ... : the ODCS logicalType word for a family ("json", "null",
/// "unknown" for the others).
std::string_view TypeFamilyName(TypeFamily family);

}  // namespace sluice::dialects::contract::internal
