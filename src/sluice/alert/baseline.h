// Drift baselines: what a source's schema was when it was last accepted. Two file forms are read:
// sluice's own (docs/drift.md: a JSON object with the schema as Spark StructType JSON, both
// fingerprints, and who recorded it when, from what) and the bare MD5 file of the seed's
// `check_schema_changes` (32 hex digits: the MD5 of PySpark's `schema.json()`), read as is so a
// pipeline switches without a migration. Only sluice's form is written.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "sluice/base/file_system.h"
#include "sluice/base/result.h"
#include "sluice/evolution/drift.h"
#include "sluice/schema/schema.h"

namespace sluice::alert {

struct Baseline {
  /// "file" (sluice's form) or "md5" (the seed's bare hash; `schema` is then null and only
  /// fingerprints.spark_md5 is known).
  std::string kind = "file";
  schema::SchemaPtr schema;
  evolution::DriftFingerprints fingerprints;
  std::string source;       // what it was recorded from
  int64_t recorded_ms = 0;  // when
  std::string recorded_by;  // who (the user name)
  std::string reason;       // "first run", "accepted"
  /// The baseline this one replaced, when --accept moved it (fingerprints and when).
  std::optional<evolution::DriftFingerprints> previous;
  int64_t previous_recorded_ms = 0;
};

/// Read a baseline file; nullopt when it does not exist. kParseError names the path for a file
/// that is neither form.
Result<std::optional<Baseline>> ReadBaselineFile(FileSystem& fs, const std::string& path);

/// The text of a baseline in sluice's form.
std::string BaselineJson(const Baseline& baseline);

/// Write a baseline file atomically (readers see the old or the new one), creating its folder.
Status WriteBaselineFile(FileSystem& fs, const std::string& path, const Baseline& baseline);

/// The user recording a baseline: $SLUICE_USER, else the login name, else the uid.
std::string CurrentUser();

}  // namespace sluice::alert
